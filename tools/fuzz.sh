#!/usr/bin/env bash
# Fuzzes the readers and the public API (tests/fuzz/README.md): builds the
# four libFuzzer harnesses with clang-19 (ASan + UBSan, every report fatal)
# over a clang-19 build of the library in build-fuzz/, then runs each on a
# copy of its committed corpus for SECONDS (default 90), as many at once as
# there are cores. One line per fuzzer, then "fuzz: N checks, N failed";
# inputs that crash, leak or hang are left in build-fuzz/findings/<fuzzer>/
# and named. Exits 1 on any finding or build failure.
#
#   tools/fuzz.sh [SECONDS]      PORTKERN_FUZZ_JOBS=N runs N at once
#
# The normal build never needs clang-19: only this script uses it, and it
# installs it (Debian 12 main: clang-19, libclang-rt-19-dev) when missing.
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-90}
dir=build-fuzz
fuzzers=(fuzz_json fuzz_config fuzz_safetensors fuzz_api_ref)

missing=()
for p in clang-19 libclang-rt-19-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

fail_all() {
  echo "fuzz: $1"
  echo "fuzz: ${#fuzzers[@]} checks, ${#fuzzers[@]} failed"
  exit 1
}

# The library and the checkpoint readers, instrumented for coverage; the
# GPU modules are left out (no device, and their kernels are not host code).
san=(-fsanitize=address,undefined -fno-sanitize-recover=all)
if [ ! -f "$dir/build.ninja" ]; then
  setup_log=$(mktemp)
  CC=clang-19 meson setup "$dir" -Dbuildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false \
    -Dopencl=disabled -Dcuda=disabled -Dhip=disabled \
    -Dc_args="-fsanitize=fuzzer-no-link -fno-sanitize-recover=all" >"$setup_log" 2>&1 ||
    { cat "$setup_log"; rm -rf "$dir" "$setup_log"; fail_all "meson setup of $dir failed"; }
  rm -f "$setup_log"
fi
meson compile -C "$dir" portkern:shared_library llama_formats >"$dir/fuzz-build.log" 2>&1 ||
  { cat "$dir/fuzz-build.log"; fail_all "building the library with clang-19 failed"; }
formats=$(find "$dir/examples/llama" -maxdepth 1 -name 'libllama_formats.a' | head -1)
mkdir -p "$dir/fuzzers"
for f in "${fuzzers[@]}"; do
  clang-19 -g -O1 -fsanitize=fuzzer "${san[@]}" -D_GNU_SOURCE -std=c11 -Wall -Wextra \
    -Iapi -Iexamples/llama "tests/fuzz/$f.c" "$formats" -L"$dir" -lportkern -Wl,-rpath,"$PWD/$dir" -lm \
    -o "$dir/fuzzers/$f" 2>>"$dir/fuzz-build.log" ||
    { cat "$dir/fuzz-build.log"; fail_all "compiling $f failed"; }
done

run=$dir/run
findings=$dir/findings
rm -rf "$run" "$findings"
mkdir -p "$run" "$findings"
# Leaks count (detect_leaks); a report from any sanitizer ends the run.
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# stacks with file:line (clang-19's own symbolizer is in llvm-19, which
# this script does not install; any version reads the debug info)
for sym in llvm-symbolizer-19 llvm-symbolizer llvm-symbolizer-15; do
  if command -v "$sym" >/dev/null; then
    export ASAN_SYMBOLIZER_PATH=$(command -v "$sym") UBSAN_SYMBOLIZER_PATH=$(command -v "$sym")
    break
  fi
done

fuzz_one() {
  local f=$1 dict=()
  cp -r "tests/fuzz/corpus/$f" "$run/$f.corpus"
  mkdir -p "$findings/$f"
  [ -f "tests/fuzz/$f.dict" ] && dict=(-dict="tests/fuzz/$f.dict")
  local t0=$(date +%s)
  "$dir/fuzzers/$f" "$run/$f.corpus" "${dict[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -max_len=8192 -print_final_stats=1 -artifact_prefix="$findings/$f/" \
    >"$run/$f.log" 2>&1
  echo $? >"$run/$f.rc"
  echo $(( $(date +%s) - t0 )) >"$run/$f.secs"
}

jobs=${PORTKERN_FUZZ_JOBS:-$(nproc)}
start=$(date +%s)
for f in "${fuzzers[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  fuzz_one "$f" &
done
wait

failed=0
for f in "${fuzzers[@]}"; do
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/$f.log" | tail -1)
  found=$(find "$findings/$f" -type f | sort)
  n=$(printf '%s' "$found" | grep -c . || true)
  rc=$(cat "$run/$f.rc")
  if [ "$rc" -eq 0 ] && [ "$n" -eq 0 ]; then
    echo "$f: ok, ${execs:-0} executions in $(cat "$run/$f.secs") s, corpus $(ls "tests/fuzz/corpus/$f" | wc -l) -> $(ls "$run/$f.corpus" | wc -l) inputs, 0 findings"
  else
    failed=$((failed + 1))
    echo "$f: FAILED (exit $rc), ${execs:-?} executions in $(cat "$run/$f.secs") s, $n finding(s): ${found//$'\n'/ }"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|fuzz_[a-z_]+: )' "$run/$f.log" | head -5 | sed "s/^/$f:   /"
    echo "$f:   log: $run/$f.log"
  fi
done
echo "fuzz: ran $(( $(date +%s) - start )) s"
echo "fuzz: ${#fuzzers[@]} checks, $failed failed"
[ "$failed" -eq 0 ]
