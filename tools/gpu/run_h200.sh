#!/bin/bash
# One batched run of the gpu target on the H200 (the `run` tool), from the repository root, with
# install-gpu/ carried (cmake --install build-gpu --prefix install-gpu; tools/gpu/build_examples.sh;
# migx_unit_tests copied into install-gpu/bin). Builds nothing. Steps, each with its own time limit:
#   1. gpu unit tests                       -> $OUT/unit.log
#   2. export the models with the image's PyTorch into $MODELS (not $OUT)  -> $OUT/export.log
#   3. migraphx-driver verify --gpu on each -> $OUT/verify.log
#   4. spec example programs on gpu         -> $OUT/examples.log
#   5. ResNet-50 fp32 batch 1/32: migx compile time and perf, PyTorch eager -> $OUT/perf.log, torch.log
#   6. dynamic shapes (step "dynamic", not in the default list): migx_dynamic_bench on dynamic
#      ResNet-50 (batch 1/4/8) and BERT (sequence 16/64/128), spec 9.1.2 on gpu -> $OUT/dynamic.log
#   probe: install-gpu/bin/literal_probe (tools/gpu/literal_probe.cpp), against install-gpu/lib and,
#          if present, install-gpu/oldlib (a library from before a fix)  -> $OUT/probe.log
#   conformance: install-gpu/run_conformance.sh (ONNX conformance on gpu with
#          tests/onnx/expected_failures_gpu.txt), started first and run beside the other steps
#          -> $OUT/gpu_conformance.log, gpu_results.tsv
# and a summary on stdout and in $OUT/summary.txt. STEPS (default "unit export verify examples
# perf") and MODEL_LIST (default all six) narrow a rerun.
set -u
STEPS=${STEPS:-unit export verify examples perf}
MODEL_LIST=${MODEL_LIST:-resnet50 mobilenetv2 bert lstm unet ssdlite}
has() { [[ " $STEPS " == *" $1 "* ]]; }
OUT=${OUT:-/tmp/migx-out}
MODELS=${MODELS:-/tmp/migx-models}
mkdir -p "$OUT" "$MODELS"
root=$(pwd)
inst=$root/install-gpu
PY=/opt/torch/.venv/bin/python3
[ -x $PY ] || PY=python3
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
DRV=$inst/bin/migraphx-driver
S=$OUT/summary.txt
: > $S
say() { echo "$*" | tee -a $S; }
TIMEFORMAT='%R'

say "== $(nvidia-smi -L 2>&1 | head -1); $(date -u)"
ldd $DRV | grep -i "not found" | tee -a $S

if has conformance; then
    (MIGRAPHX_GPU_CACHE_DIR=/tmp/migx-cache-conf bash $inst/run_conformance.sh > /tmp/conformance.out 2>&1) &
    conf_pid=$!
fi

if has probe; then
echo "== probe"
: > $OUT/probe.log
for lib in lib oldlib; do
    [ -d $inst/$lib ] || continue
    for mode in on off; do
        # each in a fresh process with an empty kernel cache, as a conformance case runs
        rm -rf /tmp/migx-probe-cache
        r=$(MIGRAPHX_GPU_CACHE_DIR=/tmp/migx-probe-cache LD_LIBRARY_PATH=$inst/$lib:$inst/lib:$D timeout 60 $inst/bin/literal_probe $mode 2>&1)
        echo "[$lib] $r" >> $OUT/probe.log
        say "probe [$lib] $(echo "$r" | tail -1)"
    done
done
if [ -d $inst/oldlib ]; then
    # the gpu unit tests that reproduce issue 6's conformance failures, against the old library
    rm -rf /tmp/migx-probe-cache
    MIGRAPHX_GPU_CACHE_DIR=/tmp/migx-probe-cache LD_LIBRARY_PATH=$inst/oldlib:$inst/lib:$D timeout 120 \
        $inst/bin/migx_unit_tests --gtest_filter="${OLD_FILTER:-gpu_lowering.literal*:gpu_lowering.constant_folded*:gpu_lowering.data_dependent*}" \
        > $OUT/oldlib_unit.log 2>&1
    say "unit tests on oldlib rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/oldlib_unit.log | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' $OUT/oldlib_unit.log | head -10 | tee -a $S
fi
fi

if has unit; then
echo "== 1. unit tests"
timeout 300 $inst/bin/migx_unit_tests --gtest_filter='gpu_*' > $OUT/unit.log 2>&1
say "unit tests rc=$?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' $OUT/unit.log | tr '\n' ' ')"
grep -E '^\[  FAILED  \]' $OUT/unit.log | head -20 | tee -a $S
fi

if has export; then
echo "== 2. export"
$PY -c "import torch, torchvision, onnx; print('torch', torch.__version__, 'torchvision', torchvision.__version__, 'onnx', onnx.__version__)" > $OUT/export.log 2>&1
say "python: $(tail -1 $OUT/export.log)"
for m in $MODEL_LIST; do
    t=$( { time timeout 240 $PY tools/gpu/export_models_h200.py --out $MODELS --models $m --skip-existing >> $OUT/export.log 2>&1; } 2>&1 )
    if [ -f $MODELS/$m/model.onnx ]; then say "export $m: ok (${t}s)"; else say "export $m: FAILED (see export.log)"; fi
done

fi
if has verify; then
echo "== 3. verify"
: > $OUT/verify.log
for m in $MODEL_LIST; do
    [ -f $MODELS/$m/model.onnx ] || continue
    echo "=== $m" >> $OUT/verify.log
    timeout 300 $DRV verify --gpu --quiet $MODELS/$m/model.onnx >> $OUT/verify.log 2>&1
    rc=$?
    say "verify $m rc=$rc: $(awk "/=== $m\$/{f=1} f" $OUT/verify.log | grep -E 'Verifying|max abs|PASSED|FAILED|rror' | tr '\n' ' ' | cut -c1-400)"
done

fi
if has examples; then
echo "== 4. examples"
: > $OUT/examples.log
for n in spec_3_9_2_inference spec_3_10_graph; do
    [ -x $inst/examples/$n ] || { say "example $n: not built"; continue; }
    (cd $inst/examples && timeout 60 ./$n) > /tmp/$n.out 2>&1
    rc=$?
    { echo "=== $n rc=$rc"; cat /tmp/$n.out; } >> $OUT/examples.log
    ok=yes
    if [ -f $inst/examples/$n.out ]; then cmp -s /tmp/$n.out $inst/examples/$n.out || ok=no; fi
    if [ -f $inst/examples/$n.tail ]; then
        [ "$(tail -c $(wc -c < $inst/examples/$n.tail) /tmp/$n.out)" = "$(cat $inst/examples/$n.tail)" ] || ok=no
    fi
    say "example $n (gpu) rc=$rc matches expected output: $ok"
done

fi
if has perf; then
echo "== 5. perf"
: > $OUT/perf.log
R=$MODELS/resnet50/model.onnx
if [ -f $R ]; then
    rm -rf /tmp/migx-cache
    t=$( { time $DRV compile --gpu --quiet $R > /dev/null 2>>$OUT/perf.log; } 2>&1 ); say "migx compile resnet50 b1 (empty kernel cache): ${t}s"
    t=$( { time $DRV compile --gpu --quiet $R > /dev/null 2>>$OUT/perf.log; } 2>&1 ); say "migx compile resnet50 b1 (warm kernel cache): ${t}s"
    for b in 1 32; do
        for tf in 0 1; do
            echo "=== resnet50 batch $b MIGRAPHX_GPU_TF32=$tf" >> $OUT/perf.log
            MIGRAPHX_GPU_TF32=$tf timeout 240 $DRV perf --gpu --quiet -n 200 --input-dim @input $b 3 224 224 $R >> $OUT/perf.log 2>&1
            say "migx perf resnet50 fp32 batch $b tf32=$tf: $(awk "/batch $b MIGRAPHX_GPU_TF32=$tf\$/{f=1} f" $OUT/perf.log | grep -E '^(Total time|Rate)' | tr '\n' ' ')"
        done
    done
fi
timeout 240 $PY tools/gpu/bench_torch_resnet50.py > $OUT/torch.log 2>&1
say "$(cat $OUT/torch.log | tail -6)"
fi

if has dynamic; then
echo "== 6. dynamic shapes: dynamic vs static in one process (bench/dynamic_bench.cpp), spec 9.1.2 on gpu"
timeout 300 $PY tools/gpu/export_models_h200.py --out $MODELS --models resnet50,bert --dynamic --skip-existing \
    >> $OUT/export.log 2>&1
: > $OUT/dynamic.log
B=$inst/bin/migx_dynamic_bench
timeout 300 $B gpu $MODELS/resnet50_dyn/model.onnx "input=1:8x3x224x224" "input=1x3x224x224" "input=4x3x224x224" \
    "input=8x3x224x224" --runs 100 >> $OUT/dynamic.log 2>&1
timeout 300 $B gpu $MODELS/bert_dyn/model.onnx "input_ids=1x16:128;attention_mask=1x16:128" \
    "input_ids=1x16;attention_mask=1x16" "input_ids=1x64;attention_mask=1x64" "input_ids=1x128;attention_mask=1x128" \
    --runs 100 >> $OUT/dynamic.log 2>&1
say "$(cat $OUT/dynamic.log)"
timeout 300 $PY tests/examples/run_spec_9_1_2.py $inst/bin/spec_9_1_2_gpu gpu $MODELS $inst/bin/spec_9_1_2_reference \
    /tmp/spec912 > $OUT/spec912.log 2>&1
say "spec 9.1.2 on gpu rc=$?: $(grep -E '^(batch|FAIL|input:)' $OUT/spec912.log | tr '\n' ' ')"
fi

if has conformance; then
echo "== conformance (waiting)"
wait $conf_pid
say "conformance: $(grep -E '^rc=|^overall|unexpected result' /tmp/conformance.out | tr '\n' ' ')"
grep -E '^(FAIL|UNEXPECTED PASS) ' $OUT/gpu_conformance.log | cut -c1-300 | head -60 | tee -a $S
fi
