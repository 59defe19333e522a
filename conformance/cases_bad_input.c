/* Bad-input cases (api/ERRORS.md): each makes one argument of an otherwise
 * valid call wrong and checks
 *  - the exact status;
 *  - the message (pk_last_error of the context, or of NULL for calls
 *    without a usable context) starts with the function's name and names
 *    the argument in single quotes;
 *  - nothing was written: every buffer of the fixture is bit for bit what
 *    was uploaded, and the context still finishes cleanly. */
#include <stdlib.h>
#include <string.h>

#include "conform.h"

/* ---------------------------------------------------------------- fixture */

enum {
    GA, GB, GC, GD, GBIAS, GRES, GA16, GD16,
    AQ, AK, AV, AO, ALSE, AK16, ALSE16, AQ72, AK72, AV72, AO72, AK2, AV2, AQ3, AO3,
    RX, RW, RB, ROUT, RRES, RRESO, RW16, RX16,
    PQ, PKT, PK16, PF, PF16,
    CX, CY, CZ, COUT,
    NT
};

static const struct {
    pk_dtype dt;
    int nd;
    int64_t sh[4];
} tdef[NT] = {
    [GA] = {PK_F32, 2, {4, 8}},          [GB] = {PK_F32, 2, {8, 6}},
    [GC] = {PK_F32, 2, {4, 6}},          [GD] = {PK_F32, 2, {4, 6}},
    [GBIAS] = {PK_F32, 1, {6}},          [GRES] = {PK_F32, 2, {4, 6}},
    [GA16] = {PK_F16, 2, {4, 8}},        [GD16] = {PK_F16, 2, {4, 6}},
    [AQ] = {PK_F32, 4, {1, 3, 2, 64}},   [AK] = {PK_F32, 4, {1, 5, 1, 64}},
    [AV] = {PK_F32, 4, {1, 5, 1, 64}},   [AO] = {PK_F32, 4, {1, 3, 2, 64}},
    [ALSE] = {PK_F32, 3, {1, 2, 3}},     [AK16] = {PK_F16, 4, {1, 5, 1, 64}},
    [ALSE16] = {PK_F16, 3, {1, 2, 3}},   [AQ72] = {PK_F32, 4, {1, 3, 2, 72}},
    [AK72] = {PK_F32, 4, {1, 5, 1, 72}}, [AV72] = {PK_F32, 4, {1, 5, 1, 72}},
    [AO72] = {PK_F32, 4, {1, 3, 2, 72}}, [AK2] = {PK_F32, 4, {1, 5, 2, 64}},
    [AV2] = {PK_F32, 4, {1, 5, 2, 64}},  [AQ3] = {PK_F32, 4, {1, 3, 3, 64}},
    [AO3] = {PK_F32, 4, {1, 3, 3, 64}},
    [RX] = {PK_F32, 2, {3, 16}},         [RW] = {PK_F32, 1, {16}},
    [RB] = {PK_F32, 1, {16}},            [ROUT] = {PK_F32, 2, {3, 16}},
    [RRES] = {PK_F32, 2, {3, 16}},       [RRESO] = {PK_F32, 2, {3, 16}},
    [RW16] = {PK_F16, 1, {16}},          [RX16] = {PK_F16, 2, {3, 16}},
    [PQ] = {PK_F32, 4, {1, 3, 2, 64}},   [PKT] = {PK_F32, 4, {1, 3, 1, 64}},
    [PK16] = {PK_F16, 4, {1, 3, 1, 64}}, [PF] = {PK_F32, 1, {32}},
    [PF16] = {PK_F16, 1, {32}},
    [CX] = {PK_F32, 2, {3, 16}},         [CY] = {PK_F32, 1, {16}},
    [CZ] = {PK_F32, 1, {5}},             [COUT] = {PK_F32, 2, {3, 16}},
};

#define SPARE 16 /* bytes after every tensor: a misaligned offset stays in bounds */

typedef struct fx {
    pk_context *ctx, *other;
    pk_buffer *buf[NT];
    size_t bytes[NT];
    unsigned char *img[NT];
    pk_tensor t[NT];
    pk_buffer *obuf; /* a buffer of the other context, sized like GD */
} fx;

static size_t tbytes(int i)
{
    size_t n = pk_dtype_size(tdef[i].dt);
    for (int d = 0; d < tdef[i].nd; d++) n *= (size_t)tdef[i].sh[d];
    return n + SPARE;
}

static void fx_free(fx *f)
{
    for (int i = 0; i < NT; i++) {
        if (f->buf[i]) pk_free(f->buf[i]);
        free(f->img[i]);
    }
    if (f->obuf) pk_free(f->obuf);
}

static const char *fx_init(fx *f, pk_context *ctx, pk_context *other)
{
    memset(f, 0, sizeof *f);
    f->ctx = ctx;
    f->other = other;
    for (int i = 0; i < NT; i++) {
        f->bytes[i] = tbytes(i);
        f->img[i] = malloc(f->bytes[i]);
        if (!f->img[i]) return "out of host memory";
        for (size_t k = 0; k < f->bytes[i]; k++) f->img[i][k] = (unsigned char)(k * 37u + (unsigned)i * 11u + 5u);
        if (pk_alloc(ctx, f->bytes[i], &f->buf[i]) != PK_SUCCESS) return "fixture pk_alloc failed";
        if (pk_upload(f->buf[i], 0, f->img[i], f->bytes[i]) != PK_SUCCESS) return "fixture pk_upload failed";
        f->t[i] = pk_tensor_make(f->buf[i], 0, tdef[i].dt, tdef[i].nd, tdef[i].sh);
    }
    if (other && pk_alloc(other, f->bytes[GD], &f->obuf) != PK_SUCCESS) return "fixture pk_alloc (other) failed";
    return NULL;
}

/* Every fixture buffer as uploaded? Returns the first changed tensor or -1. */
static int fx_changed(fx *f, size_t *at)
{
    for (int i = 0; i < NT; i++) {
        unsigned char *got = malloc(f->bytes[i]);
        if (!got) return -2;
        if (pk_download(f->buf[i], 0, got, f->bytes[i]) != PK_SUCCESS) {
            free(got);
            return -3;
        }
        for (size_t k = 0; k < f->bytes[i]; k++)
            if (got[k] != f->img[i][k]) {
                *at = k;
                free(got);
                return i;
            }
        free(got);
    }
    return -1;
}

#define T(id) (&f->t[id])

/* ---------------------------------------------------------------- calls */

static pk_status gemm(fx *f, const pk_gemm_desc *d, const pk_tensor *a, const pk_tensor *b, const pk_tensor *c,
                      const pk_tensor *out)
{
    pk_gemm_desc def = PK_GEMM_DESC_INIT;
    return pk_gemm(f->ctx, d ? d : &def, a, b, c, out);
}

static pk_status attn(fx *f, const pk_attention_desc *d, const pk_tensor *q, const pk_tensor *k, const pk_tensor *v,
                      const pk_tensor *o)
{
    pk_attention_desc def = PK_ATTENTION_DESC_INIT;
    return pk_attention(f->ctx, d ? d : &def, q, k, v, o);
}

static pk_status rms(fx *f, const pk_norm_desc *d, const pk_tensor *x, const pk_tensor *w, const pk_tensor *o)
{
    pk_norm_desc def = PK_NORM_DESC_INIT;
    return pk_rmsnorm(f->ctx, d ? d : &def, x, w, o);
}

static pk_status rope(fx *f, const pk_rope_desc *d, const pk_tensor *q, const pk_tensor *k)
{
    pk_rope_desc def = PK_ROPE_DESC_INIT;
    return pk_rope(f->ctx, d ? d : &def, q, k);
}

static pk_chain_step chain_steps[2] = {{PK_CHAIN_MUL, 0, 1, 0.0f}, {PK_CHAIN_SILU, 2, 0, 0.0f}};

static pk_status chain(fx *f, pk_chain_desc *d, const pk_tensor *in0, const pk_tensor *in1, const pk_tensor *out)
{
    pk_tensor in[2] = {*in0, *in1};
    pk_chain_desc def = PK_CHAIN_DESC_INIT;
    if (!d) d = &def;
    if (!d->inputs) d->inputs = in;
    if (!d->n_inputs) d->n_inputs = 2;
    if (!d->steps) d->steps = chain_steps;
    if (!d->n_steps) d->n_steps = 2;
    return pk_chain(f->ctx, d, out);
}

/* ---------------------------------------------------------------- the cases */

#define BAD(n) static pk_status n(fx *f __attribute__((unused)))

/* gemm */
BAD(gemm_null_ctx) { pk_gemm_desc d = PK_GEMM_DESC_INIT; return pk_gemm(NULL, &d, T(GA), T(GB), NULL, T(GD)); }
BAD(gemm_null_desc) { return pk_gemm(f->ctx, NULL, T(GA), T(GB), NULL, T(GD)); }
BAD(gemm_null_a) { return gemm(f, NULL, NULL, T(GB), NULL, T(GD)); }
BAD(gemm_null_d) { return gemm(f, NULL, T(GA), T(GB), NULL, NULL); }
BAD(gemm_null_buf_b) { pk_tensor b = f->t[GB]; b.buf = NULL; return gemm(f, NULL, T(GA), &b, NULL, T(GD)); }
BAD(gemm_beta_no_c) { pk_gemm_desc d = PK_GEMM_DESC_INIT; d.beta = 1.0f; return gemm(f, &d, T(GA), T(GB), NULL, T(GD)); }
BAD(gemm_dtype_ab) { return gemm(f, NULL, T(GA16), T(GB), NULL, T(GD)); }
BAD(gemm_dtype_bias)
{
    pk_gemm_desc d = PK_GEMM_DESC_INIT;
    d.bias = T(GBIAS);
    return gemm(f, &d, T(GA), T(GB), NULL, T(GD16));
}
BAD(gemm_dtype_c) { pk_gemm_desc d = PK_GEMM_DESC_INIT; d.beta = 1.0f; return gemm(f, &d, T(GA), T(GB), T(GD16), T(GD)); }
BAD(gemm_shape_k) { pk_tensor b = f->t[GB]; b.shape[0] = 7; return gemm(f, NULL, T(GA), &b, NULL, T(GD)); }
BAD(gemm_shape_d) { pk_tensor d = f->t[GD]; d.shape[1] = 5; return gemm(f, NULL, T(GA), T(GB), NULL, &d); }
BAD(gemm_shape_bias)
{
    pk_tensor bias = f->t[GBIAS];
    bias.shape[0] = 5;
    pk_gemm_desc d = PK_GEMM_DESC_INIT;
    d.bias = &bias;
    return gemm(f, &d, T(GA), T(GB), NULL, T(GD));
}
BAD(gemm_shape_residual)
{
    pk_tensor r = f->t[GRES];
    r.shape[0] = 3;
    pk_gemm_desc d = PK_GEMM_DESC_INIT;
    d.residual = &r;
    return gemm(f, &d, T(GA), T(GB), NULL, T(GD));
}
BAD(gemm_shape_batch)
{
    /* A batch 2 and B batch 3 (both broadcast by stride 0, so in bounds) */
    int64_t sa[3] = {2, 4, 8}, sb[3] = {3, 8, 6};
    pk_tensor a = pk_tensor_make(f->buf[GA], 0, PK_F32, 3, sa), b = pk_tensor_make(f->buf[GB], 0, PK_F32, 3, sb);
    a.stride[0] = 0;
    b.stride[0] = 0;
    return gemm(f, NULL, &a, &b, NULL, T(GD));
}
BAD(gemm_ndim4) { pk_tensor a = f->t[GA]; a.ndim = 4; a.shape[2] = a.shape[3] = 1; a.stride[2] = a.stride[3] = 1; return gemm(f, NULL, &a, T(GB), NULL, T(GD)); }
BAD(gemm_negative_size) { pk_tensor a = f->t[GA]; a.shape[1] = -8; return gemm(f, NULL, &a, T(GB), NULL, T(GD)); }
BAD(gemm_negative_stride) { pk_tensor a = f->t[GA]; a.stride[0] = -8; return gemm(f, NULL, &a, T(GB), NULL, T(GD)); }
BAD(gemm_overflow)
{
    pk_tensor a = f->t[GA];
    a.shape[0] = (int64_t)1 << 62;
    a.stride[0] = 0;
    return gemm(f, NULL, &a, T(GB), NULL, T(GD));
}
BAD(gemm_offset_past_end) { pk_tensor a = f->t[GA]; a.offset = f->bytes[GA]; return gemm(f, NULL, &a, T(GB), NULL, T(GD)); }
BAD(gemm_stride_past_end) { pk_tensor d = f->t[GD]; d.stride[0] = 12; return gemm(f, NULL, T(GA), T(GB), NULL, &d); }
BAD(gemm_misaligned) { pk_tensor d = f->t[GD]; d.offset = 2; return gemm(f, NULL, T(GA), T(GB), NULL, &d); }
BAD(gemm_wrong_context)
{
    pk_tensor d = f->t[GD];
    d.buf = f->obuf;
    return gemm(f, NULL, T(GA), T(GB), NULL, &d);
}
BAD(gemm_bad_act) { pk_gemm_desc d = PK_GEMM_DESC_INIT; d.act = PK_ACT_COUNT; return gemm(f, &d, T(GA), T(GB), NULL, T(GD)); }
BAD(gemm_bad_dtype) { pk_tensor a = f->t[GA]; a.dtype = PK_DTYPE_COUNT; return gemm(f, NULL, &a, T(GB), NULL, T(GD)); }
BAD(gemm_ndim0) { pk_tensor b = f->t[GB]; b.ndim = 0; return gemm(f, NULL, T(GA), &b, NULL, T(GD)); }

/* attention */
BAD(attn_null_ctx) { pk_attention_desc d = PK_ATTENTION_DESC_INIT; return pk_attention(NULL, &d, T(AQ), T(AK), T(AV), T(AO)); }
BAD(attn_null_desc) { return pk_attention(f->ctx, NULL, T(AQ), T(AK), T(AV), T(AO)); }
BAD(attn_null_v) { return attn(f, NULL, T(AQ), T(AK), NULL, T(AO)); }
BAD(attn_null_o) { return attn(f, NULL, T(AQ), T(AK), T(AV), NULL); }
BAD(attn_dtype_k) { return attn(f, NULL, T(AQ), T(AK16), T(AV), T(AO)); }
BAD(attn_dtype_lse) { pk_attention_desc d = PK_ATTENTION_DESC_INIT; d.lse = T(ALSE16); return attn(f, &d, T(AQ), T(AK), T(AV), T(AO)); }
BAD(attn_head_dim_72) { return attn(f, NULL, T(AQ72), T(AK72), T(AV72), T(AO72)); }
BAD(attn_gqa_ratio) { return attn(f, NULL, T(AQ3), T(AK2), T(AV2), T(AO3)); }
BAD(attn_shape_v) { pk_tensor v = f->t[AV]; v.shape[1] = 4; return attn(f, NULL, T(AQ), T(AK), &v, T(AO)); }
BAD(attn_shape_o) { pk_tensor o = f->t[AO]; o.shape[1] = 2; return attn(f, NULL, T(AQ), T(AK), T(AV), &o); }
BAD(attn_shape_lse)
{
    pk_tensor l = f->t[ALSE];
    l.shape[2] = 2;
    pk_attention_desc d = PK_ATTENTION_DESC_INIT;
    d.lse = &l;
    return attn(f, &d, T(AQ), T(AK), T(AV), T(AO));
}
BAD(attn_ndim3)
{
    int64_t s[3] = {3, 2, 64};
    pk_tensor q = pk_tensor_make(f->buf[AQ], 0, PK_F32, 3, s);
    return attn(f, NULL, &q, T(AK), T(AV), T(AO));
}
BAD(attn_seqlen_past_s)
{
    static const int32_t lkv[1] = {6};
    pk_attention_desc d = PK_ATTENTION_DESC_INIT;
    d.seqlens_kv = lkv;
    return attn(f, &d, T(AQ), T(AK), T(AV), T(AO));
}
BAD(attn_seqlen_negative)
{
    static const int32_t lq[1] = {-1};
    pk_attention_desc d = PK_ATTENTION_DESC_INIT;
    d.seqlens_q = lq;
    return attn(f, &d, T(AQ), T(AK), T(AV), T(AO));
}
BAD(attn_negative_stride) { pk_tensor v = f->t[AV]; v.stride[3] = -1; return attn(f, NULL, T(AQ), T(AK), &v, T(AO)); }
BAD(attn_offset_past_end) { pk_tensor o = f->t[AO]; o.offset = f->bytes[AO] + 4; return attn(f, NULL, T(AQ), T(AK), T(AV), &o); }
BAD(attn_misaligned) { pk_tensor q = f->t[AQ]; q.offset = 6; return attn(f, NULL, &q, T(AK), T(AV), T(AO)); }
BAD(attn_wrong_context)
{
    pk_tensor k = f->t[AK];
    k.buf = f->obuf; /* 96 + 16 bytes: too small as well, but the context is checked first */
    k.shape[1] = 1;
    k.shape[3] = 16;
    k.stride[0] = k.stride[1] = k.stride[2] = 16;
    return attn(f, NULL, T(AQ), &k, T(AV), T(AO));
}

/* rmsnorm, layernorm */
BAD(rms_null_ctx) { pk_norm_desc d = PK_NORM_DESC_INIT; return pk_rmsnorm(NULL, &d, T(RX), T(RW), T(ROUT)); }
BAD(rms_null_desc) { return pk_rmsnorm(f->ctx, NULL, T(RX), T(RW), T(ROUT)); }
BAD(rms_null_x) { return rms(f, NULL, NULL, T(RW), T(ROUT)); }
BAD(rms_null_weight) { return rms(f, NULL, T(RX), NULL, T(ROUT)); }
BAD(rms_null_out) { return rms(f, NULL, T(RX), T(RW), NULL); }
BAD(rms_dtype_weight) { return rms(f, NULL, T(RX), T(RW16), T(ROUT)); }
BAD(rms_dtype_x) { return rms(f, NULL, T(RX16), T(RW), T(ROUT)); }
BAD(rms_shape_weight) { pk_tensor w = f->t[RW]; w.shape[0] = 15; return rms(f, NULL, T(RX), &w, T(ROUT)); }
BAD(rms_shape_out) { pk_tensor o = f->t[ROUT]; o.shape[0] = 2; return rms(f, NULL, T(RX), T(RW), &o); }
BAD(rms_eps_zero) { pk_norm_desc d = PK_NORM_DESC_INIT; d.eps = 0.0f; return rms(f, &d, T(RX), T(RW), T(ROUT)); }
BAD(rms_eps_nan) { pk_norm_desc d = PK_NORM_DESC_INIT; d.eps = __builtin_nanf(""); return rms(f, &d, T(RX), T(RW), T(ROUT)); }
BAD(rms_shape_residual)
{
    pk_tensor r = f->t[RRES];
    r.shape[1] = 8;
    pk_norm_desc d = PK_NORM_DESC_INIT;
    d.residual = &r;
    return rms(f, &d, T(RX), T(RW), T(ROUT));
}
BAD(rms_dtype_residual_out)
{
    int64_t s[2] = {3, 16};
    pk_tensor r = pk_tensor_make(f->buf[RX16], 0, PK_F16, 2, s);
    pk_norm_desc d = PK_NORM_DESC_INIT;
    d.residual = T(RRES);
    d.residual_out = &r;
    return rms(f, &d, T(RX), T(RW), T(ROUT));
}
BAD(rms_out_past_end) { pk_tensor o = f->t[ROUT]; o.offset = 20; return rms(f, NULL, T(RX), T(RW), &o); }
BAD(rms_wrong_context) { pk_tensor w = f->t[RW]; w.buf = f->obuf; return rms(f, NULL, T(RX), &w, T(ROUT)); }
BAD(ln_null_desc) { return pk_layernorm(f->ctx, NULL, T(RX), T(RW), T(RB), T(ROUT)); }
BAD(ln_shape_bias)
{
    pk_tensor b = f->t[RB];
    b.shape[0] = 12;
    pk_norm_desc d = PK_NORM_DESC_INIT;
    return pk_layernorm(f->ctx, &d, T(RX), T(RW), &b, T(ROUT));
}
BAD(ln_eps_negative)
{
    pk_norm_desc d = PK_NORM_DESC_INIT;
    d.eps = -1e-5f;
    return pk_layernorm(f->ctx, &d, T(RX), NULL, NULL, T(ROUT));
}
BAD(ln_dtype_bias)
{
    pk_norm_desc d = PK_NORM_DESC_INIT;
    return pk_layernorm(f->ctx, &d, T(RX), T(RW), T(RW16), T(ROUT));
}
BAD(ln_negative_size) { pk_tensor x = f->t[RX]; x.shape[0] = -3; pk_norm_desc d = PK_NORM_DESC_INIT; return pk_layernorm(f->ctx, &d, &x, NULL, NULL, T(ROUT)); }

/* glu, bias_act, softmax */
BAD(glu_null_up) { return pk_glu(f->ctx, PK_ACT_SILU, T(RX), NULL, T(ROUT)); }
BAD(glu_bad_act) { return pk_glu(f->ctx, PK_ACT_COUNT, T(RX), T(RRES), T(ROUT)); }
BAD(glu_dtype_up) { return pk_glu(f->ctx, PK_ACT_SILU, T(RX), T(RX16), T(ROUT)); }
BAD(glu_shape_up) { pk_tensor u = f->t[RRES]; u.shape[1] = 15; return pk_glu(f->ctx, PK_ACT_SILU, T(RX), &u, T(ROUT)); }
BAD(glu_null_ctx) { return pk_glu(NULL, PK_ACT_SILU, T(RX), T(RRES), T(ROUT)); }
BAD(ba_bad_act) { return pk_bias_act(f->ctx, (pk_activation)-1, T(RX), T(RB), T(ROUT)); }
BAD(ba_shape_bias) { pk_tensor b = f->t[RB]; b.shape[0] = 8; return pk_bias_act(f->ctx, PK_ACT_RELU, T(RX), &b, T(ROUT)); }
BAD(ba_misaligned_out) { pk_tensor o = f->t[ROUT]; o.offset = 1; return pk_bias_act(f->ctx, PK_ACT_RELU, T(RX), T(RB), &o); }
BAD(ba_null_x) { return pk_bias_act(f->ctx, PK_ACT_RELU, NULL, T(RB), T(ROUT)); }
BAD(sm_null_out) { return pk_softmax(f->ctx, 1.0f, T(RX), NULL); }
BAD(sm_negative_size) { pk_tensor x = f->t[RX]; x.shape[1] = -16; return pk_softmax(f->ctx, 1.0f, &x, T(ROUT)); }
BAD(sm_stride_past_end) { pk_tensor o = f->t[ROUT]; o.stride[0] = 20; return pk_softmax(f->ctx, 1.0f, T(RX), &o); }
BAD(sm_wrong_context) { pk_tensor o = f->t[ROUT]; o.buf = f->obuf; return pk_softmax(f->ctx, 1.0f, T(RX), &o); }
BAD(sm_dtype_out)
{
    return pk_softmax(f->ctx, 1.0f, T(RX), T(RX16));
}
BAD(sm_overflow)
{
    pk_tensor x = f->t[RX];
    x.ndim = 4;
    for (int i = 0; i < 4; i++) {
        x.shape[i] = (int64_t)1 << 20;
        x.stride[i] = 0;
    }
    x.stride[3] = 1;
    return pk_softmax(f->ctx, 1.0f, &x, T(ROUT));
}

/* rope */
BAD(rope_null_q) { return rope(f, NULL, NULL, T(PKT)); }
BAD(rope_null_desc) { return pk_rope(f->ctx, NULL, T(PQ), T(PKT)); }
BAD(rope_theta_zero) { pk_rope_desc d = PK_ROPE_DESC_INIT; d.theta = 0.0f; return rope(f, &d, T(PQ), T(PKT)); }
BAD(rope_rotary_odd) { pk_rope_desc d = PK_ROPE_DESC_INIT; d.rotary_dim = 63; return rope(f, &d, T(PQ), T(PKT)); }
BAD(rope_rotary_big) { pk_rope_desc d = PK_ROPE_DESC_INIT; d.rotary_dim = 66; return rope(f, &d, T(PQ), T(PKT)); }
BAD(rope_dtype_k) { return rope(f, NULL, T(PQ), T(PK16)); }
BAD(rope_shape_k) { pk_tensor k = f->t[PKT]; k.shape[1] = 2; return rope(f, NULL, T(PQ), &k); }
BAD(rope_ndim3) { int64_t s[3] = {3, 2, 64}; pk_tensor q = pk_tensor_make(f->buf[PQ], 0, PK_F32, 3, s); return rope(f, NULL, &q, NULL); }
BAD(rope_q_past_end) { pk_tensor q = f->t[PQ]; q.offset = 64; return rope(f, NULL, &q, NULL); }
static pk_status rope_freq(fx *f, const pk_tensor *inv_freq)
{
    pk_rope_desc d = PK_ROPE_DESC_INIT;
    d.inv_freq = inv_freq;
    return rope(f, &d, T(PQ), T(PKT));
}
BAD(rope_freq_dtype) { return rope_freq(f, T(PF16)); }
BAD(rope_freq_length) { pk_tensor t = f->t[PF]; t.shape[0] = 31; return rope_freq(f, &t); }
BAD(rope_freq_ndim2) { int64_t s[2] = {2, 16}; pk_tensor t = pk_tensor_make(f->buf[PF], 0, PK_F32, 2, s); return rope_freq(f, &t); }
BAD(rope_freq_past_end) { pk_tensor t = f->t[PF]; t.offset = 64; return rope_freq(f, &t); }
BAD(rope_freq_wrong_context) { pk_tensor t = f->t[PF]; t.buf = f->obuf; return rope_freq(f, &t); }

/* chain */
BAD(chain_null_out) { return chain(f, NULL, T(CX), T(CY), NULL); }
BAD(chain_null_desc) { return pk_chain(f->ctx, NULL, T(COUT)); }
BAD(chain_null_inputs) { pk_chain_desc d = PK_CHAIN_DESC_INIT; d.n_inputs = 2; d.n_steps = 2; d.steps = chain_steps; return pk_chain(f->ctx, &d, T(COUT)); }
BAD(chain_n_inputs_0)
{
    pk_chain_desc d = PK_CHAIN_DESC_INIT;
    d.n_inputs = 0;
    d.inputs = T(CX);
    d.n_steps = 1;
    d.steps = chain_steps + 1;
    return pk_chain(f->ctx, &d, T(COUT));
}
BAD(chain_n_inputs_9)
{
    pk_tensor in[9];
    for (int i = 0; i < 9; i++) in[i] = f->t[CX];
    pk_chain_desc d = PK_CHAIN_DESC_INIT;
    d.n_inputs = 9;
    d.inputs = in;
    return chain(f, &d, T(CX), T(CY), T(COUT));
}
BAD(chain_n_steps_33)
{
    pk_chain_step s[33];
    for (int i = 0; i < 33; i++) s[i] = (pk_chain_step){PK_CHAIN_ADD, 0, 1, 0.0f};
    pk_chain_desc d = PK_CHAIN_DESC_INIT;
    d.n_steps = 33;
    d.steps = s;
    return chain(f, &d, T(CX), T(CY), T(COUT));
}
BAD(chain_bad_op)
{
    pk_chain_step s[1] = {{PK_CHAIN_OP_COUNT, 0, 1, 0.0f}};
    pk_chain_desc d = PK_CHAIN_DESC_INIT;
    d.n_steps = 1;
    d.steps = s;
    return chain(f, &d, T(CX), T(CY), T(COUT));
}
BAD(chain_index_not_earlier)
{
    pk_chain_step s[2] = {{PK_CHAIN_MUL, 0, 2, 0.0f}, {PK_CHAIN_NEG, 2, 0, 0.0f}};
    pk_chain_desc d = PK_CHAIN_DESC_INIT;
    d.n_steps = 2;
    d.steps = s;
    return chain(f, &d, T(CX), T(CY), T(COUT));
}
BAD(chain_not_broadcastable) { return chain(f, NULL, T(CX), T(CZ), T(COUT)); }
BAD(chain_out_negative_stride) { pk_tensor o = f->t[COUT]; o.stride[0] = -16; return chain(f, NULL, T(CX), T(CY), &o); }
BAD(chain_input_past_end) { pk_tensor y = f->t[CY]; y.offset = 32; return chain(f, NULL, T(CX), &y, T(COUT)); }


/* hostile sizes, overlap, dead handles (the hostile/ cases) */
BAD(gemm_broadcast_k)
{
    /* K = 2^40 read from 4 bytes: no input stores the reduction */
    int64_t sa[2] = {1, (int64_t)1 << 40}, sb[2] = {(int64_t)1 << 40, 1}, sd[2] = {1, 1};
    pk_tensor a = pk_tensor_make(f->buf[GA], 0, PK_F32, 2, sa), b = pk_tensor_make(f->buf[GB], 0, PK_F32, 2, sb);
    pk_tensor d = pk_tensor_make(f->buf[GD], 0, PK_F32, 2, sd);
    a.stride[0] = a.stride[1] = b.stride[0] = b.stride[1] = 0;
    return gemm(f, NULL, &a, &b, NULL, &d);
}
BAD(gemm_d_overlaps_a)
{
    int64_t sd[2] = {4, 6};
    pk_tensor d = pk_tensor_make(f->buf[GA], 16, PK_F32, 2, sd);
    return gemm(f, NULL, T(GA), T(GB), NULL, &d);
}
BAD(gemm_d_self_alias)
{
    pk_tensor d = f->t[GD];
    d.stride[0] = 1; /* rows one element apart: row 1 starts inside row 0 */
    return gemm(f, NULL, T(GA), T(GB), NULL, &d);
}
BAD(gemm_c_shifted)
{
    pk_gemm_desc d = PK_GEMM_DESC_INIT;
    d.beta = 1.0f;
    int64_t s[2] = {4, 6};
    pk_tensor c = pk_tensor_make(f->buf[GD], 4, PK_F32, 2, s); /* D one element on: neither apart nor the same */
    return gemm(f, &d, T(GA), T(GB), &c, T(GD));
}
BAD(gemm_residual_is_d) { pk_gemm_desc d = PK_GEMM_DESC_INIT; d.residual = T(GD); return gemm(f, &d, T(GA), T(GB), NULL, T(GD)); }
BAD(gemm_empty_a_huge_stride)
{
    /* K = 0 reads nothing of A, but rows 2^62 apart overflow the offsets a
     * backend forms (the API fuzzer's finding on ref) */
    int64_t sa[3] = {1, 4, 0};
    pk_tensor a = pk_tensor_make(f->buf[GA], 0, PK_F32, 3, sa), b = f->t[GB];
    a.stride[1] = (int64_t)1 << 62;
    b.shape[0] = 0;
    return gemm(f, NULL, &a, &b, NULL, T(GD));
}
BAD(attn_broadcast_skv)
{
    /* 2^31 - 1 keys, all one vector: no input stores the reduction */
    pk_tensor k = f->t[AK], v = f->t[AV];
    k.shape[1] = v.shape[1] = INT32_MAX;
    k.stride[0] = k.stride[1] = v.stride[0] = v.stride[1] = 0;
    return attn(f, NULL, T(AQ), &k, &v, T(AO));
}
BAD(attn_batch_2_31)
{
    /* every tensor broadcasts or is empty, so 2^31 batches fit the fixture;
     * the kernels' 32-bit batch index would wrap */
    pk_tensor q = f->t[AQ], k = f->t[AK], v = f->t[AV], o = f->t[AO];
    q.shape[0] = k.shape[0] = v.shape[0] = o.shape[0] = (int64_t)1 << 31;
    q.shape[1] = o.shape[1] = 0;
    q.stride[0] = k.stride[0] = v.stride[0] = 0;
    return attn(f, NULL, &q, &k, &v, &o);
}
BAD(attn_o_overlaps_v)
{
    int64_t s[4] = {1, 1, 2, 64};
    pk_tensor o = f->t[AO], v = pk_tensor_make(f->buf[AO], 0, PK_F32, 4, s);
    v.shape[1] = 5;
    v.stride[1] = 0; /* one stored key row, read as 5 */
    v.shape[2] = 1;
    return attn(f, NULL, T(AQ), T(AK), &v, &o);
}
BAD(attn_lse_overlaps_o)
{
    int64_t s[3] = {1, 2, 3};
    pk_tensor l = pk_tensor_make(f->buf[AO], 64, PK_F32, 3, s);
    pk_attention_desc d = PK_ATTENTION_DESC_INIT;
    d.lse = &l;
    return attn(f, &d, T(AQ), T(AK), T(AV), T(AO));
}
BAD(rms_in_place) { return rms(f, NULL, T(RX), T(RW), T(RX)); }
BAD(rms_residual_out_is_out)
{
    pk_norm_desc d = PK_NORM_DESC_INIT;
    d.residual = T(RRES);
    d.residual_out = T(ROUT);
    return rms(f, &d, T(RX), T(RW), T(ROUT));
}
BAD(sm_out_shifted) { int64_t s[2] = {3, 16}; pk_tensor o = pk_tensor_make(f->buf[RX], 8, PK_F32, 2, s); return pk_softmax(f->ctx, 1.0f, T(RX), &o); }
BAD(glu_out_is_up) { return pk_glu(f->ctx, PK_ACT_SILU, T(RX), T(RRES), T(RRES)); }
BAD(ba_out_over_bias) { int64_t s[2] = {1, 16}; pk_tensor o = pk_tensor_make(f->buf[RB], 0, PK_F32, 2, s); int64_t sx[2] = {1, 16}; pk_tensor x = pk_tensor_make(f->buf[RX], 0, PK_F32, 2, sx); return pk_bias_act(f->ctx, PK_ACT_RELU, &x, T(RB), &o); }
BAD(rope_k_is_q) { pk_tensor k = f->t[PQ]; k.shape[2] = 1; return rope(f, NULL, T(PQ), &k); }
BAD(rope_seq_2_31)
{
    pk_tensor q = f->t[PQ];
    q.shape[1] = (int64_t)1 << 31;
    q.shape[2] = 0;
    return rope(f, NULL, &q, NULL);
}
BAD(chain_out_shifted)
{
    int64_t s[2] = {3, 16};
    pk_tensor o = pk_tensor_make(f->buf[CX], 4, PK_F32, 2, s);
    o.shape[0] = 2;
    int64_t sx[2] = {2, 16};
    pk_tensor x = pk_tensor_make(f->buf[CX], 0, PK_F32, 2, sx);
    return chain(f, NULL, &x, T(CY), &o);
}
/* A handle freed (and its slot taken again by a new buffer) stays dead:
 * `use` gets the dead handle while the new buffer is live. */
static pk_status with_freed_handle(fx *f, pk_status (*use)(fx *f, pk_buffer *dead))
{
    pk_buffer *dead = NULL, *live = NULL;
    pk_status s = pk_alloc(f->ctx, f->bytes[GA], &dead);
    if (s == PK_SUCCESS) s = pk_free(dead);
    if (s == PK_SUCCESS) s = pk_alloc(f->ctx, f->bytes[GA], &live);
    if (s == PK_SUCCESS) s = use(f, dead);
    if (live) pk_free(live);
    return s;
}
static pk_status gemm_on_dead(fx *f, pk_buffer *dead)
{
    pk_tensor a = f->t[GA];
    a.buf = dead;
    return gemm(f, NULL, &a, T(GB), NULL, T(GD));
}
static pk_status upload_to_dead(fx *f, pk_buffer *dead)
{
    unsigned char src[16] = {0};
    (void)f;
    return pk_upload(dead, 0, src, sizeof src);
}
static pk_status free_dead(fx *f, pk_buffer *dead)
{
    (void)f;
    return pk_free(dead);
}
BAD(gemm_freed_buffer) { return with_freed_handle(f, gemm_on_dead); }
BAD(upload_freed_buffer) { return with_freed_handle(f, upload_to_dead); }
BAD(free_twice) { return with_freed_handle(f, free_dead); }
BAD(free_garbage_handle) { return pk_free((pk_buffer *)(uintptr_t)0x12345678u); }

/* memory, devices */
BAD(alloc_zero) { pk_buffer *b = NULL; pk_status s = pk_alloc(f->ctx, 0, &b); if (b) pk_free(b); return s; }
BAD(alloc_huge) { pk_buffer *b = NULL; pk_status s = pk_alloc(f->ctx, (size_t)1 << 62, &b); if (b) pk_free(b); return s; }
BAD(alloc_null_out) { return pk_alloc(f->ctx, 64, NULL); }
BAD(alloc_null_ctx) { pk_buffer *b = NULL; pk_status s = pk_alloc(NULL, 64, &b); if (b) pk_free(b); return s; }
BAD(upload_past_end) { unsigned char src[64] = {0}; return pk_upload(f->buf[GD], f->bytes[GD] - 8, src, 16); }
BAD(upload_null_src) { return pk_upload(f->buf[GD], 0, NULL, 16); }
BAD(upload_null_buf) { unsigned char src[16] = {0}; return pk_upload(NULL, 0, src, 16); }
BAD(download_past_end) { unsigned char dst[64]; return pk_download(f->buf[GD], 8, dst, f->bytes[GD]); }
BAD(download_null_dst) { return pk_download(f->buf[GD], 0, NULL, 16); }
BAD(fill_pattern_size) { unsigned char p[3] = {1, 2, 3}; return pk_fill(f->buf[GD], 0, 12, p, 3); }
BAD(fill_misaligned) { uint32_t p = 0x3f800000u; return pk_fill(f->buf[GD], 2, 8, &p, 4); }
BAD(fill_past_end) { uint32_t p = 0; return pk_fill(f->buf[GD], 0, f->bytes[GD] + 4, &p, 4); }
BAD(copy_wrong_context) { return pk_copy(f->buf[GD], 0, f->obuf, 0, 16); }
BAD(copy_past_end) { return pk_copy(f->buf[GD], 0, f->buf[GC], 16, f->bytes[GC]); }
BAD(open_bad_backend) { pk_context *c = NULL; pk_status s = pk_open(PK_BACKEND_COUNT, 0, &c); if (c) pk_close(c); return s; }
BAD(open_null_out) { return pk_open(PK_BACKEND_REF, 0, NULL); }
BAD(open_no_device) { pk_context *c = NULL; pk_status s = pk_open(PK_BACKEND_REF, 1000, &c); if (c) pk_close(c); return s; }
BAD(device_count_null) { return pk_device_count(PK_BACKEND_REF, NULL); }
BAD(backend_from_name) { pk_backend b; return pk_backend_from_name("vulkan", &b); }

enum { W_CTX = 0, W_NULL = 1, W_ANY = 2 };

typedef struct bad_case {
    const char *name;
    pk_status expect;
    const char *func;   /* the message starts with it */
    const char *needle; /* the message contains one of these ('|' separated); NULL: any */
    int where;          /* whose pk_last_error: W_CTX, W_NULL */
    int needs_other;    /* needs a second context */
    pk_status (*fn)(fx *f);
} bad_case;

#define E(st) PK_ERR_##st
static const bad_case bad_cases[] = {
    {"gemm/null-ctx", E(NULL_ARGUMENT), "pk_gemm", "'ctx'", W_NULL, 0, gemm_null_ctx},
    {"gemm/null-desc", E(NULL_ARGUMENT), "pk_gemm", "'desc'", W_CTX, 0, gemm_null_desc},
    {"gemm/null-a", E(NULL_ARGUMENT), "pk_gemm", "'a'", W_CTX, 0, gemm_null_a},
    {"gemm/null-d", E(NULL_ARGUMENT), "pk_gemm", "'d'", W_CTX, 0, gemm_null_d},
    {"gemm/null-buffer-b", E(NULL_ARGUMENT), "pk_gemm", "'b'", W_CTX, 0, gemm_null_buf_b},
    {"gemm/beta1-c-null", E(NULL_ARGUMENT), "pk_gemm", "'c'", W_CTX, 0, gemm_beta_no_c},
    {"gemm/dtype-a-vs-b", E(DTYPE_MISMATCH), "pk_gemm", "'b'|'a'", W_CTX, 0, gemm_dtype_ab},
    {"gemm/dtype-bias-vs-d", E(DTYPE_MISMATCH), "pk_gemm", "'desc->bias'", W_CTX, 0, gemm_dtype_bias},
    {"gemm/dtype-c-vs-d", E(DTYPE_MISMATCH), "pk_gemm", "'c'", W_CTX, 0, gemm_dtype_c},
    {"gemm/shape-k", E(SHAPE_MISMATCH), "pk_gemm", "'b'|'a'", W_CTX, 0, gemm_shape_k},
    {"gemm/shape-d", E(SHAPE_MISMATCH), "pk_gemm", "'d'", W_CTX, 0, gemm_shape_d},
    {"gemm/shape-bias-length", E(SHAPE_MISMATCH), "pk_gemm", "'desc->bias'", W_CTX, 0, gemm_shape_bias},
    {"gemm/shape-residual", E(SHAPE_MISMATCH), "pk_gemm", "'desc->residual'", W_CTX, 0, gemm_shape_residual},
    {"gemm/shape-batch", E(SHAPE_MISMATCH), "pk_gemm", "'a'|'b'|'d'", W_CTX, 0, gemm_shape_batch},
    {"gemm/ndim4", E(SHAPE_MISMATCH), "pk_gemm", "'a'", W_CTX, 0, gemm_ndim4},
    {"gemm/ndim0", E(INVALID_ARGUMENT), "pk_gemm", "'b'", W_CTX, 0, gemm_ndim0},
    {"gemm/negative-size", E(BAD_SIZE), "pk_gemm", "'a'", W_CTX, 0, gemm_negative_size},
    {"gemm/negative-stride", E(BAD_SIZE), "pk_gemm", "'a'", W_CTX, 0, gemm_negative_stride},
    {"gemm/overflow-2^62-rows", E(BAD_SIZE), "pk_gemm", "'a'", W_CTX, 0, gemm_overflow},
    {"gemm/offset-past-end", E(OUT_OF_BOUNDS), "pk_gemm", "'a'", W_CTX, 0, gemm_offset_past_end},
    {"gemm/stride-past-end", E(OUT_OF_BOUNDS), "pk_gemm", "'d'", W_CTX, 0, gemm_stride_past_end},
    {"gemm/misaligned-offset", E(MISALIGNED), "pk_gemm", "'d'", W_CTX, 0, gemm_misaligned},
    {"gemm/wrong-context", E(WRONG_CONTEXT), "pk_gemm", "'d'", W_CTX, 1, gemm_wrong_context},
    {"gemm/bad-act", E(INVALID_ARGUMENT), "pk_gemm", "'desc->act'", W_CTX, 0, gemm_bad_act},
    {"gemm/bad-dtype-enum", E(INVALID_ARGUMENT), "pk_gemm", "'a'", W_CTX, 0, gemm_bad_dtype},

    {"attention/null-ctx", E(NULL_ARGUMENT), "pk_attention", "'ctx'", W_NULL, 0, attn_null_ctx},
    {"attention/null-desc", E(NULL_ARGUMENT), "pk_attention", "'desc'", W_CTX, 0, attn_null_desc},
    {"attention/null-v", E(NULL_ARGUMENT), "pk_attention", "'v'", W_CTX, 0, attn_null_v},
    {"attention/null-o", E(NULL_ARGUMENT), "pk_attention", "'o'", W_CTX, 0, attn_null_o},
    {"attention/dtype-k-vs-q", E(DTYPE_MISMATCH), "pk_attention", "'k'", W_CTX, 0, attn_dtype_k},
    {"attention/dtype-lse-not-f32", E(DTYPE_MISMATCH), "pk_attention", "'desc->lse'", W_CTX, 0, attn_dtype_lse},
    {"attention/head-dim-72", E(SHAPE_MISMATCH), "pk_attention", "'q'|'k'|'v'|'o'", W_CTX, 0, attn_head_dim_72},
    {"attention/hq-not-multiple-of-hkv", E(SHAPE_MISMATCH), "pk_attention", "'q'|'k'", W_CTX, 0, attn_gqa_ratio},
    {"attention/shape-v", E(SHAPE_MISMATCH), "pk_attention", "'v'", W_CTX, 0, attn_shape_v},
    {"attention/shape-o", E(SHAPE_MISMATCH), "pk_attention", "'o'", W_CTX, 0, attn_shape_o},
    {"attention/shape-lse", E(SHAPE_MISMATCH), "pk_attention", "'desc->lse'", W_CTX, 0, attn_shape_lse},
    {"attention/ndim3", E(SHAPE_MISMATCH), "pk_attention", "'q'", W_CTX, 0, attn_ndim3},
    {"attention/seqlen-kv-past-s", E(OUT_OF_BOUNDS), "pk_attention", "'desc->seqlens_kv'", W_CTX, 0, attn_seqlen_past_s},
    {"attention/seqlen-q-negative", E(BAD_SIZE), "pk_attention", "'desc->seqlens_q'", W_CTX, 0, attn_seqlen_negative},
    {"attention/negative-stride", E(BAD_SIZE), "pk_attention", "'v'", W_CTX, 0, attn_negative_stride},
    {"attention/offset-past-end", E(OUT_OF_BOUNDS), "pk_attention", "'o'", W_CTX, 0, attn_offset_past_end},
    {"attention/misaligned-offset", E(MISALIGNED), "pk_attention", "'q'", W_CTX, 0, attn_misaligned},
    {"attention/wrong-context", E(WRONG_CONTEXT), "pk_attention", "'k'", W_CTX, 1, attn_wrong_context},

    {"rmsnorm/null-ctx", E(NULL_ARGUMENT), "pk_rmsnorm", "'ctx'", W_NULL, 0, rms_null_ctx},
    {"rmsnorm/null-desc", E(NULL_ARGUMENT), "pk_rmsnorm", "'desc'", W_CTX, 0, rms_null_desc},
    {"rmsnorm/null-x", E(NULL_ARGUMENT), "pk_rmsnorm", "'x'", W_CTX, 0, rms_null_x},
    {"rmsnorm/null-weight", E(NULL_ARGUMENT), "pk_rmsnorm", "'weight'", W_CTX, 0, rms_null_weight},
    {"rmsnorm/null-out", E(NULL_ARGUMENT), "pk_rmsnorm", "'out'", W_CTX, 0, rms_null_out},
    {"rmsnorm/dtype-weight", E(DTYPE_MISMATCH), "pk_rmsnorm", "'weight'", W_CTX, 0, rms_dtype_weight},
    {"rmsnorm/dtype-x-vs-out", E(DTYPE_MISMATCH), "pk_rmsnorm", "'x'|'weight'|'out'", W_CTX, 0, rms_dtype_x},
    {"rmsnorm/shape-weight", E(SHAPE_MISMATCH), "pk_rmsnorm", "'weight'", W_CTX, 0, rms_shape_weight},
    {"rmsnorm/shape-out", E(SHAPE_MISMATCH), "pk_rmsnorm", "'out'", W_CTX, 0, rms_shape_out},
    {"rmsnorm/eps-zero", E(INVALID_ARGUMENT), "pk_rmsnorm", "'desc->eps'", W_CTX, 0, rms_eps_zero},
    {"rmsnorm/eps-nan", E(INVALID_ARGUMENT), "pk_rmsnorm", "'desc->eps'", W_CTX, 0, rms_eps_nan},
    {"rmsnorm/shape-residual", E(SHAPE_MISMATCH), "pk_rmsnorm", "'desc->residual'", W_CTX, 0, rms_shape_residual},
    {"rmsnorm/dtype-residual-out", E(DTYPE_MISMATCH), "pk_rmsnorm", "'desc->residual_out'", W_CTX, 0, rms_dtype_residual_out},
    {"rmsnorm/out-past-end", E(OUT_OF_BOUNDS), "pk_rmsnorm", "'out'", W_CTX, 0, rms_out_past_end},
    {"rmsnorm/wrong-context", E(WRONG_CONTEXT), "pk_rmsnorm", "'weight'", W_CTX, 1, rms_wrong_context},
    {"layernorm/null-desc", E(NULL_ARGUMENT), "pk_layernorm", "'desc'", W_CTX, 0, ln_null_desc},
    {"layernorm/shape-bias", E(SHAPE_MISMATCH), "pk_layernorm", "'bias'", W_CTX, 0, ln_shape_bias},
    {"layernorm/eps-negative", E(INVALID_ARGUMENT), "pk_layernorm", "'desc->eps'", W_CTX, 0, ln_eps_negative},
    {"layernorm/dtype-bias", E(DTYPE_MISMATCH), "pk_layernorm", "'bias'", W_CTX, 0, ln_dtype_bias},
    {"layernorm/negative-size", E(BAD_SIZE), "pk_layernorm", "'x'", W_CTX, 0, ln_negative_size},

    {"glu/null-ctx", E(NULL_ARGUMENT), "pk_glu", "'ctx'", W_NULL, 0, glu_null_ctx},
    {"glu/null-up", E(NULL_ARGUMENT), "pk_glu", "'up'", W_CTX, 0, glu_null_up},
    {"glu/bad-act", E(INVALID_ARGUMENT), "pk_glu", "'act'", W_CTX, 0, glu_bad_act},
    {"glu/dtype-up", E(DTYPE_MISMATCH), "pk_glu", "'up'", W_CTX, 0, glu_dtype_up},
    {"glu/shape-up", E(SHAPE_MISMATCH), "pk_glu", "'up'", W_CTX, 0, glu_shape_up},
    {"bias_act/null-x", E(NULL_ARGUMENT), "pk_bias_act", "'x'", W_CTX, 0, ba_null_x},
    {"bias_act/bad-act", E(INVALID_ARGUMENT), "pk_bias_act", "'act'", W_CTX, 0, ba_bad_act},
    {"bias_act/shape-bias", E(SHAPE_MISMATCH), "pk_bias_act", "'bias'", W_CTX, 0, ba_shape_bias},
    {"bias_act/misaligned-out", E(MISALIGNED), "pk_bias_act", "'out'", W_CTX, 0, ba_misaligned_out},
    {"softmax/null-out", E(NULL_ARGUMENT), "pk_softmax", "'out'", W_CTX, 0, sm_null_out},
    {"softmax/negative-size", E(BAD_SIZE), "pk_softmax", "'x'", W_CTX, 0, sm_negative_size},
    {"softmax/stride-past-end", E(OUT_OF_BOUNDS), "pk_softmax", "'out'", W_CTX, 0, sm_stride_past_end},
    {"softmax/wrong-context", E(WRONG_CONTEXT), "pk_softmax", "'out'", W_CTX, 1, sm_wrong_context},
    {"softmax/dtype-out", E(DTYPE_MISMATCH), "pk_softmax", "'out'|'x'", W_CTX, 0, sm_dtype_out},
    {"softmax/overflow-2^80-elements", E(BAD_SIZE), "pk_softmax", "'x'", W_CTX, 0, sm_overflow},

    {"rope/null-q", E(NULL_ARGUMENT), "pk_rope", "'q'", W_CTX, 0, rope_null_q},
    {"rope/null-desc", E(NULL_ARGUMENT), "pk_rope", "'desc'", W_CTX, 0, rope_null_desc},
    {"rope/theta-zero", E(INVALID_ARGUMENT), "pk_rope", "'desc->theta'", W_CTX, 0, rope_theta_zero},
    {"rope/rotary-dim-odd", E(SHAPE_MISMATCH), "pk_rope", "'desc->rotary_dim'", W_CTX, 0, rope_rotary_odd},
    {"rope/rotary-dim-past-d", E(SHAPE_MISMATCH), "pk_rope", "'desc->rotary_dim'", W_CTX, 0, rope_rotary_big},
    {"rope/dtype-k", E(DTYPE_MISMATCH), "pk_rope", "'k'", W_CTX, 0, rope_dtype_k},
    {"rope/shape-k", E(SHAPE_MISMATCH), "pk_rope", "'k'", W_CTX, 0, rope_shape_k},
    {"rope/ndim3", E(SHAPE_MISMATCH), "pk_rope", "'q'", W_CTX, 0, rope_ndim3},
    {"rope/q-past-end", E(OUT_OF_BOUNDS), "pk_rope", "'q'", W_CTX, 0, rope_q_past_end},
    {"rope/dtype-inv-freq", E(DTYPE_MISMATCH), "pk_rope", "'desc->inv_freq'", W_CTX, 0, rope_freq_dtype},
    {"rope/shape-inv-freq", E(SHAPE_MISMATCH), "pk_rope", "'desc->inv_freq'", W_CTX, 0, rope_freq_length},
    {"rope/inv-freq-ndim2", E(SHAPE_MISMATCH), "pk_rope", "'desc->inv_freq'", W_CTX, 0, rope_freq_ndim2},
    {"rope/inv-freq-past-end", E(OUT_OF_BOUNDS), "pk_rope", "'desc->inv_freq'", W_CTX, 0, rope_freq_past_end},
    {"rope/inv-freq-wrong-context", E(WRONG_CONTEXT), "pk_rope", "'desc->inv_freq'", W_CTX, 1, rope_freq_wrong_context},

    {"chain/null-out", E(NULL_ARGUMENT), "pk_chain", "'out'", W_CTX, 0, chain_null_out},
    {"chain/null-desc", E(NULL_ARGUMENT), "pk_chain", "'desc'", W_CTX, 0, chain_null_desc},
    {"chain/null-inputs", E(NULL_ARGUMENT), "pk_chain", "'desc->inputs'", W_CTX, 0, chain_null_inputs},
    {"chain/n-inputs-0", E(INVALID_ARGUMENT), "pk_chain", "'desc->n_inputs'", W_CTX, 0, chain_n_inputs_0},
    {"chain/n-inputs-9", E(INVALID_ARGUMENT), "pk_chain", "'desc->n_inputs'", W_CTX, 0, chain_n_inputs_9},
    {"chain/n-steps-33", E(INVALID_ARGUMENT), "pk_chain", "'desc->n_steps'", W_CTX, 0, chain_n_steps_33},
    {"chain/bad-op", E(INVALID_ARGUMENT), "pk_chain", "'desc->steps", W_CTX, 0, chain_bad_op},
    {"chain/index-not-earlier", E(INVALID_ARGUMENT), "pk_chain", "'desc->steps", W_CTX, 0, chain_index_not_earlier},
    {"chain/not-broadcastable", E(SHAPE_MISMATCH), "pk_chain", "'desc->inputs", W_CTX, 0, chain_not_broadcastable},
    {"chain/negative-stride-out", E(BAD_SIZE), "pk_chain", "'out'", W_CTX, 0, chain_out_negative_stride},
    {"chain/input-past-end", E(OUT_OF_BOUNDS), "pk_chain", "'desc->inputs", W_CTX, 0, chain_input_past_end},

    {"hostile/gemm-k-2^40-broadcast", E(INVALID_ARGUMENT), "pk_gemm", "'a'", W_CTX, 0, gemm_broadcast_k},
    {"hostile/gemm-d-overlaps-a", E(INVALID_ARGUMENT), "pk_gemm", "'d'", W_CTX, 0, gemm_d_overlaps_a},
    {"hostile/gemm-d-rows-alias", E(INVALID_ARGUMENT), "pk_gemm", "'d'", W_CTX, 0, gemm_d_self_alias},
    {"hostile/gemm-c-shifted-from-d", E(INVALID_ARGUMENT), "pk_gemm", "'c'", W_CTX, 0, gemm_c_shifted},
    {"hostile/gemm-residual-is-d", E(INVALID_ARGUMENT), "pk_gemm", "'desc->residual'", W_CTX, 0, gemm_residual_is_d},
    {"hostile/gemm-empty-a-rows-2^62-apart", E(BAD_SIZE), "pk_gemm", "'a'", W_CTX, 0, gemm_empty_a_huge_stride},
    {"hostile/attention-skv-2^31-broadcast", E(INVALID_ARGUMENT), "pk_attention", "'k'", W_CTX, 0, attn_broadcast_skv},
    {"hostile/attention-batch-2^31", E(BAD_SIZE), "pk_attention", "'q'", W_CTX, 0, attn_batch_2_31},
    {"hostile/attention-o-overlaps-v", E(INVALID_ARGUMENT), "pk_attention", "'o'", W_CTX, 0, attn_o_overlaps_v},
    {"hostile/attention-lse-overlaps-o", E(INVALID_ARGUMENT), "pk_attention", "'desc->lse'", W_CTX, 0, attn_lse_overlaps_o},
    {"hostile/rmsnorm-in-place", E(INVALID_ARGUMENT), "pk_rmsnorm", "'out'", W_CTX, 0, rms_in_place},
    {"hostile/rmsnorm-residual-out-is-out", E(INVALID_ARGUMENT), "pk_rmsnorm", "'desc->residual_out'", W_CTX, 0, rms_residual_out_is_out},
    {"hostile/softmax-out-shifted", E(INVALID_ARGUMENT), "pk_softmax", "'out'", W_CTX, 0, sm_out_shifted},
    {"hostile/glu-out-is-up", E(INVALID_ARGUMENT), "pk_glu", "'up'", W_CTX, 0, glu_out_is_up},
    {"hostile/bias-act-out-over-bias", E(INVALID_ARGUMENT), "pk_bias_act", "'bias'", W_CTX, 0, ba_out_over_bias},
    {"hostile/rope-k-is-q", E(INVALID_ARGUMENT), "pk_rope", "'k'", W_CTX, 0, rope_k_is_q},
    {"hostile/rope-seq-2^31", E(BAD_SIZE), "pk_rope", "'q'", W_CTX, 0, rope_seq_2_31},
    {"hostile/chain-out-shifted", E(INVALID_ARGUMENT), "pk_chain", "'desc->inputs[0]'", W_CTX, 0, chain_out_shifted},
    {"hostile/gemm-freed-buffer", E(INVALID_ARGUMENT), "pk_gemm", "'a'", W_CTX, 0, gemm_freed_buffer},
    {"hostile/upload-freed-buffer", E(INVALID_ARGUMENT), "pk_upload", "'dst'", W_NULL, 0, upload_freed_buffer},
    {"hostile/free-twice", E(INVALID_ARGUMENT), "pk_free", "'buf'", W_NULL, 0, free_twice},
    {"hostile/free-garbage-handle", E(INVALID_ARGUMENT), "pk_free", "'buf'", W_NULL, 0, free_garbage_handle},

    {"memory/alloc-0", E(BAD_SIZE), "pk_alloc", "'bytes'", W_CTX, 0, alloc_zero},
    {"memory/alloc-2^62", E(OUT_OF_MEMORY), "pk_alloc", NULL, W_CTX, 0, alloc_huge},
    {"memory/alloc-null-out", E(NULL_ARGUMENT), "pk_alloc", "'out'", W_CTX, 0, alloc_null_out},
    {"memory/alloc-null-ctx", E(NULL_ARGUMENT), "pk_alloc", "'ctx'", W_NULL, 0, alloc_null_ctx},
    {"memory/upload-past-end", E(OUT_OF_BOUNDS), "pk_upload", "'dst_offset'|'bytes'|'dst'", W_CTX, 0, upload_past_end},
    {"memory/upload-null-src", E(NULL_ARGUMENT), "pk_upload", "'src'", W_CTX, 0, upload_null_src},
    {"memory/upload-null-buffer", E(NULL_ARGUMENT), "pk_upload", "'dst'", W_NULL, 0, upload_null_buf},
    {"memory/download-past-end", E(OUT_OF_BOUNDS), "pk_download", "'src_offset'|'bytes'|'src'", W_CTX, 0, download_past_end},
    {"memory/download-null-dst", E(NULL_ARGUMENT), "pk_download", "'dst'", W_CTX, 0, download_null_dst},
    {"memory/fill-pattern-size-3", E(INVALID_ARGUMENT), "pk_fill", "'pattern_size'", W_CTX, 0, fill_pattern_size},
    {"memory/fill-misaligned", E(MISALIGNED), "pk_fill", "'offset'", W_CTX, 0, fill_misaligned},
    {"memory/fill-past-end", E(OUT_OF_BOUNDS), "pk_fill", "'bytes'|'offset'|'dst'", W_CTX, 0, fill_past_end},
    {"memory/copy-wrong-context", E(WRONG_CONTEXT), "pk_copy", "'src'|'dst'", W_CTX, 1, copy_wrong_context},
    {"memory/copy-past-end", E(OUT_OF_BOUNDS), "pk_copy", "'src_offset'|'bytes'|'src'", W_CTX, 0, copy_past_end},
    {"device/open-bad-backend", E(INVALID_ARGUMENT), "pk_open", "'b'|'backend'", W_NULL, 0, open_bad_backend},
    {"device/open-null-out", E(NULL_ARGUMENT), "pk_open", "'out'", W_NULL, 0, open_null_out},
    {"device/open-no-device", E(NO_DEVICE), "pk_open", "'index'", W_NULL, 0, open_no_device},
    {"device/count-null", E(NULL_ARGUMENT), "pk_device_count", "'count'", W_NULL, 0, device_count_null},
    {"device/backend-from-name", E(INVALID_ARGUMENT), "pk_backend_from_name", "'name'|vulkan", W_NULL, 0, backend_from_name},
};
#undef E

int cf_bad_count(void) { return (int)(sizeof bad_cases / sizeof bad_cases[0]); }

const char *cf_bad_name(int i, char *buf, size_t n)
{
    snprintf(buf, n, "bad_input/%s", bad_cases[i].name);
    return buf;
}

static int has_needle(const char *msg, const char *needles)
{
    if (!needles) return 1;
    const char *p = needles;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        char one[64];
        if (len >= sizeof one) len = sizeof one - 1;
        memcpy(one, p, len);
        one[len] = 0;
        if (strstr(msg, one)) return 1;
        if (!bar) break;
        p = bar + 1;
    }
    return 0;
}

void cf_bad_run(int i, pk_context *ctx, pk_context *other, cf_result *res)
{
    const bad_case *b = &bad_cases[i];
    memset(res, 0, sizeof *res);
    if (b->needs_other && !other) {
        res->status = CF_SKIP;
        cf_msg_append(res, "could not open a second context");
        return;
    }
    fx f;
    const char *err = fx_init(&f, ctx, other);
    if (err) {
        res->status = CF_FAIL;
        cf_msg_append(res, "%s: %s", err, pk_last_error(ctx));
        fx_free(&f);
        return;
    }
    pk_status st = b->fn(&f);
    /* copy the message before any other call replaces it */
    char msg[600];
    snprintf(msg, sizeof msg, "%s", pk_last_error(b->where == W_NULL ? NULL : ctx));

    res->status = CF_PASS;
    if (st != b->expect) {
        res->status = CF_FAIL;
        cf_msg_append(res, "status %s, expected %s", pk_status_string(st), pk_status_string(b->expect));
    }
    size_t fl = strlen(b->func);
    if (strncmp(msg, b->func, fl) != 0 || (msg[fl] != ':' && msg[fl] != ' ')) {
        res->status = CF_FAIL;
        cf_msg_append(res, "message does not start with '%s:'", b->func);
    }
    if (!has_needle(msg, b->needle)) {
        res->status = CF_FAIL;
        cf_msg_append(res, "message does not name %s", b->needle);
    }
    pk_status fs = pk_finish(ctx);
    if (fs != PK_SUCCESS) {
        res->status = CF_FAIL;
        cf_msg_append(res, "pk_finish after it: %s: %s", pk_status_string(fs), pk_last_error(ctx));
    }
    size_t at = 0;
    int ch = fx_changed(&f, &at);
    if (ch >= 0) {
        res->status = CF_FAIL;
        cf_msg_append(res, "a buffer was written (fixture tensor %d, byte %zu)", ch, at);
    } else if (ch < -1) {
        res->status = CF_FAIL;
        cf_msg_append(res, "could not download the fixture back");
    }
    cf_msg_append(res, "[%s]", msg);
    if (res->status == CF_PASS) {
        /* keep the line short when it passes: only the message */
        snprintf(res->msg, sizeof res->msg, "%s", msg);
    }
    fx_free(&f);
}
