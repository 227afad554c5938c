# Device: exports the torchvision detectors (tools/export_zoo.py), runs `perf --gpu` on each with its
# own input, and times them in PyTorch eager (detector_torch_time.py). OUT=$OUT bash tools/gpu/detector_probe.sh
# device: export the two torchvision detectors, profile them on gpu (perf per instruction)
inst=$PWD/install-gpu; . tools/gpu/device_env.sh
PY=/opt/torch/.venv/bin/python3
cd $PWD
nvidia-smi --query-gpu=name,power.limit --format=csv > $OUT/gpu.txt
timeout 300 $PY tools/export_zoo.py --out /tmp/zoo --fp16-ref none --models mask_rcnn_boxes,faster_rcnn_boxes > $OUT/export.log 2>&1
ls -la /tmp/zoo/*/ >> $OUT/export.log
for m in faster_rcnn_boxes mask_rcnn_boxes; do
  timeout 150 $inst/bin/migraphx-driver perf --gpu /tmp/zoo/$m/model.onnx --input input=/tmp/zoo/$m/test_data_set_0/input_0.pb -n 3 > $OUT/perf_$m.txt 2>&1
  echo "rc=$?" >> $OUT/perf_$m.txt
done
timeout 120 $PY tools/gpu/detector_torch_time.py > $OUT/torch_time.txt 2>&1
