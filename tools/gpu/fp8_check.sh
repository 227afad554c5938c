# quantize_fp8 on the GPU machine: the device tests of the fp8 paths (fuse_fp8's cuBLASLt e4m3
# products, the generated kernels' fp8 casts, the gemm and int8 paths they share code with), then
# BERT-base fp16 and fp16+fp8 beside PyTorch fp16 (bench/gpu/run.py: time, and accuracy against
# eager fp32). Logs under $OUT.
#   OUT=$OUT [RUNS=100] [BATCHES=1,64] [UNIT_FILTER=...] bash tools/gpu/fp8_check.sh
set -uo pipefail
inst=$PWD/install-gpu
. tools/gpu/device_env.sh
PY=/opt/torch/.venv/bin/python3
OUT=${OUT:-/tmp/fp8-check}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt" 2>&1
cat "$inst/BUILT_FROM" >> "$OUT/gpu.txt" 2>/dev/null
filter=${UNIT_FILTER:-'gpu_fuse_fp8*:gpu_codegen*:gpu_gemm*:gpu_pointwise*:gpu_fuse_int8*:gpu_half*'}
timeout 300 "$inst/bin/migx_unit_tests" --gtest_brief=1 --gtest_filter="$filter" > "$OUT/unit.log" 2>&1
echo "unit rc=$?" >> "$OUT/unit.log"
tail -3 "$OUT/unit.log"
timeout 420 $PY bench/gpu/run.py --migx "$inst/bin/migx_gpu_bench" --work /tmp/gb --out "$OUT/bench.md" \
  --models bert --batches "bert=${BATCHES:-1,64}" --precisions fp16,fp16+fp8 --compile "bert:1:fp16" \
  --runs "${RUNS:-100}" > "$OUT/bench.log" 2>&1
echo "bench rc=$?" >> "$OUT/bench.log"
cat "$OUT/bench.md" 2>/dev/null
