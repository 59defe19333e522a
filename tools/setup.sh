#!/usr/bin/env bash
# Installs what portkern needs to build and test on Debian 12 (or Ubuntu):
# a C compiler, Meson, Ninja, the OpenCL ICD loader and headers, and PoCL
# (an OpenCL CPU device, so the OpenCL backend runs anywhere), CLBlast (the
# bench's vendor library on OpenCL, loaded with dlopen: without it the bench
# fails its OpenCL GEMM cases unless PORTKERN_CLBLAST=off), and Debian's
# HIP (hipcc, ROCm 5.2) with the LLVM tools that check its AMD code
# objects (llvm-15: llvm-objdump, llvm-readelf; clang-tools-15:
# clang-offload-bundler). Skips apt when everything is already there.
set -euo pipefail

packages=(build-essential pkg-config python3 meson ninja-build
          ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo libclblast1
          hipcc libamdhip64-dev llvm-15 clang-tools-15)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
