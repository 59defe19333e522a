#!/usr/bin/env bash
# On the GPU machine, in one call: build portkern there, run the conformance
# suite on CUDA and on NVIDIA's OpenCL (registered by hand: the driver ships
# it unregistered), then the bench on CUDA beside cuBLAS. Logs go to $OUT
# (or ./gpu-out); the short table comes last. Arguments: which parts to run
# (default: conform bench; also: sanitize). The tree there has no .git: pass the commit as
# PORTKERN_COMMIT=$(git rev-parse --short HEAD) in the command.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
parts=${*:-conform bench}
mkdir -p "$out" /tmp/icd
for lib in /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/lib/libnvidia-opencl.so.1; do
  [ -f "$lib" ] && echo "$lib" >/tmp/icd/nvidia.icd && break
done
export OCL_ICD_VENDORS=/tmp/icd
export PORTKERN_CACHE_DIR=/tmp/pk-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >"$out/gpu.txt" 2>&1

start=$(date +%s)
# only the H200's own code: a third of the nvcc time of the default targets
{ meson setup build-gpu -Dnvcc_archs=sm_90a && ninja -C build-gpu -j16; } >"$out/build.txt" 2>&1 || { tail -40 "$out/build.txt"; exit 1; }
echo "build: $(($(date +%s) - start)) s"
build-gpu/portkern devices 2>&1 | tee "$out/devices.txt"
# the loader may list PoCL too: pick the NVIDIA OpenCL device by name
cl=$(grep -E '^  opencl [0-9]+: .*NVIDIA' "$out/devices.txt" | head -1 | sed -E 's/^  opencl ([0-9]+):.*/\1/')

summary=()
if [[ $parts == *conform* ]]; then
  for target in cuda:0 ${cl:+opencl:$cl}; do
    t0=$(date +%s)
    timeout "${PK_STEP_TIMEOUT:-240}" build-gpu/portkern conform --backend "$target" --json "$out/conform-${target%%:*}.json" \
      >"$out/conform-${target%%:*}.txt" 2>&1
    summary+=("conform $target ($(($(date +%s) - t0)) s): $(tail -1 "$out/conform-${target%%:*}.txt")")
    grep -E '^(FAIL|SKIP)' "$out/conform-${target%%:*}.txt" | cut -c1-220 | head -25
  done
fi
if [[ $parts == *bench* ]]; then
  timeout "${PK_STEP_TIMEOUT:-240}" build-gpu/portkern bench --backend cuda --record "$out/bench-cuda.md" 2>&1 |
    tee "$out/bench-cuda.txt"
fi
if [[ $parts == *sanitize* ]]; then
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    t0=$(date +%s)
    timeout "${PK_STEP_TIMEOUT:-240}" "$san" --tool "$tool" --print-limit 50 \
      build-gpu/portkern conform --backend cuda:0 >"$out/sanitize-$tool.txt" 2>&1
    summary+=("$tool ($(($(date +%s) - t0)) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitize-$tool.txt" | tail -1) | $(grep -E 'passed, ' "$out/sanitize-$tool.txt" | tail -1)")
  done
fi
# part `hip`: the HIP backend on this GPU, built with -Dhip_platform=nvidia
# (HIP host code over hip_on_cuda.h, HIP kernels by nvcc) in build-gpu-hip
if [[ $parts == *hip* ]]; then
  t0=$(date +%s)
  if { meson setup build-gpu-hip -Dhip_platform=nvidia -Dnvcc_archs=sm_90a &&
       ninja -C build-gpu-hip -j16 portkern libportkern-hip.so; } >"$out/build-hip.txt" 2>&1; then
    build-gpu-hip/portkern devices 2>&1 | grep -A2 '^hip' | tee "$out/devices-hip.txt"
    timeout "${PK_STEP_TIMEOUT:-240}" build-gpu-hip/portkern conform --backend hip:0 --json "$out/conform-hip.json" \
      >"$out/conform-hip.txt" 2>&1
    summary+=("conform hip:0, HIP on NVIDIA (build and run $(($(date +%s) - t0)) s): $(tail -1 "$out/conform-hip.txt")")
    grep -E '^(FAIL|SKIP)' "$out/conform-hip.txt" | cut -c1-220 | head -25
  else
    tail -40 "$out/build-hip.txt"
    summary+=("hip: build failed (build-hip.txt)")
  fi
fi
echo "--- $(tail -1 "$out/gpu.txt")"
printf '%s\n' "${summary[@]}"
