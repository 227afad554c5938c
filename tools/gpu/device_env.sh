# Sourced by the GPU machine's scripts (tools/gpu/*.sh): finds that machine's CUDA libraries
# (cuDNN, cuBLASLt, NVRTC; some live under PyTorch's site-packages) and puts them after the
# carried install's lib/ on LD_LIBRARY_PATH ($D names their folders); one kernel/tuning cache;
# $NCU: the machine's Nsight Compute (empty where it has none). Needs $inst (the carried install).
D=$(find /usr/local /opt /usr/lib -xdev \( -name 'libcudnn.so.9' -o -name 'libcublasLt.so.13' -o -name 'libnvrtc.so.13' -o -name 'libcudnn_cnn.so.9' \) 2>/dev/null | xargs -r -n1 dirname | sort -u | tr '\n' ':')
export LD_LIBRARY_PATH=$inst/lib:$D${LD_LIBRARY_PATH:-}
export MIGRAPHX_GPU_CACHE_DIR=${MIGRAPHX_GPU_CACHE_DIR:-/tmp/migx-cache} PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
NCU=$(ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
