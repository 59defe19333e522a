"""Devices, contexts, tensors and their lifetimes, host conversions."""
import gc
import os
import subprocess
import sys
import unittest

import support
from support import np
import portkern
from portkern import _dtypes, _lib


def live(handle):
    return _lib.lib().pk_buffer_size(handle) > 0


class Devices(unittest.TestCase):
    def test_listing(self):
        devs = portkern.devices()
        self.assertIn("ref:0", [d.spec for d in devs])
        for d in devs:
            self.assertIn(d.backend, ("ref", "opencl", "cuda", "hip"))
            self.assertIsInstance(d.name, str)
            self.assertTrue(d.name)
            self.assertIsInstance(d.global_mem_bytes, int)
            self.assertIsInstance(d.is_cpu, bool)
        ref = [d for d in devs if d.backend == "ref"][0]
        self.assertTrue(ref.is_cpu)
        # unavailable backends are left out of the list, with a reason
        for name, reason in portkern.unavailable().items():
            self.assertNotIn(name, [d.backend for d in devs])
            self.assertTrue(reason)

    def test_open_forms(self):
        with portkern.open("ref") as a:
            self.assertEqual((a.backend, a.index), ("ref", 0))
            self.assertEqual(a.info.backend, "ref")
            self.assertIsNone(a.queue)
        self.assertTrue(a.closed)
        a.close()  # twice: nothing
        with portkern.open("ref:0") as b, portkern.open("ref", 0) as c:
            self.assertEqual(b.name, c.name)
        for d in portkern.devices():
            with portkern.open(d.backend, d.index) as ctx:
                self.assertEqual(ctx.name, d.spec)
        with portkern.open("auto") as auto:
            self.assertIn(auto.backend, ("ref", "opencl", "cuda", "hip"))

    def test_open_errors(self):
        with self.assertRaises(portkern.Error) as cm:
            portkern.open("vulkan")
        self.assertEqual(cm.exception.status, "PK_ERR_INVALID_ARGUMENT")
        self.assertIn("vulkan", cm.exception.message)
        with self.assertRaises(portkern.Error) as cm:
            portkern.open("ref", 7)
        self.assertEqual(cm.exception.status, "PK_ERR_NO_DEVICE")
        self.assertTrue(cm.exception.message.startswith("pk_open"))
        with self.assertRaises(portkern.Error):
            portkern.open("ref:x")

    def test_open_on_queue_ref(self):
        with portkern.Context.open_on_queue("ref", 0, None) as ctx:
            self.assertIsNone(ctx.queue)
            t = ctx.tensor(np.ones(3, np.float32))
            self.assertEqual(t.numpy().tolist(), [1, 1, 1])
        with self.assertRaises(portkern.Error) as cm:
            portkern.open_on_queue("ref", 0, 0x1000)  # ref has no queue to share
        self.assertEqual(cm.exception.status, "PK_ERR_INVALID_ARGUMENT")
        with self.assertRaises(portkern.Error) as cm:
            portkern.open_on_queue("auto", 0, None)
        self.assertEqual(cm.exception.status, "PK_ERR_INVALID_ARGUMENT")

    def test_version(self):
        self.assertEqual(portkern.version(), portkern.__version__)


class HostConversions(unittest.TestCase):
    def test_bf16_matches_library(self):
        L = _lib.lib()
        vals = np.concatenate([
            support.rng(1).standard_normal(2000).astype(np.float32) * 1e3,
            np.array([0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 3.3895314e38, 1e-40,
                      1.00390625, 1.01171875], np.float32)])  # ties to even both ways
        ours = _dtypes.f32_to_bf16_bits(vals)
        theirs = np.array([L.pk_f32_to_bf16(float(v)) for v in vals], np.uint16)
        np.testing.assert_array_equal(ours, theirs)
        back = _dtypes.bf16_bits_to_f32(theirs)
        theirs_back = np.array([L.pk_bf16_to_f32(int(b)) for b in theirs], np.float32)
        np.testing.assert_array_equal(back, theirs_back)


class Tensors:
    def test_roundtrip_dtypes(self):
        host = support.rng(2).uniform(-4, 4, (3, 5)).astype(np.float32)
        for dt in ("f32", "f16", "bf16"):
            with self.subTest(dtype=dt):
                t = self.ctx.tensor(host, dtype=dt)
                self.assertEqual((t.shape, t.dtype, t.strides), ((3, 5), dt, (5, 1)))
                got = t.numpy()
                self.assertEqual(got.dtype, np.float16 if dt == "f16" else np.float32)
                np.testing.assert_array_equal(got.astype(np.float64), support.quantize(host, dt))
        bits = self.ctx.tensor(host, dtype="bf16").numpy(raw=True)
        self.assertEqual(bits.dtype, np.uint16)
        np.testing.assert_array_equal(bits, _dtypes.f32_to_bf16_bits(host))
        with self.assertRaises(portkern.Error):
            self.ctx.tensor(host.astype(np.float64))  # no silent narrowing: say dtype=

    def test_views_read_back(self):
        host = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
        t = self.ctx.tensor(host)
        np.testing.assert_array_equal(t[1].numpy(), host[1])
        np.testing.assert_array_equal(t[:, 1:3, ::2].numpy(), host[:, 1:3, ::2])
        np.testing.assert_array_equal(t.transpose(2, 0, 1).numpy(), host.transpose(2, 0, 1))
        np.testing.assert_array_equal(t.reshape(12, 5).numpy(), host.reshape(12, 5))
        np.testing.assert_array_equal(t[..., 4].numpy(), host[..., 4])
        with self.assertRaises(portkern.Error):
            t[::-1]

    def test_zeros_empty_and_sizes(self):
        z = self.ctx.zeros((4, 3), "f16")
        np.testing.assert_array_equal(z.numpy(), np.zeros((4, 3), np.float16))
        e = self.ctx.empty((0, 8))
        self.assertEqual(e.numpy().shape, (0, 8))
        with self.assertRaises(portkern.Error):
            self.ctx.empty((2, 2, 2, 2, 2))  # more than 4 dims

    def test_free_and_gc(self):
        t = self.ctx.empty((16,))
        h = t.buffer
        self.assertTrue(live(h))
        v = t[4:]
        del t
        gc.collect()
        self.assertTrue(live(h), "a view keeps its buffer")
        v.free()  # a view lets go; it frees nothing itself
        del v
        gc.collect()
        self.assertFalse(live(h), "the last reference gone: freed on garbage collection")

        t = self.ctx.empty((16,))
        h = t.buffer
        v = t[:8]
        v.free()
        self.assertTrue(live(h), "a view's free() must not free the owner's buffer")
        t.free()
        self.assertFalse(live(h))
        t.free()  # twice: nothing

    def test_handle(self):
        t = self.ctx.empty((4,))
        self.assertIsInstance(t.handle, int)
        self.assertNotEqual(t.handle, 0)
        self.assertFalse(t.is_wrapped)


support.per_backend(globals(), type("Tensors", (support.Checks, Tensors), {}))


class WithoutNumPyOrLibrary(unittest.TestCase):
    def run_python(self, code, **env):
        e = dict(os.environ, PYTHONPATH=support.PACKAGE_ROOT, **env)
        return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True,
                              timeout=120)

    def test_import_without_library(self):
        code = ("import portkern\n"
                "try:\n"
                "    portkern.devices()\n"
                "except portkern.Error as e:\n"
                "    print('ERR', e.message)\n")
        r = self.run_python(code, PORTKERN_LIBRARY="/nonexistent/libportkern.so")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ERR", r.stdout)
        self.assertIn("PORTKERN_LIBRARY", r.stdout)
        self.assertIn("/nonexistent/libportkern.so", r.stdout)

    def test_runs_without_numpy(self):
        code = ("import sys; sys.modules['numpy'] = None\n"
                "import portkern\n"
                "ctx = portkern.open('ref')\n"
                "a = ctx.zeros((4, 64)); b = ctx.zeros((64, 8))\n"
                "d = ctx.gemm(a, b); ctx.finish(); print('shape', d.shape)\n"
                "try:\n"
                "    d.numpy()\n"
                "except portkern.Error as e:\n"
                "    print('ERR', e.message)\n")
        r = self.run_python(code)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("shape (4, 8)", r.stdout)
        self.assertIn("ERR NumPy", r.stdout)


class Closing(unittest.TestCase):
    def test_close_frees_and_refuses(self):
        ctx = portkern.open("ref")
        t = ctx.tensor(np.ones(4, np.float32))
        h = t.buffer
        ev = ctx.record_event()
        ctx.close()
        self.assertFalse(live(h))
        with self.assertRaises(portkern.Error) as cm:
            ctx.empty((2,))
        self.assertEqual(cm.exception.status, "PK_ERR_INVALID_ARGUMENT")
        with self.assertRaises(portkern.Error) as cm:
            t.numpy()
        self.assertEqual(cm.exception.status, "PK_ERR_INVALID_ARGUMENT")
        self.assertIn("not a live", cm.exception.message)
        with self.assertRaises(portkern.Error):
            ev.synchronize()
        t.free()
        ev.free()


if __name__ == "__main__":
    unittest.main()
