#!/usr/bin/env bash
# Counts the machine instructions of each shaped_* and hand_* function in the very binary
# that `cargo bench --bench static_kernels` times (disassembled with objdump; x86-64).
# Also says whether the two bodies are identical up to addresses.
set -euo pipefail
cd "$(dirname "$0")"  # the benches crate: its own target/
cargo bench -q --bench static_kernels --no-run 2>/dev/null
bin=$(ls -t target/release/deps/static_kernels-* | grep -v '\.d$' | head -1)
objdump -d --no-show-raw-insn -C "$bin" | python3 -c '
import re, sys
bodies, cur = {}, None
for line in sys.stdin:
    m = re.match(r"^[0-9a-f]+ <static_kernels::((?:shaped|hand)_[0-9x_]+)>:$", line)
    if m:
        cur = m.group(1); bodies[cur] = []; continue
    if cur and not line.strip():
        cur = None; continue
    if cur:
        ins = line.split("\t", 1)[-1].strip()
        if re.match(r"(nop|cs nop|data16|xchg +%ax,%ax|int3)", ins):
            continue  # alignment padding after the return
        bodies[cur].append(re.sub(r"[0-9a-f]+ <[^>]*>|0x[0-9a-f]+\(%rip\)", "ADDR", ins))
print("| case | hand-written | shaped | same code |")
print("|---|---|---|---|")
for c in sorted({k.split("_", 1)[1] for k in bodies}):
    h, s = bodies.get("hand_" + c, []), bodies.get("shaped_" + c, [])
    same = "yes" if h == s else "no"
    name = c.replace("_", "+")
    print(f"| {name} | {len(h)} | {len(s)} | {same} |")
'
