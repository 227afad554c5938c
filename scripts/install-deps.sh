#!/usr/bin/env bash
# Installs every build, test and tool dependency of migx from Debian 12 packages.
# Idempotent: safe to rerun. Needs root (or sudo) and the Debian package registry.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libgtest-dev libgmock-dev
  libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata
  libdnnl-dev
  libmsgpack-cxx-dev libxxhash-dev
  libcli11-dev
  pybind11-dev python3-dev python3-numpy python3-onnx
  python3-torch python3-torchvision
  clang-14 libclang-rt-14-dev
  libcpp-httplib-dev libgrpc++-dev protobuf-compiler-grpc nlohmann-json3-dev wrk curl
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
