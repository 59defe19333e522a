/* Fused chain cases: small programs over broadcast inputs of mixed dtypes.
 * Args: 0..n_inputs-1 the inputs, 8 the output. */
#include <stdio.h>
#include <string.h>

#include "conform.h"

#define OUT_ PK_CHAIN_MAX_INPUTS

static pk_status run_chain(const cf_case *c, pk_context *ctx, const pk_tensor *t)
{
    pk_chain_desc d = PK_CHAIN_DESC_INIT;
    d.n_inputs = c->p.chain.n_inputs;
    d.inputs = t; /* args 0..n_inputs-1 are contiguous */
    d.n_steps = c->p.chain.n_steps;
    d.steps = c->p.chain.steps;
    return pk_chain(ctx, &d, cf_t(t, OUT_));
}

/* How an input is broadcast to the output shape. */
enum { BK_FULL = 0, BK_ROW, BK_COL, BK_SCALAR, BK_STRIDE0 };
/* How its values are drawn. */
enum { GN_SYM = 0, GN_POS, GN_NORMAL };

typedef struct prog {
    const char *name;
    int n_in;
    int kind[PK_CHAIN_MAX_INPUTS];
    int gen[PK_CHAIN_MAX_INPUTS];
    int n_steps;
    pk_chain_step steps[PK_CHAIN_MAX_STEPS];
} prog;

#define S2(o, x, y) {PK_CHAIN_##o, x, y, 0.0f}
#define S1(o, x) {PK_CHAIN_##o, x, 0, 0.0f}
#define SI(o, x, v) {PK_CHAIN_##o, x, 0, v}

static const prog progs[] = {
    /* a * b + c: b a row vector, c a column vector */
    {"fma-row-col", 3, {BK_FULL, BK_ROW, BK_COL}, {GN_SYM, GN_SYM, GN_SYM}, 2, {S2(MUL, 0, 1), S2(ADD, 3, 2)}},
    /* SwiGLU by hand */
    {"silu-mul", 2, {BK_FULL, BK_FULL}, {GN_NORMAL, GN_NORMAL}, 2, {S1(SILU, 0), S2(MUL, 2, 1)}},
    /* x + 0.5 y + 0.25, y broadcast along a leading dim by stride 0 */
    {"residual-scale", 2, {BK_FULL, BK_STRIDE0}, {GN_SYM, GN_SYM}, 3,
     {SI(MUL_IMM, 1, 0.5f), S2(ADD, 0, 2), SI(ADD_IMM, 3, 0.25f)}},
    /* softplus: log(exp(a) + 1) */
    {"softplus", 1, {BK_FULL}, {GN_NORMAL}, 3, {S1(EXP, 0), SI(ADD_IMM, 1, 1.0f), S1(LOG, 2)}},
    /* sqrt(a) * b + rsqrt(a) */
    {"sqrt-rsqrt", 2, {BK_FULL, BK_ROW}, {GN_POS, GN_SYM}, 4,
     {S1(SQRT, 0), S1(RSQRT, 0), S2(MUL, 2, 1), S2(ADD, 4, 3)}},
    /* -|tanh(a) - sigmoid(b)| */
    {"tanh-sigmoid", 2, {BK_FULL, BK_COL}, {GN_NORMAL, GN_NORMAL}, 5,
     {S1(TANH, 0), S1(SIGMOID, 1), S2(SUB, 2, 3), S1(ABS, 4), S1(NEG, 5)}},
    /* min(max(a^1.5, lo), hi): lo a scalar, hi a row */
    {"pow-clamp", 3, {BK_FULL, BK_SCALAR, BK_ROW}, {GN_POS, GN_SYM, GN_POS}, 3,
     {SI(POW_IMM, 0, 1.5f), S2(MAX, 3, 1), S2(MIN, 4, 2)}},
    /* (gelu(a) + gelu_tanh(b) + relu(a)) / c */
    {"acts-div", 3, {BK_FULL, BK_FULL, BK_COL}, {GN_NORMAL, GN_NORMAL, GN_POS}, 6,
     {S1(GELU, 0), S1(GELU_TANH, 1), S1(RELU, 0), S2(ADD, 3, 4), S2(ADD, 6, 5), S2(DIV, 7, 2)}},
    /* 0.25 * (sum of 8 inputs of every broadcast kind) */
    {"sum8", 8, {BK_FULL, BK_ROW, BK_COL, BK_SCALAR, BK_STRIDE0, BK_FULL, BK_ROW, BK_FULL},
     {GN_SYM, GN_SYM, GN_SYM, GN_SYM, GN_SYM, GN_SYM, GN_SYM, GN_SYM}, 8,
     {S2(ADD, 0, 1), S2(ADD, 8, 2), S2(ADD, 9, 3), S2(ADD, 10, 4), S2(ADD, 11, 5), S2(ADD, 12, 6),
      S2(ADD, 13, 7), SI(MUL_IMM, 14, 0.25f)}},
    /* many values alive at once, so that the GPU kernels with more
     * registers a thread run (pk_ew_chain_s16, _s40): 8 of a (10 slots),
     * then 15 of a (17 slots), summed with a and b */
    {"wide10", 2, {BK_FULL, BK_ROW}, {GN_SYM, GN_SYM}, 17,
     {SI(MUL_IMM, 0, 0.5f), SI(ADD_IMM, 0, 0.25f), S1(NEG, 0), S1(ABS, 0), S1(TANH, 0), S1(SIGMOID, 0),
      S1(RELU, 0), S1(SILU, 0), S2(ADD, 2, 3), S2(ADD, 10, 4), S2(ADD, 11, 5), S2(ADD, 12, 6), S2(ADD, 13, 7),
      S2(ADD, 14, 8), S2(ADD, 15, 9), S2(SUB, 16, 0), S2(MUL, 17, 1)}},
    {"wide17", 2, {BK_FULL, BK_COL}, {GN_SYM, GN_SYM}, 31,
     {SI(MUL_IMM, 0, 0.5f), SI(ADD_IMM, 0, 0.25f), S1(NEG, 0), S1(ABS, 0), S1(TANH, 0), S1(SIGMOID, 0),
      S1(RELU, 0), S1(SILU, 0), S1(GELU, 0), S1(GELU_TANH, 0), SI(MUL_IMM, 0, -0.75f), SI(ADD_IMM, 0, -1.0f),
      S1(EXP, 0), SI(MUL_IMM, 0, 0.125f), SI(ADD_IMM, 0, 2.0f),
      S2(ADD, 2, 3), S2(ADD, 17, 4), S2(ADD, 18, 5), S2(ADD, 19, 6), S2(ADD, 20, 7), S2(ADD, 21, 8),
      S2(ADD, 22, 9), S2(ADD, 23, 10), S2(ADD, 24, 11), S2(ADD, 25, 12), S2(ADD, 26, 13), S2(ADD, 27, 14),
      S2(ADD, 28, 15), S2(ADD, 29, 16), S2(SUB, 30, 0), S2(MUL, 31, 1)}},
};

enum { CV_PLAIN = 0, CV_MIXED, CV_4D_PADDED };

static cf_spec in_spec(int kind, pk_dtype dt, int ndim, const int64_t *oshape)
{
    int64_t sh[4];
    memcpy(sh, oshape, sizeof sh);
    cf_spec s;
    switch (kind) {
    case BK_ROW: /* fewer dims: right-aligned */
        return cf_shape(dt, 1, oshape[ndim - 1]);
    case BK_COL:
        sh[ndim - 1] = 1;
        return cf_contig(dt, ndim, sh);
    case BK_SCALAR:
        return cf_shape(dt, 1, (int64_t)1);
    case BK_STRIDE0:
        s = cf_contig(dt, ndim, sh);
        s.stride[ndim - 2] = 0; /* repeats along the second-to-last dim */
        return s;
    default:
        return cf_contig(dt, ndim, sh);
    }
}

static void add(cf_case_list *l, const prog *p, pk_dtype out_dt, int variant)
{
    static const pk_dtype rot[3] = {PK_F32, PK_F16, PK_BF16};
    const int64_t shape2[4] = {13, 67, 0, 0}, shape4[4] = {2, 3, 5, 33};
    const int ndim = variant == CV_4D_PADDED ? 4 : 2;
    const int64_t *os = ndim == 4 ? shape4 : shape2;
    static const char *const vtag[] = {"", "/mixed", "/4d-padded"};

    cf_case *c = cf_case_add(l, CF_OP_CHAIN, out_dt, run_chain, "chain/%s/%s%s", cf_dtype_tag(out_dt), p->name,
                             vtag[variant]);
    c->p.chain.n_inputs = p->n_in;
    c->p.chain.n_steps = p->n_steps;
    memcpy(c->p.chain.steps, p->steps, (size_t)p->n_steps * sizeof p->steps[0]);
    static const char *const names[PK_CHAIN_MAX_INPUTS] = {
        "desc->inputs[0]", "desc->inputs[1]", "desc->inputs[2]", "desc->inputs[3]",
        "desc->inputs[4]", "desc->inputs[5]", "desc->inputs[6]", "desc->inputs[7]",
    };
    for (int i = 0; i < p->n_in; i++) {
        pk_dtype dt = variant == CV_MIXED ? rot[(i + (int)out_dt + 1) % 3] : out_dt;
        cf_spec s = in_spec(p->kind[i], dt, ndim, os);
        if (variant == CV_4D_PADDED && i == 0) {
            cf_spec_pad(&s, 3);
            s.offset = 9;
        }
        cf_arg *a = cf_case_arg(c, i, names[i], CF_IN, s);
        if (p->gen[i] == GN_POS) cf_arg_gen(a, CF_GEN_UNIFORM, 0.25f, 2.0f);
        else if (p->gen[i] == GN_NORMAL) cf_arg_gen(a, CF_GEN_NORMAL, 0.0f, 1.0f);
        else cf_arg_gen(a, CF_GEN_UNIFORM, -2.0f, 2.0f);
    }
    cf_spec so = cf_contig(out_dt, ndim, os);
    if (variant == CV_4D_PADDED) {
        cf_spec_pad(&so, 5);
        so.offset = 3;
    }
    cf_case_arg(c, OUT_, "out", CF_OUT, so);
}

void cf_cases_chain(cf_case_list *l)
{
    static const pk_dtype dts[3] = {PK_F32, PK_F16, PK_BF16};
    const int np = (int)(sizeof progs / sizeof progs[0]);
    for (int i = 0; i < np; i++) {
        for (int t = 0; t < 3; t++) add(l, &progs[i], dts[t], CV_PLAIN);
        add(l, &progs[i], dts[i % 3], CV_MIXED);
        if (i % 2 == 0) add(l, &progs[i], dts[(i + 1) % 3], CV_4D_PADDED);
    }
}
