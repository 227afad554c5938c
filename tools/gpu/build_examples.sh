#!/bin/bash
# Builds the spec's example programs (tests/examples/project) with the gpu target, against the
# relocatable install in install-gpu/, into install-gpu/examples/ (for run_h200.sh to carry).
# The programs are the CI ones with ref swapped back to gpu, as the spec writes them.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
inst=${1:-$root/install-gpu}
mkdir -p "$inst/examples"
for n in spec_3_9_2_inference spec_3_10_graph; do
    sed -e 's#<migraphx/ref/target.hpp>#<migraphx/gpu/target.hpp>#' -e 's#migraphx::ref::target{}#migraphx::gpu::target{}#g' \
        "$root/tests/examples/project/$n.cpp" > "$inst/examples/$n.cpp"
    g++ -std=c++17 -O1 -I"$inst/include" "$inst/examples/$n.cpp" -L"$inst/lib" -lmigraphx \
        -Wl,-rpath,'$ORIGIN/../lib' -o "$inst/examples/$n"
    cp "$root/tests/examples/expected/$n".* "$inst/examples/"
done
echo "built: $(ls "$inst/examples")"
