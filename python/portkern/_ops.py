"""The ops, as Context methods: each maps its arguments onto the C
descriptor structs and calls pk_<op> once.

Operands are portkern Tensors, or any __dlpack__ object on the context's
device (a PyTorch tensor on a CUDA context, ...). Those are imported for
the one call (zero copy) and released before the method returns; releasing
an imported buffer waits for the context's queue (pk_free finishes before
the producer may reuse its memory), so a call given foreign operands has
finished when it returns. Import them once with Context.from_dlpack() to
keep calls asynchronous.

Outputs: pass `out` (written in place, and returned as given) or let the
method allocate a portkern Tensor (returned). Work is queued; results are
read with Tensor.numpy() (which waits) or after Context.finish().

While the context records a graph (Context.graph_begin), operands must be
portkern Tensors (an import for one call would be freed under the graph)
and outputs given (allocating is refused); the buffers of the Tensors a
recorded call is given are kept alive by the Graph.
"""
import ctypes

from ._errors import Error
from ._lib import check, lib
from . import _dlpack
from . import _dtypes
from . import _structs as S
from ._tensor import Tensor


class _Operands:
    """Turns operands into Tensors of the context; frees the ones it
    imported when the call is over (also when it failed)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.temps = {}

    def __call__(self, x, what):
        if x is None:
            return None
        if isinstance(x, Tensor):
            self.ctx._keep_for_graph(x._buf)
            return x
        if hasattr(x, "__dlpack__") or _dlpack.is_capsule(x):
            if self.ctx.recording:
                raise Error(f"'{what}': while the context records a graph, operands are portkern "
                            f"Tensors: import {type(x).__name__} with Context.from_dlpack() before "
                            f"graph_begin (an import for one call is freed when the call returns, "
                            f"which a recording refuses)", "PK_ERR_INVALID_ARGUMENT",
                            S.STATUS["PK_ERR_INVALID_ARGUMENT"])
            # one import per object: an object passed twice (in place) must be
            # one buffer, or portkern cannot see the aliasing
            t = self.temps.get(id(x))
            if t is None:
                t = self.temps[id(x)] = (self.ctx.from_dlpack(x), x)
            return t[0]
        raise Error(f"'{what}': expected a portkern Tensor or an object with __dlpack__, not "
                    f"{type(x).__name__} (Context.tensor() copies a host array)")

    def __enter__(self):
        return self

    def __exit__(self, etype, evalue, tb):
        first = None
        for t, _ in self.temps.values():
            try:
                t.free()
            except Error as e:
                first = first or e
        self.temps.clear()
        if first is not None and etype is None:
            raise first
        return False


def _act(act):
    key = act.lower() if isinstance(act, str) else act
    try:
        return S.ACTIVATIONS[key]
    except (KeyError, TypeError):
        raise Error(f"activation {act!r} is not one of none, relu, gelu, gelu_tanh, silu") from None


def _ptr(t):
    """POINTER(TensorDesc) to t's descriptor, or NULL."""
    return ctypes.pointer(t.desc()) if t is not None else None


def _host_int32(values, count, what):
    """A host int32 array of exactly `count` entries: portkern reads that
    many, so a shorter one would be read past its end."""
    if values is None:
        return None
    if not hasattr(values, "tolist") and hasattr(values, "__dlpack__"):
        values = _dtypes.numpy().from_dlpack(values)  # host memory known only through DLPack
    vals = [int(v) for v in (values.tolist() if hasattr(values, "tolist") else values)]
    if len(vals) != count:
        raise Error(f"'{what}' has {len(vals)} entries; it needs {count}")
    return (ctypes.c_int32 * max(count, 1))(*vals)


def _run(ctx, fn, *args):
    check(fn, getattr(lib(), fn)(ctx._handle(), *args), ctx._live_handle)


def gemm(ctx, a, b, c=None, out=None, *, trans_a=False, trans_b=False, alpha=1.0, beta=None,
         act=None, bias=None, residual=None, allow_tf32=False, dtype=None):
    """out = act(alpha * op(a) @ op(b) + beta * c + bias) + residual.

    a is [M, K] ([K, M] with trans_a), b is [K, N] ([N, K] with trans_b),
    c and out [M, N]; each may have a leading batch dim. beta defaults to 1
    when c is given, else 0. act: None, 'relu', 'gelu', 'gelu_tanh',
    'silu'. bias is [N], residual shaped like out. c may be out itself. An
    allocated out has c's dtype, else `dtype`, else a's."""
    with _Operands(ctx) as ops:
        A, B, C = ops(a, "a"), ops(b, "b"), ops(c, "c")
        BIAS, RES = ops(bias, "bias"), ops(residual, "residual")
        D = ops(out, "out")
        if beta is None:
            beta = 1.0 if C is not None else 0.0
        if D is None:
            if A.ndim < 2 or B.ndim < 2:
                raise Error(f"gemm: a and b are 2-D or 3-D (a {list(A.shape)}, b {list(B.shape)})")
            m = A.shape[-1] if trans_a else A.shape[-2]
            n = B.shape[-2] if trans_b else B.shape[-1]
            batch = max(A.shape[0] if A.ndim == 3 else 1, B.shape[0] if B.ndim == 3 else 1)
            shape = (batch, m, n) if 3 in (A.ndim, B.ndim) else (m, n)
            D = ctx.empty(shape, C.dtype if C is not None else (dtype or A.dtype))
        desc = S.GemmDesc(int(bool(trans_a)), int(bool(trans_b)), float(alpha), float(beta),
                          _act(act), int(bool(allow_tf32)), _ptr(BIAS), _ptr(RES))
        _run(ctx, "pk_gemm", ctypes.byref(desc), _ptr(A), _ptr(B), _ptr(C), _ptr(D))
    return out if out is not None else D


def _lengths(ops, values, count, what):
    """Lengths / positions given on the host (ints, a NumPy array: copied
    during the call and checked) or on the device (an i32 portkern Tensor:
    read when the op runs, so the call neither copies nor waits and can be
    captured in a CUDA graph; a device array with __dlpack__ works too, but
    as every foreign operand it is imported for the call, which then waits).
    Host memory is always taken as host data, also on ref, so that its
    values are checked. Returns (host array, device tensor)."""
    if values is None:
        return None, None
    if isinstance(values, Tensor) or (
            hasattr(values, "__dlpack_device__")
            and values.__dlpack_device__()[0] not in _HOST_DEVICES):
        return None, ops(values, what)
    return _host_int32(values, count, what), None


_HOST_DEVICES = (S.DL_CPU, S.DL_CUDA_HOST, S.DL_ROCM_HOST)


def attention(ctx, q, k, v, out=None, *, scale=0.0, causal=False, window_left=-1,
              window_right=-1, seqlens_q=None, seqlens_kv=None, lse=None):
    """out = softmax(scale * q k^T + mask) v.

    q [B, Sq, Hq, D], k and v [B, Skv, Hkv, D] (GQA when Hkv < Hq), out
    like q. scale 0 means 1/sqrt(D). Windows < 0 are unbounded; masks align
    bottom-right. seqlens_q / seqlens_kv: B lengths each, None for full
    length; host ints (a list, a NumPy array: copied during the call and
    checked) or a device tensor (an i32 portkern Tensor, or a device array
    with __dlpack__: read when the op runs, not checked, each clamped to
    [0, S] by the kernels). lse: None, an f32 [B, Hq, Sq] tensor to write,
    or True to allocate one; with True the result is (out, lse)."""
    with _Operands(ctx) as ops:
        Q, K, V, O = ops(q, "q"), ops(k, "k"), ops(v, "v"), ops(out, "out")
        if O is None:
            O = ctx.empty(Q.shape, Q.dtype)
        if lse is True:
            if Q.ndim != 4:
                raise Error(f"attention: q is [B, Sq, Hq, D], not {list(Q.shape)}")
            L = ctx.empty((Q.shape[0], Q.shape[2], Q.shape[1]), "f32")
        else:
            L = ops(lse if lse is not False else None, "lse")
        batch = Q.shape[0] if Q.ndim == 4 else 0
        host_q, dev_q = _lengths(ops, seqlens_q, batch, "seqlens_q")
        host_kv, dev_kv = _lengths(ops, seqlens_kv, batch, "seqlens_kv")
        desc = S.AttentionDesc(float(scale), int(bool(causal)), int(window_left), int(window_right),
                               host_q, host_kv, _ptr(L), _ptr(dev_q), _ptr(dev_kv))
        _run(ctx, "pk_attention", ctypes.byref(desc), _ptr(Q), _ptr(K), _ptr(V), _ptr(O))
    result = out if out is not None else O
    return (result, L) if lse is True else result


def _norm_desc(eps, R, RO):
    return S.NormDesc(float(eps), _ptr(R), _ptr(RO))


def _like_or(ops, ctx, given, what, like):
    if given is True:
        return ctx.empty(like.shape, like.dtype)
    return ops(given if given is not False else None, what)


def rmsnorm(ctx, x, weight, out=None, *, eps=1e-6, residual=None, residual_out=None):
    """out = h / sqrt(mean(h^2) + eps) * weight over the last dim, h = x (+
    residual). residual_out (a tensor, or True to allocate) receives h; with
    True the result is (out, residual_out)."""
    with _Operands(ctx) as ops:
        X, W, O, R = ops(x, "x"), ops(weight, "weight"), ops(out, "out"), ops(residual, "residual")
        RO = _like_or(ops, ctx, residual_out, "residual_out", X)
        if O is None:
            O = ctx.empty(X.shape, X.dtype)
        desc = _norm_desc(eps, R, RO)
        _run(ctx, "pk_rmsnorm", ctypes.byref(desc), _ptr(X), _ptr(W), _ptr(O))
    result = out if out is not None else O
    return (result, RO) if residual_out is True else result


def layernorm(ctx, x, weight=None, bias=None, out=None, *, eps=1e-6, residual=None,
              residual_out=None):
    """out = (h - mean(h)) / sqrt(var(h) + eps) * weight + bias over the last
    dim (weight, bias optional), h = x (+ residual); residual_out as in
    rmsnorm."""
    with _Operands(ctx) as ops:
        X, W, Bs, O = ops(x, "x"), ops(weight, "weight"), ops(bias, "bias"), ops(out, "out")
        R = ops(residual, "residual")
        RO = _like_or(ops, ctx, residual_out, "residual_out", X)
        if O is None:
            O = ctx.empty(X.shape, X.dtype)
        desc = _norm_desc(eps, R, RO)
        _run(ctx, "pk_layernorm", ctypes.byref(desc), _ptr(X), _ptr(W), _ptr(Bs), _ptr(O))
    result = out if out is not None else O
    return (result, RO) if residual_out is True else result


def glu(ctx, gate, up, out=None, *, act="silu"):
    """out = act(gate) * up (SwiGLU with 'silu', GeGLU with 'gelu' or
    'gelu_tanh'). gate and up may be two views of one [..., 2H] tensor."""
    with _Operands(ctx) as ops:
        G, U, O = ops(gate, "gate"), ops(up, "up"), ops(out, "out")
        if O is None:
            O = ctx.empty(G.shape, G.dtype)
        _run(ctx, "pk_glu", _act(act), _ptr(G), _ptr(U), _ptr(O))
    return out if out is not None else O


def bias_act(ctx, x, bias=None, out=None, *, act=None):
    """out = act(x + bias), bias [H] optional; out may be x (in place)."""
    with _Operands(ctx) as ops:
        X, Bs, O = ops(x, "x"), ops(bias, "bias"), ops(out, "out")
        if O is None:
            O = ctx.empty(X.shape, X.dtype)
        _run(ctx, "pk_bias_act", _act(act), _ptr(X), _ptr(Bs), _ptr(O))
    return out if out is not None else O


def softmax(ctx, x, out=None, *, scale=1.0):
    """out = softmax(scale * x) over the last dim (scale 0 also means 1)."""
    with _Operands(ctx) as ops:
        X, O = ops(x, "x"), ops(out, "out")
        if O is None:
            O = ctx.empty(X.shape, X.dtype)
        _run(ctx, "pk_softmax", ctypes.c_float(scale), _ptr(X), _ptr(O))
    return out if out is not None else O


def rope(ctx, q, k=None, *, theta=10000.0, rotary_dim=0, interleaved=False, positions=None,
         inv_freq=None):
    """Rotary embedding in place on q [B, S, Hq, D] and k [B, S, Hk, D] (k
    optional). rotary_dim 0 means D; interleaved selects the GPT-J pairing
    (else NeoX/Llama rotate-half). positions: B*S positions, None for s;
    host ints (copied during the call) or a device i32 tensor of B*S
    contiguous elements (read when the op runs; an int32 __dlpack__ object
    on the device too). inv_freq: an f32 [rotary_dim/2] tensor of
    frequencies replacing theta's. Recorded into a graph (CUDA, HIP), RoPE
    needs both positions and inv_freq on the device."""
    with _Operands(ctx) as ops:
        Q, K, F = ops(q, "q"), ops(k, "k"), ops(inv_freq, "inv_freq")
        count = Q.shape[0] * Q.shape[1] if Q.ndim >= 2 else 0
        host_pos, dev_pos = _lengths(ops, positions, count, "positions")
        desc = S.RopeDesc(float(theta), int(rotary_dim), int(bool(interleaved)), host_pos, _ptr(F),
                          _ptr(dev_pos))
        _run(ctx, "pk_rope", ctypes.byref(desc), _ptr(Q), _ptr(K))


def _broadcast_shape(shapes):
    nd = max(len(s) for s in shapes)
    out = []
    for i in range(nd):
        dims = {s[len(s) - nd + i] for s in shapes if len(s) - nd + i >= 0} - {1}
        if len(dims) > 1:
            raise Error(f"chain: input shapes {[list(s) for s in shapes]} do not broadcast")
        out.append(dims.pop() if dims else 1)
    return tuple(out)


def chain(ctx, inputs, steps, out=None, *, dtype=None):
    """A small elementwise program, one pass: values r[0..n-1] are the inputs
    (broadcast to the output, right-aligned), each step appends one value,
    the output is the last. Steps are tuples: ('add', i, j) for binary ops
    (add sub mul div max min), ('mul_imm', i, 2.0) for add_imm, mul_imm,
    pow_imm, ('exp', i) for unary ops (neg abs exp log sqrt rsqrt tanh
    sigmoid relu gelu gelu_tanh silu)."""
    with _Operands(ctx) as ops:
        ins = [ops(x, f"inputs[{i}]") for i, x in enumerate(inputs)]
        if not ins:
            raise Error("chain: at least one input")
        O = ops(out, "out")
        if O is None:
            O = ctx.empty(_broadcast_shape([t.shape for t in ins]), dtype or ins[0].dtype)
        arr = (S.ChainStep * max(len(steps), 1))()
        for i, st in enumerate(steps):
            op = st[0]
            if op not in S.CHAIN_OP:
                raise Error(f"chain: unknown op {op!r} (one of {', '.join(S.CHAIN_OPS)})")
            code = S.CHAIN_OP[op]
            a = int(st[1]) if len(st) > 1 else 0
            b, imm = 0, 0.0
            if op.endswith("_imm"):
                imm = float(st[2]) if len(st) > 2 else 0.0
            elif len(st) > 2:
                b = int(st[2])
            arr[i] = S.ChainStep(code, a, b, imm)
        descs = (S.TensorDesc * len(ins))(*[t.desc() for t in ins])
        desc = S.ChainDesc(len(ins), descs, len(steps), arr)
        _run(ctx, "pk_chain", ctypes.byref(desc), _ptr(O))
    return out if out is not None else O


def gather_rows(ctx, table, index, out=None):
    """out[i, :] = table[index[i], :] for i < n: rows picked by indices read
    on the device when the op runs (an embedding lookup by token ids).

    table and out are 2-D of one dtype and column count, at any strides;
    index is i32 with n contiguous elements (an i32 Tensor, or an int32
    __dlpack__ object on the context's device: a NumPy int32 array on ref).
    Indices are not checked: one outside [0, rows of table) gives a row of
    zeros. Rows are moved bit for bit. An allocated out is [n, cols] of the
    table's dtype."""
    with _Operands(ctx) as ops:
        T, I, O = ops(table, "table"), ops(index, "index"), ops(out, "out")
        if O is None:
            if T.ndim != 2:
                raise Error(f"gather_rows: table is 2-D, not {list(T.shape)}")
            O = ctx.empty((I.size, T.shape[1]), T.dtype)
        _run(ctx, "pk_gather_rows", _ptr(T), _ptr(I), _ptr(O))
    return out if out is not None else O


def scatter_rows(ctx, src, index, out):
    """out[index[i], :] = src[i, :] for i < n; the other rows of out are left
    as they are (a KV-cache write at positions held on the device).

    src and out are 2-D of one dtype and column count, at any strides;
    index is i32 with n (src's rows) contiguous elements, as in gather_rows.
    Indices are not checked: one outside [0, rows of out) is skipped, and of
    repeated indices the last entry wins. Rows are moved bit for bit.
    Returns out."""
    with _Operands(ctx) as ops:
        SRC, I, O = ops(src, "src"), ops(index, "index"), ops(out, "out")
        if O is None:
            raise Error("scatter_rows: 'out' is required (the rows not indexed are kept)")
        _run(ctx, "pk_scatter_rows", _ptr(SRC), _ptr(I), _ptr(O))
    return out
