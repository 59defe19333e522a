"""Every op on every backend against NumPy in float64 (never against
portkern's own output)."""
import math
import unittest

import support
from support import np, quantize
import portkern

_erf = np.vectorize(math.erf) if np is not None else None


def act_ref(x, act):
    if act in (None, "none"):
        return x
    if act == "relu":
        return np.maximum(x, 0.0)
    if act == "silu":
        return x / (1.0 + np.exp(-x))
    if act == "gelu":
        return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))
    if act == "gelu_tanh":
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    raise ValueError(act)


def attention_ref(q, k, v, scale, causal=False, wl=-1, wr=-1, lq=None, lkv=None):
    """q [B,Sq,Hq,D], k/v [B,Skv,Hkv,D] in float64; bottom-right masks."""
    B, Sq, Hq, D = q.shape
    Skv, Hkv = k.shape[1], k.shape[2]
    out = np.zeros((B, Sq, Hq, D))
    lse = np.full((B, Hq, Sq), -np.inf)
    if causal:
        wr = 0
    for b in range(B):
        Lq = Sq if lq is None else lq[b]
        Lk = Skv if lkv is None else lkv[b]
        for h in range(Hq):
            kh = h // (Hq // Hkv)
            for i in range(Lq):
                p = i + Lk - Lq
                js = [j for j in range(Lk)
                      if (wr < 0 or j <= p + wr) and (wl < 0 or j >= p - wl)]
                if not js:
                    continue
                s = scale * (k[b, js, kh, :] @ q[b, i, h, :])
                m = s.max()
                e = np.exp(s - m)
                out[b, i, h] = (e / e.sum()) @ v[b, js, kh, :]
                lse[b, h, i] = m + math.log(e.sum())
    return out, lse


def _from_bits(bits, dtype):
    """float64 values of stored bits."""
    from portkern import _dtypes
    if dtype == "f32":
        return bits.view(np.float32).astype(np.float64)
    if dtype == "f16":
        return bits.view(np.float16).astype(np.float64)
    return _dtypes.bf16_bits_to_f32(bits).astype(np.float64)


def rope_ref(x, theta, rotary_dim, interleaved, positions):
    """x [B,S,H,D] float64, positions [B,S]."""
    out = x.copy()
    half = rotary_dim // 2
    inv = theta ** (-2.0 * np.arange(half) / rotary_dim)
    ang = positions[:, :, None, None] * inv  # [B,S,1,half]
    c, s = np.cos(ang), np.sin(ang)
    if interleaved:
        x1, x2 = x[..., 0:rotary_dim:2], x[..., 1:rotary_dim:2]
        out[..., 0:rotary_dim:2] = x1 * c - x2 * s
        out[..., 1:rotary_dim:2] = x2 * c + x1 * s
    else:
        x1, x2 = x[..., :half], x[..., half:rotary_dim]
        out[..., :half] = x1 * c - x2 * s
        out[..., half:rotary_dim] = x2 * c + x1 * s
    return out


# The unsigned integer type holding each dtype's bits.
BITS = {"f32": np.uint32, "f16": np.uint16, "bf16": np.uint16} if np is not None else {}


def gather_ref(table_bits, index):
    """out[i] = table[index[i]], zeros outside [0, rows): exact, on the bits."""
    out = np.zeros((len(index), table_bits.shape[1]), table_bits.dtype)
    for i, j in enumerate(index):
        if 0 <= j < table_bits.shape[0]:
            out[i] = table_bits[j]
    return out


def scatter_ref(out_bits, src_bits, index):
    """out[index[i]] = src[i] in order of i (so the last repeat wins), skipped
    outside [0, rows): exact, on the bits."""
    out = out_bits.copy()
    for i, j in enumerate(index):
        if 0 <= j < out.shape[0]:
            out[j] = src_bits[i]
    return out


DLPackOnly = support.DLPackOnly


class OpsBase(support.Checks):
    def data(self, seed, shape, dtype, lo=-1.0, hi=1.0):
        """(device tensor, the float64 values it holds)."""
        host = quantize(support.rng(seed).uniform(lo, hi, shape), dtype)
        return self.ctx.tensor(host, dtype=dtype), host

    # ---------------------------------------------------------------- gemm

    def check_gemm(self, dtype, M, N, K, trans_a=False, trans_b=False, **kw):
        a, ha = self.data(1, (K, M) if trans_a else (M, K), dtype)
        b, hb = self.data(2, (N, K) if trans_b else (K, N), dtype)
        d = self.ctx.gemm(a, b, trans_a=trans_a, trans_b=trans_b, **kw)
        want = (ha.T if trans_a else ha) @ (hb.T if trans_b else hb)
        self.assertEqual(d.shape, (M, N))
        self.assertEqual(d.dtype, dtype)
        self.assertClose(d.numpy(), want, dtype, what=f"gemm {dtype} ta={trans_a} tb={trans_b}")

    def test_gemm_f32_transposes(self):
        for ta in (False, True):
            for tb in (False, True):
                with self.subTest(trans_a=ta, trans_b=tb):
                    self.check_gemm("f32", 33, 17, 64, ta, tb)

    def test_gemm_f16_and_bf16(self):
        for dt in ("f16", "bf16"):
            with self.subTest(dtype=dt):
                self.check_gemm(dt, 32, 24, 64, False, True)

    def test_gemm_bias_act_residual_alpha_beta(self):
        M, N, K = 20, 12, 64
        a, ha = self.data(3, (M, K), "f32")
        b, hb = self.data(4, (N, K), "f32")
        c, hc = self.data(5, (M, N), "f32")
        bias, hbias = self.data(6, (N,), "f32")
        res, hres = self.data(7, (M, N), "f32")
        for act in ("relu", "silu", "gelu", "gelu_tanh"):
            with self.subTest(act=act):
                d = self.ctx.gemm(a, b, c, trans_b=True, alpha=0.5, beta=-2.0, act=act,
                                  bias=bias, residual=res)
                want = act_ref(0.5 * ha @ hb.T - 2.0 * hc + hbias, act) + hres
                self.assertClose(d.numpy(), want, "f32", what=f"gemm epilogue {act}")

    def test_gemm_into_c_in_place_and_out(self):
        M, N, K = 8, 16, 64
        a, ha = self.data(8, (M, K), "f32")
        b, hb = self.data(9, (K, N), "f32")
        c, hc = self.data(10, (M, N), "f32")
        r = self.ctx.gemm(a, b, c, out=c)  # beta defaults to 1 with c: D = AB + C, in place
        self.assertIs(r, c)
        self.assertClose(c.numpy(), ha @ hb + hc, "f32", what="gemm in place")

    def test_gemm_batched_broadcast(self):
        a, ha = self.data(11, (3, 10, 64), "f32")
        b, hb = self.data(12, (64, 6), "f32")
        d = self.ctx.gemm(a, b)
        self.assertEqual(d.shape, (3, 10, 6))
        self.assertClose(d.numpy(), ha @ hb, "f32", what="batched gemm")

    def test_gemm_strided_views(self):
        # a column slice of a wider matrix, and a transposed view: no copies
        wide, hw = self.data(13, (16, 96), "f32")
        a = wide[:, 8:72]                 # [16, 64], row stride 96
        b, hb = self.data(14, (64, 12), "f32")
        bt = b.T                          # [12, 64] view with strides (1, 12)
        d = self.ctx.gemm(a, bt, trans_b=True)
        self.assertEqual(a.strides, (96, 1))
        self.assertClose(d.numpy(), hw[:, 8:72] @ hb, "f32", what="gemm on views")

    # ---------------------------------------------------------------- attention

    def check_attention(self, dtype, B, Sq, Skv, Hq, Hkv, D, **kw):
        q, hq = self.data(20, (B, Sq, Hq, D), dtype)
        k, hk = self.data(21, (B, Skv, Hkv, D), dtype)
        v, hv = self.data(22, (B, Skv, Hkv, D), dtype)
        out, lse = self.ctx.attention(q, k, v, lse=True, **kw)
        want, want_lse = attention_ref(
            hq, hk, hv, kw.get("scale") or 1.0 / math.sqrt(D), kw.get("causal", False),
            kw.get("window_left", -1), kw.get("window_right", -1), kw.get("seqlens_q"),
            kw.get("seqlens_kv"))
        self.assertClose(out.numpy(), want, dtype, what=f"attention {dtype} {kw}")
        got_lse = lse.numpy()
        finite = np.isfinite(want_lse)
        self.assertTrue(np.array_equal(np.isfinite(got_lse), finite), "lse: -inf rows differ")
        self.assertClose(got_lse[finite], want_lse[finite], "f32", tol=1e-4,
                         what=f"attention lse {kw}")

    def test_attention_plain_and_causal(self):
        for causal in (False, True):
            with self.subTest(causal=causal):
                self.check_attention("f32", 2, 7, 12, 2, 2, 64, causal=causal)

    def test_attention_gqa_f16(self):
        self.check_attention("f16", 1, 9, 9, 4, 2, 64, causal=True)

    def test_attention_mqa_window_lengths_scale(self):
        self.check_attention("f32", 2, 6, 10, 4, 1, 64, window_left=3, scale=0.1,
                             seqlens_q=[6, 3], seqlens_kv=[10, 5])

    def test_attention_lengths_on_the_device(self):
        lq, lkv = [6, 3], [10, 5]
        dev_q = self.ctx.tensor(np.array(lq, np.int32))
        dev_kv = self.ctx.tensor(np.array(lkv, np.int32))
        self.assertEqual(dev_q.dtype, "i32")
        q, hq = self.data(23, (2, 6, 4, 64), "f32")
        k, hk = self.data(24, (2, 10, 2, 64), "f32")
        v, hv = self.data(25, (2, 10, 2, 64), "f32")
        out = self.ctx.attention(q, k, v, causal=True, seqlens_q=dev_q, seqlens_kv=dev_kv)
        want, _ = attention_ref(hq, hk, hv, 1 / 8, True, lq=lq, lkv=lkv)
        self.assertClose(out.numpy(), want, "f32", what="attention, lengths on the device")

    # ---------------------------------------------------------------- row ops

    def test_rmsnorm_with_residual(self):
        for dt in ("f32", "f16"):
            with self.subTest(dtype=dt):
                x, hx = self.data(30, (5, 96), dt)
                w, hw = self.data(31, (96,), dt, 0.5, 1.5)
                r, hr = self.data(32, (5, 96), dt)
                out, new_res = self.ctx.rmsnorm(x, w, eps=1e-5, residual=r, residual_out=True)
                h = hx + hr
                want = h / np.sqrt(np.mean(h * h, axis=-1, keepdims=True) + 1e-5) * hw
                self.assertClose(out.numpy(), want, dt, what="rmsnorm")
                self.assertClose(new_res.numpy(), h, dt, what="rmsnorm residual_out")

    def test_layernorm(self):
        x, hx = self.data(33, (4, 64), "f32", -2, 3)
        w, hw = self.data(34, (64,), "f32")
        b, hb = self.data(35, (64,), "f32")
        out = self.ctx.layernorm(x, w, b, eps=1e-5)
        mu = hx.mean(-1, keepdims=True)
        var = ((hx - mu) ** 2).mean(-1, keepdims=True)
        self.assertClose(out.numpy(), (hx - mu) / np.sqrt(var + 1e-5) * hw + hb, "f32",
                         what="layernorm")

    def test_softmax(self):
        for dt in ("f32", "bf16"):
            with self.subTest(dtype=dt):
                x, hx = self.data(36, (3, 4, 50), dt, -4, 4)
                out = self.ctx.softmax(x, scale=0.7)
                s = 0.7 * hx
                e = np.exp(s - s.max(-1, keepdims=True))
                self.assertClose(out.numpy(), e / e.sum(-1, keepdims=True), dt, what="softmax")

    def test_glu_on_halves_of_one_tensor(self):
        for act in ("silu", "gelu", "gelu_tanh"):
            with self.subTest(act=act):
                gu, hgu = self.data(37, (6, 2 * 40), "f32", -3, 3)
                gate, up = gu[:, :40], gu[:, 40:]  # two views of one buffer
                out = self.ctx.glu(gate, up, act=act)
                self.assertClose(out.numpy(), act_ref(hgu[:, :40], act) * hgu[:, 40:], "f32",
                                 what=f"glu {act}")

    def test_bias_act_in_place(self):
        x, hx = self.data(38, (7, 24), "f32", -2, 2)
        b, hb = self.data(39, (24,), "f32")
        r = self.ctx.bias_act(x, b, out=x, act="gelu")
        self.assertIs(r, x)
        self.assertClose(x.numpy(), act_ref(hx + hb, "gelu"), "f32", what="bias_act")

    def test_rope_neox_and_interleaved(self):
        B, S, Hq, Hk, D = 2, 5, 4, 2, 64
        for inter in (False, True):
            for rd in (64, 32):
                with self.subTest(interleaved=inter, rotary_dim=rd):
                    q, hq = self.data(40, (B, S, Hq, D), "f32")
                    k, hk = self.data(41, (B, S, Hk, D), "f32")
                    pos = np.array([[3, 4, 5, 6, 7], [0, 1, 2, 9, 11]])
                    self.ctx.rope(q, k, theta=10000.0, rotary_dim=rd, interleaved=inter,
                                  positions=pos.reshape(-1))
                    self.assertClose(q.numpy(), rope_ref(hq, 10000.0, rd, inter, pos), "f32",
                                     tol=2e-5, what="rope q")
                    self.assertClose(k.numpy(), rope_ref(hk, 10000.0, rd, inter, pos), "f32",
                                     tol=2e-5, what="rope k")

    def test_rope_positions_on_the_device(self):
        B, S, H, D = 2, 3, 2, 64
        q, hq = self.data(45, (B, S, H, D), "f32")
        pos = np.array([[5, 1, 7], [2, 0, 9]])
        self.ctx.rope(q, theta=500000.0, positions=self.ctx.tensor(pos.reshape(-1).astype(np.int32)))
        self.assertClose(q.numpy(), rope_ref(hq, 500000.0, D, False, pos), "f32", tol=2e-5,
                         what="rope, positions on the device")

    def test_rope_inv_freq_table(self):
        B, S, H, D = 1, 4, 2, 64
        q, hq = self.data(42, (B, S, H, D), "f32")
        freqs = (0.5 * 10000.0 ** (-2.0 * np.arange(D // 2) / D)).astype(np.float32)
        self.ctx.rope(q, inv_freq=self.ctx.tensor(freqs))
        pos = np.tile(np.arange(S), (B, 1))
        ang = pos[:, :, None, None] * freqs.astype(np.float64)
        half = D // 2
        want = hq.copy()
        want[..., :half] = hq[..., :half] * np.cos(ang) - hq[..., half:] * np.sin(ang)
        want[..., half:] = hq[..., half:] * np.cos(ang) + hq[..., :half] * np.sin(ang)
        self.assertClose(q.numpy(), want, "f32", tol=2e-5, what="rope inv_freq")

    def test_chain_broadcast(self):
        a, ha = self.data(43, (4, 32), "f32", -2, 2)
        b, hb = self.data(44, (32,), "f32")
        out = self.ctx.chain([a, b], [("silu", 0), ("mul", 2, 1), ("add_imm", 3, 2.0)])
        self.assertEqual(out.shape, (4, 32))
        self.assertClose(out.numpy(), act_ref(ha, "silu") * hb + 2.0, "f32", what="chain")

    # ---------------------------------------------------------------- rows by index

    def bits_tensor(self, seed, shape, dtype):
        """(device tensor of random bit patterns, its bits as unsigned ints):
        NaNs with payloads, infinities, subnormals and -0 included, so that
        any conversion on the way shows."""
        u = BITS[dtype]
        bits = support.rng(seed).integers(0, np.iinfo(u).max, size=shape, dtype=u, endpoint=True)
        if dtype == "bf16":
            host = bits                           # uint16 with dtype='bf16': taken as bits
        else:
            host = bits.view(np.float32 if dtype == "f32" else np.float16)
        return self.ctx.tensor(host, dtype=dtype), bits

    def bits_of(self, t):
        a = np.ascontiguousarray(t.numpy(raw=True))
        return a.view(BITS[t.dtype])

    def index(self, values):
        return self.ctx.tensor(np.asarray(values, np.int32))

    # indices outside [0, rows) of every kind, and repeats
    ODD_INDICES = [-1, -2 ** 31, 2 ** 31 - 1]

    def random_index(self, seed, n, rows):
        idx = support.rng(seed).integers(-4, rows + 4, size=n).astype(np.int64)
        idx[:3] = self.ODD_INDICES
        idx[3], idx[4] = rows, rows + 1
        idx[5:9] = [2, 7, 2, 2]                   # repeats
        idx[-1] = 7
        return idx

    def test_gather_rows_bit_for_bit(self):
        rows, cols, n = 37, 150, 64
        for dt in ("f32", "f16", "bf16"):
            with self.subTest(dtype=dt):
                table, tb = self.bits_tensor(50, (rows, cols), dt)
                idx = self.random_index(51, n, rows)
                want = gather_ref(tb, idx)
                out = self.ctx.gather_rows(table, self.index(idx))
                self.assertEqual((out.shape, out.dtype), ((n, cols), dt))
                np.testing.assert_array_equal(self.bits_of(out), want)
                # into a given out full of other bits: every row written, zeros too
                given, _ = self.bits_tensor(52, (n, cols), dt)
                r = self.ctx.gather_rows(table, self.index(idx), out=given)
                self.assertIs(r, given)
                np.testing.assert_array_equal(self.bits_of(given), want)
                np.testing.assert_array_equal(self.bits_of(table), tb)  # the table is untouched

    def test_scatter_rows_bit_for_bit(self):
        rows, cols, n = 37, 150, 64
        for dt in ("f32", "f16", "bf16"):
            with self.subTest(dtype=dt):
                src, sb = self.bits_tensor(53, (n, cols), dt)
                out, ob = self.bits_tensor(54, (rows, cols), dt)
                idx = self.random_index(55, n, rows)
                r = self.ctx.scatter_rows(src, self.index(idx), out)
                self.assertIs(r, out)
                want = scatter_ref(ob, sb, idx)
                # rows 2 and 7 came from their last entries; rows never indexed kept
                np.testing.assert_array_equal(want[2], sb[8])
                np.testing.assert_array_equal(want[7], sb[n - 1])
                np.testing.assert_array_equal(self.bits_of(out), want)

    def test_scatter_rows_repeats_same_on_every_run(self):
        rows, cols, n = 5, 40, 300
        src, sb = self.bits_tensor(56, (n, cols), "f32")
        idx = support.rng(57).integers(0, rows, size=n)
        out, ob = self.bits_tensor(58, (rows, cols), "f32")
        want = scatter_ref(ob, sb, idx)
        index = self.index(idx)
        for run in range(3):
            with self.subTest(run=run):
                self.ctx.scatter_rows(src, index, out)
                np.testing.assert_array_equal(self.bits_of(out), want)

    def test_rows_strided_operands(self):
        rows, cols, n = 23, 70, 19
        for dt in ("f32", "f16"):
            with self.subTest(dtype=dt):
                base, bb = self.bits_tensor(60, (cols, rows), dt)
                table, tb = base.T, bb.T                      # [rows, cols], strides (1, rows)
                self.assertEqual(table.strides, (1, rows))
                idx = self.random_index(61, n, rows)
                want = gather_ref(tb, idx)
                np.testing.assert_array_equal(
                    self.bits_of(self.ctx.gather_rows(table, self.index(idx))), want)
                # into a transposed out, and into a column slice of a wider tensor
                out_base = self.ctx.zeros((cols, n), dt)
                self.ctx.gather_rows(table, self.index(idx), out=out_base.T)
                np.testing.assert_array_equal(self.bits_of(out_base).T, want)
                wide, wb = self.bits_tensor(62, (n, cols + 9), dt)
                self.ctx.gather_rows(table, self.index(idx), out=wide[:, 4:4 + cols])
                wb2 = wb.copy()
                wb2[:, 4:4 + cols] = want
                np.testing.assert_array_equal(self.bits_of(wide), wb2)
                # scatter: a transposed src into a column slice of a wider out
                src_base, sbb = self.bits_tensor(63, (cols, n), dt)
                dst, db = self.bits_tensor(64, (rows, cols + 3), dt)
                self.ctx.scatter_rows(src_base.T, self.index(idx), dst[:, 3:])
                want_dst = db.copy()
                want_dst[:, 3:] = scatter_ref(db[:, 3:], sbb.T, idx)
                np.testing.assert_array_equal(self.bits_of(dst), want_dst)

    def test_rows_index_forms(self):
        table, tb = self.bits_tensor(65, (10, 8), "f32")
        idx = np.array([[9, 0, 3, 12], [-1, 3, 5, 5]], np.int32)
        want = gather_ref(tb, idx.reshape(-1))
        # a 2-D i32 tensor of n contiguous elements
        out = self.ctx.gather_rows(table, self.ctx.tensor(idx))
        self.assertEqual(out.shape, (8, 8))
        np.testing.assert_array_equal(self.bits_of(out), want)
        # an int32 array known only through DLPack, on the context's device
        foreign = DLPackOnly(self.ctx.tensor(idx.reshape(-1)))
        np.testing.assert_array_equal(self.bits_of(self.ctx.gather_rows(table, foreign)), want)
        # a NumPy array: host memory, taken in place where the context computes
        # on it (ref), refused elsewhere, as every op's host operand
        host = idx.reshape(-1).copy()
        if self.spec.startswith("ref"):
            np.testing.assert_array_equal(self.bits_of(self.ctx.gather_rows(table, host)), want)
            dst = self.ctx.zeros((10, 8))
            self.ctx.scatter_rows(self.ctx.gather_rows(table, host), host, dst)
            np.testing.assert_array_equal(self.bits_of(dst),
                                          scatter_ref(np.zeros_like(tb), want, host))
        else:
            with self.assertRaises(portkern.Error) as cm:
                self.ctx.gather_rows(table, host)
            self.assertEqual(cm.exception.status, "PK_ERR_WRONG_CONTEXT")
        # no indices: no rows
        empty = self.ctx.gather_rows(table, self.ctx.tensor(np.zeros(0, np.int32)))
        self.assertEqual(empty.shape, (0, 8))

    def test_rows_refusals(self):
        table = self.ctx.zeros((10, 8))
        idx = self.index([1, 2, 3])
        cases = [
            ("an f32 index", lambda: self.ctx.gather_rows(table, self.ctx.zeros((3,))),
             "PK_ERR_DTYPE_MISMATCH", "pk_gather_rows:"),
            ("an index of 3 for 4 rows",
             lambda: self.ctx.scatter_rows(self.ctx.zeros((4, 8)), idx, table),
             "PK_ERR_SHAPE_MISMATCH", "pk_scatter_rows:"),
            ("a strided index", lambda: self.ctx.gather_rows(table, self.index(range(6))[::2]),
             "PK_ERR_INVALID_ARGUMENT", "pk_gather_rows:"),
            ("another dtype's out",
             lambda: self.ctx.gather_rows(table, idx, out=self.ctx.zeros((3, 8), "f16")),
             "PK_ERR_DTYPE_MISMATCH", "pk_gather_rows:"),
            ("other columns", lambda: self.ctx.gather_rows(table, idx, out=self.ctx.zeros((3, 9))),
             "PK_ERR_SHAPE_MISMATCH", "pk_gather_rows:"),
            ("a 3-D table", lambda: self.ctx.gather_rows(self.ctx.zeros((2, 10, 8)), idx,
                                                         out=self.ctx.zeros((3, 8))),
             "PK_ERR_SHAPE_MISMATCH", "pk_gather_rows:"),
            ("an int64 NumPy index", lambda: self.ctx.gather_rows(table, np.arange(3)),
             None, ""),
        ]
        for what, call, status, prefix in cases:
            with self.subTest(what):
                with self.assertRaises(portkern.Error) as cm:
                    call()
                if status:
                    self.assertEqual(cm.exception.status, status, cm.exception.message)
                    self.assertTrue(cm.exception.message.startswith(prefix), cm.exception.message)
        with self.assertRaises(portkern.Error):
            self.ctx.gather_rows(self.ctx.zeros((2, 10, 8)), idx)  # no out to size from a 3-D table

    # ---------------------------------------------------------------- device-side arguments

    def test_rope_device_positions_equal_host_bitwise(self):
        B, S, Hq, Hk, D = 2, 5, 4, 2, 64
        small = np.array([[3, 4, 5, 6, 7], [0, 1, 2, 41, 60]], np.int32).reshape(-1)
        large = np.array([[0, 1, 70000, 123456, 2 ** 24 + 1], [5, 5, 5, 9000, 3]],
                         np.int32).reshape(-1)
        for dt, inter, rd, pos in (("f32", False, 64, small), ("f32", True, 32, large),
                                   ("f16", False, 48, small), ("bf16", True, 64, large)):
            with self.subTest(dtype=dt, interleaved=inter, rotary_dim=rd, positions=pos.max()):
                _, hq = self.data(70, (B, S, Hq, D), dt)
                _, hk = self.data(71, (B, S, Hk, D), dt)
                results = []
                for form in ("host list", "numpy", "i32 tensor", "dlpack"):
                    q, k = self.ctx.tensor(hq, dtype=dt), self.ctx.tensor(hk, dtype=dt)
                    given = {"host list": pos.tolist(), "numpy": pos,
                             "i32 tensor": self.ctx.tensor(pos),
                             "dlpack": DLPackOnly(self.ctx.tensor(pos))}[form]
                    self.ctx.rope(q, k, theta=10000.0, rotary_dim=rd, interleaved=inter,
                                  positions=given)
                    results.append((form, self.bits_of(q), self.bits_of(k)))
                for form, bq, bk in results[1:]:
                    np.testing.assert_array_equal(bq, results[0][1], f"q, positions as {form}")
                    np.testing.assert_array_equal(bk, results[0][2], f"k, positions as {form}")
                if pos is small:
                    # and they are RoPE at those positions (not, say, at s); large
                    # positions lose angle bits in f32, so only bits are compared
                    self.assertClose(_from_bits(results[2][1], dt),
                                     rope_ref(hq, 10000.0, rd, inter, pos.reshape(B, S)), dt,
                                     tol=2e-5 if dt == "f32" else None,
                                     what="rope, device positions")

    def test_attention_device_lengths_equal_host_bitwise(self):
        B, Sq, Skv, Hq, Hkv, D = 3, 6, 10, 4, 2, 64
        lq, lkv = [6, 3, 0], [10, 5, 7]
        for dt in ("f32", "f16"):
            with self.subTest(dtype=dt):
                q, hq = self.data(72, (B, Sq, Hq, D), dt)
                k, hk = self.data(73, (B, Skv, Hkv, D), dt)
                v, hv = self.data(74, (B, Skv, Hkv, D), dt)
                results = {}
                forms = {
                    "host": (lq, lkv),
                    "numpy": (np.array(lq, np.int32), np.array(lkv, np.int32)),
                    "i32 tensor": (self.index(lq), self.index(lkv)),
                    "dlpack": (DLPackOnly(self.index(lq)), DLPackOnly(self.index(lkv))),
                    "mixed": (self.index(lq), lkv),
                }
                for form, (gq, gkv) in forms.items():
                    out, lse = self.ctx.attention(q, k, v, causal=True, seqlens_q=gq,
                                                  seqlens_kv=gkv, lse=True)
                    results[form] = (self.bits_of(out), self.bits_of(lse))
                for form, (bo, bl) in results.items():
                    np.testing.assert_array_equal(bo, results["host"][0], f"out, lengths as {form}")
                    np.testing.assert_array_equal(bl, results["host"][1], f"lse, lengths as {form}")
                want, _ = attention_ref(hq, hk, hv, 1 / 8, True, lq=lq, lkv=lkv)
                self.assertClose(_from_bits(results["i32 tensor"][0], dt), want, dt,
                                 what="attention, device lengths")

    def test_attention_device_lengths_clamped(self):
        # device lengths are not checked; the kernels clamp each to [0, S]
        B, Sq, Skv, H, D = 2, 4, 8, 2, 64
        q, _ = self.data(75, (B, Sq, H, D), "f32")
        k, _ = self.data(76, (B, Skv, H, D), "f32")
        dev = self.ctx.attention(q, k, k, seqlens_q=self.index([Sq + 5, -3]),
                                 seqlens_kv=self.index([-1, 2 ** 31 - 1]))
        host = self.ctx.attention(q, k, k, seqlens_q=[Sq, 0], seqlens_kv=[0, Skv])
        np.testing.assert_array_equal(self.bits_of(dev), self.bits_of(host))


support.per_backend(globals(), OpsBase)

if __name__ == "__main__":
    unittest.main()
