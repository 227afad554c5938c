# Environment variants of one carried install on the GPU machine, alternating in one call so that
# machine and clock drift fall on all: for each model, ROUNDS rounds of
# `migx_gpu_bench MODEL --runs RUNS $FLAGS` under each variant in turn; prints each run's median
# and its ratio to the first variant's in the same round (< 1: faster). The variants share one
# kernel and tuning cache, so every variant runs the same gemm and convolution choices and only
# what the variables change differs (a generated kernel's source, hence its cache entry).
#   OUT=$OUT INST=install-gpu MODELS="bert:64 bert:1" ROUNDS=3 \
#     VARIANTS="base=;ln8=MIGRAPHX_GPU_LAYERNORM_BLOCKS=8;nofold=MIGRAPHX_DISABLE_LAYERNORM_FOLDS=1" \
#     bash tools/gpu/env_variants.sh
# A variant is NAME=ENV (ENV: space-separated VAR=value, may be empty; a word starting with "--" is
# a flag of migx_gpu_bench for that variant, e.g. "ex=--exhaustive-tune"); variants are separated
# by ';'. Each run's compile time follows its median in brackets (the first round's includes the
# searches; later rounds read the tuning cache).
set -u
root=$(pwd); inst=$root/${INST:-install-gpu}
PY=/opt/torch/.venv/bin/python3
L=$OUT/variants.log
IFS=';' read -ra vs <<< "${VARIANTS:-base=}"
for m in ${MODELS:-bert:64}; do
  f=/tmp/gb/${m%%:*}_b${m##*:}.onnx
  [ -f $f ] || timeout 200 $PY tools/gpu/export_bench_models.py /tmp/gb $m >> $OUT/export.log 2>&1
  for r in $(seq ${ROUNDS:-3}); do
    line="$m round $r:"; first=""
    for v in "${vs[@]}"; do
      name=${v%%=*}; envs=""; vflags=""
      for w in ${v#*=}; do case $w in --*) vflags="$vflags $w";; *) envs="$envs $w";; esac; done
      ( export MIGRAPHX_GPU_CACHE_DIR=/tmp/migx-cache-variants
        . "$root/tools/gpu/device_env.sh"
        env $envs timeout ${VARIANT_TIMEOUT:-200} $inst/bin/migx_gpu_bench $f --runs ${RUNS:-200} ${FLAGS:---fp16} $vflags ) > /tmp/variant.txt 2>&1
      med=$(grep -o 'median_ms=[0-9.]*' /tmp/variant.txt | cut -d= -f2)
      cms=$(grep -o 'compile_ms=[0-9.]*' /tmp/variant.txt | cut -d= -f2)
      [ -n "$med" ] || { echo "$m $name failed:"; tail -3 /tmp/variant.txt; } >> $L
      [ -n "$first" ] || first=${med:-0}
      line="$line $name ${med:-?} ($(awk -v a=$first -v b=${med:-0} 'BEGIN { if (a > 0) printf "%.3f", b / a; else print "?" }')) [compile ${cms:-?} ms]"
    done
    echo "$line" >> $L
  done
done
cat $L
