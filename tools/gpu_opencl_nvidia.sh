#!/usr/bin/env bash
# On the GPU machine: build portkern there and run the conformance suite on
# NVIDIA's OpenCL (registered by hand: the driver ships it unregistered).
# Logs go to $OUT (or ./gpu-out); the short table comes last.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
mkdir -p "$out" /tmp/icd
echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd
[ -f /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 ] && echo /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
export PORTKERN_CACHE_DIR=/tmp/pk-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt" 2>&1

start=$(date +%s)
{ meson setup build-gpu && ninja -C build-gpu -j16; } >"$out/build.txt" 2>&1 || { tail -40 "$out/build.txt"; exit 1; }
build-gpu/portkern devices 2>&1 | tee "$out/devices.txt"
# the loader may list PoCL too: pick the NVIDIA device by name
idx=$(grep -E '^  opencl [0-9]+: .*NVIDIA' "$out/devices.txt" | head -1 | sed -E 's/^  opencl ([0-9]+):.*/\1/')
[ -n "$idx" ] || { echo "no NVIDIA OpenCL device"; exit 1; }
build-gpu/portkern conform --backend "opencl:$idx" --json "$out/conform-nvidia-opencl.json" "$@" \
  >"$out/conform-nvidia-opencl.txt" 2>&1
rc=$?
end=$(date +%s)
grep -E '^(FAIL|SKIP)' "$out/conform-nvidia-opencl.txt" | head -60
echo "--- $(cat "$out/gpu.txt" | tail -1)"
echo "--- conformance on NVIDIA OpenCL (rc $rc, $((end - start)) s incl. build):"
tail -1 "$out/conform-nvidia-opencl.txt"
