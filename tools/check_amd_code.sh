#!/usr/bin/env bash
# Checks the HIP backend's AMD code objects in a build directory ($1,
# default build), for every target of its hip_archs option:
#   - each kernel file (gemm, attention, elementwise) has code for the target;
#   - no kernel spills to memory: no vector register spills
#     (.vgpr_spill_count) and no scratch (.private_segment_fixed_size) in the
#     code object metadata. Scalar registers spilled into lanes of vector
#     registers (clang-19 does so in a few kernels on gfx90a/gfx942: a
#     v_writelane and v_readlane each, no memory traffic) are reported, not
#     failed;
#   - on targets with matrix cores, the matrix-core kernels of the lists
#     the plans pick from (kernels_hip/gemm_kernels.h, attention_kernels.h)
#     exist and contain their instructions: the MFMA kernels v_mfma on
#     gfx90a and gfx94x, the WMMA kernels of generation 11 v_wmma on gfx11,
#     those of generation 12 on gfx12.
# No AMD GPU is needed: the bundles are split and read with LLVM's tools.
# Prints one line per check and "amd code: N checks, N failed"; exits 1 on
# any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
# the newest LLVM that has all three tools (clang-19, which tools/fuzz.sh
# installs, comes without clang-offload-bundler)
llvm=
for dir in $(ls -d /usr/lib/llvm-*/bin 2>/dev/null | sort -V); do
  [ -x "$dir/clang-offload-bundler" ] && [ -x "$dir/llvm-readelf" ] && [ -x "$dir/llvm-objdump" ] && llvm=$dir
done
[ -n "$llvm" ] ||
  { echo "amd code: no /usr/lib/llvm-*/bin has clang-offload-bundler, llvm-readelf and llvm-objdump"; exit 1; }

# the matrix-core kernels of the lists hip_gemm_plan.c and
# hip_attention_plan.c pick from: "family module name" a line, family
# mfma, wmma11 or wmma12 (a WMMA entry's arguments are DT, generation, then
# the GEMM's tile or the attention's head dim)
matrix_kernels=$(printf '%s\n' '#include "kernels_hip/gemm_kernels.h"' '#include "kernels_hip/attention_kernels.h"' \
  '#define E(kind, module, name, ...) kind module name __VA_ARGS__ ;' 'PK_HIP_GEMM_KERNELS(E) PK_HIP_ATTN_KERNELS(E)' |
  cc -E -P -x c -I. - | tr ';,' '\n ' | awk '$1 == "MFMA" { print "mfma", $2, $3 } $1 == "WMMA" { print "wmma" $5, $2, $3 }')
grep -q '^mfma ' <<<"$matrix_kernels" || { echo "amd code: no MFMA kernel in kernels_hip/*_kernels.h"; exit 1; }

archs=$(meson introspect "$build" --buildoptions |
  python3 -c 'import json,sys; print(" ".join(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "hip_archs")))')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
checks=0
failed=0
report() { # ok|fail, text
  checks=$((checks + 1))
  if [ "$1" = ok ]; then echo "ok    $2"; else echo "FAIL  $2"; failed=$((failed + 1)); fi
}

for tu in gemm attention elementwise; do
  co=$build/backends/hip/$tu.co
  if [ ! -f "$co" ]; then
    report fail "$tu.co: not built"
    continue
  fi
  bundled=$("$llvm/clang-offload-bundler" --list --type=o --input="$co")
  for arch in $archs; do
    triple=hipv4-amdgcn-amd-amdhsa--$arch
    if ! grep -qx "$triple" <<<"$bundled"; then
      report fail "$tu.co: no code for $arch"
      continue
    fi
    elf=$work/$tu-$arch.o
    "$llvm/clang-offload-bundler" --unbundle --type=o --input="$co" --targets="$triple" --output="$elf"
    # kernel name, sgpr spills, vgpr spills, scratch bytes, one line per
    # kernel (a kernel's entry in amdhsa.kernels starts with "  - .")
    "$llvm/llvm-readelf" --notes "$elf" | awk '
      /^  - \./ { if (name != "") print name, s, v, p; name = ""; s = v = p = 0 }
      $1 == ".name:" { name = $2 }
      $1 == ".private_segment_fixed_size:" { p = $2 }
      $1 == ".sgpr_spill_count:" { s = $2 }
      $1 == ".vgpr_spill_count:" { v = $2 }
      END { if (name != "") print name, s, v, p }' >"$work/spills"
    n=$(wc -l <"$work/spills")
    spilling=$(awk '$3 != 0 || $4 != 0 { printf "%s%s (vgpr %d, scratch %d bytes)", sep, $1, $3, $4; sep = ", " }' "$work/spills")
    in_lanes=$(awk '$2 != 0 && $3 == 0 && $4 == 0 { printf "%s%s %d", sep, $1, $2; sep = ", " }' "$work/spills")
    if [ "$n" -eq 0 ]; then report fail "$tu.co $arch: no kernels"
    elif [ -n "$spilling" ]; then report fail "$tu.co $arch: spills to memory in $spilling"
    else report ok "$tu.co $arch: $n kernels, no spills to memory${in_lanes:+ (scalar registers kept in vector lanes: $in_lanes)}"
    fi
    case $arch in
      gfx90a | gfx94*) family=mfma instr=v_mfma_ ;;
      gfx11*) family=wmma11 instr=v_wmma_ ;;
      gfx12*) family=wmma12 instr=v_wmma_ ;;
      *) continue ;;
    esac
    [ "$tu" = elementwise ] && continue
    # kernels that contain at least one of the family's instructions
    "$llvm/llvm-objdump" -d --no-show-raw-insn "$elf" | awk -v instr="$instr" '
      /^[0-9a-f]+ <[^>]+>:$/ { k = substr($2, 2, length($2) - 3) }
      index($0, instr) && !seen[k]++ { print k }' >"$work/matrix"
    for k in $(awk -v f="$family" -v tu="$tu" '$1 == f && $2 == tu { print $3 }' <<<"$matrix_kernels"); do
      if ! grep -qx "$k" <(awk '{print $1}' "$work/spills"); then report fail "$tu.co $arch: $k missing"
      elif grep -qx "$k" "$work/matrix"; then report ok "$tu.co $arch: $k uses ${instr%_}"
      else report fail "$tu.co $arch: $k has no ${instr%_} instruction"
      fi
    done
  done
done
echo "amd code: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
