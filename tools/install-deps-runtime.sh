#!/usr/bin/env bash
# Installs what the nnfx command needs to run (Debian packages): OpenBLAS,
# oneDNN (float convolutions; with its OpenMP runtime), libcurl with OpenSSL (push/pull to OCI registries over TLS) and the CA
# certificates. With --build, also what building nnfx (without its tests)
# needs: a C compiler, CMake, Ninja, pkg-config and the -dev packages.
# The Dockerfile runs this script in both of its stages; tools/install-deps.sh
# (the development set: tests, sanitizers, ONNX Runtime) runs it first.
# Further package names after the options are installed in the same pass
# (tools/install-deps.sh passes its development set that way).
# Usage: tools/install-deps-runtime.sh [--build] [PKG...]   (as root, or with sudo)
set -euo pipefail
PKGS=(libopenblas0 libdnnl2 libgomp1 libcurl4 libssl3 ca-certificates)
if [ "${1:-}" = "--build" ]; then
  PKGS+=(build-essential cmake ninja-build pkg-config libopenblas-dev libdnnl-dev libcurl4-openssl-dev libssl-dev)
  shift
fi
PKGS+=("$@")
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps-runtime: all packages already installed"
else
  echo "install-deps-runtime: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
