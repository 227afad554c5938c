#!/usr/bin/env bash
# Installs the dependencies, builds migx in build/ and runs every test under CTest.
# The last line printed is CTest's summary ("100% tests passed, 0 tests failed out of N").
# Exit status: 0 when every test passed.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

install_deps
configure_and_build -DMIGRAPHX_ENABLE_TESTS=ON

log "running the tests (ctest -j2)"
log_file="$BUILD_DIR/ctest.log"
set +e
(cd "$BUILD_DIR" && ctest --output-on-failure -j2 "$@") 2>&1 | tee "$log_file"
rc=${PIPESTATUS[0]}
set -e
summary="$(grep -E '^[0-9]+% tests passed' "$log_file" | tail -n 1 || true)"
if [ -z "$summary" ]; then
    summary="ctest did not report a summary (exit status $rc)"
    [ "$rc" -ne 0 ] || rc=1
fi
echo
echo "$summary"
exit "$rc"
