# Nsight Compute on the GPU machine: the generated kernels matching $KERNELS in one bench model's
# fp16 run (migx_gpu_bench, the first launches), with the sections that say what bounds a kernel.
# Report in $OUT/ncu_<model>_b<batch>.txt. Needs the carried install (tools/gpu/make_install.sh).
# ncu locks the clocks at base (1.33 GHz on the H200, "SM Frequency" in the report): durations are
# ~1.5x a normal run's; compare kernels with each other, not with the benchmark's times.
#   OUT=$OUT MODEL=bert:64 KERNELS='attention|erf' [COUNT=2] [SKIP=0] [NCU_ARGS='--section InstructionStats']
#     bash tools/gpu/ncu_kernels.sh
# NCU_ARGS adds sections or options (InstructionStats: the instruction mix; SourceCounters: where warps stall).
set -u
root=$(pwd); inst=$root/${INST:-install-gpu}
. "$(dirname "${BASH_SOURCE[0]}")/device_env.sh"
PY=/opt/torch/.venv/bin/python3
[ -n "$NCU" ] || { echo "ncu_kernels.sh: no ncu on this machine"; exit 1; }
m=${MODEL%:*}; b=${MODEL#*:}; f=/tmp/gb/${m}_b$b.onnx
[ -f $f ] || $PY tools/gpu/export_bench_models.py /tmp/gb $MODEL > /dev/null
r=$OUT/ncu_${m}_b$b.txt
timeout ${LIMIT:-240} $NCU --kernel-name regex:"$KERNELS" --launch-skip ${SKIP:-0} --launch-count ${COUNT:-2} \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
  --section MemoryWorkloadAnalysis --section SchedulerStats ${NCU_ARGS:-} $inst/bin/migx_gpu_bench $f --fp16 --runs 1 > $r 2>&1
grep -E "^  [a-z_]+kernel|Duration|Registers Per|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|Compute \(SM\) Thr|Warp Cycles Per Issued|Block Limit" $r
