#!/usr/bin/env bash
# The suite never counts ref against itself as a check: on ref every
# numerical case is reported skipped, with its reason, and a run that
# found no device but ref says so and fails under --require-device (which
# tools/run.sh passes unless PORTKERN_ACCEPT_REF_ONLY=1); --skip leaves
# out what it names.
# Usage: test_conform_ref_only.sh PATH/TO/portkern
set -uo pipefail
pk=${1:?usage: $0 PATH/TO/portkern}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
out=$(mktemp)
trap 'rm -f "$out"' EXIT

closing='^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'
reason='ref is the oracle: numerical cases compare other backends with it'

# 1. --backend ref: every numerical case skipped with the reason, none passed.
n_cases=$("$pk" conform --list --op rmsnorm | wc -l)
[ "$n_cases" -gt 0 ] || fail "conform --list --op rmsnorm lists no case"
"$pk" conform --backend ref --op rmsnorm >"$out"; rc=$?
[ "$rc" -eq 0 ] || fail "--backend ref --op rmsnorm exited $rc"
grep -q '^PASS' "$out" && fail "--backend ref --op rmsnorm passed a numerical case: $(grep -m1 '^PASS' "$out")"
n_skip=$(grep -c "^SKIP  ref:0  rmsnorm/.*  $reason\$" "$out")
[ "$n_skip" -eq "$n_cases" ] || fail "--backend ref: $n_skip of $n_cases rmsnorm cases skipped with the reason"
[ "$(tail -1 "$out")" = "0 passed, 0 failed, $n_cases skipped" ] ||
  fail "--backend ref closing line: '$(tail -1 "$out")'"
tail -2 "$out" | head -1 | grep -q '^--backend ref: no numerical case was checked' ||
  fail "--backend ref: no line saying that no numerical case was checked"

# 2. Bad-input cases (statuses, not numbers) still run and pass on ref.
"$pk" conform --backend ref --op bad_input --case backend-from-name >"$out"; rc=$?
[ "$rc" -eq 0 ] || fail "--backend ref --op bad_input exited $rc"
grep -q '^PASS  ref:0  bad_input/' "$out" || fail "no bad-input case passed on ref"
tail -1 "$out" | grep -Eq '^[1-9][0-9]* passed, 0 failed, 0 skipped$' ||
  fail "--backend ref --op bad_input closing line: '$(tail -1 "$out")'"

# 3. PORTKERN_BACKEND=ref: auto picks ref, --require-device fails.
PORTKERN_BACKEND=ref "$pk" conform --backend auto --require-device --op rmsnorm >"$out"; rc=$?
[ "$rc" -eq 1 ] || fail "PORTKERN_BACKEND=ref --backend auto --require-device exited $rc, not 1"
grep -q '^FAIL  auto  device  --require-device' "$out" || fail "PORTKERN_BACKEND=ref: no FAIL line for --require-device"
grep -q '^PASS' "$out" && fail "PORTKERN_BACKEND=ref: a case passed on ref"

# 4. No device but ref: hide OpenCL's platforms (the ICD loader finds none).
#    Where another device stays visible (CUDA, HIP), this part cannot run.
export OCL_ICD_VENDORS=/nonexistent OCL_ICD_FILENAMES=
unset PORTKERN_BACKEND
auto=$("$pk" devices | sed -n 's/^auto *-> *//p')
case $auto in
  "ref 0:"*) ;;
  *) echo "SKIP part 4: a device but ref stays visible ($auto)"; [ "$fails" -eq 0 ] && exit 77; exit 1 ;;
esac
"$pk" conform --op rmsnorm >"$out"; rc=$?
[ "$rc" -eq 0 ] || fail "ref only, conform --op rmsnorm exited $rc"
[ "$(tail -2 "$out" | head -1)" = "no device but ref: no numerical case was checked" ] ||
  fail "ref only, conform: the line before the count is '$(tail -2 "$out" | head -1)'"
tail -1 "$out" | grep -Eq "$closing" || fail "ref only, conform: closing line '$(tail -1 "$out")'"
grep -q '^PASS' "$out" && fail "ref only, conform --op rmsnorm passed a case"

# tools/run.sh's check: --backend auto --require-device fails, and passes the
# line and the skipped cases through.
"$pk" conform --backend auto --require-device --op rmsnorm >"$out"; rc=$?
[ "$rc" -eq 1 ] || fail "ref only, --backend auto --require-device exited $rc, not 1"
[ "$(tail -2 "$out" | head -1)" = "no device but ref: no numerical case was checked" ] ||
  fail "ref only, --backend auto: the line before the count is '$(tail -2 "$out" | head -1)'"
[ "$(tail -1 "$out")" = "0 passed, 1 failed, $n_cases skipped" ] ||
  fail "ref only, --backend auto --require-device closing line: '$(tail -1 "$out")'"
# ... and PORTKERN_ACCEPT_REF_ONLY=1 (run.sh leaves out --require-device) passes.
"$pk" conform --backend auto --op rmsnorm >"$out"; rc=$?
[ "$rc" -eq 0 ] || fail "ref only, --backend auto exited $rc"
[ "$(tail -1 "$out")" = "0 passed, 0 failed, $n_cases skipped" ] ||
  fail "ref only, --backend auto closing line: '$(tail -1 "$out")'"

# 4. --skip leaves out the cases it names, and only those; --case and
# --skip together: the cases of one that the other does not name.
n_knob=$("$pk" conform --list --op gemm | grep -c '/knob:')
n_gemm=$("$pk" conform --list --op gemm | wc -l)
[ "$n_knob" -gt 0 ] || fail "conform --list --op gemm lists no knob case"
n_left=$("$pk" conform --list --op gemm --skip /knob: | wc -l)
[ "$n_left" -eq $((n_gemm - n_knob)) ] || fail "--skip /knob: left $n_left of $n_gemm gemm cases, $n_knob of them knob cases"
"$pk" conform --list --op gemm --skip /knob: | grep -q '/knob:' && fail "--skip /knob: listed a knob case"
n_two=$("$pk" conform --list --op gemm --case /knob: --skip knob:skinny --skip knob:trial | wc -l)
n_want=$("$pk" conform --list --op gemm | grep '/knob:' | grep -vc 'knob:skinny\|knob:trial')
[ "$n_two" -eq "$n_want" ] || fail "--case /knob: --skip skinny --skip trial listed $n_two, not $n_want"
"$pk" conform --list --skip a --skip b --skip c --skip d --skip e --skip f --skip g --skip h --skip i --skip j \
  --skip k --skip l --skip m --skip n --skip o --skip p --skip q >/dev/null 2>&1
[ $? -eq 2 ] || fail "a 17th --skip was not refused with status 2"

[ "$fails" -eq 0 ] && echo "ok" && exit 0
exit 1
