#!/usr/bin/env bash
# Configures (once) and builds portkern into ./build (or $1).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
[ -f "$dir/build.ninja" ] || meson setup "$dir" "$@" >/dev/null
meson compile -C "$dir" >/dev/null
