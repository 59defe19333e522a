#!/usr/bin/env bash
# The main job: set-up, build, then run portkern on the best device present
# (CUDA, HIP, an OpenCL GPU, an OpenCL CPU, or ref; PORTKERN_BACKEND
# overrides): list the devices, say which one it checks, check every op on
# it against the float64 reference (results/conformance.json), then time the
# short bench suite there beside its roofline, vendor library and unfused
# path (results/bench/: report.csv, report.json, roofline.svg,
# portability.svg).
# ref is the oracle, so a run whose device is ref checks no numerical case:
# then it stops before the bench and exits 1, unless PORTKERN_ACCEPT_REF_ONLY=1
# (which runs the bad-input checks and the bench on ref and exits 0 if they pass).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh build
devices=$(build/portkern devices) || true
printf '%s\n' "$devices"
# "auto    -> opencl 0: NAME" -> "opencl:0 (NAME)"
device=$(printf '%s\n' "$devices" | sed -n 's/^auto *-> *\([a-z]*\) \([0-9]*\): \(.*\)$/\1:\2 (\3)/p')
echo "run.sh: checking ${device:-no device}"
accept_ref=0
[ "${PORTKERN_ACCEPT_REF_ONLY:-0}" = 1 ] && accept_ref=1
mkdir -p results
rc=0
if [ "$accept_ref" = 1 ]; then
  build/portkern conform --backend auto --json results/conformance.json "$@" || rc=$?
else
  build/portkern conform --backend auto --require-device --json results/conformance.json "$@" || rc=$?
fi
if [[ $device == ref:* || -z $device ]] && [ "$accept_ref" != 1 ]; then
  echo "run.sh: checked ${device:-no device}: only ref, the oracle, so no numerical case was checked;" \
    "no bench. PORTKERN_ACCEPT_REF_ONLY=1 accepts this." >&2
  exit 1
fi
# a short suite: about two minutes on a two-core CPU device, seconds on a GPU
build/portkern bench --suite short --reps 10 --out results/bench || rc=$((rc ? rc : $?))
echo "run.sh: checked ${device:-no device}"
exit "$rc"
