# Where gpu int8 time goes (GPU machine, carried install-gpu; logs in $OUT): per-instruction perf
# reports of ResNet-50 b32 in fp16, int8+fp16 with int8 residual streams and every convolution
# int8 (check off), and the same with quantize_int8's accuracy check (MIGRAPHX_TRACE_CUDNN=1: each
# int8 problem's engine timings); then BERT-base int8 products (cuBLASLt int8 gemm): accuracy and
# speed at b1 and b64 against fp16.   OUT=$OUT bash tools/gpu/int8_where.sh
set -u
inst=$PWD/install-gpu; . "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
PY=/opt/torch/.venv/bin/python3; D=$inst/bin/migraphx-driver; B=$inst/bin/migx_gpu_bench
for m in ${MODELS:-resnet50:32 bert:1 bert:64}; do
  [ -f /tmp/gb/${m%%:*}_b${m##*:}.onnx ] || timeout 120 $PY tools/gpu/export_bench_models.py /tmp/gb $m >> $OUT/export.log 2>&1
done
for v in "fp16:--fp16" "int8all:--fp16 --int8 --int8-residuals --int8-min-cosine 0" "int8res:--fp16 --int8 --int8-residuals"; do
  n=${v%%:*}; echo "== perf $n $(date +%T)" >> $OUT/steps.log
  MIGRAPHX_TRACE_CUDNN=1 timeout 200 $D perf --gpu ${v#*:} --onnx /tmp/gb/resnet50_b32.onnx -n 20 > $OUT/perf_$n.log 2>&1
  echo "-- rc=$? $(date +%T)" >> $OUT/steps.log
done
step() { echo "== $* $(date +%T)" >> $OUT/steps.log; timeout -k 5 $1 "${@:2}" >> $OUT/steps.log 2>&1; echo "-- rc=$? $(date +%T)" >> $OUT/steps.log; }
step 200 $inst/bin/migx_quant_accuracy /tmp/gb/bert_b1.onnx --target gpu --calib 16 --eval 4 --runs 20 --int8-fp16 --time-fp16
for r in 1 2; do step 100 $B /tmp/gb/bert_b64.onnx --fp16 --runs 200; step 200 $B /tmp/gb/bert_b64.onnx --fp16 --int8 --calib 4 --runs 200; done
true
