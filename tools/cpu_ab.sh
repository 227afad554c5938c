#!/bin/bash
# A/B of two environments of migraphx-driver's cpu target on one model, alternating in fresh
# processes so that the box's drifting speed falls on both: ROUNDS pairs of `perf --cpu -n N`,
# variant A then B; prints each pair's minimum and median times and their ratios A/B, then the
# median of the pairs' ratios.
#   tools/cpu_ab.sh MODEL.onnx|NAME ROUNDS "ENV_A" "ENV_B"      (NAME: bench/models/NAME/model.onnx)
#   e.g. N=60 tools/cpu_ab.sh mobilenetv2 14 "X=1" "MIGRAPHX_DISABLE_PASSES=cpu::plan_memory"
# DRIVER (default build/src/migraphx-driver), N (default 20), THREADS (default 2), INPUT (NAME=FILE.pb:
# the model's input, for models whose work depends on their data, e.g. detectors; else generated).
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
m=$1; rounds=$2; A=$3; B=$4
D=${DRIVER:-$root/build/src/migraphx-driver}
f=$m; [ -f "$m" ] || f=$root/bench/models/$m/model.onnx
for r in $(seq "$rounds"); do
  for v in A B; do
    t=$(env ${!v} OMP_NUM_THREADS=${THREADS:-2} "$D" perf --cpu --onnx "$f" ${INPUT:+--input "$INPUT"} -n "${N:-20}" 2>&1 |
        grep "Total time" | sed 's/.*Min: \([0-9.]*\)ms, Median: \([0-9.]*\)ms.*/\1 \2/')
    echo -n "$t "
  done
  echo
done | /usr/bin/python3 -c '
import statistics, sys
mins, meds = [], []
for line in sys.stdin:
    a_min, a_med, b_min, b_med = map(float, line.split())
    mins.append(a_min / b_min); meds.append(a_med / b_med)
    print(f"A {a_min}/{a_med}  B {b_min}/{b_med}  A/B min {mins[-1]:.3f} med {meds[-1]:.3f}")
print(f"paired A/B: min-ratio median {statistics.median(mins):.3f}, "
      f"median-ratio median {statistics.median(meds):.3f} ({len(mins)} pairs)")'
