# Device memory of migraphx-server on the GPU machine with one batching model: ResNet-50 (fp32,
# from the machine's PyTorch, its batch made symbolic) at max_batch_size 32 (programs for 1, 2, 4,
# 8, 16 and 32 rows) and 2 instances, so 12 programs of one model. For each setting the server is
# started, waited for until ready, and the device memory it holds read from nvidia-smi; then it is
# stopped. Settings: weights and (gpu) an instance's scratch shared between the programs (the
# default), MIGRAPHX_DISABLE_SCRATCH_GROUPS=1 (a scratch buffer a program) and
# MIGRAPHX_DISABLE_SHARED_LITERALS=1 (a copy of the weights a program). Lines in $OUT/server_memory.txt.
#   OUT=$OUT bash tools/gpu/server_memory.sh
set -u
root=$(pwd); inst=$root/${INST:-install-gpu}
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
PY=${PY:-/opt/torch/.venv/bin/python3}
L=$OUT/server_memory.txt
repo=/tmp/server-memory; rm -rf $repo; mkdir -p $repo/resnet50/1 /tmp/gb
[ -f /tmp/gb/resnet50_b1.onnx ] || timeout 120 $PY tools/gpu/export_bench_models.py /tmp/gb resnet50:1 >> $L 2>&1
$PY - /tmp/gb/resnet50_b1.onnx $repo/resnet50/1/model.onnx <<'PYEOF'
import sys, onnx
m = onnx.load(sys.argv[1])
for v in list(m.graph.input) + list(m.graph.output):
    v.type.tensor_type.shape.dim[0].dim_param = "N"
onnx.save(m, sys.argv[2])
PYEOF
printf 'max_batch_size: 32\ndynamic_batching { }\ninstance_group [ { count: 2 } ]\n' > $repo/resnet50/config.pbtxt
for setting in shared "MIGRAPHX_DISABLE_SCRATCH_GROUPS=1" "MIGRAPHX_DISABLE_SHARED_LITERALS=1"; do
  envs=$([ $setting = shared ] && echo "" || echo $setting)
  before=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1)
  env $envs $inst/bin/migraphx-server --model-repository $repo --gpu --http-port 0 --grpc-port -1 --no-cache \
    --port-file /tmp/server-memory.port > /tmp/server-memory.log 2>&1 &
  pid=$!
  for i in $(seq 240); do [ -s /tmp/server-memory.port ] && break; sleep 0.5; done
  port=$(sed -n 's/.*http=\([0-9]*\).*/\1/p' /tmp/server-memory.port)
  for i in $(seq 240); do curl -sf localhost:$port/v2/health/ready > /dev/null && break; sleep 0.5; done
  sleep 1
  used=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits | awk -F', ' -v p=$pid '$1 == p {print $2}')
  after=$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1)
  echo "$setting: ready=$(curl -s localhost:$port/v2/health/ready) device MiB held by the server: ${used:-?} (device in use $before -> $after), host RSS MiB: $(($(awk '{print $2}' /proc/$pid/statm) * 4 / 1024))" >> $L
  kill $pid; wait $pid 2>/dev/null; rm -f /tmp/server-memory.port
  tail -3 /tmp/server-memory.log >> $L
done
cat $L
