#!/usr/bin/env bash
# CI's check of OpenCL table entries that no device here runs: conformance
# cases on PoCL with the device counted as a GPU class (PORTKERN_CL_VENDOR),
# so with that class's table values (no tuning cache, no first-use
# tuning). The main suite runs the CPU entry, which is tuned for PoCL; this
# runs the kernel builds a GPU of the class would, and checks them against
# the reference between sessions on such devices. What needs the hardware
# itself (NVIDIA's inline PTX) is never picked here: PoCL reports no matrix
# units.
# Default: class "other" (its decode attention entry is AMD's and Intel's
# too) over attention, a per-row op and an elementwise op, which PoCL
# builds cold in about 7 minutes on 2 cores; PK_CLASS_CHECK and
# PK_CLASS_CHECK_OPS choose others (e.g. "nvidia amd intel other" and every op).
# Prints a line per class and op, then "class check: N checks, N failed" last.
# Usage: tools/class_check.sh [BUILD_DIR] (default build)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
classes=${PK_CLASS_CHECK:-other}
ops=${PK_CLASS_CHECK_OPS:-attention rmsnorm glu}
if ! "$build/portkern" devices | grep -qE '^  opencl [0-9]+: .*\[cpu\]'; then
  echo "class check: no OpenCL CPU device (PoCL)"
  echo "class check: 0 checks, 0 failed"
  exit 0
fi
dev=$("$build/portkern" devices | sed -nE 's/^  opencl ([0-9]+): .*\[cpu\].*/\1/p' | head -1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0 f=0
for cls in $classes; do
  for op in $ops; do
    start=$(date +%s)
    PORTKERN_CL_VENDOR=$cls PORTKERN_CL_TUNED=off PORTKERN_CL_AUTOTUNE=off \
      "$build/portkern" conform --backend "opencl:$dev" --op "$op" >"$out/run.txt" 2>&1
    rc=$?
    n=$((n + 1))
    grep -E '^FAIL' "$out/run.txt" | head -20 | sed "s/^/[$cls $op] /"
    echo "class $cls $op: $(tail -1 "$out/run.txt") ($(($(date +%s) - start)) s)"
    [ "$rc" -eq 0 ] || f=$((f + 1))
  done
done
echo "class check: $n checks, $f failed"
[ "$f" -eq 0 ]
