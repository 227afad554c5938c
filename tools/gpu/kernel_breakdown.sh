# Every kernel of one bench model's fp16 run on the GPU machine, timed by Nsight Compute at the
# machine's real clocks with warm caches (--clock-control none --cache-control none; each kernel
# alone, so no overlap, idle time or clock drop under sustained load is in the sums). A first
# migx_gpu_bench run without ncu fills the kernel and tuning caches, so that the profiled one
# (--warmup 0 --runs 1: its first run, instruction by instruction) launches no search kernels.
# Writes $OUT/kernels_<model>_b<batch>.csv (ncu's raw rows) and prints the kernels grouped by name
# (tools/gpu/kernel_breakdown.py): count, total and mean microseconds, share of the sum.
#   OUT=$OUT MODEL=bert:64 [FLAGS="--fp16 --fp8"] bash tools/gpu/kernel_breakdown.sh
set -u
root=$(pwd); inst=$root/${INST:-install-gpu}
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
PY=/opt/torch/.venv/bin/python3
[ -n "$NCU" ] || { echo "kernel_breakdown.sh: no ncu on this machine"; exit 1; }
m=${MODEL:-bert:64}; f=/tmp/gb/${m%%:*}_b${m##*:}.onnx
[ -f $f ] || timeout 200 $PY tools/gpu/export_bench_models.py /tmp/gb $m > /dev/null
timeout 300 $inst/bin/migx_gpu_bench $f ${FLAGS:---fp16} --runs 20 | tail -1
csv=$OUT/kernels_${m%%:*}_b${m##*:}.csv
timeout ${LIMIT:-300} $NCU --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
  $inst/bin/migx_gpu_bench $f ${FLAGS:---fp16} --warmup 0 --runs 1 > $csv 2> $OUT/kernels_ncu.err
$PY tools/gpu/kernel_breakdown.py $csv
