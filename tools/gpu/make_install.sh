# Builds the gpu build folder and installs it relocatably for the GPU machine (the device tool
# copies the working tree there; name the folder in `carry`): libmigraphx with $ORIGIN RPATH,
# the libraries that machine lacks (protobuf, onnx_proto) beside it, the test and benchmark
# programs, all stripped to stay under the 64 MiB the tool carries.
#   bash tools/gpu/make_install.sh [BUILD_DIR=build-gpu] [PREFIX=install-gpu]
# A cpu build works too (its oneDNN, libgomp and the libOpenCL Debian's oneDNN links are copied);
# NO_SERVER=1 leaves migraphx-server and its gRPC/TLS libraries out, so that a cpu install (oneDNN
# alone is 38 MB) fits the 64 MiB: `NO_SERVER=1 bash tools/gpu/make_install.sh build-cpu install-cpu`.
set -euo pipefail
build=${1:-build-gpu}; prefix=${2:-install-gpu}
# What the install rules name (all of them must be built) and the test programs, where configured.
have=$(ninja -C "$build" -t targets all | sed 's/:.*//')
targets=""
for t in migraphx migraphx-driver migraphx_python migx_dynamic_bench migx_quant_accuracy migx_gpu_bench \
         migx_unit_tests mxr_load_time migraphx-server migx_server_grpc_client; do
  grep -qx "$t" <<<"$have" && targets="$targets $t"
done
ninja -C "$build" -j${JOBS:-2} $targets
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
for lib in libonnx_proto.so.1 libprotobuf.so.32; do cp -L /lib/x86_64-linux-gnu/$lib "$prefix/lib/"; done
for exe in tests/migx_unit_tests tests/unit/migx_unit_tests bench/migx_gpu_bench bench/gpu/migx_gpu_bench \
           tests/serialize/mxr_load_time tests/server/migx_server_grpc_client tests/onnx/onnx_conformance; do
  [ -f "$build/$exe" ] && cp "$build/$exe" "$prefix/bin/"
done
# The cuDNN first-use probe (tools/gpu/conv_first_use.cpp; standalone, CUDA and cuDNN only)
if [ -f /usr/local/cuda/include/cudnn.h ]; then
  g++ -O2 -std=c++17 tools/gpu/conv_first_use.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcudnn -lcudart \
      -o "$prefix/bin/conv_first_use"
fi
# The batch-split probe (tools/gpu/concurrent_probe.cpp; the installed API only)
g++ -O2 -std=c++17 -pthread tools/gpu/concurrent_probe.cpp -I"$prefix/include" -L"$prefix/lib" -lmigraphx \
    -Wl,-rpath,'$ORIGIN/../lib' -o "$prefix/bin/concurrent_probe"
# migraphx-server (where configured): gRPC, abseil, httplib... are not on the GPU machine
if [ -f "$prefix/bin/migraphx-server" ]; then
  ldd "$prefix/bin/migraphx-server" | awk '$3 ~ /^\/lib\/x86_64-linux-gnu\// {print $3}' |
    grep -vE '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s)\.so' | xargs -r -I{} cp -L {} "$prefix/lib/"
fi
if [ "${NO_SERVER:-0}" = 1 ]; then
  rm -f "$prefix/bin/migraphx-server" "$prefix/bin/migx_server_grpc_client"
  find "$prefix/lib" -maxdepth 1 -name '*.so*' ! -name 'libmigraphx*' ! -name 'libonnx_proto*' ! -name 'libprotobuf*' \
    ! -name 'libdnnl*' ! -name 'libgomp*' -delete
fi
# The cpu target's oneDNN (Debian's links libOpenCL for its GPU runtime) and OpenMP runtime.
if ldd "$prefix"/lib/libmigraphx.so.0 2>/dev/null | grep libdnnl >/dev/null; then
  for lib in libdnnl.so.2 libgomp.so.1 libOpenCL.so.1; do cp -L /lib/x86_64-linux-gnu/$lib "$prefix/lib/" 2>/dev/null || true; done
fi
# The ONNX conformance cases of the gpu's selection kernels and run-time-size forms (about 1 MB;
# the GPU machine has no libonnx-testdata): tools/gpu/sizes_check.sh runs them there.
cases=/usr/share/libonnx-testdata/data/node
if [ -d $cases ]; then
  mkdir -p "$prefix/conformance/node"
  cp -r $cases/test_top_k* $cases/test_argmax_* $cases/test_argmin_* $cases/test_gathernd* $cases/test_nonzero* \
    "$prefix/conformance/node/" 2>/dev/null || true
fi
rm -rf "$prefix/share" "$prefix/lib/python"* 2>/dev/null || true
strip --strip-unneeded "$prefix"/bin/* "$prefix"/lib/*.so* 2>/dev/null || true
du -sh "$prefix"
