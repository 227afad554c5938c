# Device: one call that (1) runs the gpu tests of the run-time-size paths (session 40's one-launch
# concat ran on no device before), (2) times SSDlite's ops on the host (perf --enqueue-times: the
# concat of the 90 classes' results), (3) asks whether BERT-base split in two half batches run at
# once on two streams beats the whole batch on one (tools/gpu/concurrent_probe.cpp), fp16.
#   OUT=$OUT [SPLIT_MODELS="bert:64 bert:32"] [PROBE_RUNS=200] [PROBE_ROUNDS=3] [SKIP="unit ssd"] bash tools/gpu/split_check.sh
# Files: steps.log (tests), ssd_enqueue.txt, probe.txt.
inst=$PWD/install-gpu; . tools/gpu/device_env.sh
PY=/opt/torch/.venv/bin/python3
SKIP=${SKIP:-}
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader > $OUT/probe.txt
if [[ " $SKIP " != *" unit "* ]]; then
  OUT=$OUT STEPS="unit" UNIT_LIMIT=150 \
    UNIT="${UNIT:-gpu_device_sized*:gpu_early_nonzero*:gpu_sized*:gpu_nonzero_ops*:gpu_lowering.data_dependent*:gpu_serialize*:gpu_device_rows*}" \
    bash tools/gpu/device_batch.sh
fi
if [[ " $SKIP " != *" ssd "* ]]; then
  m=/tmp/zoo/ssdlite_boxes
  [ -f $m/model.onnx ] || timeout 120 $PY tools/export_zoo.py --out /tmp/zoo --models ssdlite_boxes --fp16-ref none > $OUT/ssd_export.log 2>&1
  timeout 120 $inst/bin/migraphx-driver perf --gpu $m/model.onnx --input input=$m/test_data_set_0/input_0.pb -n 20 \
    --enqueue-times > $OUT/ssd_enqueue.txt 2>&1
  echo "rc=$?" >> $OUT/ssd_enqueue.txt
fi
set -- ${SPLIT_MODELS:-bert:64 bert:32}
whole=/tmp/gb/${1%%:*}_b${1##*:}.onnx half=/tmp/gb/${2%%:*}_b${2##*:}.onnx
[ -f $whole ] && [ -f $half ] || timeout 200 $PY tools/gpu/export_bench_models.py /tmp/gb $1 $2 > $OUT/probe_export.log 2>&1
timeout 300 $inst/bin/concurrent_probe $whole $half --fp16 --runs ${PROBE_RUNS:-200} --rounds ${PROBE_ROUNDS:-3} >> $OUT/probe.txt 2>&1
echo "rc=$?" >> $OUT/probe.txt
