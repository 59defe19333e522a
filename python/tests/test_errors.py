"""Every failure is a portkern.Error with the status, its value and the
library's message for that call."""
import unittest

import support
from support import np
import portkern
from portkern import _structs as S


class Errors:
    def test_shape_mismatch(self):
        a = self.ctx.tensor(np.ones((8, 32), np.float32))
        b = self.ctx.tensor(np.ones((16, 8), np.float32))
        with self.assertRaises(portkern.Error) as cm:
            self.ctx.gemm(a, b)  # K: 32 against 16
        e = cm.exception
        self.assertIsInstance(e, Exception)
        self.assertEqual(e.status, "PK_ERR_SHAPE_MISMATCH")
        self.assertEqual(e.code, S.STATUS["PK_ERR_SHAPE_MISMATCH"])
        self.assertTrue(e.message.startswith("pk_gemm:"), e.message)
        self.assertIn("'b'", e.message)
        self.assertIn("PK_ERR_SHAPE_MISMATCH", str(e))

    def test_each_call_reports_its_own_message(self):
        x = self.ctx.tensor(np.ones((2, 64), np.float32))
        w = self.ctx.tensor(np.ones((32,), np.float32))
        with self.assertRaises(portkern.Error) as first:
            self.ctx.rmsnorm(x, w)
        self.assertTrue(first.exception.message.startswith("pk_rmsnorm:"))
        with self.assertRaises(portkern.Error) as second:
            self.ctx.softmax(x, out=self.ctx.empty((2, 64), "f16"))
        self.assertEqual(second.exception.status, "PK_ERR_DTYPE_MISMATCH")
        self.assertTrue(second.exception.message.startswith("pk_softmax:"),
                        second.exception.message)

    def test_attention_head_dim(self):
        q = self.ctx.zeros((1, 4, 2, 48))
        with self.assertRaises(portkern.Error) as cm:
            self.ctx.attention(q, q, q)
        self.assertEqual(cm.exception.status, "PK_ERR_SHAPE_MISMATCH")

    def test_freed_tensor(self):
        a = self.ctx.tensor(np.ones((4, 64), np.float32))
        b = self.ctx.tensor(np.ones((64, 4), np.float32))
        view = a[1:]
        a.free()
        for call in (lambda: self.ctx.gemm(a, b), lambda: a.numpy(), lambda: view.numpy(),
                     lambda: self.ctx.gemm(view, b)):
            with self.assertRaises(portkern.Error) as cm:
                call()
            self.assertEqual(cm.exception.status, "PK_ERR_INVALID_ARGUMENT")
            self.assertIn("not a live pk_buffer", cm.exception.message)
        # the context is not hurt
        d = self.ctx.gemm(b, self.ctx.tensor(np.ones((4, 2), np.float32)))
        np.testing.assert_array_equal(d.numpy(), np.full((64, 2), 4.0, np.float32))

    def test_wrong_context(self):
        other = portkern.open("ref") if not self.spec.startswith("ref") else None
        other = other or portkern.open(self.spec)
        try:
            a = other.tensor(np.ones((4, 64), np.float32))
            b = self.ctx.tensor(np.ones((64, 4), np.float32))
            with self.assertRaises(portkern.Error) as cm:
                self.ctx.gemm(a, b)
            self.assertEqual(cm.exception.status, "PK_ERR_WRONG_CONTEXT")
        finally:
            other.close()

    def test_host_arrays_checked_before_the_call(self):
        q = self.ctx.zeros((2, 4, 2, 64))
        with self.assertRaises(portkern.Error) as cm:
            self.ctx.attention(q, q, q, seqlens_q=[4])  # B = 2 entries are read
        self.assertIsNone(cm.exception.status)
        with self.assertRaises(portkern.Error):
            self.ctx.rope(q, positions=[0, 1, 2])
        with self.assertRaises(portkern.Error):
            self.ctx.gemm(q, q, act="swish")
        with self.assertRaises(portkern.Error):
            self.ctx.empty((2,), "f64")

    def test_not_a_tensor(self):
        with self.assertRaises(portkern.Error):
            self.ctx.softmax([1.0, 2.0])

    def test_wrong_dtype_dlpack(self):
        # on every backend: float64 and int64 are refused (on a device context
        # for the device as well; either way an Error, nothing taken)
        for dt in (np.float64, np.int64):
            with self.assertRaises(portkern.Error) as cm:
                self.ctx.from_dlpack(np.zeros(4, dt))
            self.assertTrue(cm.exception.message)


support.per_backend(globals(), type("Errors", (support.Checks, Errors), {}))

if __name__ == "__main__":
    unittest.main()
