#!/usr/bin/env bash
# Installs nnfx's build and test dependencies: the runtime packages
# (tools/install-deps-runtime.sh), Debian's development packages, and ONNX
# Runtime from npm (onnxruntime-node, into tests/ort) for the export tests.
# Usage: tools/install-deps.sh            (as root, or with sudo available)
set -euo pipefail
PKGS=(build-essential cmake ninja-build pkg-config libopenblas-dev libcmocka-dev graphviz
      clang clang-format libclang-rt-14-dev python3 python3-numpy python3-onnx python3-pytest)
# publishing: libcurl and libcrypto headers; the registry tests' docker-registry, htpasswd, curl
PKGS+=(libcurl4-openssl-dev libssl-dev docker-registry apache2-utils curl)
# codegen: the Cortex-M4 cross-compiler, newlib and the emulator the tests run it under
PKGS+=(gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm)
# bench/run_conv_libs.sh only: oneDNN and XNNPACK, measured beside nnfx's own conv kernels
PKGS+=(libdnnl-dev libxnnpack-dev libpthreadpool-dev)
# the fleet tests: deploy/'s Kubernetes and CI files are parsed as YAML
PKGS+=(python3-yaml)
# the HTML reports in a real browser (tests labelled browser: headless Chromium)
PKGS+=(chromium)
# PyTorch as the reference: tests export models at test time and compare with
# it (codegen's loop cases, the Python package's torch.fx comparisons);
# torchvision and scipy for the slow real-model tests and the fixture scripts
PKGS+=(python3-torch python3-torchvision python3-scipy)
command -v npm >/dev/null || PKGS+=(nodejs npm)
# one apt pass with the runtime set (tools/install-deps-runtime.sh does the installing)
"$(dirname "$0")/install-deps-runtime.sh" --build "${PKGS[@]}"
# ONNX Runtime (npm onnxruntime-node; its CPU library ships inside), used by
# the tests to run the models nnfx exports.
here=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -d "$here/tests/ort/node_modules/onnxruntime-node" ]; then
  echo "install-deps: npm install onnxruntime-node into tests/ort"
  (cd "$here/tests/ort" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
