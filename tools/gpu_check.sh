#!/usr/bin/env bash
# On the GPU machine, in one call: one build with every module (CUDA, HIP
# built for NVIDIA through hip_on_cuda.h, OpenCL), then the parts asked for
# (default: conform bench):
#   conform   the suite on cuda:0, hip:0 and NVIDIA's OpenCL (registered by
#             hand: the driver ships it unregistered), every platform and op
#             side by side; PK_CONFORM="cuda:0" narrows it
#   bench     the performance-floor cases on CUDA beside cuBLAS (--record)
#   sanitize  compute-sanitizer memcheck and racecheck on the CUDA suite
#             (PK_SANITIZE_TOOLS="memcheck" runs one)
#   report    the vendor comparison report, every suite, on the three
#             platforms of the card and NVIDIA's OpenCL once more with its
#             inline PTX kernels off (opencl:N/portable)
#   llama     the engine test (tests/test_llama_engine.sh) and the
#             transformers fixtures (tests/test_llama_hf_fixtures.py) on
#             each platform, then a seeded Llama-3-8B-shaped checkpoint
#             through portkern-llama on each: decode at batch 1 (127 steps;
#             CUDA twice), a 2048-token prefill; and on CUDA the same
#             weights as Llama 3.1 (llama3 RoPE, 5.x config); and CUDA's
#             decode with --graph (steps replayed from a graph) twice
#   graph     the llama part's CUDA decode alone: eager, then --graph twice
#             (issue 21: the same tokens, tokens/s of each)
#   kprof     Nsight Compute sections (throughput, stalls, occupancy) on
#             one launch each of the mma.sync prefill attention kernel, the
#             Hopper attention kernel's two forms and the Hopper GEMM at
#             4096^3, and at 70B/8 qkv and M = 64 by 4096^2 unsplit and
#             split; M = 128 by 4096^2 and f32 4096^3, each beside
#             cuBLAS's kernel of the case and by source line
#             (PK_KPROF="attn-mma ..." picks some)
#   profile   that checkpoint's decode on CUDA: wall time, with the
#             decode GEMM knob, and each kernel of one step under ncu
#   tune      portkern tune on NVIDIA's OpenCL (PK_TUNE_FAMILIES, default
#             skinny,rows,elementwise,attn_decode; PK_TUNE_SECONDS each, 25);
#             the tuning cache file comes back in the logs; it runs
#             before conform, so that the suite checks what it stored
#   clgemm    conform gemm on NVIDIA's OpenCL, then its bf16 M= GEMM cases
#             timed with the tuning cache and without (PORTKERN_CL_TUNED=off);
#             with `tune` (PK_TUNE_FAMILIES=gemm_mma_small,gemm_mma_narrow)
#             it checks and times what the search stored (issue 16);
#             each of PK_CLGEMM_PARAMS (space-separated PORTKERN_CL_PARAMS
#             specs, e.g. "gemm_mma_small.fill=2,gemm_mma_small.max_splits=4")
#             checked by conform gemm, then timed; PK_CLGEMM_CONFORM narrows
#             that check (conform's options, e.g. "--case bf16/ --skip tB0
#             --skip tA1": the cases a tile for b k-contiguous can take)
#   portable  the performance-floor cases on NVIDIA's OpenCL (--record), to
#             set beside the CUDA bench of the same call
#   wmma      the GEMM and attention suites on hip:0 with PORTKERN_HIP_WMMA=11
#             and =12: the RDNA3 and RDNA4 WMMA kernels, their instruction
#             emulated
#   ptxoff    the suite on NVIDIA's OpenCL with its inline PTX kernels off
#             (PORTKERN_OPENCL_PTX=0: the portable kernels); PK_CONFORM_OPS
#             narrows it to some ops (e.g. "gemm attention")
#   cldecode  the Llama-3-8B-shaped checkpoint's decode (127 steps) on
#             NVIDIA's OpenCL alone
#   mmapeak   tools/mma_sync_peak.c: the mma.sync rate of NVIDIA's OpenCL
#             (bf16, f16; 1 to 16 warps a work-group), no memory traffic
#   hostile   the hostile-use device tests on each platform: several threads
#             and contexts at once (tests/test_threads), injected faults
#             and a device fault (tests/test_faults)
#   interop   tests/test_interop (the caller's memory and queues, events,
#             DLPack) on each platform, then the Python package's tests
#             (python/tests) on each with PyTorch's CUDA tensors (issue 21)
#   untried   the conformance cases of kernels compiled but never run on a
#             GPU yet (the knob groups in $untried_groups: the Hopper
#             attention kernel), a group at a
#             time under PK_UNTRIED_TIMEOUT (120 s), then compute-sanitizer
#             memcheck, racecheck and synccheck on each group that passed
#             (elsewhere the suite skips those cases on CUDA);
#             PK_UNTRIED_GROUPS narrows the groups, PK_UNTRIED_TOOLS the
#             sanitizer tools ("" for none)
#   attn90    the attention cases of the attention and Llama suites timed
#             under the plan, PORTKERN_CUDA_ATTN=mma (the mma.sync kernels)
#             and =wgmma (the Hopper kernel without its turns), =wgmma-pp176
#             (the plan's form with 176-key tiles at D 128 without masks),
#             =wgmma-pp-cpasync (the plan's kernel without TMA), conformance
#             of attention under the plan and the two knobs
#             (PK_ATTN90_KNOBS narrows them; PK_ATTN90_BENCH the timed
#             ones), PyTorch's SDPA (cuDNN,
#             flash) on the same shapes beside them
#             (bench/torch_attention_peers.py) (issue 20)
#   gemmplan  conform gemm on CUDA under the plan, then the GEMM suites
#             (gemm, llama3-8b, llama3-70b-tp8, small) beside cuBLAS; then
#             conformance and the suites under each of PK_GEMM_KNOBS
#   hopper    the CUDA GEMM suite with the plan's Hopper tiles, with its
#             128-row tiles forced (PORTKERN_CUDA_GEMM=128x256, =128x128)
#             and under the trial plan (=trial: split-K, the pair,
#             ping-pong), then compute-sanitizer memcheck and racecheck on the
#             Hopper cases (large/ and knob:), then the GEMM workload suites
#             (gemm, llama3-8b, llama3-70b-tp8, small) beside cuBLAS, the
#             same suites under the trial plan, and under each knob of
#             PK_HOPPER_TILES (e.g. "64x128 128x256p 64x256pp") (issue 19)
#   rtc       HIP on NVIDIA with no code object embedded (a build of its own,
#             build-rtc: -Dhip_code_objects=false, the CLI and HIP module
#             alone), every kernel
#             compiled at open by NVRTC into an empty cache: the first open
#             timed alone, the suite on hip:0, the second open (from the
#             cache) timed, the suite again; then a gemm.hip that does not
#             compile must give PK_ERR_BUILD_FAILED with the compiler's log
#             (issue 18's run-time path). Alone, it skips the main build.
# The device tool brings back at most 8 files: every log goes into
# $OUT/gpu-logs.tar.gz (the report's files and bench tables included), and
# the short summary comes last on stdout. The tree there may carry a stale
# .git: pass the commit as PORTKERN_COMMIT=$(git rev-parse --short HEAD).
# PK_DEADLINE (560 s) bounds the whole call: each step gets what is left.
# PK_BUILD=cuda builds only the CUDA module (the parts then run on cuda:0
# alone), PK_BUILD=opencl only the OpenCL one (the parts then run on
# NVIDIA's OpenCL alone): for a call whose parts need nothing else, when
# device time is short.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-out}
logs=$(mktemp -d)
parts=${*:-conform bench}
step=${PK_STEP_TIMEOUT:-240}
mkdir -p "$out" /tmp/icd
for lib in /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/lib/libnvidia-opencl.so.1; do
  [ -f "$lib" ] && echo "$lib" >/tmp/icd/nvidia.icd && break
done
export OCL_ICD_VENDORS=/tmp/icd
export PORTKERN_CACHE_DIR=/tmp/pk-cache
# the bench fails an OpenCL GEMM case whose vendor library is missing; this
# machine has no CLBlast (no network for apt), so say so once and go on
if [ -z "${PORTKERN_CLBLAST:-}" ] && ! ldconfig -p 2>/dev/null | grep -q libclblast; then
  export PORTKERN_CLBLAST=off
  echo "no CLBlast on this machine: PORTKERN_CLBLAST=off (OpenCL vendor column n/a)"
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv >"$logs/gpu.txt" 2>&1
pack() { tar -C "$logs" -czf "$out/gpu-logs.tar.gz" .; }

summary=()
start=$(date +%s)
# Every step's limit is cut so that the whole call ends by PK_DEADLINE
# seconds (560: the device call's own limit is 600) and the logs still come
# back: a call killed from outside brings back nothing. lim [N]: seconds
# the next step may take, N (default $step) or what is left, at least 1.
budget=${PK_DEADLINE:-560}
deadline=$((start + budget))
lim() {
  local n=${1:-$step} left=$((deadline - $(date +%s)))
  ((left < n)) && n=$left
  ((n < 1)) && n=1
  echo "$n"
}
# the logs packed and the summary printed, the last thing every call does
finish() {
  (($(date +%s) >= deadline)) && summary+=("PK_DEADLINE ($budget s) reached: the steps after it had 1 s each")
  pack
  echo "--- $(tail -1 "$logs/gpu.txt")"
  printf '%s\n' "${summary[@]}"
}
if [[ -z ${parts//rtc/} ]]; then main_build=0; else main_build=1; fi
if [[ $parts == *rtc* ]]; then
  # a first open is timed as `portkern devices`, which opens every device
  rb=build-rtc
  { { [ -d $rb ] || meson setup $rb -Dhip_platform=nvidia -Dhip_code_objects=false -Dopencl=disabled \
      -Dnvcc_archs=sm_90a; } && ninja -C $rb -j16 portkern libportkern-hip.so; } >"$logs/build-rtc.txt" 2>&1 ||
    { tail -40 "$logs/build-rtc.txt"; pack; exit 1; }
  rtc_cache=$(mktemp -d)
  summary+=("build-rtc: $(($(date +%s) - start)) s")
  for run in 1 2; do
    t0=$(date +%s%N)
    PORTKERN_CACHE_DIR=$rtc_cache timeout "$(lim)" $rb/portkern devices >"$logs/rtc-devices-$run.txt" 2>&1
    rc=$?
    summary+=("rtc open $run rc=$rc: $((($(date +%s%N) - t0) / 1000000)) ms; $(grep -o 'kernels [^)]*)' "$logs/rtc-devices-$run.txt" | head -1); cache $(du -sk "$rtc_cache" | cut -f1) KiB")
    t0=$(date +%s)
    PORTKERN_CACHE_DIR=$rtc_cache timeout "$(lim)" $rb/portkern conform --backend hip:0 >"$logs/rtc-conform-$run.txt" 2>&1
    summary+=("rtc conform hip:0 run $run ($(($(date +%s) - t0)) s): $(tail -1 "$logs/rtc-conform-$run.txt")")
    grep -E '^FAIL' "$logs/rtc-conform-$run.txt" | cut -c1-220 | head -10
  done
  broken=$(mktemp -d)
  cp -r kernels_hip kernels_gpu "$broken/"
  sed -i '0,/^#include/s//int broken_on_purpose = undeclared_name;\n&/' "$broken/kernels_hip/gemm.hip"
  PORTKERN_HIP_SOURCE_DIR=$broken/kernels_hip PORTKERN_CACHE_DIR=$(mktemp -d) timeout "$(lim)" \
    $rb/portkern conform --backend hip:0 --op gemm >"$logs/rtc-broken.txt" 2>&1
  summary+=("rtc broken gemm.hip rc=$?: $(grep -o 'PK_ERR_BUILD_FAILED' "$logs/rtc-broken.txt" | head -1), log line: $(grep -m1 -o 'gemm.hip([0-9]*): error[^"]*' "$logs/rtc-broken.txt" | cut -c1-120)")
  rm -rf "$broken"
fi
if [[ $main_build == 0 ]]; then finish; exit 0; fi
# only the H200's own code (far less nvcc time than the default targets)
# (a warm machine keeps build-gpu from the previous call: only rebuild;
# PK_BUILD=cuda: build-gpu-cuda, no HIP, no OpenCL; =opencl: build-gpu-cl,
# OpenCL alone)
if [ "${PK_BUILD:-all}" = cuda ]; then
  bdir=build-gpu-cuda
  setup_opts="-Dhip=disabled -Dopencl=disabled -Dnvcc_archs=sm_90a"
  cu=cuda:0
  hip=
elif [ "${PK_BUILD:-all}" = opencl ]; then
  bdir=build-gpu-cl
  setup_opts="-Dcuda=disabled -Dhip=disabled"
  cu=
  hip=
else
  bdir=build-gpu
  setup_opts="-Dhip_platform=nvidia -Dnvcc_archs=sm_90a"
  cu=cuda:0
  hip=hip:0
fi
{ { [ -d $bdir ] || meson setup $bdir $setup_opts; } &&
  ninja -C $bdir -j16; } >"$logs/build.txt" 2>&1 ||
  { tail -40 "$logs/build.txt"; pack; exit 1; }
echo "build: $(($(date +%s) - start)) s"
pk=$bdir/portkern
$pk devices 2>&1 | tee "$logs/devices.txt"
# the loader may list PoCL too: pick the NVIDIA OpenCL device by name
cl=$(grep -E '^  opencl [0-9]+: .*NVIDIA' "$logs/devices.txt" | head -1 | sed -E 's/^  opencl ([0-9]+):.*/\1/')
platforms="${cu:+$cu }${hip:+$hip }${cl:+opencl:$cl}"

if [[ $parts == *llama* || $parts == *graph* || $parts == *profile* || $parts == *cldecode* ]] && [ ! -d /tmp/ck-8b ]; then
  ( t0=$(date +%s)
    $bdir/examples/llama/portkern-llama-make --out /tmp/ck-8b --preset llama3-8b --seed 1 --dtype bf16 \
      >"$logs/llama-make.txt" 2>&1
    echo $(($(date +%s) - t0)) >"$logs/llama-make-time.txt" ) &
  ck_pid=$!
fi
if [[ $parts == *tune* && -n "$cl" ]]; then
  t0=$(date +%s)
  timeout "$(lim)" $pk tune --backend "opencl:$cl" --family "${PK_TUNE_FAMILIES:-skinny,rows,elementwise,attn_decode}" \
    --seconds "${PK_TUNE_SECONDS:-25}" >"$logs/tune.txt" 2>"$logs/tune-progress.txt"
  summary+=("tune rc=$? ($(($(date +%s) - t0)) s): $(tail -1 "$logs/tune.txt")")
  cp "$PORTKERN_CACHE_DIR"/tuned-*.txt "$logs/" 2>/dev/null
  grep -E '^(tuned|FAILED)' "$logs/tune.txt" | cut -c1-600
fi
# Kernels compiled but not yet run on a GPU, reached by conformance cases
# under a knob (conformance/conform.h, CF_UNTRIED_KNOBS): the suite skips
# them on CUDA, and the part `untried` runs them (PORTKERN_CONFORM_UNTRIED=1)
# group by group under a short limit, so that a hang costs one group, then
# under the sanitizers. The list is empty now; the default group is the
# Hopper attention kernel's own cases (both forms), a kernel that changes
# often.
untried_groups=${PK_UNTRIED_GROUPS:-"knob:wgmma"}
# groups that passed `untried` in an earlier call on this tree
# (PK_UNTRIED_OK) count for `hopper` and `attn90` as if they passed here
untried_ok=${PK_UNTRIED_OK:-}
if [[ $parts == *untried* ]]; then
  untried_ok=""
  for g in $untried_groups; do
    t0=$(date +%s)
    PORTKERN_CONFORM_UNTRIED=1 timeout "$(lim "${PK_UNTRIED_TIMEOUT:-120}")" $pk conform --backend cuda:0 --case "$g" \
      >"$logs/untried-$g.txt" 2>&1
    rc=$?
    summary+=("untried $g rc=$rc ($(($(date +%s) - t0)) s): $(tail -1 "$logs/untried-$g.txt")")
    grep -E '^FAIL' "$logs/untried-$g.txt" | cut -c1-220 | head -8
    [ $rc -eq 0 ] && untried_ok+=" $g"
  done
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for g in $untried_ok; do
    for tool in ${PK_UNTRIED_TOOLS-memcheck racecheck synccheck}; do
      t0=$(date +%s)
      PORTKERN_CONFORM_UNTRIED=1 timeout "$(lim "${PK_UNTRIED_TIMEOUT:-120}")" "$san" --tool "$tool" --print-limit 20 \
        $pk conform --backend cuda:0 --case "$g" \
        >"$logs/untried-$g-$tool.txt" 2>&1
      summary+=("untried $g $tool ($(($(date +%s) - t0)) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/untried-$g-$tool.txt" | tail -1) | $(grep -E 'passed, ' "$logs/untried-$g-$tool.txt" | tail -1)")
    done
  done
fi
if [[ $parts == *conform* ]]; then
  # every platform and op side by side (NVIDIA's OpenCL builds its programs
  # on the CPU: one op after another it took about 290 s on a cold cache)
  t0=$(date +%s)
  cf_ops="gemm attention rmsnorm layernorm glu bias_act softmax rope chain index_rows bad_input"
  for target in ${PK_CONFORM:-$platforms}; do
    for op in $cf_ops; do
      ( timeout "$(lim)" $pk conform --backend "$target" --op $op --json "$logs/conform-${target%%:*}-$op.json" \
          >"$logs/conform-${target%%:*}-$op.txt" 2>&1
        echo $? >"$logs/conform-${target%%:*}-$op.rc" ) &
    done
  done
  wait
  for target in ${PK_CONFORM:-$platforms}; do
    name=${target%%:*}
    counts=$(for op in $cf_ops; do tail -1 "$logs/conform-$name-$op.txt"; done |
      awk '/passed, .* failed, .* skipped/ { p += $1; f += $3; s += $5; n++ }
           END { printf "%d passed, %d failed, %d skipped (%d ops reported)", p, f, s, n }')
    bad=$(for op in $cf_ops; do [ "$(cat "$logs/conform-$name-$op.rc")" = 0 ] || echo -n "$op(rc $(cat "$logs/conform-$name-$op.rc")) "; done)
    summary+=("conform $target (every op side by side, $(($(date +%s) - t0)) s): $counts${bad:+; nonzero exit: $bad}")
    cat "$logs"/conform-$name-*.txt | grep -E '^(FAIL|SKIP)' | cut -c1-220 | head -25
  done
fi
if [[ $parts == *wmma* ]]; then
  for gen in 11 12; do
    for op in gemm attention; do
      t0=$(date +%s)
      PORTKERN_HIP_WMMA=$gen timeout "$(lim)" $pk conform --backend hip:0 --op $op >"$logs/conform-wmma$gen-$op.txt" 2>&1
      summary+=("conform hip:0 $op, PORTKERN_HIP_WMMA=$gen ($(($(date +%s) - t0)) s): $(tail -1 "$logs/conform-wmma$gen-$op.txt")")
      grep -E '^FAIL' "$logs/conform-wmma$gen-$op.txt" | cut -c1-220 | head -10
    done
  done
fi
if [[ $parts == *ptxoff* && -n "$cl" ]]; then
  for op in ${PK_CONFORM_OPS:-all}; do
    t0=$(date +%s)
    PORTKERN_OPENCL_PTX=0 timeout "$(lim)" $pk conform --backend "opencl:$cl" $([ "$op" = all ] || echo --op "$op") \
      >"$logs/conform-ptxoff-$op.txt" 2>&1
    summary+=("conform opencl:$cl PTX off, $op ($(($(date +%s) - t0)) s): $(tail -1 "$logs/conform-ptxoff-$op.txt")")
    grep -E '^FAIL' "$logs/conform-ptxoff-$op.txt" | cut -c1-220 | head -10
  done
fi
# The four GEMM suites on CUDA under PORTKERN_CUDA_GEMM=$1 ("": the plan)
# into $logs/bench-$2, with bench's options $3 (--no-vendor), the table
# printed
gemm_suites() {
  PORTKERN_CUDA_GEMM=$1 timeout "$(lim)" $pk bench --backend cuda --suite gemm --suite llama3-8b --suite llama3-70b-tp8 \
    --suite small --reps 10 --no-unfused ${3:-} --out "$logs/bench-$2" >"$logs/bench-$2.txt" 2>&1
  grep -E ' cuda:0 ' "$logs/bench-$2.txt" | grep -E 'gemm|prefill (qkv|o|gate_up|down)|decode' | cut -c1-150
}
# Conformance of gemm on cuda:0 under PORTKERN_CUDA_GEMM=$1 ("": the plan)
gemm_conform() {
  local t0=$(date +%s)
  PORTKERN_CUDA_GEMM=$1 timeout "$(lim)" $pk conform --backend cuda:0 --op gemm >"$logs/conform-gemm-${1:-plan}.txt" 2>&1
  summary+=("conform cuda:0 gemm, PORTKERN_CUDA_GEMM=${1:-(unset)} ($(($(date +%s) - t0)) s): $(tail -1 "$logs/conform-gemm-${1:-plan}.txt")")
  grep -E '^FAIL' "$logs/conform-gemm-${1:-plan}.txt" | cut -c1-220 | head -10
}
if [[ $parts == *hopper* ]]; then
  # the plan, its 128-row tiles forced, and the trial plan (split-K,
  # pairs, ping-pong); every tile's knob cases run in each
  for knob in "" 128x256 128x128 trial; do gemm_conform "$knob"; done
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    t0=$(date +%s)
    timeout "$(lim)" "$san" --tool "$tool" --print-limit 20 $pk conform --backend cuda:0 --op gemm --case /large \
      >"$logs/sanitize-hopper-$tool.txt" 2>&1
    summary+=("hopper $tool ($(($(date +%s) - t0)) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/sanitize-hopper-$tool.txt" | tail -1) | $(grep -E 'passed, ' "$logs/sanitize-hopper-$tool.txt" | tail -1)")
  done
  gemm_suites "" hopper
  echo "trial plan (PORTKERN_CUDA_GEMM=trial):"
  gemm_suites trial hopper-trial --no-vendor
  # each trial form forced (PK_HOPPER_TILES), for the plan's costs
  for knob in ${PK_HOPPER_TILES:-}; do
    echo "PORTKERN_CUDA_GEMM=$knob:"
    gemm_suites "$knob" "hopper-$knob" --no-vendor
  done
fi
if [[ $parts == *attn90* ]]; then
  # attention: the plan (on sm_90 the Hopper kernel's ping-pong form where
  # it takes the problem), the mma.sync kernels (PORTKERN_CUDA_ATTN=mma)
  # and the Hopper kernel without the turns (=wgmma), each over all of
  # conformance's attention (PK_ATTN90_CONFORM=0: not, where time is short
  # and the suite ran in the same call) and timed on the attention suite
  # and the Llama suites' attention cases, PyTorch's SDPA (cuDNN, flash)
  # on the same shapes in the same call (bench/torch_attention_peers.py)
  # (PK_ATTN90_KNOBS: the knobs conformance runs under, "plan" the plan's
  # own pick, the ping-pong form on sm_90)
  for knob in $([ "${PK_ATTN90_CONFORM:-1}" = 0 ] || echo ${PK_ATTN90_KNOBS:-plan mma wgmma}); do
    t0=$(date +%s)
    PORTKERN_CUDA_ATTN=${knob#plan} timeout "$(lim)" $pk conform --backend cuda:0 --op attention \
      >"$logs/conform-attn-$knob.txt" 2>&1
    summary+=("conform cuda:0 attention, PORTKERN_CUDA_ATTN=$knob ($(($(date +%s) - t0)) s): $(tail -1 "$logs/conform-attn-$knob.txt")")
    grep -E '^FAIL' "$logs/conform-attn-$knob.txt" | cut -c1-220 | head -10
  done
  # (PK_ATTN90_BENCH: the knobs timed, "plan" the plan's own pick)
  for knob in ${PK_ATTN90_BENCH:-plan mma wgmma wgmma-pp176 wgmma-pp-cpasync}; do
    knob=${knob#plan}
    PORTKERN_CUDA_ATTN=$knob timeout "$(lim)" $pk bench --backend cuda --suite attention --suite llama3-8b \
      --suite llama3-70b-tp8 --suite small --case attn --reps 10 --no-unfused --no-vendor \
      --out "$logs/bench-attn-${knob:-plan}" >"$logs/bench-attn-${knob:-plan}.txt" 2>&1
    echo "attention, PORTKERN_CUDA_ATTN=${knob:-(unset)}:"
    grep -E ' cuda:0 ' "$logs/bench-attn-${knob:-plan}.txt" | cut -c1-150
  done
  timeout "$(lim)" python3 bench/torch_attention_peers.py --reps 10 "$logs/bench-attn-plan/report.json" \
    >"$logs/attn-peers.md" 2>&1
  cat "$logs/attn-peers.md"
fi
if [[ $parts == *gemmplan* ]]; then
  # the GEMM plan alone: its conformance, then the four GEMM suites beside
  # cuBLAS (the `hopper` part without the forced tiles, the trial plan and
  # the sanitizers); then each of PK_GEMM_KNOBS (e.g. "128x256s") the same
  # way, without cuBLAS
  gemm_conform ""
  gemm_suites "" gemmplan
  for knob in ${PK_GEMM_KNOBS:-}; do
    gemm_conform "$knob"
    echo "GEMM, PORTKERN_CUDA_GEMM=$knob:"
    gemm_suites "$knob" "gemm-$knob" --no-vendor
  done
fi
if [[ $parts == *interop* ]]; then
  for target in $platforms; do
    t0=$(date +%s)
    timeout "$(lim)" $bdir/tests/test_interop "${target%%:*}" "${target#*:}" >"$logs/interop-${target%%:*}.txt" 2>&1
    summary+=("test_interop $target rc=$? ($(($(date +%s) - t0)) s): $(tail -1 "$logs/interop-${target%%:*}.txt" | cut -c1-160)")
    grep -E '^FAIL' "$logs/interop-${target%%:*}.txt" | cut -c1-220 | head -10
  done
  if [ -d python/tests ]; then
    t0=$(date +%s)
    PORTKERN_LIBRARY=$(find $bdir -name 'libportkern.so' | head -1) PORTKERN_TEST_BACKENDS=$(echo $platforms | tr ' ' ,) \
      PYTHONPATH=python timeout "$(lim)" python3 -m unittest discover -s python/tests -v >"$logs/python.txt" 2>&1
    summary+=("python tests rc=$? ($(($(date +%s) - t0)) s): $(grep -E '^(OK|FAILED)' "$logs/python.txt" | tail -1) $(grep -E '^Ran ' "$logs/python.txt")")
    grep -E '^(FAIL|ERROR):' "$logs/python.txt" | cut -c1-200 | head -10
  fi
fi
if [[ $parts == *clgemm* && -n "$cl" ]]; then
  # NVIDIA's OpenCL GEMM (issue 16): conformance of gemm with what `tune`
  # stored in this call, then the bf16 M= cases timed with the stored
  # values and with the built-in table alone (PORTKERN_CL_TUNED=off)
  t0=$(date +%s)
  timeout "$(lim)" $pk conform --backend "opencl:$cl" --op gemm >"$logs/conform-clgemm.txt" 2>&1
  summary+=("conform opencl:$cl gemm, tuned values ($(($(date +%s) - t0)) s): $(tail -1 "$logs/conform-clgemm.txt")")
  grep -E '^FAIL' "$logs/conform-clgemm.txt" | cut -c1-220 | head -10
  # clgemm_bench TAG TITLE [VAR=VALUE ...]: the bf16 M= cases in that environment
  clgemm_bench() {
    local tag=$1 title=$2
    shift 2
    env "$@" timeout "$(lim)" $pk bench --backend "opencl:$cl" --suite gemm --case "bf16 M=" --reps 10 \
      --no-unfused --out "$logs/bench-clgemm-$tag" >"$logs/bench-clgemm-$tag.txt" 2>&1
    echo "OpenCL GEMM, $title:"
    grep -E " opencl:$cl " "$logs/bench-clgemm-$tag.txt" | cut -c1-130
  }
  clgemm_bench on "tuned values on"
  clgemm_bench off "tuned values off" PORTKERN_CL_TUNED=off
  # values set by hand over the table (PK_CLGEMM_PARAMS: specs separated
  # by spaces, each checked by conformance of gemm before it is timed)
  i=0
  for spec in ${PK_CLGEMM_PARAMS:-}; do
    i=$((i + 1))
    # shellcheck disable=SC2086 # PK_CLGEMM_CONFORM: options, split on purpose
    PORTKERN_CL_TUNED=off PORTKERN_CL_PARAMS=$spec timeout "$(lim)" $pk conform --backend "opencl:$cl" --op gemm \
      ${PK_CLGEMM_CONFORM:-} >"$logs/conform-clgemm-set$i.txt" 2>&1
    summary+=("conform opencl:$cl gemm, PORTKERN_CL_PARAMS=$spec: $(tail -1 "$logs/conform-clgemm-set$i.txt")")
    grep -E '^FAIL' "$logs/conform-clgemm-set$i.txt" | cut -c1-220 | head -5
    grep -q '^FAIL' "$logs/conform-clgemm-set$i.txt" && continue
    clgemm_bench "set$i" "PORTKERN_CL_PARAMS=$spec" PORTKERN_CL_TUNED=off PORTKERN_CL_PARAMS="$spec"
  done
fi
if [[ $parts == *portable* && -n "$cl" ]]; then
  timeout "$(lim)" $pk bench --backend "opencl:$cl" --record "$logs/bench-opencl.md" 2>&1 | tee "$logs/bench-opencl.txt"
fi
if [[ $parts == *hostile* ]]; then
  for target in $platforms; do
    for t in ${PK_HOSTILE_TESTS:-threads faults}; do
      t0=$(date +%s)
      timeout "$(lim)" $bdir/tests/test_$t "${target%%:*}" "${target#*:}" >"$logs/$t-${target%%:*}.txt" 2>&1
      summary+=("test_$t $target rc=$? ($(($(date +%s) - t0)) s): $(tail -1 "$logs/$t-${target%%:*}.txt" | cut -c1-160)")
    done
  done
fi
if [[ $parts == *bench* ]]; then
  timeout "$(lim)" $pk bench --backend cuda --record "$logs/bench-cuda.md" 2>&1 | tee "$logs/bench-cuda.txt"
fi
if [[ $parts == *sanitize* ]]; then
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in ${PK_SANITIZE_TOOLS:-memcheck racecheck}; do
    t0=$(date +%s)
    timeout "$(lim)" "$san" --tool "$tool" --print-limit 50 $pk conform --backend cuda:0 >"$logs/sanitize-$tool.txt" 2>&1
    summary+=("$tool ($(($(date +%s) - t0)) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/sanitize-$tool.txt" | tail -1) | $(grep -E 'passed, ' "$logs/sanitize-$tool.txt" | tail -1)")
  done
fi
if [[ $parts == *report* ]]; then
  t0=$(date +%s)
  timeout "$(lim "${PK_REPORT_TIMEOUT:-400}")" $pk bench --suite llama3-8b --suite llama3-70b-tp8 --suite small --suite gemm \
    --suite attention --suite elementwise --backend "$(echo $platforms | tr ' ' ,)${cl:+,opencl:$cl/portable}" \
    --reps "${PK_REPORT_REPS:-10}" \
    --out "$logs/report" >"$logs/report.txt" 2>&1
  summary+=("report rc=$? ($(($(date +%s) - t0)) s): $(grep -E '^suite mean' "$logs/report.txt" | tail -1)")
fi
# the seeded Llama-3-8B-shaped checkpoint (16 GB), made once a machine
# in the background from the start; the engine's parts wait for it
make_8b() {
  [ -n "${ck_pid:-}" ] && wait "$ck_pid" && ck_pid=
  [ -f "$logs/llama-make.txt" ] && [ -z "${ck_noted:-}" ] && ck_noted=1 &&
    summary+=("llama3-8b checkpoint: $(cat "$logs/llama-make-time.txt") s, $(du -sh /tmp/ck-8b | cut -f1)")
  [ -d /tmp/ck-8b ] || echo "no checkpoint: $(tail -3 "$logs/llama-make.txt")"
}
if [[ $parts == *llama* ]]; then
  ll=$bdir/examples/llama
  # the engine test: greedy tokens and per-step logits of every platform against ref
  PK_LLAMA_BACKENDS="$platforms" timeout "$(lim)" sh tests/test_llama_engine.sh $ll/portkern-llama-make \
    $ll/portkern-llama $ll/test_llama_logits_cmp /tmp/llama-test >"$logs/llama-test.txt" 2>&1
  summary+=("llama engine test rc=$?: $(grep -E '^(f32|bf16) ' "$logs/llama-test.txt" | tr '\n' ';')")
  PK_LLAMA_BACKENDS="$platforms" timeout "$(lim)" python3 tests/test_llama_hf_fixtures.py $ll/portkern-llama \
    $ll/test_llama_logits_cmp tests/hf_fixtures /tmp/llama-hf-test >"$logs/llama-hf-test.txt" 2>&1
  summary+=("llama hf fixtures rc=$?: $(grep -c 'of its bound' "$logs/llama-hf-test.txt") runs within bound, $(grep -c '^FAIL' "$logs/llama-hf-test.txt") FAIL, $(grep -c skipped "$logs/llama-hf-test.txt") skipped")
  make_8b
  prompt=$(seq 1 2048 | tr '\n' ' ')
  for target in $platforms; do
    name=${target%%:*}
    timeout "$(lim)" $ll/portkern-llama --model /tmp/ck-8b --prompt-ids "1 2 3 4 5 6 7 8" --max-new 128 \
      --backend "$target" >"$logs/llama-decode-$name.txt" 2>&1
    timeout "$(lim)" $ll/portkern-llama --model /tmp/ck-8b --prompt-ids "$prompt" --max-new 1 \
      --backend "$target" >"$logs/llama-prefill-$name.txt" 2>&1
    summary+=("llama $target: $(grep -E '^[0-9 ]+$' "$logs/llama-decode-$name.txt" | cut -c1-160) | $(grep -h -E 'tokens/s' "$logs/llama-decode-$name.txt" | tr '\n' ' ') | 2048-token $(grep -h prefill "$logs/llama-prefill-$name.txt")")
  done
  # CUDA's decode again: the floor is judged on it, and one run can be off
  timeout "$(lim)" $ll/portkern-llama --model /tmp/ck-8b --prompt-ids "1 2 3 4 5 6 7 8" --max-new 128 \
    --backend cuda:0 >"$logs/llama-decode-cuda-again.txt" 2>&1
  summary+=("llama cuda:0 again: $(grep -h decode: "$logs/llama-decode-cuda-again.txt")")
fi
if [[ $parts == *graph* && $parts != *llama* ]]; then
  make_8b
  ll=$bdir/examples/llama
  timeout "$(lim)" $ll/portkern-llama --model /tmp/ck-8b --prompt-ids "1 2 3 4 5 6 7 8" --max-new 128 \
    --backend cuda:0 >"$logs/llama-decode-cuda.txt" 2>&1
  summary+=("llama cuda:0 eager: $(grep -E '^[0-9 ]+$' "$logs/llama-decode-cuda.txt" | cut -c1-60) | $(grep -h decode: "$logs/llama-decode-cuda.txt")")
fi
if [[ $parts == *llama* || $parts == *graph* ]]; then
  ll=$bdir/examples/llama
  # the decode steps replayed from a graph (issue 21): the same tokens as
  # the eager run, and the tokens/s beside it
  for run in 1 2; do
    timeout "$(lim)" $ll/portkern-llama --model /tmp/ck-8b --prompt-ids "1 2 3 4 5 6 7 8" --max-new 128 \
      --backend cuda:0 --graph >"$logs/llama-decode-cuda-graph-$run.txt" 2>&1
    same=$([ "$(grep -E '^[0-9 ]+$' "$logs/llama-decode-cuda-graph-$run.txt")" = "$(grep -E '^[0-9 ]+$' "$logs/llama-decode-cuda.txt")" ] && echo same || echo DIFFERENT)
    summary+=("llama cuda:0 --graph run $run: tokens $same as eager | $(grep -h -E 'decode' "$logs/llama-decode-cuda-graph-$run.txt" | tail -1)")
  done
fi
if [[ $parts == *llama* ]]; then
  # Llama 3.1: the same weights (same seed and names), its own config.json
  mkdir -p /tmp/ck-8b-31 && ln -f /tmp/ck-8b/model.safetensors /tmp/ck-8b-31/model.safetensors &&
    $ll/portkern-llama-make --out /tmp/ck-8b-31 --preset llama3.1-8b --dtype bf16 --config-only
  for run in 1 2; do
    timeout "$(lim)" $ll/portkern-llama --model /tmp/ck-8b-31 --prompt-ids "1 2 3 4 5 6 7 8" --max-new 128 \
      --backend cuda:0 >"$logs/llama31-decode-cuda-$run.txt" 2>&1
    summary+=("llama3.1 cuda:0 run $run: $(grep -E '^[0-9 ]+$' "$logs/llama31-decode-cuda-$run.txt" | cut -c1-60) | $(grep -h decode: "$logs/llama31-decode-cuda-$run.txt")")
  done
fi
if [[ $parts == *mmapeak* ]]; then
  # the mma.sync rate NVIDIA's OpenCL gives (the OpenCL tensor-core ceiling)
  t0=$(date +%s)
  { cc -O2 -I/usr/local/cuda/include tools/mma_sync_peak.c -L/usr/local/cuda/lib64 -lOpenCL -o /tmp/mma_peak &&
    timeout "$(lim)" /tmp/mma_peak; } >"$logs/mma-peak.txt" 2>&1
  summary+=("mma_sync_peak rc=$? ($(($(date +%s) - t0)) s): $(grep -E 'TFLOP/s' "$logs/mma-peak.txt" | sort -k6 -g -r | head -1)")
  cat "$logs/mma-peak.txt"
fi
if [[ $parts == *cldecode* && -n "$cl" ]]; then
  make_8b
  t0=$(date +%s)
  timeout "$(lim)" $bdir/examples/llama/portkern-llama --model /tmp/ck-8b --prompt-ids "1 2 3 4 5 6 7 8" \
    --max-new 128 --backend "opencl:$cl" >"$logs/llama-decode-opencl.txt" 2>&1
  summary+=("llama opencl:$cl rc=$? ($(($(date +%s) - t0)) s): $(grep -h -E 'tokens/s' "$logs/llama-decode-opencl.txt" | tr '\n' ' ')")
fi
if [[ $parts == *kprof* ]]; then
  # One launch each of the prefill attention kernels (the plan's and the
  # Hopper one, B8 H32 S2048 D128 causal) and of the Hopper GEMM at 4096^3
  # under Nsight Compute: throughput against the card's peaks, where the
  # warps stall, occupancy (issues 19, 20)
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  sec="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis"
  # (--no-vendor: no roofline probe GEMM launched before the case, so
  # that the launches skipped are the case's own warm-up)
  # (kp_vendor=1: the vendor library timed too, so that its kernels,
  # which the regex then names, can be profiled beside ours)
  kp() { # name, kernel regex, env, bench case[, suite]; PK_KPROF="name ..." runs those alone
    [[ -z ${PK_KPROF:-} || " $PK_KPROF " == *" $1 "* ]] || return 0
    local t0=$(date +%s)
    env $3 timeout "$(lim 120)" "$ncu" --clock-control none $sec --kernel-name "regex:$2" \
      --launch-skip 3 --launch-count 1 $pk bench --backend cuda:0 $([[ -n ${kp_vendor:-} ]] || echo --no-vendor) --reps 5 \
      ${5:+--suite "$5"} --case "$4" >"$logs/kprof-$1.txt" 2>&1
    summary+=("kprof $1 rc=$? ($(($(date +%s) - t0)) s): $(grep -E 'Compute \(SM\) Throughput|Duration' "$logs/kprof-$1.txt" | tr -s ' ' | tr '\n' ';' | cut -c1-200)")
  }
  kp attn-mma 'pk_attn_mma' PORTKERN_CUDA_ATTN=mma "attention B8 H32 S2048 D128 causal"
  kp attn-wgmma 'pk_attn_wgmma' PORTKERN_CUDA_ATTN=wgmma "attention B8 H32 S2048 D128 causal"
  kp attn-wgmma-pp 'pk_attn_wgmma' PORTKERN_CUDA_ATTN=wgmma-pp "attention B8 H32 S2048 D128 causal"
  kp gemm-128x256 'pk_gemm_wgmma' PORTKERN_CUDA_GEMM= "gemm linear 4096x4096x4096"
  # the shapes under a wave, unsplit and split (issue 19: each split cost
  # far more than the plan's model; bench/RESULTS.md, 2026-12-06 15:27)
  kp gemm-70b-qkv 'pk_gemm_wgmma' PORTKERN_CUDA_GEMM= "prefill qkv" llama3-70b-tp8
  kp gemm-70b-qkv-split3 'pk_gemm_wgmma' PORTKERN_CUDA_GEMM=128x256:3 "prefill qkv" llama3-70b-tp8
  kp gemm-m64 'pk_gemm_wgmma' PORTKERN_CUDA_GEMM= "bf16 M=64 4096x4096" gemm
  kp gemm-m64-split2 'pk_gemm_wgmma' PORTKERN_CUDA_GEMM=64x128:2 "bf16 M=64 4096x4096" gemm
  # M = 128, where cuBLAS runs our 64x64's very tiling faster, and f32 on
  # the wide-thread kernel: ours, then cuBLAS's kernel of the same case
  # (issue 19; bench/RESULTS.md, 2026-12-08 01:10)
  kp gemm-m128 'pk_gemm_wgmma' PORTKERN_CUDA_GEMM= "bf16 M=128 4096x4096" gemm
  kp gemm-f32 'pk_gemm_simt' PORTKERN_CUDA_GEMM= "gemm f32 M=4096 4096x4096" gemm
  kp_vendor=1
  kp gemm-m128-cublas 'nvjet|xmma|cutlass|sm90_' PORTKERN_CUDA_GEMM= "bf16 M=128 4096x4096" gemm
  kp gemm-f32-cublas 'nvjet|xmma|cutlass|sm90_|sgemm|ampere' PORTKERN_CUDA_GEMM= "gemm f32 M=4096 4096x4096" gemm
  unset kp_vendor
  # where the Hopper attention kernel's warps wait, reason by reason, and
  # how busy each pipe is (a run of its own: a regex that matches no metric
  # of this ncu fails only this one, as sm__pipe_tensor_op_gmma did)
  sec="--metrics regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$,regex:^sm__pipe_.*cycles_active\.avg\.pct_of_peak_sustained_active$"
  kp attn-wgmma-stalls 'pk_attn_wgmma' PORTKERN_CUDA_ATTN=wgmma-pp "attention B8 H32 S2048 D128 causal"
  # the same kernel's stalls by instruction (the SASS lines most waited on)
  sec="--section SourceCounters --section WarpStateStats --print-details all"
  kp attn-wgmma-sources 'pk_attn_wgmma' PORTKERN_CUDA_ATTN=wgmma-pp "attention B8 H32 S2048 D128 causal"
  kp gemm-m128-sources 'pk_gemm_wgmma' PORTKERN_CUDA_GEMM= "bf16 M=128 4096x4096" gemm
  kp gemm-f32-sources 'pk_gemm_simt' PORTKERN_CUDA_GEMM= "gemm f32 M=4096 4096x4096" gemm
fi
if [[ $parts == *profile* ]]; then
  # One decode step of the Llama-3-8B-shaped checkpoint under Nsight
  # Compute: every kernel's duration (the third forward pass: the prefill
  # and the first decode step, 322 kernels each, are skipped). The sum
  # against the step's wall time says how much of it the GPU is busy.
  ll=$bdir/examples/llama
  make_8b
  for knob in "" decode; do
    PORTKERN_CUDA_GEMM=$knob timeout "$(lim)" $ll/portkern-llama --model /tmp/ck-8b --prompt-ids "1 2 3 4 5 6 7 8" \
      --max-new 32 --backend cuda:0 >"$logs/profile-wall-${knob:-default}.txt" 2>&1
    summary+=("llama cuda:0 PORTKERN_CUDA_GEMM=${knob:-(unset)}: $(grep -h tokens/s "$logs/profile-wall-${knob:-default}.txt" | tr '\n' ' ')")
  done
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  t0=$(date +%s)
  timeout "$(lim)" "$ncu" --clock-control none --metrics gpu__time_duration.sum --csv --launch-skip 644 \
    --launch-count 322 $ll/portkern-llama --model /tmp/ck-8b --prompt-ids "1 2 3 4 5 6 7 8" --max-new 3 \
    --backend cuda:0 >"$logs/profile-ncu.csv" 2>"$logs/profile-ncu.err"
  summary+=("ncu rc=$? ($(($(date +%s) - t0)) s): $(grep -c gpu__time_duration "$logs/profile-ncu.csv") kernels timed")
fi
finish
