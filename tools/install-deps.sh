#!/usr/bin/env bash
# Installs nnfx's build and test dependencies from Debian's packages.
# Usage: tools/install-deps.sh            (as root, or with sudo available)
set -euo pipefail
PKGS=(build-essential cmake ninja-build pkg-config libopenblas-dev libcmocka-dev graphviz
      clang libclang-rt-14-dev python3 python3-numpy python3-onnx)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages already installed"
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
