# Device: the detectors after a change to what runs after their NMS, in one call (8 files back):
# the gpu unit tests of that path (steps.log), the zoo's accuracy against torch fp32 and fp16
# (zoo_gpu.sh: zoo.log, zoo_gpu_fp32/fp16 .md and .log), `perf --gpu` of each detector with its own
# input, fp32, and Mask R-CNN in fp16 (perf.txt: each report's summary), PyTorch eager's times
# (torch_time.txt).  OUT=$OUT bash tools/gpu/detector_check.sh
inst=$PWD/install-gpu; . tools/gpu/device_env.sh
PY=/opt/torch/.venv/bin/python3
OUT=$OUT STEPS="unit" UNIT="${UNIT:-gpu_device_rows*:gpu_device_sized*:gpu_sized*:gpu_lowering*:gpu_serialize*:gpu_hip_ops*:replay*}" \
  UNIT_LIMIT=150 bash tools/gpu/device_batch.sh
OUT=$OUT MODELS=faster_rcnn_boxes,mask_rcnn_boxes PRECISIONS="fp32 fp16" PARALLEL=1 RUN_LIMIT=200 bash tools/gpu/zoo_gpu.sh
nvidia-smi --query-gpu=name,power.limit --format=csv > $OUT/perf.txt
for run in "faster_rcnn_boxes" "mask_rcnn_boxes" "mask_rcnn_boxes --fp16"; do
  set -- $run
  echo "== perf --gpu $run" >> $OUT/perf.txt
  timeout 90 $inst/bin/migraphx-driver perf --gpu "${@:2}" /tmp/zoo/$1/model.onnx --input input=/tmp/zoo/$1/test_data_set_0/input_0.pb \
    -n 5 > /tmp/perf_one.txt 2>&1
  echo "rc=$?" >> $OUT/perf.txt
  sed -n '/^Summary:/,$p' /tmp/perf_one.txt >> $OUT/perf.txt
done
timeout 90 $PY tools/gpu/detector_torch_time.py > $OUT/torch_time.txt 2>&1
