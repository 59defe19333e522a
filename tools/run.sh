#!/usr/bin/env bash
# The main job: set-up, build, then run portkern on the best device present
# (CUDA, HIP, an OpenCL GPU, an OpenCL CPU, or ref; PORTKERN_BACKEND
# overrides): list the devices and check every op on the chosen one
# against the float64 reference, writing a JSON report to results/.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh build
build/portkern devices
mkdir -p results
exec build/portkern conform --backend auto --json results/conformance.json "$@"
