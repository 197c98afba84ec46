#!/usr/bin/env bash
# Installs, on a fresh Debian machine, everything flextile's build and tests need.
# Idempotent: packages already present are skipped. Run as root (or with sudo available).
set -euo pipefail

PKGS=(
  libclang-dev      # libclang 14, linked dynamically by clang-sys
  clang             # clang front end (libclang's resource headers; CUDA syntax checks)
  autoconf automake libtool make pkg-config   # isl-rs builds its own isl with autotools
  gcc libgomp1      # C compiler with OpenMP for the testsuite
  g++               # C++: generated CUDA run on the CPU emulation (testsuite/cuda)
  libc6-dev
  python3-pip       # nvcc from PyPI (below)
  graphviz          # dot: --emit mdg=FILE.dot also writes FILE.svg
)

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if [ "${#missing[@]}" -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "deps: all system packages present"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "deps: cargo not found; install a Rust toolchain (rustup) first" >&2
  exit 1
fi

# CUDA's compiler from PyPI, into the project (git-ignored .deps/cuda): the
# tests compile CUDA for sm_80 and sm_90 without a GPU. 13.0.88 is the nvcc
# of the lent GPU machines (driver 580, CUDA 13.0).
CUDA_VERSION=13.0.88
CUDA_DIR="$(cd "$(dirname "$0")/.." && pwd)/.deps/cuda"
if [ "$(cat "$CUDA_DIR/VERSION" 2>/dev/null)" != "$CUDA_VERSION" ] || [ ! -x "$CUDA_DIR/nvidia/cu13/bin/nvcc" ]; then
  echo "deps: installing nvcc $CUDA_VERSION from PyPI into .deps/cuda"
  rm -rf "$CUDA_DIR"
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-warn-script-location \
    --target "$CUDA_DIR" "nvidia-cuda-nvcc==$CUDA_VERSION" "nvidia-cuda-runtime==$CUDA_VERSION" \
    "nvidia-nvvm==$CUDA_VERSION" "nvidia-cuda-crt==$CUDA_VERSION"
  echo "$CUDA_VERSION" > "$CUDA_DIR/VERSION"
else
  echo "deps: nvcc $CUDA_VERSION present in .deps/cuda"
fi
