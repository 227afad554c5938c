# Device: one lean call for the ops after a detector's NMS and its run-time sizes (session 38):
# the ONNX conformance cases of topk/argmax/gathernd/nonzero carried in install-gpu/conformance,
# the gpu unit tests of that path, the detectors' zoo accuracy (fp32; PRECISIONS to change),
# perf --gpu of Faster/Mask R-CNN and SSDlite, PyTorch eager's SSDlite. 8 files at most come back:
# conformance.txt, steps.log, zoo.log (its tables appended), perf.txt, torch_time.txt.
#   OUT=$OUT bash tools/gpu/sizes_check.sh
inst=$PWD/install-gpu; . tools/gpu/device_env.sh
PY=/opt/torch/.venv/bin/python3
timeout 120 $inst/bin/onnx_conformance --target gpu --data $inst/conformance --folders node > $OUT/conformance.txt 2>&1
echo rc=$? >> $OUT/conformance.txt
OUT=$OUT STEPS="unit" UNIT_LIMIT=150 \
  UNIT="${UNIT:-gpu_topk*:gpu_argminmax*:gpu_codegen_topk*:gpu_codegen_argminmax*:gpu_device_sized*:gpu_device_rows*:gpu_host_values*:gpu_lowering.data_dependent*:gpu_lowering.host_fallback*}" \
  bash tools/gpu/device_batch.sh
OUT=$OUT MODELS=faster_rcnn_boxes,mask_rcnn_boxes,ssdlite_boxes PRECISIONS="${PRECISIONS:-fp32}" PARALLEL=1 RUN_LIMIT=200 \
  FP16_REF=none bash tools/gpu/zoo_gpu.sh
for f in $OUT/zoo_gpu_*.md $OUT/zoo_gpu_*.log; do [ -f $f ] && { cat $f >> $OUT/zoo.log; rm $f; }; done
nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/perf.txt
for run in faster_rcnn_boxes mask_rcnn_boxes "mask_rcnn_boxes --fp16" ssdlite_boxes "ssdlite_boxes --fp16"; do
  set -- $run
  echo "== perf --gpu $run" >> $OUT/perf.txt
  timeout 90 $inst/bin/migraphx-driver perf --gpu "${@:2}" /tmp/zoo/$1/model.onnx --input input=/tmp/zoo/$1/test_data_set_0/input_0.pb \
    -n 5 > /tmp/perf_one.txt 2>&1
  echo "rc=$?" >> $OUT/perf.txt
  sed -n '/^Summary:/,$p' /tmp/perf_one.txt | head -16 >> $OUT/perf.txt
  grep -E "Total time" /tmp/perf_one.txt >> $OUT/perf.txt
done
timeout 90 $PY tools/gpu/detector_torch_time.py --models ${TORCH_MODELS:-ssdlite_boxes} > $OUT/torch_time.txt 2>&1
