"""Shared pieces of the tests: the package under test, the backends to run
on, per-backend test classes, float64 references' tolerances.

Backends: $PORTKERN_TEST_BACKENDS ("ref,opencl:0", commas or spaces), else
every device of ref, opencl, cuda and hip that the library lists. A listed
backend that cannot be opened gives a skipped class with portkern's reason.
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)        # python/
REPO_ROOT = os.path.dirname(PACKAGE_ROOT)    # the repository
# test the package beside these tests, not whichever one is installed
sys.path.insert(0, PACKAGE_ROOT)

import portkern  # noqa: E402

try:
    import numpy as np  # noqa: F401
except ImportError:  # pragma: no cover
    np = None


def backend_specs():
    """[(spec, reason_or_None)]: what to run on, and why one is skipped."""
    env = os.environ.get("PORTKERN_TEST_BACKENDS", "").replace(",", " ").split()
    if env:
        return [(s if ":" in s else f"{s}:0", None) for s in env]
    specs = [(d.spec, None) for d in portkern.devices()]
    for name, reason in portkern.unavailable().items():
        if name in ("ref", "opencl", "cuda", "hip"):
            specs.append((f"{name}:0", f"{name} unavailable: {reason}"))
    return specs


_contexts = {}


def context_for(spec):
    """One context per backend for the whole run (opening OpenCL builds
    nothing, but reusing it keeps the programs it built), or SkipTest."""
    if spec not in _contexts:
        try:
            _contexts[spec] = portkern.open(spec)
        except portkern.Error as e:
            _contexts[spec] = unittest.SkipTest(f"{spec} cannot be opened: {e}")
    ctx = _contexts[spec]
    if isinstance(ctx, unittest.SkipTest):
        raise ctx
    return ctx


def per_backend(module_globals, base):
    """Make one TestCase class per backend from `base` (which uses
    self.ctx and self.spec), named Base_ref_0, Base_opencl_0, ..."""
    for spec, reason in backend_specs():
        name = f"{base.__name__}_{spec.replace(':', '_')}"

        def setUpClass(cls, spec=spec, reason=reason):
            if reason:
                raise unittest.SkipTest(reason)
            cls.spec = spec
            cls.ctx = context_for(spec)

        module_globals[name] = type(name, (base, unittest.TestCase),
                                    {"setUpClass": classmethod(setUpClass),
                                     "__module__": module_globals["__name__"]})


def rng(seed):
    return np.random.default_rng(seed)


# Bounds relative to the reference's largest magnitude: the storage dtype's
# rounding of inputs and output, plus f32 accumulation, with room to spare.
TOL = {"f32": 1e-4, "f16": 4e-3, "bf16": 2.5e-2}


def quantize(a, dtype):
    """Host values as the device stores them (so that the float64 reference
    sees the same inputs), in float64."""
    from portkern import _dtypes
    if dtype == "f32":
        return a.astype(np.float32).astype(np.float64)
    if dtype == "f16":
        return a.astype(np.float16).astype(np.float64)
    return _dtypes.bf16_bits_to_f32(_dtypes.f32_to_bf16_bits(a)).astype(np.float64)


class Checks:
    def assertClose(self, got, want, dtype, tol=None, what=""):
        got = np.asarray(got, dtype=np.float64)
        want = np.asarray(want, dtype=np.float64)
        self.assertEqual(got.shape, want.shape, f"{what}: shape")
        self.assertTrue(np.all(np.isfinite(got)), f"{what}: non-finite values in the result")
        scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1e-3)
        err = float(np.max(np.abs(got - want))) if want.size else 0.0
        bound = (tol if tol is not None else TOL[dtype]) * scale
        self.assertLessEqual(err, bound, f"{what}: max error {err:.3g} > {bound:.3g} "
                                         f"({dtype}, reference magnitude {scale:.3g})")


def cc():
    """A C compiler, or None."""
    import shutil
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def include_dir():
    """Where portkern.h is: $PORTKERN_INCLUDE, else the repository's api/."""
    for d in (os.environ.get("PORTKERN_INCLUDE"), os.path.join(REPO_ROOT, "api")):
        if d and os.path.exists(os.path.join(d, "portkern.h")):
            return d
    return None


class DLPackOnly:
    """An array known only through the DLPack protocol, as another library's
    array on the context's device would be (it wraps a portkern tensor)."""

    def __init__(self, tensor):
        self._t = tensor

    def __dlpack__(self, **kw):
        return self._t.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()
