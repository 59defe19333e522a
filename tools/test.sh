#!/usr/bin/env bash
# The test command: set-up, build, unit tests, then the conformance suite
# on every available backend. Its last line is the suite's
# "N passed, N failed, N skipped". Extra arguments go to `portkern conform`.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh build
meson test -C build --no-suite conformance >/dev/null ||
  { meson test -C build --no-suite conformance --print-errorlogs; exit 1; }
echo "unit tests: $(grep -c '"result": "OK"' build/meson-logs/testlog.json) ok"
build/portkern devices
exec build/portkern conform "$@"
