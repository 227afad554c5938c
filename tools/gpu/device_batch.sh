# One batch on the GPU machine, steps chosen by $STEPS, each under its own time limit, logs in $OUT
# as they come (steps.log; bench.md for the benchmark table). Needs the relocatable install made by
# tools/gpu/make_install.sh, carried (`carry: ["install-gpu"]`). Builds nothing.
#   OUT=$OUT STEPS="unit export bench load verify" bash tools/gpu/device_batch.sh
# Steps:
#   unit     gpu unit tests ($UNIT filter, default gpu*:replay*)
#   export   ResNet-50 b1/b32 ONNX exports into /tmp/gb with the machine's PyTorch
#   bench    bench/gpu/run.py ($RUNPY: its options; the table goes to $OUT/bench.md)
#   load     compile, save, load in fresh processes, fp32 then fp16 (LOAD_FP16="0": fp32 only): tests/serialize/mxr_load_time (--max-ratio 0.1),
#            with MIGRAPHX_TIME_LOAD=1 showing where a load's time goes
#   verify   migraphx-driver verify --gpu --fp16 on ResNet-50 b1
#   perf     migraphx-driver perf --gpu $PERF_FLAGS (default --fp16) per-instruction reports ($PERF_MODELS, default
#            "resnet50:1 resnet50:32"; exported first where missing; PERF_FULL=1 keeps every line)
#   python   tools/gpu/python_gpu_check.sh (the Python module built there; spec programs on gpu)
#   firstuse tools/gpu/conv_first_use.cpp (built into the install by make_install.sh): each legacy
#            cuDNN algorithm's first use in a fresh process on the fp32 ResNet-50 problems whose
#            loaded checks were slow (bench/results/2026-12-04-session20.md), and a fast one
#   startab  fp32 ResNet-50 b1 with MIGRAPHX_CUDNN_START_MARGIN=0 (the fastest algorithm always) and the
#            default (start_cost.hpp): .mxr load/compile each, the first-query times the search saw
#            (MIGRAPHX_TRACE_CUDNN, algorithms kept marked), and $STARTAB_ROUNDS (default 3) rounds of
#            migx_gpu_bench --runs 300 alternately (what the quicker starters cost a run)
#   gap      BERT-base b64 fp16: migx_gpu_bench --runs 20 / 200 / 1000 and driver perf -n 20 / 200 on the
#            same file, alternately (session 20: perf's total 2.665 ms against the bench's 2.93 ms:
#            run count, clocks under sustained load, or the inputs?)
#   variants tools/gpu/env_variants.sh with $VARIANTS (default: the base, layernorm at 8 blocks, the
#            layernorm folds off) on $VARIANT_MODELS (default bert:64), $VARIANT_ROUNDS
#            rounds (default 2)
#   gemmvar  BERT-base b64 fp16 under the gemm search's settings (base; 32 candidates; random data; both),
#            $VARIANT_ROUNDS rounds alternately (env_variants.sh), then each setting's search once more with
#            MIGRAPHX_TRACE_GEMM_SEARCH=1 in a cache of its own ($OUT/gemmtrace_<name>.txt: every candidate's
#            configuration and time; GEMM_TRACE=0 skips it)
#   gemmab   after gemmvar: the base and gemmvar's fastest setting (mean ratio over its rounds in variants.log),
#            each under bench/gpu/run.py against PyTorch eager (BERT-base b64 fp16, --runs $GEMMAB_RUNS, default
#            100), $GEMMAB_ROUNDS rounds (default 1) alternately ($OUT/gemmab_<name>_<round>.md), in gemmvar's cache;
#            GEMMAB_ALL=1 (or no gemmvar before it): all four settings; GEMMAB_SETTINGS="base c32rnd": those
#   int8     $INT8_MODEL (default resnet50:32): fp16 and int8+fp16 (quantize_fp16, then quantize_int8
#            on 16 random batches; $INT8_FLAGS more, e.g. --int8-residuals --calib 4) alternately,
#            $INT8_ROUNDS (default 3) rounds of migx_gpu_bench --runs 200, and fp16 once more
#   int8acc  migx_quant_accuracy --target gpu --calib 16 on $INT8_MODELS (default resnet50:1
#            mobilenetv2:1 bert:1): fp32, fp16, int8, int8+fp16 cosine vs fp32, timed alternately
#            ($INT8ACC_FLAGS: other options)
set -u
root=$(pwd); inst=$root/${INST:-install-gpu}
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
PY=/opt/torch/.venv/bin/python3
B=$inst/bin/migx_gpu_bench
L=$OUT/steps.log
step() { local t=$1; shift; echo "== $* (limit ${t}s) $(date +%T)" >> $L; timeout -k 5 $t "$@" >> $L 2>&1; echo "-- rc=$? $(date +%T)" >> $L; }
for s in ${STEPS:-unit export bench}; do
  case $s in
    unit) step ${UNIT_LIMIT:-200} $inst/bin/migx_unit_tests --gtest_filter="${UNIT:-gpu*:replay*}" ;;
    export) [ -f /tmp/gb/resnet50_b32.onnx ] || step 120 $PY tools/gpu/export_bench_models.py /tmp/gb ${EXPORT_MODELS:-resnet50:1 resnet50:32} ;;
    bench) step ${RUNPY_LIMIT:-330} $PY bench/gpu/run.py --migx $B --work /tmp/gb --out $OUT/bench.md ${RUNPY:-} ;;
    load) for f in ${LOAD_FP16:-0 1}; do mkdir -p /tmp/mxrw$f && step 240 env MIGRAPHX_TIME_LOAD=1 $inst/bin/mxr_load_time \
            /tmp/gb/resnet50_b1.onnx /tmp/mxrw$f --target gpu --loads 3 --max-ratio 0.1 --fp16 $f; done ;;
    startab) f=/tmp/gb/resnet50_b1.onnx; for m in 0 5; do mkdir -p /tmp/mxrs$m
            step 240 env MIGRAPHX_CUDNN_START_MARGIN=$m MIGRAPHX_TIME_LOAD=2 $inst/bin/mxr_load_time $f /tmp/mxrs$m \
              --target gpu --loads 3 --max-ratio 0.1 --fp16 0; done
          echo "== trace compile $(date +%T)" >> $L
          timeout 180 env MIGRAPHX_TRACE_CUDNN=1 MIGRAPHX_GPU_TUNING_CACHE=off $inst/bin/migraphx-driver compile --gpu \
            --onnx $f > /dev/null 2> /tmp/startab_trace.log
          grep -E "first query|solution_id" /tmp/startab_trace.log > $OUT/startab_trace.txt
          for r in $(seq ${STARTAB_ROUNDS:-3}); do for m in 0 5; do
            step 120 env MIGRAPHX_CUDNN_START_MARGIN=$m $B $f --runs 300; done; done ;;
    gap) f=/tmp/gb/bert_b64.onnx; [ -f $f ] || step 200 $PY tools/gpu/export_bench_models.py /tmp/gb bert:64
          for r in 1 2; do for n in 20 200 1000; do step 120 $B $f --fp16 --runs $n; done
            for n in 20 200; do timeout 180 $inst/bin/migraphx-driver perf --gpu --fp16 --onnx $f -n $n 2>&1 \
              | grep -E "^(Total time|Rate)" | sed "s/^/perf -n $n: /" >> $L; done; done ;;
    variants) OUT=$OUT INST=${INST:-install-gpu} MODELS="${VARIANT_MODELS:-bert:64}" ROUNDS=${VARIANT_ROUNDS:-2} \
            VARIANTS="${VARIANTS:-base=;ln8=MIGRAPHX_GPU_LAYERNORM_BLOCKS=8;nofold=MIGRAPHX_DISABLE_LAYERNORM_FOLDS=1}" \
            timeout ${VARIANTS_LIMIT:-420} bash tools/gpu/env_variants.sh > /dev/null 2>&1 ;;
    gemmvar) gv="base=;c32=MIGRAPHX_GPU_GEMM_CANDIDATES=32;rnd=MIGRAPHX_GPU_GEMM_SEARCH_DATA=random;c32rnd=MIGRAPHX_GPU_GEMM_CANDIDATES=32 MIGRAPHX_GPU_GEMM_SEARCH_DATA=random"
          OUT=$OUT INST=${INST:-install-gpu} MODELS=bert:64 ROUNDS=${VARIANT_ROUNDS:-2} VARIANTS="$gv" \
            timeout ${VARIANTS_LIMIT:-300} bash tools/gpu/env_variants.sh > /dev/null 2>&1
          IFS=';' read -ra gvs <<< "$gv"
          [ "${GEMM_TRACE:-1}" = 1 ] && for v in "${gvs[@]}"; do ( export MIGRAPHX_GPU_CACHE_DIR=/tmp/migx-cache-trace-${v%%=*}
              env ${v#*=} MIGRAPHX_TRACE_GEMM_SEARCH=1 timeout 60 $B /tmp/gb/bert_b64.onnx --fp16 --runs 20 ) \
              > $OUT/gemmtrace_${v%%=*}.txt 2>&1; done ;;
    gemmab) [ -f $OUT/variants.log ] || GEMMAB_ALL=1
          best=$($PY - $OUT/variants.log <<'PYEOF'
import re, sys, collections
r = collections.defaultdict(list)
for l in open(sys.argv[1]):
    for name, ratio in re.findall(r"(\w+) [0-9.?]+ \(([0-9.]+)\)", l):
        r[name].append(float(ratio))
print(min(r, key=lambda k: sum(r[k]) / len(r[k])) if r else "base")
PYEOF
)
          gv="base=;c32=MIGRAPHX_GPU_GEMM_CANDIDATES=32;rnd=MIGRAPHX_GPU_GEMM_SEARCH_DATA=random;c32rnd=MIGRAPHX_GPU_GEMM_CANDIDATES=32 MIGRAPHX_GPU_GEMM_SEARCH_DATA=random"
          echo "gemmab: fastest setting in variants.log: $best" >> $L
          IFS=';' read -ra gvs <<< "$gv"
          for r in $(seq ${GEMMAB_ROUNDS:-1}); do for v in "${gvs[@]}"; do n=${v%%=*}
            if [ -n "${GEMMAB_SETTINGS:-}" ]; then [[ " $GEMMAB_SETTINGS " == *" $n "* ]] || continue
            else [ "${GEMMAB_ALL:-0}" = 1 ] || [ $n = base ] || [ $n = $best ] || continue; fi
            step 200 env MIGRAPHX_GPU_CACHE_DIR=/tmp/migx-cache-variants ${v#*=} $PY bench/gpu/run.py --migx $B --work /tmp/gb \
              --out $OUT/gemmab_${n}_$r.md --models bert --batches "bert=64" --precisions fp16 --compile none \
              --runs ${GEMMAB_RUNS:-100}; done; done ;;
    int8) m=${INT8_MODEL:-resnet50:32}; f=/tmp/gb/${m%%:*}_b${m##*:}.onnx
          [ -f $f ] || step 120 $PY tools/gpu/export_bench_models.py /tmp/gb $m
          for r in $(seq ${INT8_ROUNDS:-3}); do step 120 $B $f --fp16 --runs 200
            step 240 $B $f --fp16 --int8 ${INT8_FLAGS:-} --runs 200; done
          step 120 $B $f --fp16 --runs 200 ;;
    int8acc) for m in ${INT8_MODELS:-resnet50:1 mobilenetv2:1 bert:1}; do f=/tmp/gb/${m%%:*}_b${m##*:}.onnx
          [ -f $f ] || step 120 $PY tools/gpu/export_bench_models.py /tmp/gb $m
          step ${INT8ACC_LIMIT:-300} $inst/bin/migx_quant_accuracy $f --target gpu --calib 16 --min-cos-int8 0.99 \
            ${INT8ACC_FLAGS:---eval 4 --runs 20 --int8-fp16 --time-fp16}; done ;;
    verify) step 120 $inst/bin/migraphx-driver verify --gpu --fp16 --onnx /tmp/gb/resnet50_b1.onnx ;;
    perf) for m in ${PERF_MODELS:-resnet50:1 resnet50:32}; do
            f=/tmp/gb/${m%:*}_b${m#*:}.onnx
            [ -f $f ] || step 120 $PY tools/gpu/export_bench_models.py /tmp/gb $m
            timeout ${PERF_LIMIT:-120} $inst/bin/migraphx-driver perf --gpu ${PERF_FLAGS:---fp16} --onnx $f -n 20 > /tmp/perf_full.log 2>&1
            sed -n "/^Summary/,\$p" /tmp/perf_full.log | head -40 > $OUT/perf_${m%:*}_b${m#*:}.log
            # PERF_FULL=1: every instruction's line too (where each kernel's time goes)
            [ "${PERF_FULL:-0}" = 1 ] && cp /tmp/perf_full.log $OUT/perf_${m%:*}_b${m#*:}_full.log
          done ;;
    python) INST=${INST:-install-gpu} bash tools/gpu/python_gpu_check.sh ;;
    firstuse) for prob in "1 3 224 224 64 7 7 3 2" "1 256 28 28 256 3 3 1 2" "1 2048 7 7 512 1 1 0 1" \
                          "1 64 56 56 64 3 3 1 1"; do
                for a in 0 1 2 3 4 5 6 7; do echo "$prob: $(timeout 20 $inst/bin/conv_first_use $prob $a)"; done
              done > $OUT/first_use.txt 2>&1 ;;
  esac
done
true
