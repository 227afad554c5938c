# The Python module on the GPU machine (docs/python.md, "Another Python"): builds python/ for the
# machine's own Python (3.12, with pip's pybind11) against the carried relocatable install, then
# runs the Python unit tests and the spec's Python programs (5.2, 5.3, 5.4, 6, 9.1.3) on gpu,
# each checked against the C++ API (tests/python/cpp_reference.cpp, built there too).
# Every step has a time limit; logs go to $OUT/python.log as they come.
#   INST=install-gpu OUT=... bash tools/gpu/python_gpu_check.sh
set -u
root=$(pwd); inst=$root/${INST:-install-gpu}
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
PY=${PY:-/opt/torch/.venv/bin/python3}
L=$OUT/python.log
step() { local t=$1; shift; echo "== $* (limit ${t}s)" >> $L; timeout -k 5 $t "$@" >> $L 2>&1; local rc=$?; echo "-- rc=$rc" >> $L; return $rc; }
step 60 $PY -c "import sys, sysconfig; print(sys.version); print(sysconfig.get_paths()['include'])"
step 120 cmake -S python -B $root/build-python-device -G Ninja -DCMAKE_BUILD_TYPE=Release -Dmigraphx_DIR=$inst/lib/cmake/migraphx \
  -DPython3_EXECUTABLE=$PY -Dpybind11_DIR=$($PY -m pybind11 --cmakedir) || exit 1
step 240 ninja -C $root/build-python-device || exit 1
step 120 g++ -O2 -std=c++20 -DMIGRAPHX_HAVE_GPU=1 tests/python/cpp_reference.cpp -I$inst/include -L$inst/lib -lmigraphx \
  -Wl,-rpath,$inst/lib -o /tmp/cpp_reference
export PYTHONPATH=$root/build-python-device/python:$root/tests/python
step 30 g++ --version
step 30 bash -c "g++ -print-file-name=libstdc++.so; ldd $root/build-python-device/python/migraphx*.so | grep -E 'stdc|migraphx'; nm -D --defined-only $root/build-python-device/python/migraphx*.so | grep -c _M_insert"
if [ -n "${DEBUG_TEST:-}" ]; then
  step 60 $PY -X faulthandler tests/python/test_$DEBUG_TEST.py
  step 120 cuda-gdb -batch -ex run -ex bt --args $PY tests/python/test_$DEBUG_TEST.py
fi
for t in ${THEMES:-gpu shape argument program load_save}; do step 120 $PY tests/python/test_$t.py; done
step 180 $PY tools/export_models.py --out /tmp/spec --models resnet50
for p in ${PROGRAMS:-5.2 5.3 5.4 6 9.1.3}; do
  step 240 $PY tests/python/run_spec_program.py $p gpu /tmp/spec /tmp/cpp_reference /tmp/spec_work_$p
done
true
