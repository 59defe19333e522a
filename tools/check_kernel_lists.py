#!/usr/bin/env python3
"""Checks built kernel files against the kernel lists the host finds kernels
by (kernels_cuda/gemm_kernels.h, attention_kernels.h, kernels_hip/...,
kernels_gpu/ew_kernels.h):

    check_kernel_lists.py --cc CC cuda|hip FILE...

FILE is a built kernel file (gemm.fatbin, gemm.co, ...); its name before
the dot is its module. For each machine code image in it (one per target:
NVIDIA cubins, AMD code objects), the kernels are exactly the entries the
lists put in that module: none missing, none the host cannot name. The
lists are read through the C preprocessor CC, as the builds read them.
Prints one line per image and "kernel lists: N checks, N failed"; exits 1
on any failure."""
import os
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LISTS = {
    'cuda': [('kernels_cuda/gemm_kernels.h', 'PK_CU_GEMM_KERNELS'),
             ('kernels_cuda/attention_kernels.h', 'PK_CU_ATTN_KERNELS'),
             ('kernels_gpu/ew_kernels.h', 'PK_EW_KERNELS')],
    'hip': [('kernels_hip/gemm_kernels.h', 'PK_HIP_GEMM_KERNELS'),
            ('kernels_hip/attention_kernels.h', 'PK_HIP_ATTN_KERNELS'),
            ('kernels_gpu/ew_kernels.h', 'PK_EW_KERNELS')],
}
EM_CUDA, EM_AMDGPU = 190, 224
AMD_MACH = {0x36: 'gfx1030', 0x3f: 'gfx90a', 0x40: 'gfx940', 0x41: 'gfx1100', 0x4c: 'gfx942', 0x4e: 'gfx1201'}


def list_entries(cc, backend):
    """{module: set of names} of the backend's lists"""
    src = ''.join('#include "%s"\n' % h for h, _ in LISTS[backend])
    src += '#define E(kind, module, name, ...) module name\n'
    src += ''.join('%s(E)\n' % m for _, m in LISTS[backend])
    out = subprocess.run(cc + ['-E', '-P', '-x', 'c', '-I', ROOT, '-'], input=src, capture_output=True, text=True,
                         check=True).stdout.split()
    entries = {}
    for module, name in zip(out[0::2], out[1::2]):
        entries.setdefault(module, set()).add(name)
    return entries


def elf_images(data):
    """(target, kernel names, end) of every 64-bit little-endian ELF image in data"""
    at = data.find(b'\x7fELF')
    while at >= 0:
        e = data[at:]
        machine, flags = struct.unpack_from('<H', e, 18)[0], struct.unpack_from('<I', e, 48)[0]
        shoff, shentsize, shnum = struct.unpack_from('<Q', e, 40)[0], *struct.unpack_from('<HH', e, 58)
        sections = [struct.unpack_from('<IIQQQQIIQQ', e, shoff + k * shentsize) for k in range(shnum)]
        end = max([shoff + shnum * shentsize] + [s[4] + s[5] for s in sections if s[1] != 8])
        symbols = []
        for s in sections:
            if s[1] != 2:  # SHT_SYMTAB
                continue
            strtab = sections[s[6]][4]
            for k in range(s[5] // s[9]):
                st_name, st_info, st_other = struct.unpack_from('<IBB', e, s[4] + k * s[9])
                name = e[strtab + st_name:e.index(b'\0', strtab + st_name)].decode()
                symbols.append((name, st_info, st_other))
        if machine == EM_CUDA:  # global functions marked as entries
            target = 'sm_%d' % (flags >> 8 & 0xff)
            kernels = {n for n, info, other in symbols if info == 0x12 and other & 0x10}
        elif machine == EM_AMDGPU:  # a kernel's descriptor is name.kd
            target = AMD_MACH.get(flags & 0xff, 'mach 0x%x' % (flags & 0xff))
            kernels = {n[:-3] for n, _, _ in symbols if n.endswith('.kd')}
        else:
            target, kernels = None, set()
        if target:
            yield target, kernels
        at = data.find(b'\x7fELF', at + max(end, 4))


def main():
    args = sys.argv[1:]
    if len(args) < 4 or args[0] != '--cc' or args[2] not in LISTS:
        sys.exit(__doc__)
    entries = list_entries(args[1].split(), args[2])
    checks = failed = 0

    def report(ok, text):
        nonlocal checks, failed
        checks += 1
        failed += not ok
        print('%s %s' % ('ok   ' if ok else 'FAIL ', text))

    for path in args[3:]:
        module = os.path.basename(path).split('.')[0]
        want = entries.get(module, set())
        images = list(elf_images(open(path, 'rb').read()))
        if not images or not want:
            report(False, '%s: %s' % (path, 'no machine code in it' if want else 'no list names its module'))
        for target, got in images:
            missing, unlisted = sorted(want - got), sorted(got - want)
            report(not missing and not unlisted,
                   '%s %s: %d kernels of %d listed%s%s' % (os.path.basename(path), target, len(got & want), len(want),
                                                          ''.join('\n  missing ' + n for n in missing),
                                                          ''.join('\n  not in a list ' + n for n in unlisted)))
    print('kernel lists: %d checks, %d failed' % (checks, failed))
    sys.exit(1 if failed else 0)


main()
