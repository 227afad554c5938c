# migraphx-server on the GPU machine (issue 12's --gpu path): the end-to-end groups of
# tests/server/test_server.py with the server on the gpu target (tiny models from gen_models.py,
# results against numpy). Needs install-gpu made by make_install.sh from a build with the server.
#   OUT=$OUT [SERVER_GROUPS="http batching grpc errors shutdown"] bash tools/gpu/server_gpu_check.sh
set -u
root=$(pwd); inst=$root/${INST:-install-gpu}
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
PY=${PY:-/opt/torch/.venv/bin/python3}
L=$OUT/server.log
work=/tmp/server-work; mkdir -p $work
command -v curl >> $L 2>&1 || echo "no curl on this machine" >> $L
timeout 120 $PY tests/server/gen_models.py $work >> $L 2>&1; echo "gen_models rc=$?" >> $L
for g in ${SERVER_GROUPS:-http batching grpc errors shutdown}; do
  timeout 200 $PY tests/server/test_server.py --server $inst/bin/migraphx-server --grpc-client $inst/bin/migx_server_grpc_client \
    --eval /bin/false --source $root --work $work --target gpu $g >> $L 2>&1
  echo "group $g rc=$?" >> $L
done
grep -E "PASS|FAIL|rc=|no curl" $L
