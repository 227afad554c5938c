# A/B of two carried installs (or of one install under two environments) on the GPU machine,
# alternating in one call so that machine and clock drift fall on both: for each model, ROUNDS
# rounds of `migx_gpu_bench MODEL --runs RUNS $FLAGS` with side A then side B; prints each run's
# median and the B/A ratio per round. Each side has a kernel and tuning cache of its own, so
# neither reads the other's measured choices.
#   OUT=$OUT A=install-gpu-old B=install-gpu MODELS="bert:1 bert:64 resnet50:1" \
#     [ENV_A="VAR=value ..."] [ENV_B=...] [ROUNDS=3] [RUNS=200] [FLAGS=--fp16] bash tools/gpu/ab_installs.sh
# Models are exported with the machine's PyTorch into /tmp/gb (tools/gpu/export_bench_models.py)
# where missing. Both installs must be carried (`carry: ["install-gpu-old", "install-gpu"]`).
set -u
root=$(pwd)
PY=/opt/torch/.venv/bin/python3
L=$OUT/ab.log
for m in ${MODELS:-bert:1}; do
  f=/tmp/gb/${m%%:*}_b${m##*:}.onnx
  [ -f $f ] || timeout 200 $PY tools/gpu/export_bench_models.py /tmp/gb $m >> $OUT/export.log 2>&1
  for r in $(seq ${ROUNDS:-3}); do
    line="$m round $r:"
    for side in A B; do
      inst=$root/${!side}
      envs=ENV_$side
      ( export MIGRAPHX_GPU_CACHE_DIR=/tmp/migx-cache-$side
        . "$root/tools/gpu/device_env.sh"
        env ${!envs:-} timeout 200 $inst/bin/migx_gpu_bench $f --runs ${RUNS:-200} ${FLAGS:---fp16} ) > /tmp/ab_$side.txt 2>&1
      med=$(grep -o 'median_ms=[0-9.]*' /tmp/ab_$side.txt | cut -d= -f2)
      [ -n "$med" ] || { echo "$m $side failed:"; tail -3 /tmp/ab_$side.txt; } >> $L
      line="$line $side ${med:-?}"
      eval "t_$side=${med:-0}"
    done
    echo "$line B/A $(awk -v a=$t_A -v b=$t_B 'BEGIN { if (a > 0) printf "%.3f", b / a; else print "?" }')" >> $L
  done
done
cat $L
