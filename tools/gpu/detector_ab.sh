# Device: one call to check and time a change to the detectors' run-time paths: the gpu tests of
# those paths, the detectors' zoo accuracy, and perf --gpu of each run with the change turned off
# (the environment assignment AB_OFF) and on, back to back (odd rounds off first, even rounds on
# first), ROUNDS times; then perf
# --enqueue-times (the host's time per op) of ENQUEUE_RUNS, off and on. Files: steps.log, zoo.log,
# perf.txt, enqueue.txt. Session 39 ran it (as rows_check.sh and host_only_check.sh) with
#   AB_OFF=MIGRAPHX_DISABLE_FEWER_ROWS=1 RUNS="mask_rcnn_boxes;mask_rcnn_boxes --fp16;faster_rcnn_boxes;ssdlite_boxes --fp16"
#   AB_OFF=MIGRAPHX_DISABLE_PASSES=gpu::host_only_values (the defaults below)
#   OUT=$OUT [AB_OFF=VAR=value] [RUNS="model args;..."] [ROUNDS=2] [PRECISIONS="fp32 fp16"] [ENQUEUE_RUNS=...] bash tools/gpu/detector_ab.sh
inst=$PWD/install-gpu; . tools/gpu/device_env.sh
AB_OFF=${AB_OFF:-MIGRAPHX_DISABLE_PASSES=gpu::host_only_values}
RUNS=${RUNS:-ssdlite_boxes;ssdlite_boxes --fp16;mask_rcnn_boxes --fp16;faster_rcnn_boxes}
ENQUEUE_RUNS=${ENQUEUE_RUNS:-ssdlite_boxes}
OUT=$OUT STEPS="unit" UNIT_LIMIT=150 \
  UNIT="${UNIT:-gpu_host_values*:gpu_device_sized*:gpu_device_rows*:gpu_lowering.data_dependent*:gpu_lowering.host_fallback*:gpu_topk*:quantize_fp16*}" \
  bash tools/gpu/device_batch.sh
OUT=$OUT MODELS=faster_rcnn_boxes,mask_rcnn_boxes,ssdlite_boxes PRECISIONS="${PRECISIONS:-fp32 fp16}" PARALLEL=1 \
  RUN_LIMIT=240 FP16_REF=cuda bash tools/gpu/zoo_gpu.sh
for f in $OUT/zoo_gpu_*.md; do [ -f $f ] && { cat $f >> $OUT/zoo.log; rm $f; }; done
rm -f $OUT/zoo_gpu_*.log
# one perf run: $1 the model, then driver flags; the change off ("off") or on
perf_one() {
  local state=$1 model=$2; shift 2
  if [ $state = off ]; then env "$AB_OFF" timeout 120 $inst/bin/migraphx-driver perf --gpu "$@" /tmp/zoo/$model/model.onnx \
      --input input=/tmp/zoo/$model/test_data_set_0/input_0.pb -n 20
  else timeout 120 $inst/bin/migraphx-driver perf --gpu "$@" /tmp/zoo/$model/model.onnx \
      --input input=/tmp/zoo/$model/test_data_set_0/input_0.pb -n 20; fi > /tmp/perf_one.txt 2>&1
  echo "rc=$?"
}
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/perf.txt
for round in $(seq 1 ${ROUNDS:-2}); do
  IFS=';' read -ra runs <<< "$RUNS"
  for run in "${runs[@]}"; do
    # odd rounds off first, even rounds on first: a drift of the machine's speed within a pair
    # shows as a sign that flips with the order
    order="off on"; [ $((round % 2)) = 0 ] && order="on off"
    for state in $order; do
      echo "== round $round perf --gpu $run (change $state; off = $AB_OFF)" >> $OUT/perf.txt
      perf_one $state $run >> $OUT/perf.txt
      grep -E "Total time" /tmp/perf_one.txt >> $OUT/perf.txt
    done
  done
done
IFS=';' read -ra runs <<< "$ENQUEUE_RUNS"
for run in "${runs[@]}"; do
  for state in off on; do
    echo "== perf --gpu --enqueue-times $run (change $state)" >> $OUT/enqueue.txt
    perf_one $state $run --enqueue-times >> $OUT/enqueue.txt
    grep -E "^Total time" /tmp/perf_one.txt >> $OUT/enqueue.txt
    sed -n '/^Enqueue summary:/,$p' /tmp/perf_one.txt | head -16 >> $OUT/enqueue.txt
    sed -n '/^Enqueue time/,$p' /tmp/perf_one.txt >> $OUT/enqueue.txt
  done
done
