#!/usr/bin/env bash
# CI's check of the HIP backend's run-time path on NVIDIA (hip_rtc.c, HIP
# on NVIDIA through hip_on_cuda.h), which needs no GPU: a HIP-on-NVIDIA
# build without embedded code objects, then tests/test_hip_rtc sm_90,
# which compiles each kernels_hip/ file with NVRTC as pk_open would (the
# headers under both names they are included by), reads it back from the
# disk cache, and checks that a broken source fails with the compiler's
# log. The plain build's hip_rtc test compiles with AMD's hipRTC instead;
# a header that only NVRTC refused (two names, one #pragma once) reached
# the H200 before this check existed. About 2 minutes on 2 cores.
# Prints "nvrtc check: N checks, N failed" last; without nvcc or NVRTC,
# "0 checks". Usage: tools/nvrtc_check.sh [BUILD_DIR] (default build-nvrtc)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-nvrtc}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ ! -x "$nvcc" ] || ! ls "$(dirname "$(dirname "$nvcc")")"/lib64/libnvrtc.so* >/dev/null 2>&1; then
  echo "nvrtc check: no nvcc or NVRTC here"
  echo "nvrtc check: 0 checks, 0 failed"
  exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { [ -d "$build" ] || meson setup "$build" -Dhip_platform=nvidia -Dhip_code_objects=false -Dopencl=disabled \
         -Dcuda=enabled -Dnvcc_archs=sm_90a; } >"$log" 2>&1 ||
   ! ninja -C "$build" tests/test_hip_rtc >>"$log" 2>&1; then
  tail -20 "$log"
  echo "nvrtc check: 1 checks, 1 failed"
  exit 1
fi
"$build/tests/test_hip_rtc" sm_90 | tee "$log"
rc=${PIPESTATUS[0]}
read -r n f < <(sed -n 's/^test_hip_rtc: \([0-9]*\) checks, \([0-9]*\) failed$/\1 \2/p' "$log" | tail -1)
[ "$rc" -eq 0 ] || f=$(( ${f:-0} > 0 ? f : 1 ))
echo "nvrtc check: ${n:-1} checks, ${f:-1} failed"
[ "$rc" -eq 0 ]
