# Shared by scripts/*.sh: repository root, build directory, configure + build.
# Sourced, not run. Honours: BUILD_DIR (default build), BUILD_TYPE (default Release), JOBS.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
BUILD_TYPE="${BUILD_TYPE:-Release}"
JOBS="${JOBS:-$(nproc)}"

log() { echo "==> $*"; }

install_deps() {
    log "installing dependencies (scripts/install-deps.sh)"
    bash "$ROOT/scripts/install-deps.sh"
}

configure_and_build() {
    # CMakeLists.txt puts ccache in front of the compiler when it is installed.
    log "configuring $BUILD_DIR ($BUILD_TYPE, Ninja)"
    cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" "$@"
    log "building with $JOBS jobs"
    cmake --build "$BUILD_DIR" --parallel "$JOBS"
}
