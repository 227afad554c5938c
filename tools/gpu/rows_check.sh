# Device: one call for the heads run at fewer rows (session 39) and fp16 topk: the gpu tests of
# that path, the detectors' zoo accuracy (fp32 and fp16, cuda fp16 references), and perf --gpu of
# Mask R-CNN fp32/fp16, Faster R-CNN and SSDlite fp16 with MIGRAPHX_DISABLE_FEWER_ROWS=1 and
# without, alternated (A B A B), each with the command's wall time. Files: steps.log, zoo.log, perf.txt, enqueue.txt (perf --enqueue-times of SSDlite fp32 and Mask R-CNN fp16).
#   OUT=$OUT bash tools/gpu/rows_check.sh
inst=$PWD/install-gpu; . tools/gpu/device_env.sh
OUT=$OUT STEPS="unit" UNIT_LIMIT=150 \
  UNIT="${UNIT:-gpu_device_rows*:quantize_fp16*:gpu_device_sized*:gpu_topk*}" \
  bash tools/gpu/device_batch.sh
OUT=$OUT MODELS=faster_rcnn_boxes,mask_rcnn_boxes,ssdlite_boxes PRECISIONS="${PRECISIONS:-fp32 fp16}" PARALLEL=1 \
  RUN_LIMIT=240 FP16_REF=cuda bash tools/gpu/zoo_gpu.sh
for f in $OUT/zoo_gpu_*.md; do [ -f $f ] && { cat $f >> $OUT/zoo.log; rm $f; }; done
rm -f $OUT/zoo_gpu_*.log
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/perf.txt
for round in 1 2; do
  for run in "mask_rcnn_boxes" "mask_rcnn_boxes --fp16" "faster_rcnn_boxes" "ssdlite_boxes --fp16"; do
    set -- $run
    for off in 1 0; do
      echo "== round $round perf --gpu $run MIGRAPHX_DISABLE_FEWER_ROWS=$off" >> $OUT/perf.txt
      t0=$(date +%s.%N)
      MIGRAPHX_DISABLE_FEWER_ROWS=$off timeout 90 $inst/bin/migraphx-driver perf --gpu "${@:2}" /tmp/zoo/$1/model.onnx \
        --input input=/tmp/zoo/$1/test_data_set_0/input_0.pb -n 20 > /tmp/perf_one.txt 2>&1
      rc=$?
      echo "rc=$rc wall $(awk -v a=$t0 -v b=$(date +%s.%N) "BEGIN{printf \"%.1f\", b-a}") s (compile + 20 runs; the tuning cache warms in round 1)" >> $OUT/perf.txt
      [ $round = 1 ] && sed -n '/^Summary:/,$p' /tmp/perf_one.txt | head -10 >> $OUT/perf.txt
      grep -iE "Total time|compil" /tmp/perf_one.txt >> $OUT/perf.txt
    done
  done
done
# where the detectors' runs spend the host's time (perf --enqueue-times): enqueue.txt
for run in "ssdlite_boxes" "mask_rcnn_boxes --fp16"; do
  set -- $run
  echo "== perf --gpu --enqueue-times $run" >> $OUT/enqueue.txt
  timeout 120 $inst/bin/migraphx-driver perf --gpu "${@:2}" /tmp/zoo/$1/model.onnx --enqueue-times \
    --input input=/tmp/zoo/$1/test_data_set_0/input_0.pb -n 20 > /tmp/perf_one.txt 2>&1
  echo "rc=$?" >> $OUT/enqueue.txt
  sed -n '/^Total time/,/^Overhead:/p' /tmp/perf_one.txt >> $OUT/enqueue.txt
  sed -n '/^Enqueue summary:/,$p' /tmp/perf_one.txt | head -30 >> $OUT/enqueue.txt
  sed -n '/^Enqueue time/,$p' /tmp/perf_one.txt >> $OUT/enqueue.txt
done
