# Device: one call on issue 7's BERT-base b64 fp16: bert_floor.py (eager, migx and the two
# library floors, alternating), then attention-kernel variants $VARIANTS under Nsight Compute
# (attention_ab.sh) and end to end (env_variants.sh, $ROUNDS rounds). Files in $OUT: floor.md,
# floor.log, power.md (clock and power a floor line, tools/gpu/power_by_run.py; FLOOR_CALLS = its
# --runs + --warmup), smi.csv, attention_ab.log, variants.log, gpu.txt.
#   OUT=$OUT [VARIANTS="base=;x=VAR=1"] [ROUNDS=2] [SKIP="floor ncu e2e"] [FLOOR_ARGS="--floors ..."] bash tools/gpu/bert_limits.sh
inst=$PWD/install-gpu; . tools/gpu/device_env.sh
PY=/opt/torch/.venv/bin/python3
SKIP=${SKIP:-}
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader > $OUT/gpu.txt
[ -f /tmp/gb/bert_b64.onnx ] || timeout 200 $PY tools/gpu/export_bench_models.py /tmp/gb bert:64 > $OUT/export.log 2>&1
# power.draw is averaged over about a second (it ramps for a second after a run starts): ask for
# the instantaneous reading where the driver has it
pw=power.draw; nvidia-smi --query-gpu=power.draw.instant --format=csv > /dev/null 2>&1 && pw=power.draw.instant
nvidia-smi --query-gpu=timestamp,clocks.sm,$pw,clocks_event_reasons.sw_power_cap --format=csv,noheader,nounits \
  -lms 50 > $OUT/smi.csv 2>/dev/null & smi=$!
[[ " $SKIP " == *" floor "* ]] || timeout ${FLOOR_LIMIT:-300} $PY tools/gpu/bert_floor.py --migx $inst/bin/migx_gpu_bench --work /tmp/gb \
  --rounds ${FLOOR_ROUNDS:-3} ${FLOOR_ARGS:-} --out $OUT/floor.md 2> $OUT/floor.log
kill $smi 2>/dev/null
$PY tools/gpu/power_by_run.py $OUT/floor.log $OUT/smi.csv ${FLOOR_CALLS:-70} > $OUT/power.md 2>&1
if [ -n "${VARIANTS:-}" ]; then
  [[ " $SKIP " == *" ncu "* ]] || SKIP=0 OUT=$OUT MODEL=bert:64 VARIANTS="$VARIANTS" LIMIT=90 bash tools/gpu/attention_ab.sh > /dev/null 2>&1
  [[ " $SKIP " == *" e2e "* ]] || OUT=$OUT MODELS=bert:64 ROUNDS=${ROUNDS:-2} VARIANTS="$VARIANTS" timeout 240 bash tools/gpu/env_variants.sh > /dev/null 2>&1
fi
