#!/usr/bin/env bash
# Open-ended fuzzing of parse_onnx_buffer with random seeds (the test suite runs a short fixed-seed pass).
# Usage: scripts/fuzz-onnx.sh [seconds] [build-dir]
# A crash leaves crash-* in the current folder; fix it and copy the input into tests/onnx/fuzz_corpus/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_TO_RUN="${1:-300}"
BUILD="${2:-$ROOT/build}"
FUZZER="$BUILD/tests/onnx/fuzz_parse_onnx"
[[ -x "$FUZZER" ]] || { echo "fuzz-onnx: $FUZZER not built (needs clang; see tests/onnx/CMakeLists.txt)" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$FUZZER" -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=2048 -detect_leaks=0 \
    "$WORK" "$ROOT/tests/onnx/fuzz_corpus"
