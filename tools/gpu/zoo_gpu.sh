# The model zoo on the GPU machine (issue 11's gpu columns): builds the Python module there (as
# python_gpu_check.sh does), exports the zoo with the machine's PyTorch (tools/export_zoo.py;
# references are that torch's fp32 outputs on the CPU; torch's own fp16 outputs, model.half() on CUDA,
# are written beside them for the fp16 rule) and runs tools/run_zoo.py on gpu, fp32 then fp16 (an
# fp16 row passes by the fixed 1e-2 bound or within 2x torch fp16's own error: run_zoo.py's header).
# Tables and logs go to $OUT (zoo_gpu_fp32.md, zoo_gpu_fp16.md, their rows as they come in zoo_gpu_<p>.log;
# the build and exports in zoo.log).
#   OUT=$OUT [MODELS=a,b|all|static|dynamic] [PRECISIONS="fp32 fp16"] [FP16_REF=auto|cuda|none]
#     [EXPORT_LIMIT=s] [RUN_LIMIT=s] [MODEL_TIMEOUT=s] [PARALLEL=1]
#     [INST=install-gpu] [TARGET=gpu] bash tools/gpu/zoo_gpu.sh
# Exports run one model at a time (four exporters at once were slower, not faster: 13 models in 200 s
# on the H200 machine, where one exporter did 38 in under 240 s). PARALLEL=1 runs the precisions at once (the whole zoo in one 10-minute call; run
# times then share the GPU and are not benchmark figures). TARGET=cpu with a cpu install
# (INST=install-cpu, see make_install.sh NO_SERVER=1) gives the cpu column of models only this
# machine can export (bert_hf, gpt2_hf need transformers); tables are then zoo_cpu_<p>.md.
# e.g. only the Hugging Face models, fp16 only:
#   OUT=$OUT MODELS=bert_hf,gpt2_hf PRECISIONS=fp16 bash tools/gpu/zoo_gpu.sh
set -u
root=$(pwd); inst=$root/${INST:-install-gpu}
# the Python module, built against this install (a cpu and a gpu install each get their own)
pyb=$root/build-python-device; [ "${INST:-install-gpu}" = install-gpu ] || pyb=$pyb-${INST##*/}
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
PY=${PY:-/opt/torch/.venv/bin/python3}
L=$OUT/zoo.log
step() { local t=$1; shift; echo "== $* (limit ${t}s) $(date +%T)" >> $L; timeout -k 5 $t "$@" >> $L 2>&1; local rc=$?; echo "-- rc=$rc $(date +%T)" >> $L; return $rc; }
if [ ! -f $pyb/python/migraphx*.so ]; then
  step 120 cmake -S python -B $pyb -G Ninja -DCMAKE_BUILD_TYPE=Release -Dmigraphx_DIR=$inst/lib/cmake/migraphx \
    -DPython3_EXECUTABLE=$PY -Dpybind11_DIR=$($PY -m pybind11 --cmakedir) || exit 1
  step 240 ninja -C $pyb || exit 1
fi
export PYTHONPATH=$pyb/python
models=${MODELS:-all}
step ${EXPORT_LIMIT:-240} $PY tools/export_zoo.py --out /tmp/zoo --models $models --skip-existing \
  --fp16-ref ${FP16_REF:-cuda}
# what torch's half precision did per model (ok / failed with torch's error), for the record
$PY - /tmp/zoo >> $L 2>&1 <<'EOF'
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*", "torch_fp16", "info.json"))):
    i = json.load(open(f))
    print("torch fp16:", f.split(os.sep)[-3], i.get("status"), i.get("device_name", i.get("device")), i.get("error", ""))
EOF
sel=""; [ "$models" != all ] && sel="--models $models"
target=${TARGET:-gpu}
for p in ${PRECISIONS:-fp32 fp16}; do
  f=""; [ $p = fp16 ] && f=--fp16
  # each precision's rows in a log of its own (printed as they come: a run cut short keeps them)
  (L=$OUT/zoo_${target}_$p.log; step ${RUN_LIMIT:-200} $PY tools/run_zoo.py --zoo /tmp/zoo \
    --driver $inst/bin/migraphx-driver --python-module $pyb/python --target $target $f $sel \
    --timeout ${MODEL_TIMEOUT:-90} --runs 3 --no-diagnose --out $OUT/zoo_${target}_$p.md) &
  [ "${PARALLEL:-0}" = 1 ] || wait
done
wait
true
