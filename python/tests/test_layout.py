"""The ctypes mirrors against the C headers: the field names in order (read
from the header text), and every size, offset and constant as the C
compiler sees them (a small C program built at test time)."""
import ctypes
import os
import re
import subprocess
import tempfile
import unittest

import support
from portkern import _structs as S

HEADERS = ("portkern.h", "pk_dlpack.h")


def header_fields(text, name):
    """Field names, in order, of `typedef struct name { ... } name;`."""
    m = re.search(r"typedef\s+struct\s+" + re.escape(name) + r"\s*\{(.*?)\}\s*" + re.escape(name)
                  + r"\s*;", text, re.S)
    if not m:
        return None
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    names = []
    for decl in body.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)        # a function pointer
        if fp:
            names.append(fp.group(1))
            continue
        decl = re.sub(r"\[[^\]]*\]", "", decl)               # array extents
        names.append(re.findall(r"\w+", decl)[-1])
    return names


class Layout(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.inc = support.include_dir()
        if cls.inc is None:
            raise unittest.SkipTest("portkern.h not found (set PORTKERN_INCLUDE to api/)")
        cls.text = ""
        for h in HEADERS:
            with open(os.path.join(cls.inc, h)) as f:
                cls.text += f.read()

    def test_field_names_in_order(self):
        for st in S.ALL_STRUCTS:
            with self.subTest(struct=st._c_name_):
                want = header_fields(self.text, st._c_name_)
                self.assertIsNotNone(want, f"{st._c_name_} not found in the headers")
                self.assertEqual([f for f, _ in st._fields_], want)

    def test_sizes_offsets_constants_match_the_compiler(self):
        cc = support.cc()
        if cc is None:
            self.skipTest("no C compiler (cc, gcc, clang, $CC)")
        lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "portkern.h"',
                 '#include "pk_dlpack.h"', "int main(void) {"]
        want = {}
        for st in S.ALL_STRUCTS:
            c = st._c_name_
            lines.append(f'printf("size {c} %zu\\n", sizeof({c}));')
            want[f"size {c}"] = ctypes.sizeof(st)
            lines.append(f'printf("align {c} %zu\\n", _Alignof({c}));')
            want[f"align {c}"] = ctypes.alignment(st)
            for f, _ in st._fields_:
                lines.append(f'printf("offset {c}.{f} %zu\\n", offsetof({c}, {f}));')
                lines.append(f'printf("fsize {c}.{f} %zu\\n", sizeof((({c} *)0)->{f}));')
                want[f"offset {c}.{f}"] = getattr(st, f).offset
                want[f"fsize {c}.{f}"] = getattr(st, f).size
        for name, value in S.CONSTANTS.items():
            lines.append(f'printf("const {name} %lld\\n", (long long)({name}));')
            want[f"const {name}"] = value
        lines += ["return 0;", "}"]
        with tempfile.TemporaryDirectory() as d:
            src, exe = os.path.join(d, "layout.c"), os.path.join(d, "layout")
            with open(src, "w") as f:
                f.write("\n".join(lines) + "\n")
            r = subprocess.run([cc, "-std=c11", "-I", self.inc, src, "-o", exe],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, f"compiling the layout program failed:\n{r.stderr}")
            out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
        got = {}
        for line in out.splitlines():
            key, _, value = line.rpartition(" ")
            got[key] = int(value)
        self.assertEqual(set(got), set(want))
        bad = {k: (want[k], got[k]) for k in want if want[k] != got[k]}
        self.assertEqual(bad, {}, "ctypes (left) and C (right) differ")
        self.assertGreater(len(got), 100)


if __name__ == "__main__":
    unittest.main()
