#!/bin/sh
# Builds tools/gpu/lowering_check.cpp against a build's libmigraphx (default build-gpu; it needs
# the gpu target compiled in, not a device). Run from the repository root:
#   tools/gpu/build_lowering_check.sh [BUILD_DIR]  ->  BUILD_DIR/lowering_check
set -e
B=${1:-build-gpu}
${CXX:-g++} -std=c++20 -O1 -Wall -Wextra -Wno-unused-parameter -Iinclude -Isrc \
    -DMIGRAPHX_HAVE_GPU=1 tools/gpu/lowering_check.cpp -o "$B/lowering_check" \
    -L"$B/src" -lmigraphx -Wl,-rpath,"$(cd "$B/src" && pwd)"
echo "built $B/lowering_check"
