#!/usr/bin/env python3
"""Median-time ratios from the last criterion run, against each group's baseline.

Reads criterion's saved estimates (target/criterion/<group>/<impl>/new/estimates.json). The
baseline of a group is `hand` (a hand-written loop) or, for the `small ...` groups, `static`
(shaped's static path); every ratio compares two medians from the same run.

    python3 ratios.py [GROUP-PREFIX ...]     (from benches/)
"""
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent / "target" / "criterion"
prefixes = sys.argv[1:]


def median_ns(group_dir, impl):
    path = group_dir / impl / "new" / "estimates.json"
    return json.loads(path.read_text())["median"]["point_estimate"] if path.exists() else None


def fmt_ns(ns):
    return f"{ns / 1e6:.2f} ms" if ns >= 1e6 else f"{ns / 1e3:.2f} µs" if ns >= 1e3 else f"{ns:.2f} ns"


rows = []
for group_dir in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "report"):
    name = group_dir.name.replace("_", " ") if group_dir.name.startswith("small") else group_dir.name
    if prefixes and not any(name.startswith(p) for p in prefixes):
        continue
    impls = [p.name for p in group_dir.iterdir() if (p / "new" / "estimates.json").exists()]
    base = "hand" if "hand" in impls else "static" if "static" in impls else None
    if base is None:
        continue
    base_ns = median_ns(group_dir, base)
    for impl in sorted(i for i in impls if i != base):
        ns = median_ns(group_dir, impl)
        rows.append((name, base, base_ns, impl, ns, ns / base_ns))

print("| case | baseline | baseline median | other | other median | other / baseline |")
print("|---|---|---|---|---|---|")
for name, base, base_ns, impl, ns, ratio in rows:
    print(f"| {name} | {base} | {fmt_ns(base_ns)} | {impl} | {fmt_ns(ns)} | {ratio:.3f} |")
