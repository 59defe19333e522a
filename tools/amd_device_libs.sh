#!/usr/bin/env bash
# Makes a ROCm device-library folder for clang's HIP build: links to every
# bitcode file of Debian's rocm-device-libs (ROCm 5.2), plus the one file
# that release lacks for a newer target. That file, oclc_isa_version_N.bc,
# holds one constant, the target's ISA version (major * 1000 + minor * 100
# + stepping: 9402 for gfx942, 11000 for gfx1100, 12001 for gfx1201), and is
# compiled here from one line of OpenCL C. With a ROCm that knows the
# targets, the folder is only links. Usage:
#   amd_device_libs.sh CLANG ROCM_PATH OUT_DIR STAMP ARCH...
set -euo pipefail
clang=$1 rocm=$2 out=$3 stamp=$4
shift 4
system=
# Debian's layout, then ROCm's own (/opt/rocm)
for dir in "$rocm/lib/x86_64-linux-gnu/amdgcn/bitcode" "$rocm/amdgcn/bitcode"; do
  [ -f "$dir/ockl.bc" ] && system=$dir && break
done
[ -n "$system" ] || { echo "no ROCm device libraries under $rocm (Debian: rocm-device-libs)" >&2; exit 1; }
mkdir -p "$out"
for f in "$system"/*.bc; do ln -sf "$f" "$out/"; done
for arch in "$@"; do
  # gfx<major><minor><stepping>: minor and stepping one hex digit each
  digits=${arch#gfx}
  major=${digits:0:${#digits}-2} minor=$((16#${digits: -2:1})) stepping=$((16#${digits: -1}))
  version=$((major * 1000 + minor * 100 + stepping))
  # the system's file names the version in its own spelling (90a); ours is decimal
  ls "$system"/oclc_isa_version_"${digits}".bc >/dev/null 2>&1 && continue
  src="$out/isa_version_$arch.cl"
  echo "const __constant int __oclc_ISA_version = $version;" >"$src"
  "$clang" -x cl -Xclang -finclude-default-header -target amdgcn-amd-amdhsa -mcpu="$arch" -nogpulib -emit-llvm \
    -c "$src" -o "$out/oclc_isa_version_${digits}.bc"
done
touch "$stamp"
