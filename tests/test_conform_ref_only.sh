#!/usr/bin/env bash
# The suite never counts ref against itself as a check: on ref every
# numerical case is reported skipped, with its reason, and a run that
# found no device but ref says so and fails under --require-device (which
# tools/run.sh passes unless PORTKERN_ACCEPT_REF_ONLY=1).
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

[ "$fails" -eq 0 ] && echo "ok" && exit 0
exit 1
