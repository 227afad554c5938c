# Load-time check on the GPU machine: ResNet-50 b1 compiled, saved and loaded in fresh processes
# (tests/serialize/mxr_load_time), fp32 and fp16, with MIGRAPHX_TIME_LOAD's breakdown in $OUT.
#   OUT=$OUT bash tools/gpu/load_experiment.sh   (carry install-gpu)
set -u
inst=$(pwd)/${INST:-install-gpu}
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
mkdir -p /tmp/gb
[ -f /tmp/gb/resnet50_b1.onnx ] || /opt/torch/.venv/bin/python3 tools/gpu/export_bench_models.py /tmp/gb resnet50:1 > /dev/null 2>&1
for f in 0 1; do
  echo "=== fp16=$f"
  rm -rf /tmp/w$f; mkdir -p /tmp/w$f
  MIGRAPHX_TIME_LOAD=1 timeout 200 $inst/bin/mxr_load_time /tmp/gb/resnet50_b1.onnx /tmp/w$f --target gpu \
    --loads ${LOADS:-3} --max-ratio 0.1 --fp16 $f > $OUT/load_fp16_$f.log 2>&1
  echo "rc=$?"
  grep -E "end_finalize|^compile|^load |load median|cold:|libraries started:|PASS|FAIL" $OUT/load_fp16_$f.log | cut -c1-220
done
