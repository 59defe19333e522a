"""Events: record, synchronize, elapsed, waits across contexts."""
import unittest

import support
from support import np
import portkern


class Events:
    def test_record_synchronize_elapsed(self):
        a = self.ctx.tensor(support.rng(1).uniform(-1, 1, (64, 64)).astype(np.float32))
        e0 = self.ctx.record_event()
        d = self.ctx.gemm(a, a)
        e1 = self.ctx.record_event()
        e1.synchronize()
        ms = e0.elapsed(e1)
        self.assertIsInstance(ms, float)
        self.assertGreaterEqual(ms, 0.0)
        self.assertLess(ms, 60000.0)
        host = a.numpy().astype(np.float64)
        self.assertClose(d.numpy(), host @ host, "f32")
        e0.free()
        e0.free()  # twice: nothing
        with self.assertRaises(portkern.Error) as cm:
            e0.synchronize()
        self.assertEqual(cm.exception.status, "PK_ERR_INVALID_ARGUMENT")

    def test_wait_across_contexts(self):
        # OpenCL waits only within one cl_context: a context on the first one's
        # queue shares it. Others: any context of the backend.
        if self.spec.startswith("opencl"):
            other = portkern.Context.open_on_queue(self.spec, 0, self.ctx.queue)
        else:
            other = portkern.open(self.spec)
        try:
            src = self.ctx.tensor(np.full((8, 64), 0.5, np.float32))
            w = self.ctx.tensor(np.full((64, 8), 2.0, np.float32))
            mid = self.ctx.gemm(src, w)                  # 64 on every element
            ev = self.ctx.record_event()
            ev.wait(other)
            # the other context reads a buffer of ours through DLPack after the event
            view = other.from_dlpack(mid)
            out = other.softmax(view, scale=0.01)
            np.testing.assert_allclose(out.numpy(), np.full((8, 8), 1 / 8), rtol=1e-5)
            other.wait_event(ev)
            eo = other.record_event()
            with self.assertRaises(portkern.Error) as cm:
                ev.elapsed(eo)
            self.assertEqual(cm.exception.status, "PK_ERR_WRONG_CONTEXT")
            view.free()
        finally:
            other.close()

    def test_opencl_separate_contexts_refuse_wait(self):
        if not self.spec.startswith("opencl"):
            self.skipTest("only OpenCL ties events to a cl_context")
        other = portkern.open(self.spec)
        try:
            with self.assertRaises(portkern.Error) as cm:
                self.ctx.record_event().wait(other)
            self.assertEqual(cm.exception.status, "PK_ERR_WRONG_CONTEXT")
        finally:
            other.close()

    def test_event_of_another_backend(self):
        if self.spec.startswith("ref"):
            self.skipTest("needs a second backend")
        with portkern.open("ref") as ref:
            with self.assertRaises(portkern.Error) as cm:
                ref.record_event().wait(self.ctx)
            self.assertEqual(cm.exception.status, "PK_ERR_WRONG_CONTEXT")


support.per_backend(globals(), type("Events", (support.Checks, Events), {}))

if __name__ == "__main__":
    unittest.main()
