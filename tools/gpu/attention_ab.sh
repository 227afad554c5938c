# The fused attention kernel's variants on the GPU machine, kernel by kernel: for each variant
# (NAME=ENV, as tools/gpu/env_variants.sh takes them) Nsight Compute times the first $COUNT
# attention launches of one bench model's fp16 run at the machine's real clocks with warm caches
# (--clock-control none --cache-control none), with registers, occupancy and the issue rate.
# Report lines in $OUT/attention_ab.log; the full reports in $OUT/ncu_attn_<name>.txt.
#   OUT=$OUT MODEL=bert:64 VARIANTS="base=;half=MIGRAPHX_GPU_ATTENTION_EXP=half" bash tools/gpu/attention_ab.sh
set -u
root=$(pwd); inst=$root/${INST:-install-gpu}
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
PY=/opt/torch/.venv/bin/python3
[ -n "$NCU" ] || { echo "attention_ab.sh: no ncu on this machine"; exit 1; }
m=${MODEL:-bert:64}; f=/tmp/gb/${m%%:*}_b${m##*:}.onnx
[ -f $f ] || timeout 200 $PY tools/gpu/export_bench_models.py /tmp/gb $m > /dev/null
L=$OUT/attention_ab.log
IFS=';' read -ra vs <<< "${VARIANTS:-base=}"
for v in "${vs[@]}"; do
  name=${v%%=*}; envs=${v#*=}
  r=$OUT/ncu_attn_$name.txt
  env MIGRAPHX_GPU_CACHE_DIR=/tmp/migx-cache-variants $envs timeout ${LIMIT:-150} $NCU --kernel-name regex:attention \
    --launch-skip ${SKIP:-0} --launch-count ${COUNT:-3} --clock-control none --cache-control none \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats \
    $inst/bin/migx_gpu_bench $f --fp16 --runs 1 > $r 2>&1
  echo "== $name ($envs)" >> $L
  grep -E "Duration|Registers Per|Achieved Occupancy|Issued Warp Per Scheduler|Local Memory Spilling" $r >> $L
done
cat $L
