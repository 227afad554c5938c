# The recurrent models on the GPU machine (gpu::rnn, cuDNN's recurrent kernels): the gpu_rnn unit
# tests, then bench/gpu/run.py on lstm, speech_gru and crnn against PyTorch eager (cuDNN's RNN
# kernels too), fp32 and fp16, with the defaults (stacked layers, each problem's algorithm
# measured: bench_rnn.md), one call a layer with the standard algorithm (MIGRAPHX_GPU_RNN_STACK=0
# MIGRAPHX_GPU_RNN_ALGO=standard, session 32's form: bench_standard.md) and with the recurrence
# unrolled (MIGRAPHX_GPU_CUDNN_RNN=0, batch 1, bench_unrolled.md), then migraphx-driver verify --gpu
# (fp32 and fp16, against ref) on each model's batch-1 export in both forms, and each of cuDNN's
# algorithms (MIGRAPHX_GPU_RNN_ALGO) timed beside the measured choice (algos.txt, with the choice's
# trace), and a reverse-direction LSTM against its unrolled form (reverse.txt). Logs in $OUT (rnn.log).
#   OUT=$OUT [RUNS=100] [MODELS=lstm,speech_gru,crnn] [ALGOS="persist_static persist_static_small_h"] [UNROLLED=0]
#     [STANDARD=0] [ALGO_TABLE=0] [REVERSE=0] [UNIT=<gtest filter>] bash tools/gpu/rnn_bench.sh
set -u
root=$(pwd); inst=$root/${INST:-install-gpu}
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
PY=${PY:-/opt/torch/.venv/bin/python3}
L=$OUT/rnn.log
B=$inst/bin/migx_gpu_bench
step() { local t=$1; shift; echo "== $* (limit ${t}s) $(date +%T)" >> $L; timeout -k 5 $t "$@" >> $L 2>&1; echo "-- rc=$? $(date +%T)" >> $L; }
models=${MODELS:-lstm,speech_gru,crnn}
runs=${RUNS:-100}
step ${UNIT_LIMIT:-150} $inst/bin/migx_unit_tests --gtest_filter="${UNIT:-gpu_rnn*:gpu_lowering.recurrences*:rewrite_rnn*}"
step 240 $PY bench/gpu/run.py --migx $B --work /tmp/gr --models $models --compile none --runs $runs --out $OUT/bench_rnn.md
# whether the runs with gpu::rnn are recorded as CUDA graphs (a capture cuDNN breaks runs plainly)
MIGRAPHX_TRACE_CUDA_GRAPH=1 timeout 60 $B /tmp/gr/speech_gru_b1.onnx --runs 5 > $OUT/trace_graph.txt 2>&1
for m in ${models//,/ }; do
  for f in "" --fp16; do step 60 $inst/bin/migraphx-driver verify --gpu $f --onnx /tmp/gr/${m}_b1.onnx; done
done
# one call a layer, the standard algorithm (session 32's form); STANDARD=0 skips it
if [ "${STANDARD:-1}" != 0 ]; then
  std="env MIGRAPHX_GPU_RNN_STACK=0 MIGRAPHX_GPU_RNN_ALGO=standard"
  step 240 $std $PY bench/gpu/run.py --migx $B --work /tmp/gr --models $models --compile none \
    --runs $runs --out $OUT/bench_standard.md
  for m in ${models//,/ }; do
    for f in "" --fp16; do step 60 $std $inst/bin/migraphx-driver verify --gpu $f --onnx /tmp/gr/${m}_b1.onnx; done
  done
fi
# ONNX's reverse direction (tools/gpu/reverse_rnn_onnx.py: one reverse LSTM, as tf2onnx writes Keras'
# go_backwards; also with initial states): verify against ref, then gpu::rnn's form against the unrolled one (reverse.txt);
# REVERSE=0 skips it
if [ "${REVERSE:-1}" != 0 ]; then
  step 60 $PY tools/gpu/reverse_rnn_onnx.py /tmp/rev
  step 60 $PY tools/gpu/reverse_rnn_onnx.py /tmp/rev --initial-states
  for file in /tmp/rev/reverse_lstm_b*.onnx /tmp/rev/reverse_lstm_h0_b*.onnx; do
    for f in "" --fp16; do
      step 60 $inst/bin/migraphx-driver verify --gpu $f --onnx $file
      for u in 1 0; do
        echo "reverse $(basename $file) $f MIGRAPHX_GPU_CUDNN_RNN=$u: $(MIGRAPHX_GPU_CUDNN_RNN=$u timeout 120 $B $file $f --runs $runs 2>&1 | tail -1)" >> $OUT/reverse.txt
      done
    done
  done
fi
# unrolled: batch 1 only (its many generated kernels compile with NVRTC first); UNROLLED=0 skips it
[ "${UNROLLED:-1}" = 0 ] || step 200 env MIGRAPHX_GPU_CUDNN_RNN=0 $PY bench/gpu/run.py --migx $B --work /tmp/gr --models $models --compile none \
  --batches "lstm=1;speech_gru=1;crnn=1" --runs ${UNROLLED_RUNS:-$runs} --out $OUT/bench_unrolled.md
[ "${ALGO_TABLE:-1}" = 0 ] && models=
for m in ${models//,/ }; do
  for prec in ${ALGO_PRECISIONS:-fp32 fp16}; do
    [ $prec = fp16 ] && f=--fp16 || f=
    for file in /tmp/gr/${m}_b*.onnx; do
      for a in measured standard ${ALGOS:-persist_static persist_static_small_h}; do
        echo "algo $a $(basename $file) $f: $(MIGRAPHX_GPU_RNN_STACK=0 MIGRAPHX_GPU_RNN_ALGO=$a timeout 60 $B $file $f --runs $runs 2>&1 | tail -1)" >> $OUT/algos.txt
      done
      # what the measurement saw (a cache of its own: measured, not read back)
      MIGRAPHX_GPU_RNN_STACK=0 MIGRAPHX_GPU_CACHE_DIR=off MIGRAPHX_TRACE_CUDNN=1 timeout 60 $B $file $f --runs 2 2>&1 | grep "rnn algorithm" >> $OUT/algos.txt
    done
  done
done
true
true
