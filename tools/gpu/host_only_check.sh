# Device: one call for the sizes nothing reads on the device (gpu::host_only_values, session 39):
# the gpu tests of the run-time size paths, the detectors' zoo accuracy (fp32 and fp16), and perf
# --gpu of SSDlite (fp32, fp16), Mask R-CNN fp16 and Faster R-CNN with the pass off
# (MIGRAPHX_DISABLE_PASSES=gpu::host_only_values) and on, alternated twice; then SSDlite's host
# time per op (perf --enqueue-times). Files: steps.log, zoo.log, perf.txt, enqueue.txt.
#   OUT=$OUT bash tools/gpu/host_only_check.sh
inst=$PWD/install-gpu; . tools/gpu/device_env.sh
OUT=$OUT STEPS="unit" UNIT_LIMIT=150 \
  UNIT="${UNIT:-gpu_host_values*:gpu_device_sized*:gpu_device_rows*:gpu_lowering.data_dependent*:gpu_lowering.host_fallback*:gpu_topk*}" \
  bash tools/gpu/device_batch.sh
OUT=$OUT MODELS=faster_rcnn_boxes,mask_rcnn_boxes,ssdlite_boxes PRECISIONS="${PRECISIONS:-fp32 fp16}" PARALLEL=1 \
  RUN_LIMIT=240 FP16_REF=cuda bash tools/gpu/zoo_gpu.sh
for f in $OUT/zoo_gpu_*.md; do [ -f $f ] && { cat $f >> $OUT/zoo.log; rm $f; }; done
rm -f $OUT/zoo_gpu_*.log
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/perf.txt
for round in $(seq 1 ${ROUNDS:-2}); do
  for run in "ssdlite_boxes" "ssdlite_boxes --fp16" "mask_rcnn_boxes --fp16" "faster_rcnn_boxes"; do
    set -- $run
    for off in gpu::host_only_values none; do
      echo "== round $round perf --gpu $run MIGRAPHX_DISABLE_PASSES=$off" >> $OUT/perf.txt
      MIGRAPHX_DISABLE_PASSES=$off timeout 90 $inst/bin/migraphx-driver perf --gpu "${@:2}" /tmp/zoo/$1/model.onnx \
        --input input=/tmp/zoo/$1/test_data_set_0/input_0.pb -n 20 > /tmp/perf_one.txt 2>&1
      echo "rc=$?" >> $OUT/perf.txt
      grep -E "Total time" /tmp/perf_one.txt >> $OUT/perf.txt
    done
  done
done
for off in gpu::host_only_values none; do
  echo "== perf --gpu --enqueue-times ssdlite_boxes MIGRAPHX_DISABLE_PASSES=$off" >> $OUT/enqueue.txt
  MIGRAPHX_DISABLE_PASSES=$off timeout 120 $inst/bin/migraphx-driver perf --gpu /tmp/zoo/ssdlite_boxes/model.onnx --enqueue-times \
    --input input=/tmp/zoo/ssdlite_boxes/test_data_set_0/input_0.pb -n 20 > /tmp/perf_one.txt 2>&1
  echo "rc=$?" >> $OUT/enqueue.txt
  grep -E "^Total time" /tmp/perf_one.txt >> $OUT/enqueue.txt
  sed -n '/^Enqueue summary:/,$p' /tmp/perf_one.txt | head -16 >> $OUT/enqueue.txt
  sed -n '/^Enqueue time/,$p' /tmp/perf_one.txt >> $OUT/enqueue.txt
done
