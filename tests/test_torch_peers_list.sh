#!/usr/bin/env bash
# bench/torch_attention_peers.py reads a bench report's attention cases
# (the shapes it times PyTorch's SDPA on, on the GPU machine): on the H200
# report in the tree it lists each attention case once, with its shape,
# and no GEMM case; a report with no attention case is an error.
# Usage: test_torch_peers_list.sh PYTHON SOURCE_ROOT
set -uo pipefail
py=${1:?usage: $0 PYTHON SOURCE_ROOT}
root=${2:?usage: $0 PYTHON SOURCE_ROOT}
script=$root/bench/torch_attention_peers.py
report=$root/bench/results/h200/report.json
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
out=$("$py" "$script" --list "$report") || fail "--list exited $?"
grep -qx 'attn prefill B8 H32 S2048 D128: bf16 B8 Hq32 Hkv32 Sq2048 Skv2048 D128 causal=0' <<<"$out" ||
  fail "the B8 H32 S2048 prefill case is not listed with its shape"
grep -qx '8b decode attn B32 Skv4096: bf16 B32 Hq32 Hkv8 Sq1 Skv4096 D128 causal=0' <<<"$out" ||
  fail "the 8b decode case is not listed with its shape"
[ "$(grep -c '^attn prefill B8 H32 S2048 D128:' <<<"$out")" -eq 1 ] || fail "a case listed once per platform"
grep -q '^gemm\|qkv' <<<"$out" && fail "a GEMM case listed"
n_want=$("$py" -c "import json,sys; r=json.load(open(sys.argv[1])); print(len({x['case'] for x in r['results'] if x['op']=='attention'}))" "$report")
[ "$(wc -l <<<"$out")" -eq "$n_want" ] || fail "listed $(wc -l <<<"$out") cases, the report has $n_want attention cases"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo '{"results": [{"case": "g", "op": "gemm", "dtype": "bf16", "status": "ok", "shape": {}, "flops": 1, "ms": 1}]}' >"$tmp"
"$py" "$script" --list "$tmp" >/dev/null 2>&1 && fail "a report without attention cases was accepted"
[ "$fails" -eq 0 ] && echo ok && exit 0
exit 1
