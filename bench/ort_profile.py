#!/usr/bin/env python3
"""Sums an ONNX Runtime profile (bench/ort_bench.js with "profile_prefix") by operator type.

  ort_profile.py PROFILE.json [--runs N]

Prints each operator type's total ms per run (the profile's node events over all runs it holds,
divided by N, the number of timed runs plus warm-ups the profile covers; default: the number of
model_run events), its share, and its node count per run, largest first: the ORT side of a
per-operator comparison with `migraphx-driver perf --cpu`'s Summary.
"""
import argparse
import collections
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profile")
    ap.add_argument("--runs", type=int, default=0)
    a = ap.parse_args()
    with open(a.profile) as f:
        events = json.load(f)
    runs = a.runs or sum(1 for e in events if e.get("cat") == "Session" and e.get("name") == "model_run")
    runs = max(runs, 1)
    total = collections.Counter()
    count = collections.Counter()
    for e in events:
        if e.get("cat") != "Node" or not e.get("name", "").endswith("_kernel_time"):
            continue
        op = e.get("args", {}).get("op_name", "?")
        total[op] += e.get("dur", 0) / 1000.0
        count[op] += 1
    whole = sum(total.values())
    print(f"{runs} runs; node time per run {whole / runs:.2f} ms")
    for op, ms in total.most_common():
        print(f"{op}: {ms / runs:.3f} ms, {100 * ms / whole:.1f} %, {count[op] / runs:.0f} nodes")


if __name__ == "__main__":
    main()
