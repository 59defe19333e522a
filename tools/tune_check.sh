#!/usr/bin/env bash
# CI's tuner check on PoCL: `portkern tune` over every kernel family with a
# short limit into a fresh cache, each family within its limit, then the
# conformance suite on PoCL with what it stored (tuned parameters; the
# default ones are the main suite's). Prints each family's time, then
# "tune check: N checks, N failed" last (each family tuned without error
# and within its limit, and the tuned conformance run, one check each).
# The search runs in a worker process killed at the limit (api/pk_tune_proc.c),
# so a family's time is its limit at most, plus the kill and the storing
# of the winner: tol seconds (2) allow for those on busy cores.
# Usage: tools/tune_check.sh [BUILD_DIR] (default build)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
secs=${PK_TUNE_CHECK_SECONDS:-30}
tol=2
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
# A family whose first candidate was still building when the limit stopped
# it kept the table's values: the search held its limit (what this checks)
# and found nothing, which two busy cores and a cold kernel cache can cause.
# It is reported, not failed; any other FAILED line fails.
kept=$(grep -cE '^FAILED [a-z_]+: no candidate finished within' "$out")
f=$(($(grep -cE '^FAILED' "$out") - kept))
[ "$kept" -eq 0 ] || echo "tune check: $kept families stopped before their first candidate finished (table values kept)"
[ "$rc" -eq 0 ] || [ "$(grep -cE '^FAILED' "$out")" -gt 0 ] || f=1
# "time   FAMILY  SECONDS s of LIMIT s": a family past its limit and the
# tolerance fails
over=$(awk -v lim="$secs" -v tol="$tol" '$1 == "time" && $3 > lim + tol { print $2 }' "$out")
for fam in $over; do
  echo "tune check: $fam took longer than ${secs} s + ${tol} s"
  f=$((f + 1))
done
[ "$(grep -c '^time ' "$out")" -eq "$n" ] || { echo "tune check: a family's time is missing"; f=$((f + 1)); }
echo "tune check: per-family seconds (limit ${secs} s + ${tol} s):" $(awk '$1 == "time" { printf "%s=%s ", $2, $3 }' "$out")
"$build/portkern" devices | grep -A2 "^  opencl $dev:"
"$build/portkern" conform --backend "opencl:$dev" >"$cache/conform.txt" 2>&1
crc=$?
grep -E '^FAIL' "$cache/conform.txt" | head -20
echo "tuned parameters: $(tail -1 "$cache/conform.txt")"
n=$((n + 1))
[ "$crc" -eq 0 ] || f=$((f + 1))
echo "tune check: $n checks, $f failed"
[ "$f" -eq 0 ]
