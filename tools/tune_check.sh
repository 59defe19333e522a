#!/usr/bin/env bash
# CI's tuner check on PoCL: `portkern tune` over every kernel family with a
# short limit into a fresh cache (a family past its limit is reported),
# then the conformance suite on PoCL with what it stored (tuned
# parameters; the default ones are the main suite's). Prints "tune check:
# N checks, N failed" last (each family tuned without error, and the tuned
# conformance run, one check each).
# Usage: tools/tune_check.sh [BUILD_DIR] (default build)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
secs=${PK_TUNE_CHECK_SECONDS:-30}
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
# the kernel binaries the earlier runs built (PoCL takes seconds to build a
# GEMM): the search starts warm; no tuning comes along
if [ -n "${PORTKERN_CACHE_DIR:-}" ] && [ -d "$PORTKERN_CACHE_DIR" ]; then
  find "$PORTKERN_CACHE_DIR" -maxdepth 1 -name '*.clbin' -exec cp {} "$cache/" \;
fi
export PORTKERN_CACHE_DIR=$cache
unset PORTKERN_CL_TUNED
if ! "$build/portkern" devices | grep -qE '^  opencl [0-9]+: .*\[cpu\]'; then
  echo "tune check: no OpenCL CPU device (PoCL)"
  echo "tune check: 0 checks, 0 failed"
  exit 0
fi
dev=$("$build/portkern" devices | sed -nE 's/^  opencl ([0-9]+): .*\[cpu\].*/\1/p' | head -1)
out="$cache/tune.txt"
"$build/portkern" tune --backend "opencl:$dev" --seconds "$secs" >"$out" 2>/dev/null
rc=$?
cat "$out"
n=$(grep -cE '^(tuned|FAILED)' "$out")
f=$(grep -cE '^FAILED' "$out")
[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
# A family past its limit is reported, not failed: on two busy cores one
# PoCL build of a GEMM candidate can take longer than the whole limit, and
# the search cannot stop a build it has started (issue 15 keeps this open).
over=$(grep -c '^over its limit' "$out")
echo "tune check: $over of $n families over their ${secs} s limit"
"$build/portkern" devices | grep -A2 "^  opencl $dev:"
"$build/portkern" conform --backend "opencl:$dev" >"$cache/conform.txt" 2>&1
crc=$?
grep -E '^FAIL' "$cache/conform.txt" | head -20
echo "tuned parameters: $(tail -1 "$cache/conform.txt")"
n=$((n + 1))
[ "$crc" -eq 0 ] || f=$((f + 1))
echo "tune check: $n checks, $f failed"
[ "$f" -eq 0 ]
