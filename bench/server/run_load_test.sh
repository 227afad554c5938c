#!/usr/bin/env bash
# Load test of migraphx-server (docs/server.md): wrk on loopback against the cpu target, the same
# model with dynamic batching on and off; prints throughput, p50/p99 latency, failed requests
# and the throughput gain from batching. Bounded: DURATION seconds per run, one server per run.
#
#   bench/server/run_load_test.sh [BUILD_DIR] 
#   env: MODEL=resnet50|mlp (default resnet50), DURATION=20, CONNECTIONS=8, THREADS=2,
#        MAX_BATCH=4, DELAY_US=5000, INSTANCES=1, ROUNDS=1 (rounds alternate the order,
#        off-on, on-off, ..., so a change in the machine's load biases neither; the gain is
#        from the summed throughputs)
#   The server inherits the environment: OMP_WAIT_POLICY=PASSIVE (as deploy/ sets) gives the
#   steady figures of bench/results/2026-11-30-server-load.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build-server}
server=$build/src/server/migraphx-server
MODEL=${MODEL:-resnet50}
DURATION=${DURATION:-20}
CONNECTIONS=${CONNECTIONS:-8}
THREADS=${THREADS:-2}
MAX_BATCH=${MAX_BATCH:-4}
DELAY_US=${DELAY_US:-5000}
INSTANCES=${INSTANCES:-1}
ROUNDS=${ROUNDS:-1}
command -v wrk >/dev/null || { echo "wrk not found (Debian: apt-get install wrk)"; exit 1; }
[ -x "$server" ] || { echo "no $server: build the migraphx-server target"; exit 1; }

work=${WORK:-$build/bench-server}
mkdir -p "$work"
repo=$work/repo-$MODEL
mkdir -p "$repo/$MODEL/1"
case $MODEL in
  resnet50)
    ln -sf "$root/bench/models/resnet50/model.onnx" "$repo/$MODEL/1/model.onnx"
    input=input; dims=1,3,224,224 ;;
  mlp)
    /usr/bin/python3 - "$repo/$MODEL/1/model.onnx" <<'PY'
import sys, numpy as np, onnx
from onnx import TensorProto, helper, numpy_helper
r = np.random.default_rng(1)
w1 = numpy_helper.from_array((r.standard_normal((512, 2048)) * 0.05).astype(np.float32), "w1")
w2 = numpy_helper.from_array((r.standard_normal((2048, 1000)) * 0.05).astype(np.float32), "w2")
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 512])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 1000])
g = helper.make_graph([helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
                       helper.make_node("MatMul", ["r", "w2"], ["l"]), helper.make_node("Softmax", ["l"], ["y"], axis=1)],
                      "mlp", [x], [y], [w1, w2])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PY
    input=x; dims=1,512 ;;
  *) echo "MODEL must be resnet50 or mlp"; exit 1 ;;
esac
body=$work/body-$MODEL.bin
export MIGX_BODY=$body
export MIGX_HEADER_LEN=$(/usr/bin/python3 "$here/make_request.py" "$input" "$dims" "$body")

run() { # $1 = on|off
  if [ "$1" = on ]; then
    printf 'max_batch_size: %d\ninstance_group [ { count: %d } ]\ndynamic_batching { max_queue_delay_microseconds: %d }\n' \
      "$MAX_BATCH" "$INSTANCES" "$DELAY_US" > "$repo/$MODEL/config.pbtxt"
  else
    printf 'max_batch_size: %d\ninstance_group [ { count: %d } ]\n' "$MAX_BATCH" "$INSTANCES" > "$repo/$MODEL/config.pbtxt"
  fi
  local ports=$work/ports log=$work/server-$1.log
  rm -f "$ports"
  "$server" --model-repository "$repo" --cpu --host 127.0.0.1 --http-port 0 --grpc-port -1 \
    --port-file "$ports" > "$log" 2>&1 &
  local pid=$!
  for _ in $(seq 600); do [ -f "$ports" ] && break; sleep 0.5; done
  [ -f "$ports" ] || { echo "server did not start"; cat "$log"; kill $pid; exit 1; }
  local port; port=$(sed 's/.*http=\([0-9]*\).*/\1/' "$ports")
  local url=http://127.0.0.1:$port/v2/models/$MODEL/infer
  # warm-up (first runs allocate), then the timed run
  wrk -t1 -c1 -d2s -s "$here/infer.lua" "$url" > /dev/null
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 30s -s "$here/infer.lua" "$url" > "$work/wrk-$1.txt"
  curl -s "http://127.0.0.1:$port/metrics" > "$work/metrics-$1.txt"
  kill -TERM $pid; wait $pid
  local rps p50 p99 non2xx errors execs rows
  rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk-$1.txt")
  p50=$(sed -n 's/.*p50=\([0-9]*\).*/\1/p' "$work/wrk-$1.txt")
  p99=$(sed -n 's/.*p99=\([0-9]*\).*/\1/p' "$work/wrk-$1.txt")
  non2xx=$(awk '/Non-2xx/ {print $NF}' "$work/wrk-$1.txt"); non2xx=${non2xx:-0}
  errors=$(awk '/Socket errors/ {gsub(",", ""); print $4+$6+$8+$10}' "$work/wrk-$1.txt"); errors=${errors:-0}
  total=$(awk '/requests in/ {print $1}' "$work/wrk-$1.txt")
  execs=$(awk -v m="$MODEL" '$1 ~ "^migraphx_inference_executions_total" && $1 ~ m {print $2}' "$work/metrics-$1.txt")
  rows=$(awk -v m="$MODEL" '$1 ~ "^migraphx_inference_batch_size_sum" && $1 ~ m {print $2}' "$work/metrics-$1.txt")
  printf '%-9s %8s req/s  p50 %7.1f ms  p99 %7.1f ms  requests %6s  failed %s (non-2xx %s, socket errors %s)  runs %s, mean batch %s\n' \
    "batching-$1" "$rps" "$(echo "$p50/1000" | bc -l)" "$(echo "$p99/1000" | bc -l)" "$total" \
    "$((non2xx + errors))" "$non2xx" "$errors" "$execs" "$(echo "scale=2; $rows/$execs" | bc -l)"
  eval "sum_$1=\$(echo \"\$sum_$1 + $rps\" | bc -l)"
}

echo "migraphx-server load test: model $MODEL, cpu, wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, max_batch_size $MAX_BATCH," \
     "delay ${DELAY_US} us, $INSTANCES instance(s); $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
sum_on=0; sum_off=0
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then run off; run on; else run on; run off; fi
done
echo "throughput gain from dynamic batching: $(echo "scale=2; $sum_on/$sum_off" | bc -l)x (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
