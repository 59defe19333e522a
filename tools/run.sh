#!/usr/bin/env bash
# The main job: set-up, build, then run portkern on the best device present
# (CUDA, HIP, an OpenCL GPU, an OpenCL CPU, or ref; PORTKERN_BACKEND
# overrides): list the devices, check every op on the chosen one against
# the float64 reference (results/conformance.json), then time the short
# bench suite there beside its roofline, vendor library and unfused path
# (results/bench/: report.csv, report.json, roofline.svg, portability.svg).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh build
build/portkern devices
mkdir -p results
rc=0
build/portkern conform --backend auto --json results/conformance.json "$@" || rc=$?
# a short suite: about two minutes on a two-core CPU device, seconds on a GPU
build/portkern bench --suite short --reps 10 --out results/bench || rc=$((rc ? rc : $?))
exit "$rc"
