#!/usr/bin/env bash
# Installs, on a fresh Debian machine, everything flextile's build and tests need.
# Idempotent: packages already present are skipped. Run as root (or with sudo available).
set -euo pipefail

PKGS=(
  libclang-dev      # libclang 14, linked dynamically by clang-sys
  clang             # clang front end (libclang's resource headers; CUDA syntax checks)
  autoconf automake libtool make pkg-config   # isl-rs builds its own isl with autotools
  gcc libgomp1      # C compiler with OpenMP for the testsuite
  libc6-dev
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
