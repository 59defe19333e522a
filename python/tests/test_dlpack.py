"""DLPack in and out: zero copy, strides, refusals, who frees what."""
import ctypes
import gc
import sys
import unittest

import support
from support import np, quantize
import portkern
from portkern import _dlpack, _lib
from portkern import _structs as S

_api = ctypes.pythonapi
_new_capsule = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                                 ctypes.c_void_p)(("PyCapsule_New", _api))
_capsule_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_IsValid", _api))


def live(handle):
    """Whether a pk_buffer handle is still live (pk_buffer_size is 0 for a
    dead one, and every buffer here has bytes)."""
    return _lib.lib().pk_buffer_size(handle) > 0


class HandMade:
    """A managed tensor over a NumPy array, built by hand: its deleter counts
    its calls, so the tests see exactly when (and whether) portkern runs it."""

    def __init__(self, array, versioned=False, flags=0, major=1):
        self.array = array
        self.calls = 0
        self.shape = (ctypes.c_int64 * array.ndim)(*array.shape)
        self.strides = (ctypes.c_int64 * array.ndim)(*[s // array.itemsize for s in array.strides])
        self.managed = S.DLManagedTensorVersioned() if versioned else S.DLManagedTensor()
        t = self.managed.dl_tensor
        t.data = array.ctypes.data
        t.device.device_type, t.device.device_id = S.DL_CPU, 0
        t.ndim = array.ndim
        t.dtype.code, t.dtype.bits, t.dtype.lanes = S.DL_FLOAT, array.itemsize * 8, 1
        t.shape, t.strides, t.byte_offset = self.shape, self.strides, 0
        if versioned:
            self.managed.version.major, self.managed.version.minor = major, 0
            self.managed.flags = flags
        self._deleter = S.DL_DELETER(self._count)
        self.managed.deleter = ctypes.cast(self._deleter, ctypes.c_void_p).value
        # no destructor: the test decides who frees
        self.capsule = _new_capsule(ctypes.addressof(self.managed),
                                    b"dltensor_versioned" if versioned else b"dltensor", None)

    def _count(self, addr):
        assert addr == ctypes.addressof(self.managed)
        self.calls += 1

    def __dlpack__(self, stream=None, max_version=None):
        return self.capsule

    def __dlpack_device__(self):
        return (S.DL_CPU, 0)


class Recorder:
    """A producer that records the keywords a consumer passes, over NumPy."""

    def __init__(self, array, takes_max_version):
        self.array = array
        self.takes = takes_max_version
        self.calls = []

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, stream=None, **kw):
        self.calls.append(dict(stream=stream, **kw))
        if kw and not self.takes:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        return self.array.__dlpack__(stream=stream)


class RefDLPack(support.Checks, unittest.TestCase):
    """NumPy and portkern's ref backend share host memory: both ways zero copy."""

    @classmethod
    def setUpClass(cls):
        cls.ctx = support.context_for("ref:0")

    def test_numpy_into_portkern_zero_copy(self):
        a = quantize(support.rng(1).uniform(-1, 1, (16, 64)), "f32").astype(np.float32)
        b = quantize(support.rng(2).uniform(-1, 1, (64, 8)), "f32").astype(np.float32)
        d = np.zeros((16, 8), np.float32)
        ta, tb, td = (self.ctx.from_dlpack(x) for x in (a, b, d))
        for t, x in ((ta, a), (tb, b), (td, d)):
            self.assertEqual(t.handle + t.offset, x.ctypes.data)
            self.assertTrue(t.is_wrapped)
        # portkern writes, NumPy reads the same memory: no download
        self.ctx.gemm(ta, tb, out=td)
        self.ctx.finish()
        self.assertClose(d, a.astype(np.float64) @ b, "f32", what="gemm into a NumPy array")
        # NumPy writes, portkern reads them with no upload
        a *= 2.0
        self.ctx.gemm(ta, tb, out=td)
        self.ctx.finish()
        self.assertClose(d, a.astype(np.float64) @ b, "f32", what="after NumPy wrote a")

    def test_ops_take_numpy_arrays_directly(self):
        x = support.rng(3).uniform(-2, 2, (5, 32)).astype(np.float32)
        bias = support.rng(4).uniform(-1, 1, (32,)).astype(np.float32)
        before = (sys.getrefcount(x), sys.getrefcount(bias))
        r = self.ctx.bias_act(x, bias, out=x, act="relu")  # in place in NumPy's memory
        self.assertIs(r, x)
        want = np.maximum(x.astype(np.float64), 0)  # x already holds the result
        self.assertTrue(np.all(x >= 0))
        self.assertClose(x, want, "f32")
        del r
        gc.collect()
        # the temporaries were released: no reference to the arrays left behind
        self.assertEqual((sys.getrefcount(x), sys.getrefcount(bias)), before)

    def test_ops_on_numpy_values(self):
        x0 = support.rng(5).uniform(-2, 2, (5, 32)).astype(np.float32)
        x = x0.copy()
        bias = support.rng(6).uniform(-1, 1, (32,)).astype(np.float32)
        self.ctx.bias_act(x, bias, out=x, act="silu")
        h = x0.astype(np.float64) + bias
        self.assertClose(x, h / (1 + np.exp(-h)), "f32", what="bias_act on NumPy memory")

    def test_portkern_into_numpy_zero_copy(self):
        t = self.ctx.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
        n = np.from_dlpack(t)
        self.assertEqual(n.ctypes.data, t.handle + t.offset)
        self.assertEqual(n.shape, (3, 4))
        # written through portkern (an op, then an upload), read in NumPy: no download
        t.upload(np.full((3, 4), -5.0))
        self.assertEqual(float(n[2, 3]), -5.0)
        s = self.ctx.tensor(np.ones((3, 4), np.float32))
        self.ctx.softmax(s, out=t)
        self.ctx.finish()
        self.assertClose(n, np.full((3, 4), 0.25), "f32", what="NumPy view after portkern wrote")
        self.ctx.bias_act(t, None, out=t, act="silu")
        self.ctx.finish()
        self.assertClose(n, np.full((3, 4), 0.25 / (1 + np.exp(-0.25))), "f32", what="in place")
        # written in NumPy, read by portkern (NumPy < 2 makes DLPack arrays read-only;
        # the other direction is test_numpy_into_portkern_zero_copy)
        if n.flags.writeable:
            n[1, 2] = 42.0
            self.assertEqual(float(t.numpy()[1, 2]), 42.0)

    def test_export_keeps_buffer_alive(self):
        t = self.ctx.tensor(np.full((4, 4), 3.0, np.float32))
        h = t.buffer
        n = np.from_dlpack(t)
        with self.assertRaises(portkern.Error):
            t.free()  # a live NumPy view: refused rather than leave it dangling
        del t
        gc.collect()
        self.assertTrue(live(h), "the buffer must outlive the NumPy view")
        self.assertEqual(float(n.sum()), 48.0)
        del n
        gc.collect()
        self.assertFalse(live(h), "the buffer must be freed once the view is gone")

    def test_unconsumed_capsule_releases(self):
        t = self.ctx.tensor(np.ones(8, np.float32))
        h = t.buffer
        for kw in ({}, {"max_version": (1, 0)}):
            cap = t.__dlpack__(**kw)
            self.assertEqual(t._buf._exports, 1)
            del cap
            self.assertEqual(t._buf._exports, 0)
        t.free()
        self.assertFalse(live(h))

    def test_export_views_with_strides_and_offset(self):
        host = np.arange(24, dtype=np.float32).reshape(4, 6)
        t = self.ctx.tensor(host)
        tv = t.T
        n = np.from_dlpack(tv)
        self.assertEqual(n.shape, (6, 4))
        self.assertEqual(n.strides, (4, 24))
        np.testing.assert_array_equal(n, host.T)
        s = t[1:3, 2:5]
        ns = np.from_dlpack(s)
        self.assertEqual(ns.ctypes.data, t.handle + 1 * 24 + 2 * 4)
        np.testing.assert_array_equal(ns, host[1:3, 2:5])

    def test_transposed_numpy_view_imported_with_strides(self):
        base = quantize(support.rng(7).uniform(-1, 1, (64, 12)), "f32").astype(np.float32)
        at = base.T                      # [12, 64], strides (1, 12) elements: not contiguous
        t = self.ctx.from_dlpack(at)
        self.assertEqual(t.shape, (12, 64))
        self.assertEqual(t.strides, (1, 12))
        np.testing.assert_array_equal(t.numpy(), at)
        b = quantize(support.rng(8).uniform(-1, 1, (64, 5)), "f32").astype(np.float32)
        d = self.ctx.gemm(t, self.ctx.tensor(b))
        self.assertClose(d.numpy(), at.astype(np.float64) @ b, "f32", what="gemm on a .T view")

    def test_negative_strides_refused(self):
        a = np.arange(16, dtype=np.float32)
        rev = a[::-1]
        before = sys.getrefcount(a)
        with self.assertRaises(portkern.Error) as cm:
            self.ctx.from_dlpack(rev)
        self.assertEqual(cm.exception.status, "PK_ERR_UNSUPPORTED")
        self.assertIn("negative", cm.exception.message)
        del cm
        gc.collect()
        self.assertEqual(sys.getrefcount(a), before, "the refused capsule leaked its array")

    def test_wrong_dtypes_refused_without_leak(self):
        # int32 is taken (index tensors: device lengths and positions)
        for dt in (np.float64, np.int64, np.int8, np.uint16, np.complex64):
            with self.subTest(dtype=np.dtype(dt).name):
                a = np.zeros((3, 5), dt)
                before = sys.getrefcount(a)
                with self.assertRaises(portkern.Error) as cm:
                    self.ctx.from_dlpack(a)
                e = cm.exception
                self.assertEqual(e.status, "PK_ERR_UNSUPPORTED")
                self.assertEqual(e.code, S.STATUS["PK_ERR_UNSUPPORTED"])
                self.assertTrue(e.message)
                del cm, e
                gc.collect()
                self.assertEqual(sys.getrefcount(a), before)

    def test_int32_both_ways(self):
        idx = np.array([3, 1, 4, 1, 5], np.int32)
        t = self.ctx.from_dlpack(idx)
        self.assertEqual((t.dtype, t.shape), ("i32", (5,)))
        self.assertEqual(t.handle + t.offset, idx.ctypes.data)
        n = np.from_dlpack(t)
        self.assertEqual(n.dtype, np.int32)
        np.testing.assert_array_equal(n, idx)
        with self.assertRaises(portkern.Error):
            self.ctx.softmax(t)  # i32 is for indices alone, never an op's operand
        del n

    def test_f16_and_empty_and_high_rank(self):
        h = np.arange(6, dtype=np.float16).reshape(2, 3)
        t = self.ctx.from_dlpack(h)
        self.assertEqual((t.dtype, t.shape), ("f16", (2, 3)))
        np.testing.assert_array_equal(t.numpy(), h)
        # leading 1s are dropped down to portkern's 4 dims
        big = np.ones((1, 1, 2, 3, 4, 5), np.float32)
        self.assertEqual(self.ctx.from_dlpack(big).shape, (2, 3, 4, 5))
        with self.assertRaises(portkern.Error):
            self.ctx.from_dlpack(np.ones((2, 1, 2, 3, 4), np.float32))
        empty = self.ctx.from_dlpack(np.zeros((0, 4), np.float32))
        self.assertEqual(empty.size, 0)

    def test_capsule_consumed_once(self):
        a = np.ones(4, np.float32)
        cap = a.__dlpack__()
        t = self.ctx.from_dlpack(cap)
        self.assertTrue(_capsule_valid(cap, b"used_dltensor"))
        with self.assertRaises(portkern.Error):
            self.ctx.from_dlpack(cap)
        t.free()

    def test_hand_made_legacy_deleter_runs_once_at_free(self):
        a = np.arange(8, dtype=np.float32)
        m = HandMade(a)
        t = self.ctx.from_dlpack(m)
        self.assertTrue(_capsule_valid(m.capsule, b"used_dltensor"))
        self.assertEqual(m.calls, 0)
        np.testing.assert_array_equal(t.numpy(), a)
        t.free()
        self.assertEqual(m.calls, 1)
        t.free()
        gc.collect()
        self.assertEqual(m.calls, 1)

    def test_hand_made_versioned(self):
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        m = HandMade(a, versioned=True)
        t = self.ctx.from_dlpack(m)
        self.assertTrue(_capsule_valid(m.capsule, b"used_dltensor_versioned"))
        self.assertEqual(t.handle, a.ctypes.data)
        del t
        gc.collect()
        self.assertEqual(m.calls, 1, "garbage collection frees the import once")

    def test_hand_made_versioned_refusals_leave_capsule(self):
        a = np.arange(6, dtype=np.float32)
        for kw in ({"flags": S.DL_FLAG_READ_ONLY}, {"major": 2}):
            with self.subTest(**kw):
                m = HandMade(a, versioned=True, **kw)
                with self.assertRaises(portkern.Error) as cm:
                    self.ctx.from_dlpack(m)
                self.assertEqual(cm.exception.status, "PK_ERR_UNSUPPORTED")
                self.assertTrue(_capsule_valid(m.capsule, b"dltensor_versioned"),
                                "a refused capsule must keep its name (its owner frees it)")
                self.assertEqual(m.calls, 0)

    def test_close_runs_deleters(self):
        ctx = portkern.open("ref")
        m = HandMade(np.ones(3, np.float32))
        t = ctx.from_dlpack(m)
        ctx.close()
        self.assertEqual(m.calls, 1)
        t.free()  # after close: nothing left to free, and no error
        self.assertEqual(m.calls, 1)

    def test_portkern_to_portkern_versioned(self):
        other = portkern.open("ref")
        try:
            t = self.ctx.tensor(np.arange(10, dtype=np.float32))
            h = t.buffer
            u = other.from_dlpack(t)  # asks for max_version (1, 0): the versioned export
            self.assertEqual(u.handle + u.offset, t.handle + t.offset)
            del t
            gc.collect()
            self.assertTrue(live(h), "the importing context holds the exporter's buffer")
            np.testing.assert_array_equal(u.numpy(), np.arange(10, dtype=np.float32))
            u.free()
            gc.collect()
            self.assertFalse(live(h))
        finally:
            other.close()

    def test_producer_keywords(self):
        a = np.ones(4, np.float32)
        new = Recorder(a, takes_max_version=True)
        self.ctx.from_dlpack(new).free()
        self.assertEqual(new.calls, [{"stream": None, "max_version": (1, 0)}])
        old = Recorder(a, takes_max_version=False)
        self.ctx.from_dlpack(old).free()
        self.assertEqual(old.calls, [{"stream": None, "max_version": (1, 0)}, {"stream": None}])

    def test_dlpack_device_and_export_keywords(self):
        t = self.ctx.tensor(np.ones(2, np.float32))
        self.assertEqual(t.__dlpack_device__(), (S.DL_CPU, 0))
        with self.assertRaises(BufferError):
            t.__dlpack__(copy=True)
        with self.assertRaises(BufferError):
            t.__dlpack__(dl_device=(S.DL_CUDA, 0))
        self.assertTrue(_capsule_valid(t.__dlpack__(stream=None, max_version=(1, 0)),
                                       b"dltensor_versioned"))
        self.assertTrue(_capsule_valid(t.__dlpack__(max_version=(0, 8)), b"dltensor"))


class StreamRules(unittest.TestCase):
    """The stream a consumer passes to the producer (array API rules)."""

    class Stub:
        def __init__(self, backend, queue):
            self.backend, self.queue = backend, queue

    def test_consumer_stream(self):
        f = _dlpack.consumer_stream
        self.assertIsNone(f(self.Stub("ref", None), S.DL_CPU))
        self.assertIsNone(f(self.Stub("opencl", 1234), S.DL_OPENCL))
        self.assertEqual(f(self.Stub("cuda", None), S.DL_CUDA), 1)      # legacy default stream
        self.assertEqual(f(self.Stub("cuda", 0xabc0), S.DL_CUDA), 0xabc0)
        self.assertEqual(f(self.Stub("hip", None), S.DL_ROCM), 0)       # ROCm's default stream
        self.assertEqual(f(self.Stub("hip", 0xabc0), S.DL_ROCM), 0xabc0)
        self.assertEqual(f(self.Stub("hip", None), S.DL_CUDA), 1)       # HIP on NVIDIA
        self.assertIsNone(f(self.Stub("ref", None), S.DL_CUDA))


class ForeignDevice:
    """Host memory offered to a context that computes elsewhere is refused
    (portkern's own check)."""

    def test_numpy_array_refused(self):
        if self.spec.startswith("ref"):
            self.skipTest("ref computes on host memory")
        a = np.ones((4, 4), np.float32)
        before = sys.getrefcount(a)
        with self.assertRaises(portkern.Error) as cm:
            self.ctx.from_dlpack(a)
        self.assertEqual(cm.exception.status, "PK_ERR_WRONG_CONTEXT")
        self.assertIn("CPU", cm.exception.message)
        with self.assertRaises(portkern.Error):
            self.ctx.softmax(a)
        del cm
        gc.collect()
        self.assertEqual(sys.getrefcount(a), before)

    def test_failing_consumer_does_not_leak(self):
        if self.spec.startswith("ref"):
            self.skipTest("NumPy takes ref's tensors")
        import contextlib
        import io
        # more than once: the interpreter specialises the release's call
        # sites after the first run, which once changed how it went
        for attempt in range(4):
            t = self.ctx.tensor(np.ones(4, np.float32))
            err = io.StringIO()
            with contextlib.redirect_stderr(err), self.assertRaises(Exception):
                np.from_dlpack(t)  # NumPy takes the capsule, then refuses the device
            self.assertEqual(t._buf._exports, 0,
                             f"attempt {attempt}: the refused capsule still holds the buffer")
            self.assertIn("Unsupported device", err.getvalue(), f"attempt {attempt}")
            t.free()

    def test_export_reimport_on_shared_queue(self):
        """OpenCL: a second context on the first one's queue shares its
        cl_context, so a tensor moves between them through DLPack, zero copy."""
        if not self.spec.startswith("opencl"):
            self.skipTest("OpenCL only (a CUDA/HIP version is in test_torch)")
        host = np.arange(32, dtype=np.float32).reshape(4, 8) - 16
        t = self.ctx.tensor(host)
        self.assertEqual(t.__dlpack_device__(), (S.DL_OPENCL, self.ctx.index))
        other = portkern.Context.open_on_queue(self.spec, 0, self.ctx.queue)
        try:
            u = other.from_dlpack(t[1:3])
            self.assertEqual(u.handle, t.handle)          # the same cl_mem
            self.assertEqual(u.offset, t.offset + 8 * 4)
            other.bias_act(u, None, out=u, act="relu")  # writes the first context's memory
            got = t.numpy()                               # same queue: ordered, no finish
            self.assertClose(got[1:3], np.maximum(host[1:3], 0), "f32")
            np.testing.assert_array_equal(got[[0, 3]], host[[0, 3]])
            u.free()
        finally:
            other.close()


support.per_backend(globals(), type("ForeignDevice", (support.Checks, ForeignDevice), {}))

if __name__ == "__main__":
    unittest.main()
