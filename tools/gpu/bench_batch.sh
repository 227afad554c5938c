# Diagnostic batch for the gpu benchmark (bench/gpu/run.py): every step under a timeout, every
# log written to $OUT as it goes.
set -u
root=$(pwd); inst=$root/install-gpu
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
PY=/opt/torch/.venv/bin/python3
B=$inst/bin/migx_gpu_bench
L=$OUT/steps.log
step() { local t=$1; shift; echo "== $* (limit ${t}s)" >> $L; timeout -k 5 $t "$@" >> $L 2>&1; echo "-- rc=$?" >> $L; }
[ -n "${UNIT:-}" ] && step 300 $inst/bin/migx_unit_tests --gtest_filter="$UNIT"
step 120 $PY tools/gpu/export_bench_models.py /tmp/gb ${EXPORTS:-resnet50:1 resnet50:32}
for v in ${VARIANTS-MIGX_DEFAULT=1 MIGRAPHX_DISABLE_CUDA_GRAPH=1 MIGRAPHX_DISABLE_NHWC=1 MIGRAPHX_DISABLE_CONV_FUSION=1}; do
  step 60 env $v MIGRAPHX_TRACE_CUDA_GRAPH=1 $B /tmp/gb/resnet50_b32.onnx --fp16 --runs 50
  step 60 env $v MIGRAPHX_TRACE_CUDA_GRAPH=1 $B /tmp/gb/resnet50_b1.onnx --fp16 --runs 100
done
[ -n "${VERIFY:-}" ] && step 60 $inst/bin/migraphx-driver verify --gpu --fp16 --onnx /tmp/gb/resnet50_b1.onnx
if [ -n "${PERF:-}" ]; then
  for f in $PERF; do
    echo "== perf $f" >> $OUT/perf.log
    timeout 60 $inst/bin/migraphx-driver perf --gpu --fp16 --onnx $f -n 10 2>&1 | sed -n "/^Summary/,\$p" | head -25 >> $OUT/perf.log
  done
fi
[ -n "${RUNPY:-}" ] && step ${RUNPY_LIMIT:-330} $PY bench/gpu/run.py --migx $B --work /tmp/gb --out $OUT/bench.md $RUNPY
true
