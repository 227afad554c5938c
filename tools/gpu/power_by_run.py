#!/usr/bin/env python3
"""The GPU's clock and power while each engine of bert_floor.py ran: joins bert_floor's log
(lines ending "[start end]", Unix seconds) with nvidia-smi samples taken meanwhile by
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw.instant,clocks_event_reasons.sw_power_cap \\
             --format=csv,noheader,nounits -lms 50 > smi.csv
and prints, per line of the log, the median SM clock, median and max power and the share of
samples with the software power cap active over the line's last CALLS x its median time (its
timed calls: a line's span also holds its set-up, migx's compile or a graph's capture; a migx
line's span is migx_gpu_bench's own timed runs). nvidia-smi's power.draw is a moving average over
about a second, too slow for runs this short (bert_limits.sh asks for power.draw.instant where the
driver has it); the clock column is what the card ran at. (nvidia-smi refreshes its readings
about every 100 ms, so 50 ms samples come in repeated pairs: the count is of samples, not readings.)

usage: power_by_run.py floor.log smi.csv CALLS   (CALLS: bert_floor's --runs plus --warmup)
"""
import datetime
import math
import re
import statistics
import sys


def samples(path):
    out = []
    for line in open(path):
        f = [x.strip() for x in line.split(",")]
        if len(f) < 4:
            continue
        try:
            t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
            out.append((t, float(f[1]), float(f[2]), f[3] == "Active"))
        except ValueError:
            continue
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    calls = int(sys.argv[3])
    s = samples(sys.argv[2])
    print("| run | ms | samples | SM MHz (median) | W (median / max) | power cap active |")
    print("|---|---|---|---|---|---|")
    for line in open(sys.argv[1]):
        m = re.match(r"(round \d+ .+): ([0-9.na]+) ms \[([0-9.]+) ([0-9.]+)\]", line.strip())
        if not m:
            continue
        b = float(m.group(4))
        ms = float(m.group(2))
        if math.isnan(ms):  # the run failed
            continue
        a = max(float(m.group(3)), b - calls * ms / 1000.0)
        inside = [x for x in s if a <= x[0] <= b]
        if not inside:
            print(f"| {m.group(1)} | {m.group(2)} | 0 | | | |")
            continue
        clk = statistics.median(x[1] for x in inside)
        pw = [x[2] for x in inside]
        cap = sum(x[3] for x in inside) / len(inside)
        print(f"| {m.group(1)} | {m.group(2)} | {len(inside)} | {clk:.0f} | {statistics.median(pw):.0f} / "
              f"{max(pw):.0f} | {100 * cap:.0f} % |")


if __name__ == "__main__":
    main()
