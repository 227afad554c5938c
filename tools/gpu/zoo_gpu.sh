# The model zoo on the GPU machine (issue 11's gpu columns): builds the Python module there (as
# python_gpu_check.sh does), exports the zoo with the machine's PyTorch (tools/export_zoo.py;
# references are that torch's outputs) and runs tools/run_zoo.py on gpu, fp32 then fp16.
# Tables and logs go to $OUT (zoo_gpu_fp32.md, zoo_gpu_fp16.md, zoo.log).
#   OUT=$OUT [MODELS=a,b] [EXPORT_LIMIT=s] [RUN_LIMIT=s] [PRECISIONS="fp32 fp16"] bash tools/gpu/zoo_gpu.sh
set -u
root=$(pwd); inst=$root/${INST:-install-gpu}
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
PY=${PY:-/opt/torch/.venv/bin/python3}
L=$OUT/zoo.log
step() { local t=$1; shift; echo "== $* (limit ${t}s) $(date +%T)" >> $L; timeout -k 5 $t "$@" >> $L 2>&1; local rc=$?; echo "-- rc=$rc $(date +%T)" >> $L; return $rc; }
if [ ! -f $root/build-python-device/python/migraphx*.so ]; then
  step 120 cmake -S python -B $root/build-python-device -G Ninja -DCMAKE_BUILD_TYPE=Release -Dmigraphx_DIR=$inst/lib/cmake/migraphx \
    -DPython3_EXECUTABLE=$PY -Dpybind11_DIR=$($PY -m pybind11 --cmakedir) || exit 1
  step 240 ninja -C $root/build-python-device || exit 1
fi
export PYTHONPATH=$root/build-python-device/python
models=${MODELS:-all}
step ${EXPORT_LIMIT:-240} $PY tools/export_zoo.py --out /tmp/zoo --models $models --skip-existing
sel=""; [ "$models" != all ] && sel="--models $models"
for p in ${PRECISIONS:-fp32 fp16}; do
  f=""; [ $p = fp16 ] && f=--fp16
  step ${RUN_LIMIT:-200} $PY tools/run_zoo.py --zoo /tmp/zoo --driver $inst/bin/migraphx-driver \
    --python-module $root/build-python-device/python --target gpu $f $sel --timeout ${MODEL_TIMEOUT:-90} --runs 3 \
    --no-diagnose --out $OUT/zoo_gpu_$p.md
done
true
