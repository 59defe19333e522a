#!/usr/bin/env bash
# Installs what portkern needs to build and test on Debian 12 (or Ubuntu):
# a C compiler, Meson, Ninja, the OpenCL ICD loader and headers, and PoCL
# (an OpenCL CPU device, so the OpenCL backend runs anywhere), CLBlast (the
# bench's vendor library on OpenCL, loaded with dlopen: without it the bench
# fails its OpenCL GEMM cases unless PORTKERN_CLBLAST=off), and for the
# HIP backend's AMD code Debian's HIP runtime headers and device libraries
# (ROCm 5.2), clang-19 and lld-19 that build the kernels for today's AMD
# targets, and the LLVM tools that check the code objects (llvm-19:
# llvm-objdump, llvm-readelf; clang-tools-19: clang-offload-bundler), and
# DLPack's header (libdlpack-dev), which a test checks portkern's own
# declaration of that ABI against (api/pk_dlpack.h), and NumPy, which the
# Python package's tests (python/) check results with.
# Skips apt when everything is already there.
set -euo pipefail

packages=(build-essential pkg-config python3 meson ninja-build
          ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo libclblast1
          libamdhip64-dev rocm-device-libs clang-19 lld-19 llvm-19 clang-tools-19 libdlpack-dev
          python3-numpy)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
