"""Graphs: refused where the backend records none (ref, OpenCL), recorded
and replayed with new device-side inputs where it does (CUDA, HIP: the
replay gives the eager step's bits). The PyTorch version is in
test_torch.py."""
import gc
import unittest

import support
from support import DLPackOnly, np
import portkern
from portkern import _lib
from portkern import _structs as S


def is_graph_backend(spec):
    return spec.split(":")[0] in ("cuda", "hip")


def live(handle):
    """Is a pk_buffer handle still live (not freed)?"""
    return _lib.lib().pk_buffer_is_wrapped(handle) >= 0


class Graphs:
    def assertStatus(self, cm, status, prefix=None):
        e = cm.exception
        self.assertEqual(e.status, status, e.message)
        self.assertTrue(e.message, "an empty message")
        if prefix:
            self.assertTrue(e.message.startswith(prefix), e.message)

    # ---------------------------------------------------------------- no graphs here

    def test_graph_begin_unsupported(self):
        if is_graph_backend(self.spec):
            self.skipTest("this backend records graphs")
        with self.assertRaises(portkern.Error) as cm:
            self.ctx.graph_begin()
        self.assertStatus(cm, "PK_ERR_UNSUPPORTED", "pk_graph_begin:")
        self.assertEqual(cm.exception.code, S.STATUS["PK_ERR_UNSUPPORTED"])
        self.assertFalse(self.ctx.recording)
        with self.assertRaises(portkern.Error) as cm:
            self.ctx.graph_end()
        self.assertStatus(cm, "PK_ERR_INVALID_ARGUMENT", "pk_graph_end:")
        ran = []
        with self.assertRaises(portkern.Error) as cm:
            with self.ctx.record():
                ran.append(1)
        self.assertStatus(cm, "PK_ERR_UNSUPPORTED", "pk_graph_begin:")
        self.assertEqual(ran, [], "the block ran although recording never began")
        self.assertFalse(self.ctx.recording)
        # the context goes on as before
        x = self.ctx.tensor(np.array([[-1.0, 2.0]], np.float32))
        np.testing.assert_array_equal(self.ctx.bias_act(x, act="relu").numpy(), [[0.0, 2.0]])

    # ---------------------------------------------------------------- the Graph object

    def test_graph_handle_not_live(self):
        # a handle of another kind (a buffer's) is no graph: portkern says so
        buf = self.ctx.zeros((4,))
        g = portkern.Graph(self.ctx, buf.buffer)
        with self.assertRaises(portkern.Error) as cm:
            g.launch()
        self.assertStatus(cm, "PK_ERR_INVALID_ARGUMENT", "pk_graph_launch:")
        with self.assertRaises(portkern.Error) as cm:
            g.free()
        self.assertStatus(cm, "PK_ERR_INVALID_ARGUMENT", "pk_graph_free:")
        self.assertTrue(g.freed)
        g.free()  # twice: nothing
        with self.assertRaises(portkern.Error) as cm:
            g.launch()
        self.assertStatus(cm, "PK_ERR_INVALID_ARGUMENT")
        self.assertIn("freed", cm.exception.message)
        self.assertTrue(live(buf.buffer), "the buffer behind the handle was freed")
        del g
        gc.collect()
        np.testing.assert_array_equal(buf.numpy(), np.zeros(4, np.float32))

    def test_frees_put_off_while_recording(self):
        # The package's bookkeeping, where the library cannot record: while
        # the context records, a garbage-collected buffer is freed at the end
        # of the recording (pk_free would be refused), not lost.
        if is_graph_backend(self.spec):
            self.skipTest("test_record_and_replay covers it with a real recording")
        ctx = portkern.open(self.spec)
        try:
            t = ctx.zeros((16,))
            h = t.buffer
            ctx._recording = {}  # as graph_begin leaves it
            del t
            gc.collect()
            self.assertTrue(live(h), "freed while recording")
            self.assertEqual(len(ctx._deferred), 1)
            ctx._end_recording()
            self.assertFalse(live(h), "not freed when the recording ended")
            self.assertEqual(ctx._deferred, [])
        finally:
            ctx.close()

    # ---------------------------------------------------------------- CUDA, HIP

    def test_record_and_replay(self):
        if not is_graph_backend(self.spec):
            self.skipTest("ref and OpenCL record no graphs")
        V, H, T, HD, S = 64, 128, 2, 64, 16
        r = support.rng(80)
        table_h = r.uniform(-1, 1, (V, H)).astype(np.float32)
        w_h = r.uniform(-0.1, 0.1, (2 * HD, H)).astype(np.float32)
        cache_h = r.uniform(-1, 1, (S, HD)).astype(np.float32)
        freq_h = (10000.0 ** (-2.0 * np.arange(HD // 2) / HD)).astype(np.float32)
        ctx = portkern.open(self.spec)  # a stream of its own (not the legacy default stream)
        try:
            def buffers():
                return {"table": ctx.tensor(table_h), "w": ctx.tensor(w_h),
                        "ids": ctx.tensor(np.zeros(T, np.int32)),
                        "pos": ctx.tensor(np.zeros(T, np.int32)),
                        "lens": ctx.tensor(np.zeros(1, np.int32)),
                        "freq": ctx.tensor(freq_h), "x": ctx.zeros((T, H)),
                        "qk": ctx.zeros((T, 2 * HD)), "cache": ctx.tensor(cache_h),
                        "o": ctx.zeros((1, T, 1, HD))}

            def views(b):
                qk = b["qk"]
                q4 = qk.view(shape=(1, T, 1, HD), strides=(T * 2 * HD, 2 * HD, HD, 1))
                k4 = qk.view(shape=(1, T, 1, HD), strides=(T * 2 * HD, 2 * HD, HD, 1),
                             offset=qk.offset + HD * 4)
                kc = b["cache"].view(shape=(1, S, 1, HD), strides=(S * HD, HD, HD, 1))
                return q4, k4, kc

            def step(b):
                # every per-step value is read from a device tensor
                q4, k4, kc = views(b)
                ctx.gather_rows(b["table"], b["ids"], out=b["x"])
                ctx.gemm(b["x"], b["w"], out=b["qk"], trans_b=True)
                ctx.rope(q4, k4, positions=b["pos"], inv_freq=b["freq"])
                ctx.scatter_rows(b["qk"][:, HD:], b["pos"], b["cache"])
                ctx.attention(q4, kc, kc, out=b["o"], causal=True, seqlens_kv=b["lens"])

            def inputs(b, n):
                b["ids"].upload(np.array([3 + n, 40 - n], np.int32))
                b["pos"].upload(np.array([5 + 2 * n, 6 + 2 * n], np.int32))
                b["lens"].upload(np.array([7 + 2 * n], np.int32))

            eager, rec = buffers(), buffers()
            for b in (eager, rec):
                # once before recording: kernels loaded, internal buffers grown
                # (on both sets, so that their caches hold the same rows)
                inputs(b, 0)
                step(b)
            ctx.finish()
            spare = ctx.zeros((8,))
            spare_h = spare.buffer
            with ctx.record() as graph:
                self.assertTrue(ctx.recording)
                step(rec)
                # refused, not recorded, and the recording goes on
                with self.assertRaises(portkern.Error) as cm:
                    rec["ids"].upload(np.array([1, 2], np.int32))
                self.assertStatus(cm, "PK_ERR_INVALID_ARGUMENT", "pk_upload:")
                with self.assertRaises(portkern.Error) as cm:
                    ctx.empty((4,))
                self.assertStatus(cm, "PK_ERR_INVALID_ARGUMENT", "pk_alloc:")
                with self.assertRaises(portkern.Error) as cm:
                    ctx.finish()
                self.assertStatus(cm, "PK_ERR_INVALID_ARGUMENT", "pk_finish:")
                with self.assertRaises(portkern.Error) as cm:
                    ctx.graph_begin()
                self.assertStatus(cm, "PK_ERR_INVALID_ARGUMENT", "pk_graph_begin:")
                q4, k4, _ = views(rec)
                with self.assertRaises(portkern.Error) as cm:
                    ctx.rope(q4, k4, positions=[1, 2], inv_freq=rec["freq"])
                self.assertStatus(cm, "PK_ERR_UNSUPPORTED", "pk_rope:")
                with self.assertRaises(portkern.Error) as cm:
                    ctx.gather_rows(rec["table"], DLPackOnly(rec["ids"]), out=rec["x"])
                self.assertStatus(cm, "PK_ERR_INVALID_ARGUMENT")
                self.assertIn("from_dlpack", cm.exception.message)
                with self.assertRaises(portkern.Error):
                    graph.launch()  # not before the block's end
                # garbage collected while recording: freed when the recording ends
                del spare
                gc.collect()
                self.assertTrue(live(spare_h))
            self.assertFalse(ctx.recording)
            self.assertFalse(live(spare_h))
            self.assertFalse(graph.freed)
            for n in (1, 2, 3):
                with self.subTest(replay=n):
                    inputs(eager, n)
                    inputs(rec, n)   # new ids, positions, length: in place, on the device
                    step(eager)
                    graph.launch()
                    for name in ("x", "qk", "cache", "o"):
                        got = rec[name].numpy().view(np.uint32)
                        want = eager[name].numpy().view(np.uint32)
                        np.testing.assert_array_equal(got, want, f"replay {n}: {name}")
            # the replays did read the new inputs: x holds table rows 6 and 37
            np.testing.assert_array_equal(rec["x"].numpy(), table_h[[6, 37]])
            graph.free()
            graph.free()  # twice: nothing
            with self.assertRaises(portkern.Error) as cm:
                graph.launch()
            self.assertStatus(cm, "PK_ERR_INVALID_ARGUMENT")

            # a graph keeps the buffers of its calls alive
            a = ctx.tensor(np.array([-1.0, 2.0, -3.0, 4.0], np.float32))
            out = ctx.zeros((4,))
            ctx.bias_act(a, None, out=out, act="relu")
            a_h = a.buffer
            ctx.graph_begin()
            ctx.bias_act(a, None, out=out, act="relu")
            g2 = ctx.graph_end()
            del a
            gc.collect()
            self.assertTrue(live(a_h), "a buffer the graph reads was freed under it")
            out.fill_zero()
            g2.launch()
            np.testing.assert_array_equal(out.numpy(), [0.0, 2.0, 0.0, 4.0])
            g2.free()
            gc.collect()
            self.assertFalse(live(a_h), "the graph's buffers were not let go with it")

            # a block that raises drops its recording
            with self.assertRaises(ZeroDivisionError):
                with ctx.record() as g3:
                    ctx.bias_act(out, None, out=out, act="relu")
                    1 / 0
            self.assertFalse(ctx.recording)
            self.assertTrue(g3.freed)

            # pk_close frees the graphs of its context
            ctx.graph_begin()
            g4 = ctx.graph_end()
        finally:
            ctx.close()
        with self.assertRaises(portkern.Error) as cm:
            g4.launch()
        self.assertStatus(cm, "PK_ERR_INVALID_ARGUMENT")
        g4.free()  # after close: nothing to free, no error


support.per_backend(globals(), type("Graphs", (support.Checks, Graphs), {}))

if __name__ == "__main__":
    unittest.main()
