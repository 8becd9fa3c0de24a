#!/usr/bin/env python3
"""Prints shaped/hand median-time ratios from the last `cargo bench --bench static_kernels`.

Reads criterion's saved estimates (target/criterion/<case>/<impl>/new/estimates.json); both
sides of each ratio come from the same run.
"""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
cases = ["4x4+4x4", "4x4+1x4", "4x4+4x1", "3x1+1x3", "2x3x4+1x3x1", "2x3x4+4"]


def median_ns(case, impl):
    path = root / case / impl / "new" / "estimates.json"
    return json.loads(path.read_text())["median"]["point_estimate"]


print("| case | hand loop (ns, median) | shaped (ns, median) | shaped / hand |")
print("|---|---|---|---|")
worst = 0.0
for case in cases:
    hand, shaped = median_ns(case, "hand"), median_ns(case, "shaped")
    worst = max(worst, shaped / hand)
    print(f"| {case} | {hand:.2f} | {shaped:.2f} | {shaped / hand:.3f} |")
print(f"\nworst ratio: {worst:.3f}")
