"""PyTorch's CUDA tensors on portkern's CUDA and HIP contexts (HIP on NVIDIA
takes CUDA memory too): zero copy both ways, ops ordered on PyTorch's
stream. Skipped where PyTorch, a GPU, or a CUDA/HIP backend is missing."""
import unittest

import support
from support import np
import portkern
from portkern import _structs as S

try:
    import torch
except ImportError:  # the usual case on a machine without a GPU
    torch = None


def gpu_specs():
    return [(spec, reason) for spec, reason in support.backend_specs()
            if spec.split(":")[0] in ("cuda", "hip")]


class TorchBase(support.Checks):
    @classmethod
    def setUpClass(cls):
        if torch is None:
            raise unittest.SkipTest("PyTorch is not installed")
        if not torch.cuda.is_available():
            raise unittest.SkipTest("PyTorch sees no GPU")
        if cls.reason:
            raise unittest.SkipTest(cls.reason)
        cls.dev = torch.device("cuda", int(cls.spec.split(":")[1]))
        try:
            cls.ctx = portkern.open(cls.spec)
        except portkern.Error as e:
            raise unittest.SkipTest(f"{cls.spec} cannot be opened: {e}")

    @classmethod
    def tearDownClass(cls):
        ctx = getattr(cls, "ctx", None)
        if ctx is not None:
            ctx.close()

    def rand(self, shape, dtype, seed):
        g = torch.Generator(device="cpu").manual_seed(seed)
        return (torch.rand(shape, generator=g, dtype=torch.float64) * 2 - 1).to(dtype).to(self.dev)

    def test_import_is_zero_copy(self):
        x = self.rand((64, 32), torch.float16, 1)
        t = self.ctx.from_dlpack(x)
        self.assertEqual((t.shape, t.dtype), ((64, 32), "f16"))
        self.assertEqual(t.handle + t.offset, x.data_ptr())
        xt = x.t()  # strided
        u = self.ctx.from_dlpack(xt)
        self.assertEqual((u.shape, u.strides), ((32, 64), (1, 32)))
        np.testing.assert_array_equal(u.numpy(), xt.cpu().numpy())

    def test_gemm_in_place_on_the_current_stream(self):
        stream = torch.cuda.Stream(device=self.dev)
        with torch.cuda.device(self.dev), torch.cuda.stream(stream):
            ctx = portkern.Context.open_on_queue(self.spec.split(":")[0], self.dev.index,
                                                 torch.cuda.current_stream().cuda_stream)
            try:
                self.assertEqual(ctx.queue, stream.cuda_stream)
                for dtype, name in ((torch.float16, "f16"), (torch.bfloat16, "bf16"),
                                    (torch.float32, "f32")):
                    a = self.rand((256, 128), dtype, 2)
                    w = self.rand((96, 128), dtype, 3)
                    bias = self.rand((96,), dtype, 4)
                    d = torch.empty((256, 96), dtype=dtype, device=self.dev)
                    A, W, B, D = (ctx.from_dlpack(x) for x in (a, w, bias, d))
                    ctx.gemm(A, W, out=D, trans_b=True, bias=B, act="silu")  # queued, no wait
                    # PyTorch reads d on the same stream: ordered after the GEMM
                    got = d.double().cpu()
                    h = a.double() @ w.double().T + bias.double()
                    want = (h * torch.sigmoid(h)).cpu()
                    self.assertClose(got.numpy(), want.numpy(), name, what=f"gemm {name}")
                    for t in (A, W, B, D):
                        t.free()
                # torch tensors straight into the op: imported and released per call
                a = self.rand((64, 64), torch.float16, 5)
                d = torch.zeros((64, 64), dtype=torch.float16, device=self.dev)
                ctx.gemm(a, a, out=d)
                self.assertClose(d.double().cpu().numpy(),
                                 (a.double() @ a.double()).cpu().numpy(), "f16")
            finally:
                ctx.close()

    def test_export_to_torch(self):
        host = np.arange(24, dtype=np.float32).reshape(4, 6)
        t = self.ctx.tensor(host)
        self.assertIn(t.__dlpack_device__(), ((S.DL_CUDA, self.dev.index),
                                              (S.DL_ROCM, self.dev.index)))
        tt = torch.from_dlpack(t)
        self.assertEqual(tt.device, self.dev)
        self.assertEqual(tt.data_ptr(), t.handle + t.offset)
        np.testing.assert_array_equal(tt.cpu().numpy(), host)
        # portkern writes, PyTorch reads the same memory (after finish: the
        # context has a queue of its own, not PyTorch's stream)
        t.upload(host - 10)
        self.ctx.bias_act(t, None, out=t, act="relu")
        self.ctx.finish()
        np.testing.assert_array_equal(tt.cpu().numpy(), np.maximum(host - 10, 0))
        tv = torch.from_dlpack(t.T)
        self.assertEqual(tuple(tv.stride()), (1, 6))
        np.testing.assert_array_equal(tv.cpu().numpy(), np.maximum(host - 10, 0).T)
        with self.assertRaises(portkern.Error):
            t.free()  # PyTorch still views it
        del tt, tv

    def test_producer_work_ordered_before_ours(self):
        # PyTorch writes on a stream of its own, late; portkern's context has
        # its own queue: the stream handed to __dlpack__ orders the write first
        x = torch.zeros((256, 256), dtype=torch.float32, device=self.dev)
        torch.cuda.synchronize(self.dev)
        side = torch.cuda.Stream(device=self.dev)
        with torch.cuda.stream(side):
            if hasattr(torch.cuda, "_sleep"):
                torch.cuda._sleep(50_000_000)  # ~tens of ms of GPU time before the write
            x.fill_(3.0)
            t = self.ctx.from_dlpack(x)
        out = self.ctx.bias_act(t, None, act="relu")
        np.testing.assert_array_equal(out.numpy(), np.full((256, 256), 3.0, np.float32))
        t.free()

    def test_lengths_and_positions_on_the_device(self):
        q = self.rand((2, 8, 4, 64), torch.float32, 6)
        k = self.rand((2, 8, 2, 64), torch.float32, 7)
        lens = torch.tensor([8, 3], dtype=torch.int32, device=self.dev)
        out = torch.empty_like(q)
        self.ctx.attention(q, k, k, out=out, seqlens_kv=lens)
        out_host = self.ctx.attention(self.ctx.from_dlpack(q), self.ctx.from_dlpack(k),
                                      self.ctx.from_dlpack(k), seqlens_kv=[8, 3])
        self.assertClose(out.cpu().numpy(), out_host.numpy().astype(np.float64), "f32", tol=1e-6)
        pos = torch.arange(16, dtype=torch.int32, device=self.dev) * 3
        q2, q3 = q.clone(), q.clone()
        self.ctx.rope(q2, positions=pos)
        self.ctx.rope(q3, positions=(np.arange(16) * 3).tolist())
        self.assertTrue(torch.equal(q2, q3))

    def test_graph_replay_equals_eager(self):
        # A decode-like step recorded once (gather rows by device token ids, a
        # GEMM, RoPE at device positions), replayed after PyTorch changed the
        # ids and positions in place on the device, against the same step run
        # eagerly on a second set of tensors: the same bits.
        backend = self.spec.split(":")[0]
        stream = torch.cuda.Stream(device=self.dev)  # not the legacy default stream: capturable
        with torch.cuda.device(self.dev), torch.cuda.stream(stream):
            # portkern queues on PyTorch's stream, so PyTorch's in-place updates,
            # the replays and PyTorch's reads are ordered with no synchronisation
            ctx = portkern.Context.open_on_queue(backend, self.dev.index, stream.cuda_stream)
            try:
                V, H, T, HD = 64, 128, 3, 64
                table = self.rand((V, H), torch.float32, 20)
                w = self.rand((2 * HD, H), torch.float32, 21) * 0.1
                # RoPE recorded into a graph takes its frequencies from the device too
                # (the CUDA backend refuses theta's host-made table while capturing)
                freq = (10000.0 ** (-torch.arange(0, HD, 2, dtype=torch.float64) / HD)).float()
                freq = freq.to(self.dev)

                def tensors():
                    return {"ids": torch.tensor([1, 2, 3], dtype=torch.int32, device=self.dev),
                            "pos": torch.tensor([0, 1, 2], dtype=torch.int32, device=self.dev),
                            "x": torch.zeros((T, H), dtype=torch.float32, device=self.dev),
                            "qk": torch.zeros((T, 2 * HD), dtype=torch.float32, device=self.dev)}

                rec, eager = tensors(), tensors()
                # imported once, before recording (an op's own import would be
                # freed under the graph: refused while recording)
                shared = {n: ctx.from_dlpack(t) for n, t in (("table", table), ("w", w),
                                                             ("freq", freq))}
                REC = {n: ctx.from_dlpack(t) for n, t in rec.items()}
                EAGER = {n: ctx.from_dlpack(t) for n, t in eager.items()}

                def q_and_k(b):
                    """q and k: [1, T, 1, HD] views of the halves of qk's rows."""
                    qk = b["qk"]
                    shape, strides = (1, T, 1, HD), (T * 2 * HD, 2 * HD, HD, 1)
                    return (qk.view(shape=shape, strides=strides),
                            qk.view(shape=shape, strides=strides, offset=qk.offset + HD * 4))

                def step(b):
                    q4, k4 = q_and_k(b)
                    ctx.gather_rows(shared["table"], b["ids"], out=b["x"])
                    ctx.gemm(b["x"], shared["w"], out=b["qk"], trans_b=True)
                    ctx.rope(q4, k4, positions=b["pos"], inv_freq=shared["freq"])

                step(REC)    # once before recording: kernels loaded, scratch grown
                step(EAGER)
                with ctx.record() as graph:
                    self.assertTrue(ctx.recording)
                    step(REC)
                    with self.assertRaises(portkern.Error) as cm:  # a torch operand
                        ctx.gather_rows(shared["table"], rec["ids"], out=REC["x"])
                    self.assertEqual(cm.exception.status, "PK_ERR_INVALID_ARGUMENT")
                    with self.assertRaises(portkern.Error) as cm:
                        ctx.rope(*q_and_k(REC), positions=[4, 5, 6], inv_freq=shared["freq"])
                    self.assertEqual(cm.exception.status, "PK_ERR_UNSUPPORTED")  # host positions
                self.assertFalse(ctx.recording)
                for n, ids in enumerate(([63, 0, 7], [5, 64, 5], [-1, 12, 40])):
                    with self.subTest(replay=n):
                        for t in (rec, eager):                    # in place, on the device
                            t["ids"].copy_(torch.tensor(ids, dtype=torch.int32))
                            t["pos"].add_(1000 * n + 3)
                        graph.launch()
                        step(EAGER)
                        for name in ("x", "qk"):
                            self.assertTrue(torch.equal(rec[name].view(torch.int32),
                                                        eager[name].view(torch.int32)),
                                            f"replay {n}: {name} differs from the eager step")
                        # the replay read the new ids: table rows, zeros out of range
                        want_x = torch.stack([table[i] if 0 <= i < V else torch.zeros_like(table[0])
                                              for i in ids])
                        self.assertTrue(torch.equal(rec["x"], want_x), f"replay {n}: x")
                self.assertEqual(rec["pos"].tolist(), eager["pos"].tolist())
                graph.free()
                graph.free()  # twice: nothing
                with self.assertRaises(portkern.Error):
                    graph.launch()
            finally:
                ctx.close()

    def test_cpu_tensor_refused(self):
        with self.assertRaises(portkern.Error) as cm:
            self.ctx.from_dlpack(torch.ones(4))
        self.assertEqual(cm.exception.status, "PK_ERR_WRONG_CONTEXT")

    def test_events_with_torch(self):
        e0 = self.ctx.record_event()
        self.ctx.gemm(self.ctx.zeros((512, 512)), self.ctx.zeros((512, 512)))
        e1 = self.ctx.record_event()
        e1.synchronize()
        self.assertGreaterEqual(e0.elapsed(e1), 0.0)


for _spec, _reason in gpu_specs():
    _name = f"Torch_{_spec.replace(':', '_')}"
    globals()[_name] = type(_name, (TorchBase, unittest.TestCase),
                            {"spec": _spec, "reason": _reason})

if not gpu_specs():
    class Torch(unittest.TestCase):
        def test_needs_a_gpu_backend(self):
            self.skipTest("no CUDA or HIP backend among the test backends")

if __name__ == "__main__":
    unittest.main()
