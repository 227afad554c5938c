#!/usr/bin/env bash
# The main job, from a clean clone on Debian 12 (as root or with sudo):
#   1. install the dependencies (scripts/install-deps.sh)
#   2. configure (Ninja, Release) and build in build/ (the library and the driver; not the tests)
#   3. install into ./install (relocatable: binaries find their libraries through $ORIGIN RPATHs)
#   4. export ResNet-50 with random weights (tools/export_models.py, no downloads) to models/
#   5. migraphx-driver perf and verify on it, on the cpu target if this build has it, else on ref
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

install_deps
configure_and_build -DMIGRAPHX_ENABLE_TESTS=OFF   # scripts/test.sh builds and runs the tests
log "installing into $ROOT/install"
cmake --install "$BUILD_DIR" --prefix "$ROOT/install"

model="$ROOT/models/resnet50/model.onnx"
if [ -f "$model" ]; then
    log "reusing $model"
else
    log "exporting ResNet-50 (random weights) to models/"
    /usr/bin/python3 "$ROOT/tools/export_models.py" --out "$ROOT/models" --models resnet50
fi

if [ ! -x "$BUILD_DIR/src/migraphx-driver" ]; then
    log "SKIPPED: $BUILD_DIR/src/migraphx-driver was not built (src/driver/ has no sources yet)"
    exit 0
fi
driver="$ROOT/install/bin/migraphx-driver"

# The cpu target when this build registers it, else ref. `migraphx-driver version` may list
# the targets ("Targets: ..."); otherwise look for the cpu target in the installed library.
has_cpu_target() {
    if "$driver" version 2>/dev/null | grep -i '^targets' | grep -qw cpu; then
        return 0
    fi
    local lib
    for lib in "$ROOT"/install/lib*/libmigraphx.so; do
        [ -e "$lib" ] && nm -DC "$lib" 2>/dev/null | grep -q 'migraphx::cpu::target' && return 0
    done
    return 1
}

if has_cpu_target; then
    target=(--cpu)
    runs=(-n 100)
else
    # ref runs every op as plain reference loops: a few runs are enough.
    target=(--ref)
    runs=(-n 2)
fi

"$driver" version
log "migraphx-driver perf --onnx $model ${target[*]} ${runs[*]}"
"$driver" perf --onnx "$model" "${target[@]}" "${runs[@]}"
log "migraphx-driver verify --onnx $model ${target[*]}"
"$driver" verify --onnx "$model" "${target[@]}"
log "main job done"
