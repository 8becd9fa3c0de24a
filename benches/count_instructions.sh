#!/usr/bin/env bash
# Counts the machine instructions of each shaped and hand-written kernel in the very binary
# that `cargo bench --bench <name>` times (disassembled with objdump; x86-64).
#
#   ./count_instructions.sh                 # static_kernels: shaped_X against hand_X
#   ./count_instructions.sh matmul          # matmul: shaped_matmul_X against hand::*_X
#
# For static_kernels it also says whether the two bodies are identical up to addresses. Where
# `llvm-mca` is installed it adds the cycles it models for one call (`znver3`, the body
# repeated 100 times, so independent calls overlap as they do in criterion's loop): timing
# cannot resolve the single cycles between these 2-9 ns functions on a shared machine.
set -euo pipefail
cd "$(dirname "$0")"  # the benches crate: its own target/
bench=${1:-static_kernels}
cargo bench -q --bench "$bench" --no-run 2>/dev/null
bin=$(ls -t target/release/deps/"$bench"-* | grep -v '\.d$' | head -1)
mca=$(command -v llvm-mca || true)
objdump -d --no-show-raw-insn -C "$bin" | BENCH="$bench" MCA="$mca" python3 -c '
import os, re, subprocess, sys
bench, mca = os.environ["BENCH"], os.environ["MCA"]
# static_kernels: shaped_<case> and hand_<case>. matmul: shaped_matmul_<case> and
# hand::<variant>_<case>, the case being the trailing MxKxN.
name = re.compile(r"^[0-9a-f]+ <" + bench + r"::((?:shaped|hand)[:_][0-9a-z_:]+)>:$")
bodies, cur = {}, None
for line in sys.stdin:
    m = name.match(line)
    if m:
        cur = m.group(1); bodies[cur] = []; continue
    if cur and not line.strip():
        cur = None; continue
    if cur:
        ins = line.split("\t", 1)[-1].strip()
        if re.match(r"(nop|cs nop|data16|xchg +%ax,%ax|int3)", ins):
            continue  # alignment padding after the return
        bodies[cur].append(re.sub(r"[0-9a-f]+ <[^>]*>|0x[0-9a-f]+\(%rip\)", "ADDR", ins))

def cycles(body):
    if not mca:
        return ""
    text = "\n".join(i for i in body if i != "ret") + "\n"
    out = subprocess.run([mca, "-mcpu=znver3", "-iterations=100"], input=text,
                         capture_output=True, text=True).stdout
    m = re.search(r"Total Cycles:\s+(\d+)", out)
    return f"{int(m.group(1)) / 100:.2f}" if m else "?"

if bench == "static_kernels":
    print("| case | hand-written | shaped | same code |")
    print("|---|---|---|---|")
    for c in sorted({k.split("_", 1)[1] for k in bodies}):
        h, s = bodies.get("hand_" + c, []), bodies.get("shaped_" + c, [])
        same = "yes" if h == s else "no"
        print(f"| {c.replace(chr(95), chr(43))} | {len(h)} | {len(s)} | {same} |")
else:
    print("| case | function | instructions | cycles a call (llvm-mca) |")
    print("|---|---|---|---|")
    key = lambda f: (f.rsplit("_", 1)[-1], f)
    for f in sorted((f for f in bodies if re.search(r"_\d+x\d+x\d+$", f)), key=key):
        print(f"| {key(f)[0]} | {f} | {len(bodies[f])} | {cycles(bodies[f]) or chr(45)} |")
'
