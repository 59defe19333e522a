/* libFuzzer harness: the public API on the reference backend. The input
 * bytes pick an op, then a well-formed problem for it (dtypes, shapes,
 * placement in a few fixed buffers), then a handful of mutations of any
 * tensor field (buffer, offset, dtype, ndim, a shape or stride, aliasing
 * another tensor) and of the descriptor, so that both the checks and the
 * kernels behind them are reached.
 *
 * Contract (portkern.h, api/ERRORS.md): every call returns a status in
 * range; nothing crashes or trips ASan/UBSan; PK_ERR_INTERNAL never comes
 * back; an error leaves every byte of every buffer as it was and sets a
 * message that starts with the function's name; a success changes no byte
 * outside the elements of the op's outputs (or copy/fill's range). A
 * violation abort()s, so libFuzzer keeps the input.
 *
 * Shapes are small (a valid call finishes in microseconds) except through
 * mutations, which can write any value, huge ones included: a call the
 * API accepts with a huge broadcast (stride 0) extent is a real finding
 * (an output that can never finish), not something to filter out here. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portkern.h"

enum { NBUF = 4, BUF_BYTES = 16384 };

static pk_context *ctx, *other_ctx;
static pk_buffer *bufs[NBUF], *foreign, *freed;
static unsigned char init[NBUF][BUF_BYTES], after[BUF_BYTES];
static int32_t host_ints[4096]; /* seqlens and positions, filled per call */

/* What the op may write: its output tensors, or one byte range (copy,
 * fill). On success every other byte must be as it was. */
static pk_tensor outs[2]; /* copies: the op's own live on its stack */
static int n_outs;
static struct {
    pk_buffer *buf;
    size_t offset, bytes;
} out_range;
static unsigned char may_write[NBUF][BUF_BYTES];

static void writes(const pk_tensor *a, const pk_tensor *b)
{
    n_outs = 0;
    if (a) outs[n_outs++] = *a;
    if (b) outs[n_outs++] = *b;
}

typedef struct rd {
    const uint8_t *p;
    size_t n;
} rd;

/* Past the end of the input every read is 0: the simplest problem. */
static unsigned u8(rd *r)
{
    if (!r->n) return 0;
    r->n--;
    return *r->p++;
}

static int bit(rd *r) { return u8(r) & 1; }

static int64_t pick(rd *r, const int64_t *table, size_t n) { return table[u8(r) % n]; }
#define PICK(r, t) pick(r, t, sizeof t / sizeof t[0])

static const int64_t wild[] = {-1, -7, (int64_t)1 << 31, ((int64_t)1 << 32) + 1, (int64_t)1 << 40,
                               (int64_t)1 << 62, INT64_MAX, INT64_MIN, 3037000500, 1 << 20};

/* A dimension for a mutation: mostly small, sometimes anything. */
static int64_t any_dim(rd *r)
{
    static const int64_t small[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 17, 64, 128};
    unsigned b = u8(r);
    return b >= 240 ? wild[b % (sizeof wild / sizeof wild[0])] : small[b % (sizeof small / sizeof small[0])];
}

static float any_float(rd *r)
{
    static const float t[] = {0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 1e-6f, -0.0f, NAN, INFINITY, -INFINITY,
                              1e30f, 1e-40f, 3.4e38f, 0.125f, 65504.0f, 10000.0f};
    unsigned b = u8(r);
    if (b < 240) return t[b % (sizeof t / sizeof t[0])];
    uint32_t bits = (uint32_t)u8(r) << 24 | (uint32_t)u8(r) << 16 | (uint32_t)u8(r) << 8 | u8(r);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static pk_dtype any_dtype(rd *r)
{
    static const int t[] = {PK_F32, PK_F16, PK_BF16, PK_F32, PK_F16, PK_BF16, PK_DTYPE_COUNT, -1};
    return (pk_dtype)t[u8(r) % 8];
}

/* A buffer for a tensor: one of ours; rarely none, another context's, or a freed one. */
static pk_buffer *any_buf(rd *r)
{
    unsigned b = u8(r);
    if (b == 255) return NULL;
    if (b == 254) return foreign;
    if (b == 253) return freed;
    return bufs[b % NBUF];
}

/* A well-formed, contiguous tensor at a 256-byte boundary of some buffer. */
static void place(rd *r, pk_tensor *t, pk_dtype dt, int ndim, const int64_t *shape)
{
    pk_buffer *b = bufs[u8(r) % NBUF];
    *t = pk_tensor_make(b, (size_t)(u8(r) % 16) * 256, dt, ndim, shape);
}

static void mutate_tensor(rd *r, pk_tensor *t, pk_tensor *const *all, int n)
{
    static const int64_t offsets[] = {0, 1, 2, 3, 6, 8, 512, BUF_BYTES - 4, BUF_BYTES - 2, BUF_BYTES,
                                      BUF_BYTES + 4, (int64_t)1 << 40, INT64_MAX};
    static const int64_t strides[] = {0, 1, 2, 3, 4, 17, 64, 1000, -1, (int64_t)1 << 40, INT64_MAX,
                                      INT64_MAX / 2 + 1};
    unsigned f = u8(r);
    int i = (int)((f >> 4) % PK_MAX_DIMS);
    const pk_tensor *o = all[u8(r) % n];
    switch (f % 10) {
    case 0: t->buf = any_buf(r); break;
    case 1: t->offset = (size_t)PICK(r, offsets); break;
    case 2: t->dtype = any_dtype(r); break;
    case 3: t->ndim = (int)u8(r) % 7 - 1; break;
    case 4: t->shape[i] = any_dim(r); break;
    case 5: t->stride[i] = PICK(r, strides); break;
    case 6: t->stride[i] = 0; break; /* broadcast */
    case 7: t->buf = o->buf; t->offset = o->offset; break; /* alias another operand's start */
    case 8: *t = *o; break;                                   /* the very same view */
    default: t->offset += (size_t)pk_dtype_size(t->dtype) * (u8(r) % 64); break;
    }
}

/* Up to 6 mutations, each of one tensor among the n an op uses. */
static void mutate(rd *r, pk_tensor *const *all, int n)
{
    for (int m = (int)u8(r) % 7; m > 0; m--) mutate_tensor(r, all[u8(r) % n], all, n);
}

/* A required argument dropped to NULL, rarely: returns 1 for the one to drop. */
static int drop(rd *r, int which) { return (int)u8(r) == 250 + which; }

static const int64_t dims[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 17, 31, 33};

/* ---------------------------------------------------------------- ops */

static pk_status op_gemm(rd *r)
{
    int batch = (int)u8(r) % 4, ta = bit(r), tb = bit(r);
    int64_t M = PICK(r, dims), N = PICK(r, dims), K = PICK(r, dims);
    pk_dtype dab = (pk_dtype)(u8(r) % 3), dd = (pk_dtype)(u8(r) % 3);
    int nd = batch ? 3 : 2, o = batch ? 1 : 0;
    int64_t sa[3] = {batch}, sb[3] = {batch}, sd[3] = {batch}, sbias[1] = {N};
    sa[o] = ta ? K : M, sa[o + 1] = ta ? M : K;
    sb[o] = tb ? N : K, sb[o + 1] = tb ? K : N;
    sd[o] = M, sd[o + 1] = N;
    pk_tensor a, b, c, d, bias, res;
    place(r, &a, dab, nd, sa);
    place(r, &b, dab, nd, sb);
    place(r, &c, dd, nd, sd);
    place(r, &d, dd, nd, sd);
    place(r, &bias, dd, 1, sbias);
    place(r, &res, dd, nd, sd);
    unsigned flags = u8(r);
    if (flags & 1) c = d; /* C may be exactly D */
    pk_tensor *all[] = {&a, &b, &c, &d, &bias, &res};
    mutate(r, all, 6);
    pk_gemm_desc g = PK_GEMM_DESC_INIT;
    g.trans_a = ta, g.trans_b = tb;
    g.alpha = flags & 2 ? any_float(r) : 1.0f;
    g.beta = flags & 4 ? any_float(r) : 0.0f;
    g.act = (pk_activation)(u8(r) % (PK_ACT_COUNT + 1));
    g.allow_tf32 = flags & 8 ? 1 : 0;
    g.bias = flags & 16 ? &bias : NULL;
    g.residual = flags & 32 ? &res : NULL;
    writes(&d, NULL);
    return pk_gemm(ctx, drop(r, 0) ? NULL : &g, drop(r, 1) ? NULL : &a, drop(r, 2) ? NULL : &b,
                   flags & 64 ? NULL : &c, drop(r, 3) ? NULL : &d);
}

/* n per-batch lengths into dst (n <= 64), around s; or NULL. */
static const int32_t *lengths(rd *r, int32_t *dst, int64_t n, int64_t s)
{
    if (!bit(r)) return NULL;
    const int64_t t[] = {0, 1, 2, s, s + 1, s - 1, -1, INT32_MAX};
    for (int64_t i = 0; i < n; i++) dst[i] = (int32_t)PICK(r, t);
    return dst;
}

static pk_status op_attention(rd *r)
{
    static const int64_t sq[] = {0, 1, 2, 3, 4, 7}, skv[] = {0, 1, 2, 3, 5, 8}, hd[] = {64, 80, 96, 128, 256, 32, 65};
    static const int64_t windows[] = {-1, 0, 1, 2, 3, INT64_MAX, INT64_MIN, -100, (int64_t)1 << 40, 7};
    int64_t B = 1 + u8(r) % 2, Sq = PICK(r, sq), Skv = PICK(r, skv), Hkv = 1 + u8(r) % 2, Hq = Hkv * (1 + u8(r) % 3),
            D = PICK(r, hd);
    pk_dtype dt = (pk_dtype)(u8(r) % 3);
    int64_t s_q[4] = {B, Sq, Hq, D}, s_kv[4] = {B, Skv, Hkv, D}, s_lse[3] = {B, Hq, Sq};
    pk_tensor q, k, v, o, lse;
    place(r, &q, dt, 4, s_q);
    place(r, &k, dt, 4, s_kv);
    place(r, &v, dt, 4, s_kv);
    place(r, &o, dt, 4, s_q);
    place(r, &lse, PK_F32, 3, s_lse);
    pk_tensor *all[] = {&q, &k, &v, &o, &lse};
    mutate(r, all, 5);
    pk_attention_desc a = PK_ATTENTION_DESC_INIT;
    a.scale = bit(r) ? any_float(r) : 0.0f;
    a.causal = bit(r);
    a.window_left = PICK(r, windows);
    a.window_right = PICK(r, windows);
    /* B entries each (B from the problem, before mutations: the API reads
     * q's batch, which a mutation may have changed; a short array is then
     * the caller's fault, so the arrays are long enough for any B <= 64) */
    static int32_t lq[64], lkv[64];
    a.seqlens_q = lengths(r, lq, B, Sq);
    a.seqlens_kv = lengths(r, lkv, B, Skv);
    if (q.ndim < 1 || q.shape[0] < 0 || q.shape[0] > 64) a.seqlens_q = a.seqlens_kv = NULL;
    a.lse = bit(r) ? &lse : NULL;
    writes(&o, a.lse);
    return pk_attention(ctx, drop(r, 0) ? NULL : &a, drop(r, 1) ? NULL : &q, drop(r, 2) ? NULL : &k,
                        drop(r, 3) ? NULL : &v, drop(r, 4) ? NULL : &o);
}

/* A row problem's shape: 1..4 dims, the last one H. */
static int rows_shape(rd *r, int64_t *shape)
{
    static const int64_t lead[] = {1, 2, 3, 0}, h[] = {0, 1, 2, 3, 4, 8, 16, 33, 64, 128};
    int nd = 1 + (int)u8(r) % 4;
    for (int i = 0; i < nd - 1; i++) shape[i] = PICK(r, lead);
    shape[nd - 1] = PICK(r, h);
    return nd;
}

static pk_status op_norm(rd *r, int layer)
{
    int64_t shape[4];
    int nd = rows_shape(r, shape);
    pk_dtype dt = (pk_dtype)(u8(r) % 3);
    pk_tensor x, w, bias, out, res, res_out;
    place(r, &x, dt, nd, shape);
    place(r, &w, dt, 1, shape + nd - 1);
    place(r, &bias, dt, 1, shape + nd - 1);
    place(r, &out, dt, nd, shape);
    place(r, &res, dt, nd, shape);
    place(r, &res_out, dt, nd, shape);
    pk_tensor *all[] = {&x, &w, &bias, &out, &res, &res_out};
    mutate(r, all, 6);
    unsigned flags = u8(r);
    pk_norm_desc n = PK_NORM_DESC_INIT;
    if (flags & 1) n.eps = any_float(r);
    n.residual = flags & 2 ? &res : NULL;
    n.residual_out = flags & 4 ? &res_out : NULL;
    writes(&out, n.residual_out);
    if (layer)
        return pk_layernorm(ctx, drop(r, 0) ? NULL : &n, drop(r, 1) ? NULL : &x, flags & 8 ? NULL : &w,
                            flags & 16 ? NULL : &bias, drop(r, 2) ? NULL : &out);
    return pk_rmsnorm(ctx, drop(r, 0) ? NULL : &n, drop(r, 1) ? NULL : &x, drop(r, 2) ? NULL : &w,
                      drop(r, 3) ? NULL : &out);
}

static pk_status op_glu(rd *r)
{
    int64_t shape[4];
    int nd = rows_shape(r, shape);
    pk_dtype dt = (pk_dtype)(u8(r) % 3);
    pk_tensor gate, up, out;
    place(r, &gate, dt, nd, shape);
    place(r, &out, dt, nd, shape);
    if (bit(r)) { /* gate and up as the two halves of one [.., 2H] tensor */
        int64_t h = shape[nd - 1];
        shape[nd - 1] = 2 * h;
        place(r, &gate, dt, nd, shape);
        shape[nd - 1] = h;
        up = gate;
        gate.shape[nd - 1] = h;
        up.shape[nd - 1] = h;
        up.offset += (size_t)h * pk_dtype_size(dt);
    } else {
        place(r, &up, dt, nd, shape);
    }
    pk_tensor *all[] = {&gate, &up, &out};
    mutate(r, all, 3);
    pk_activation act = (pk_activation)(u8(r) % (PK_ACT_COUNT + 1));
    writes(&out, NULL);
    return pk_glu(ctx, act, drop(r, 0) ? NULL : &gate, drop(r, 1) ? NULL : &up, drop(r, 2) ? NULL : &out);
}

static pk_status op_bias_act(rd *r)
{
    int64_t shape[4];
    int nd = rows_shape(r, shape);
    pk_dtype dt = (pk_dtype)(u8(r) % 3);
    pk_tensor x, bias, out;
    place(r, &x, dt, nd, shape);
    place(r, &bias, dt, 1, shape + nd - 1);
    place(r, &out, dt, nd, shape);
    unsigned flags = u8(r);
    if (flags & 1) out = x; /* out may be exactly x */
    pk_tensor *all[] = {&x, &bias, &out};
    mutate(r, all, 3);
    pk_activation act = (pk_activation)(u8(r) % (PK_ACT_COUNT + 1));
    writes(&out, NULL);
    return pk_bias_act(ctx, act, drop(r, 0) ? NULL : &x, flags & 2 ? &bias : NULL, drop(r, 1) ? NULL : &out);
}

static pk_status op_softmax(rd *r)
{
    int64_t shape[4];
    int nd = rows_shape(r, shape);
    pk_dtype dt = (pk_dtype)(u8(r) % 3);
    pk_tensor x, out;
    place(r, &x, dt, nd, shape);
    place(r, &out, dt, nd, shape);
    pk_tensor *all[] = {&x, &out};
    mutate(r, all, 2);
    float scale = bit(r) ? any_float(r) : 0.0f;
    writes(&out, NULL);
    return pk_softmax(ctx, scale, drop(r, 0) ? NULL : &x, drop(r, 1) ? NULL : &out);
}

static pk_status op_rope(rd *r)
{
    static const int64_t hd[] = {0, 2, 4, 8, 16, 64, 5}, rds[] = {0, 0, 2, 4, 3, -2, 6, 64, 66};
    static const int64_t pos[] = {0, 1, 2, 100, -1, INT32_MAX, INT32_MIN, 65536};
    int64_t B = 1 + u8(r) % 2, S = PICK(r, dims), Hq = 1 + u8(r) % 3, Hk = 1 + u8(r) % 2, D = PICK(r, hd);
    int64_t rd_ = PICK(r, rds);
    pk_dtype dt = (pk_dtype)(u8(r) % 3);
    int64_t s_q[4] = {B, S, Hq, D}, s_k[4] = {B, S, Hk, D}, s_f[1] = {(rd_ ? rd_ : D) / 2};
    pk_tensor q, k, f;
    place(r, &q, dt, 4, s_q);
    place(r, &k, dt, 4, s_k);
    place(r, &f, PK_F32, 1, s_f);
    pk_tensor *all[] = {&q, &k, &f};
    mutate(r, all, 3);
    unsigned flags = u8(r);
    pk_rope_desc d = PK_ROPE_DESC_INIT;
    if (flags & 1) d.theta = any_float(r);
    d.rotary_dim = rd_;
    d.interleaved = (flags & 2) != 0;
    /* positions: B*S host entries, as the header asks, when that is few enough */
    if ((flags & 4) && q.shape[0] >= 0 && q.shape[0] <= 64 && q.ndim > 1 && q.shape[1] >= 0 && q.shape[1] <= 64) {
        for (int64_t i = 0; i < q.shape[0] * q.shape[1]; i++) host_ints[i] = (int32_t)PICK(r, pos);
        d.positions = host_ints;
    }
    d.inv_freq = flags & 8 ? &f : NULL;
    writes(&q, flags & 16 ? NULL : &k);
    return pk_rope(ctx, drop(r, 0) ? NULL : &d, drop(r, 1) ? NULL : &q, flags & 16 ? NULL : &k);
}

static pk_status op_chain(rd *r)
{
    static const int64_t outd[] = {1, 2, 3, 4, 0, 5, 8};
    int nd = 1 + (int)u8(r) % 4;
    int64_t shape[4];
    for (int i = 0; i < nd; i++) shape[i] = PICK(r, outd);
    int n_in = 1 + (int)u8(r) % 8, n_steps = 1 + (int)u8(r) % 8;
    /* one spare entry each, so that a count one too high reads our memory */
    pk_tensor in[PK_CHAIN_MAX_INPUTS + 1] = {0}, out;
    pk_tensor *all[PK_CHAIN_MAX_INPUTS + 1];
    for (int i = 0; i < n_in; i++) {
        /* aligned from the right: fewer dims, and dims of 1, broadcast */
        int ind = 1 + (int)u8(r) % nd;
        int64_t s[4];
        for (int j = 0; j < ind; j++) s[j] = bit(r) ? 1 : shape[nd - ind + j];
        place(r, &in[i], (pk_dtype)(u8(r) % 3), ind, s);
        all[i] = &in[i];
    }
    place(r, &out, (pk_dtype)(u8(r) % 3), nd, shape);
    all[n_in] = &out;
    mutate(r, all, n_in + 1);
    pk_chain_step steps[PK_CHAIN_MAX_STEPS + 1] = {0};
    for (int s = 0; s < n_steps; s++) {
        int earlier = n_in + s;
        steps[s].op = (pk_chain_op)(u8(r) % (PK_CHAIN_OP_COUNT + 1));
        unsigned a = u8(r), b = u8(r);
        steps[s].a = a >= 250 ? earlier + (int)(a - 250) - 2 : (int)(a % (unsigned)earlier);
        steps[s].b = b >= 250 ? earlier + (int)(b - 250) - 2 : (int)(b % (unsigned)earlier);
        steps[s].imm = any_float(r);
    }
    pk_chain_desc c = PK_CHAIN_DESC_INIT;
    c.n_inputs = n_in;
    c.inputs = in;
    c.n_steps = n_steps;
    c.steps = steps;
    unsigned b = u8(r);
    if (b == 250) c.n_inputs = 0;
    if (b == 251) c.n_inputs = PK_CHAIN_MAX_INPUTS + 1;
    if (b == 252) c.n_steps = 0;
    if (b == 253) c.n_steps = PK_CHAIN_MAX_STEPS + 1;
    if (b == 254) c.inputs = NULL;
    if (b == 255) c.steps = NULL;
    writes(&out, NULL);
    return pk_chain(ctx, drop(r, 0) ? NULL : &c, drop(r, 1) ? NULL : &out);
}

static pk_status op_copy(rd *r, int fill)
{
    static const int64_t at[] = {0, 1, 2, 4, 8, 256, 4096, BUF_BYTES - 4, BUF_BYTES, BUF_BYTES + 1,
                                 (int64_t)1 << 40, -1};
    pk_buffer *dst = any_buf(r), *src = any_buf(r);
    size_t doff = (size_t)PICK(r, at), soff = (size_t)PICK(r, at), bytes = (size_t)PICK(r, at);
    out_range.buf = dst, out_range.offset = doff, out_range.bytes = bytes;
    if (!fill) return pk_copy(dst, doff, src, soff, bytes);
    static const size_t sizes[] = {1, 2, 4, 0, 3, 8};
    const uint32_t pattern = 0x7fc0ffeeu;
    return pk_fill(dst, doff, bytes, drop(r, 0) ? NULL : &pattern, sizes[u8(r) % 6]);
}

/* ---------------------------------------------------------------- driver */

/* Marks the bytes of t's elements in may_write; 0 when t is too big to be
 * a valid output of our buffers (it then cannot have been accepted). */
static int mark(const pk_tensor *t)
{
    int b = 0;
    while (b < NBUF && bufs[b] != t->buf) b++;
    if (b == NBUF || t->ndim < 1 || t->ndim > PK_MAX_DIMS) return 1; /* not ours: nothing to check */
    int64_t sh[4] = {1, 1, 1, 1}, st[4] = {0, 0, 0, 0}, n = 1;
    for (int i = 0; i < t->ndim; i++)
        if (t->shape[i] == 0) return 1; /* no element, whatever the other dims */
    for (int i = 0; i < t->ndim; i++) {
        sh[4 - t->ndim + i] = t->shape[i];
        st[4 - t->ndim + i] = t->stride[i];
        if (t->shape[i] < 0 || t->shape[i] > BUF_BYTES || (n *= t->shape[i]) > BUF_BYTES) return 0;
    }
    size_t es = pk_dtype_size(t->dtype);
    for (int64_t i = 0; i < sh[0]; i++)
        for (int64_t j = 0; j < sh[1]; j++)
            for (int64_t k = 0; k < sh[2]; k++)
                for (int64_t l = 0; l < sh[3]; l++) {
                    uint64_t at = t->offset + es * (uint64_t)(i * st[0] + j * st[1] + k * st[2] + l * st[3]);
                    if (at > BUF_BYTES - es) return 0;
                    memset(may_write[b] + at, 1, es);
                }
    return 1;
}

static const char *const names[] = {"pk_gemm",    "pk_attention", "pk_rmsnorm", "pk_layernorm", "pk_glu", "pk_bias_act",
                                    "pk_softmax", "pk_rope",      "pk_chain",   "pk_copy",      "pk_fill"};

static pk_status run_op(rd *r, int op)
{
    switch (op) {
    case 0: return op_gemm(r);
    case 1: return op_attention(r);
    case 2: return op_norm(r, 0);
    case 3: return op_norm(r, 1);
    case 4: return op_glu(r);
    case 5: return op_bias_act(r);
    case 6: return op_softmax(r);
    case 7: return op_rope(r);
    case 8: return op_chain(r);
    case 9: return op_copy(r, 0);
    default: return op_copy(r, 1);
    }
}

/* PK_FUZZ_STATS=1: at exit, per op, how many calls ended in each status,
 * to see that valid calls (PK_SUCCESS) are reached and not just refusals. */
static unsigned long stats[11][PK_STATUS_COUNT];

static void print_stats(void)
{
    for (int op = 0; op < 11; op++) {
        fprintf(stderr, "%-13s", names[op]);
        for (int s = 0; s < PK_STATUS_COUNT; s++)
            if (stats[op][s]) fprintf(stderr, " %s=%lu", pk_status_string((pk_status)s) + 3, stats[op][s]);
        fprintf(stderr, "\n");
    }
}

static void setup(void)
{
    const char *st = getenv("PK_FUZZ_STATS");
    if (st && *st == '1') atexit(print_stats);
    if (pk_open(PK_BACKEND_REF, 0, &ctx) || pk_open(PK_BACKEND_REF, 0, &other_ctx)) {
        fprintf(stderr, "fuzz_api_ref: pk_open(ref): %s\n", pk_last_error(NULL));
        exit(1);
    }
    /* finite values of every dtype's bit patterns, plus a few NaN/inf, so
     * that valid calls compute and invalid ones have something to spoil */
    for (int b = 0; b < NBUF; b++) {
        for (size_t i = 0; i < BUF_BYTES; i++) init[b][i] = (unsigned char)((i * 37 + (size_t)b * 11) & 0x3f);
        memset(init[b] + BUF_BYTES - 64, 0xff, 16);
        if (pk_alloc(ctx, BUF_BYTES, &bufs[b])) exit(1);
    }
    if (pk_alloc(other_ctx, BUF_BYTES, &foreign) || pk_alloc(ctx, 64, &freed) || pk_free(freed)) exit(1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ctx) setup();
    for (int b = 0; b < NBUF; b++)
        if (pk_upload(bufs[b], 0, init[b], BUF_BYTES)) abort();
    if (pk_upload(foreign, 0, init[0], BUF_BYTES)) abort();
    rd r = {data, size};
    int op = (int)(u8(&r) % 11);
    n_outs = 0;
    out_range.buf = NULL;
    pk_status s = run_op(&r, op);
    /* the message now: a successful pk_finish clears it */
    char msg[512];
    const char *m = pk_last_error(ctx);
    /* pk_copy and pk_fill take no context: the message is on their
     * buffer's context (perhaps the other one), or the thread's */
    if (op >= 9 && strncmp(m, names[op], strlen(names[op])) != 0) m = pk_last_error(other_ctx);
    if (op >= 9 && strncmp(m, names[op], strlen(names[op])) != 0) m = pk_last_error(NULL);
    snprintf(msg, sizeof msg, "%s", m);
    pk_status fin = pk_finish(ctx);
    if ((unsigned)s >= PK_STATUS_COUNT || s == PK_ERR_INTERNAL || fin != PK_SUCCESS) {
        fprintf(stderr, "fuzz_api_ref: %s returned %s, pk_finish %s: %s\n", names[op], pk_status_string(s),
                pk_status_string(fin), msg);
        abort();
    }
    stats[op][s]++;
    if (s == PK_SUCCESS) {
        /* nothing outside the outputs changed */
        memset(may_write, 0, sizeof may_write);
        for (int i = 0; i < n_outs; i++)
            if (!mark(&outs[i])) {
                fprintf(stderr, "fuzz_api_ref: %s accepted output %d reaching past its buffer\n", names[op], i);
                abort();
            }
        for (int b = 0; out_range.buf && b < NBUF; b++)
            if (out_range.buf == bufs[b] && out_range.offset <= BUF_BYTES && out_range.bytes <= BUF_BYTES - out_range.offset)
                memset(may_write[b] + out_range.offset, 1, out_range.bytes);
        for (int b = 0; b < NBUF; b++) {
            if (pk_download(bufs[b], 0, after, BUF_BYTES)) abort();
            for (size_t i = 0; i < BUF_BYTES; i++)
                if (!may_write[b][i] && after[i] != init[b][i]) {
                    fprintf(stderr, "fuzz_api_ref: %s succeeded but changed byte %zu of buffer %d, outside its outputs\n",
                            names[op], i, b);
                    abort();
                }
        }
        return 0;
    }
    if (strncmp(msg, names[op], strlen(names[op])) != 0 || msg[strlen(names[op])] != ':') {
        fprintf(stderr, "fuzz_api_ref: %s failed with %s, message \"%s\" does not start with \"%s:\"\n", names[op],
                pk_status_string(s), msg, names[op]);
        abort();
    }
    for (int b = 0; b <= NBUF; b++) { /* NBUF: the other context's */
        if (pk_download(b < NBUF ? bufs[b] : foreign, 0, after, BUF_BYTES)) abort();
        if (memcmp(after, init[b % NBUF], BUF_BYTES) != 0) {
            size_t i = 0;
            while (after[i] == init[b % NBUF][i]) i++;
            fprintf(stderr, "fuzz_api_ref: %s failed with %s (%s) but changed buffer %d at byte %zu\n", names[op],
                    pk_status_string(s), msg, b, i);
            abort();
        }
    }
    return 0;
}
