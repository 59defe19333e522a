#!/usr/bin/env bash
# The thread rules of portkern.h ("Threads") under ThreadSanitizer: builds
# build-tsan (or $1) without the CUDA and HIP modules (no GPU here; their
# host code is the same C as the rest, checked on the GPU machine with
# test_threads cuda/hip), then runs tests/test_threads on ref and on
# OpenCL (PoCL: tools/setup.sh installs it). A check fails on any TSan
# report, on a result that differs from the single-threaded one, or on a
# skip: every backend named here must be there. tools/tsan.supp silences
# races inside PoCL, the ICD loader and LLVM only, never in portkern.
# Ends with "thread check: N checks, N failed"; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-tsan}
checks=0
failed=0

if ! out=$(tools/build.sh "$dir" -Db_sanitize=thread -Dbuildtype=debug -Db_lundef=false \
    -Dcuda=disabled -Dhip=disabled 2>&1); then
  echo "$out" | tail -30
  echo "thread check: build of $dir failed"
  echo "thread check: 1 checks, 1 failed"
  exit 1
fi

export TSAN_OPTIONS="suppressions=$PWD/tools/tsan.supp halt_on_error=0 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
for backend in ref opencl; do
  checks=$((checks + 1))
  start=$SECONDS
  "$dir/tests/test_threads" "$backend" 0 2>&1 | sed "s/^/[$backend] /"
  rc=${PIPESTATUS[0]}
  case $rc in
    0) echo "thread check: $backend ok ($((SECONDS - start)) s)" ;;
    66) echo "thread check: $backend FAILED: ThreadSanitizer reports above"; failed=$((failed + 1)) ;;
    77) echo "thread check: $backend FAILED: skipped (no device)"; failed=$((failed + 1)) ;;
    *) echo "thread check: $backend FAILED (exit $rc)"; failed=$((failed + 1)) ;;
  esac
done

echo "thread check: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
