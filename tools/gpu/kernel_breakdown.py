"""Groups Nsight Compute's --csv rows of gpu__time_duration.sum by kernel name (tools/gpu/kernel_breakdown.sh):
count, total and mean microseconds, share of the sum; library kernels (cuBLASLt's nvjet/sm90 gemms,
cuDNN's) by their name's first part.
  python3 kernel_breakdown.py kernels.csv"""
import csv
import io
import sys
from collections import defaultdict

UNIT = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6, "s": 1e6}


def rows(path):
    text = open(path, errors="replace").read()
    start = text.find('"ID"')
    if start < 0:
        raise SystemExit(f"{path}: no ncu csv header")
    return csv.DictReader(io.StringIO(text[start:]))


def group(name):
    base = name.split("(")[0].split("<")[0].strip()
    return base if len(base) <= 70 else base[:70] + "..."


def main():
    total = defaultdict(float)
    count = defaultdict(int)
    for r in rows(sys.argv[1]):
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        us = float(r["Metric Value"].replace(",", "")) * UNIT.get(r["Metric Unit"], 1.0)
        g = group(r["Kernel Name"])
        total[g] += us
        count[g] += 1
    s = sum(total.values())
    print(f"{sum(count.values())} kernels, {s:.1f} us in all")
    print(f"{'kernel':72} {'count':>5} {'total us':>10} {'mean us':>9} {'share':>6}")
    for g in sorted(total, key=total.get, reverse=True):
        print(f"{g:72} {count[g]:5d} {total[g]:10.1f} {total[g] / count[g]:9.2f} {100 * total[g] / s:5.1f}%")


if __name__ == "__main__":
    main()
