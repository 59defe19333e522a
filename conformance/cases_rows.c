/* Row ops: rmsnorm, layernorm, glu, bias_act, softmax; and rope.
 * Row-op args: 0 x (glu: gate), 1 weight, 2 bias, 3 out, 4 desc->residual,
 * 5 desc->residual_out, 6 up, 7 the [.., 2H] tensor gate and up are views of.
 * RoPE args: 0 q, 1 k (both in place), 2 desc->inv_freq. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "conform.h"

enum { X_ = 0, W_, BI_, OUT_, RES_, RESO_, UP_, GU_ };
enum { RL_CONTIG = 0, RL_PADDED, RL_PERMUTED };

/* ---------------------------------------------------------------- run functions */

static pk_status run_rmsnorm(const cf_case *c, pk_context *ctx, const pk_tensor *t)
{
    pk_norm_desc d = PK_NORM_DESC_INIT;
    d.eps = c->p.rows.eps;
    d.residual = cf_t(t, RES_);
    d.residual_out = cf_t(t, RESO_);
    return pk_rmsnorm(ctx, &d, cf_t(t, X_), cf_t(t, W_), cf_t(t, OUT_));
}

static pk_status run_layernorm(const cf_case *c, pk_context *ctx, const pk_tensor *t)
{
    pk_norm_desc d = PK_NORM_DESC_INIT;
    d.eps = c->p.rows.eps;
    d.residual = cf_t(t, RES_);
    d.residual_out = cf_t(t, RESO_);
    return pk_layernorm(ctx, &d, cf_t(t, X_), cf_t(t, W_), cf_t(t, BI_), cf_t(t, OUT_));
}

static pk_status run_glu(const cf_case *c, pk_context *ctx, const pk_tensor *t)
{
    return pk_glu(ctx, c->p.rows.act, cf_t(t, X_), cf_t(t, UP_), cf_t(t, OUT_));
}

static pk_status run_bias_act(const cf_case *c, pk_context *ctx, const pk_tensor *t)
{
    /* in place: out is exactly x (x is then the INOUT arg 3, arg 0 a view of it) */
    return pk_bias_act(ctx, c->p.rows.act, cf_t(t, X_), cf_t(t, BI_), cf_t(t, OUT_));
}

static pk_status run_softmax(const cf_case *c, pk_context *ctx, const pk_tensor *t)
{
    return pk_softmax(ctx, c->p.rows.scale, cf_t(t, X_), cf_t(t, OUT_));
}

static pk_status run_rope(const cf_case *c, pk_context *ctx, const pk_tensor *t)
{
    const cf_rope_params *p = &c->p.rope;
    pk_rope_desc d = PK_ROPE_DESC_INIT;
    d.theta = p->theta;
    d.rotary_dim = p->rotary_dim;
    d.interleaved = p->interleaved;
    d.positions = p->has_positions ? p->positions : NULL;
    d.inv_freq = p->has_inv_freq ? cf_t(t, 2) : NULL;
    return pk_rope(ctx, &d, cf_t(t, 0), cf_t(t, 1));
}

/* ---------------------------------------------------------------- row cases */

typedef struct rcfg {
    int op;
    pk_dtype dt;
    int ndim;
    int64_t shape[4];
    int layout;
    int weight, bias, residual, residual_out;
    int inplace, halves;
    pk_activation act;
    float eps, scale;
    int inf_x;      /* +inf (and -inf) in row 0 of x */
    int ninf_rows;  /* softmax: row 1 all -inf, row 2 half -inf */
} rcfg;

static rcfg R(int op, pk_dtype dt, int ndim, int64_t s0, int64_t s1, int64_t s2, int64_t s3)
{
    rcfg r;
    memset(&r, 0, sizeof r);
    r.op = op;
    r.dt = dt;
    r.ndim = ndim;
    int64_t s[4] = {s0, s1, s2, s3};
    for (int i = 0; i < ndim; i++) r.shape[i] = s[i];
    r.eps = 1e-6f;
    return r;
}

static cf_spec rows_spec(const rcfg *r, const int64_t *shape, int variant)
{
    cf_spec s = cf_contig(r->dt, r->ndim, shape);
    if (r->layout == RL_PADDED) {
        cf_spec_pad(&s, 3 + variant);
        s.offset = 5 + variant;
        s.tail = 7;
    } else if (r->layout == RL_PERMUTED && r->ndim >= 3) {
        /* leading dims in another storage order; the row stays contiguous */
        int ord[4] = {0, 1, 2, 3};
        ord[r->ndim - 3] = r->ndim - 2;
        ord[r->ndim - 2] = r->ndim - 3;
        cf_spec_order(&s, ord);
    }
    return s;
}

static void add_rows(cf_case_list *l, const rcfg *r)
{
    static const cf_run_fn fns[] = {
        [CF_OP_RMSNORM] = run_rmsnorm, [CF_OP_LAYERNORM] = run_layernorm, [CF_OP_GLU] = run_glu,
        [CF_OP_BIAS_ACT] = run_bias_act, [CF_OP_SOFTMAX] = run_softmax,
    };
    char shape[64], extra[96] = "";
    size_t k = 0;
    k += (size_t)snprintf(shape + k, sizeof shape - k, "%lld", (long long)r->shape[0]);
    for (int i = 1; i < r->ndim; i++) k += (size_t)snprintf(shape + k, sizeof shape - k, "x%lld", (long long)r->shape[i]);
    k = 0;
    if (r->op == CF_OP_GLU || r->op == CF_OP_BIAS_ACT)
        k += (size_t)snprintf(extra + k, sizeof extra - k, "/%s", cf_act_tag(r->act));
    if (r->op == CF_OP_LAYERNORM)
        k += (size_t)snprintf(extra + k, sizeof extra - k, "/%s", r->weight && r->bias ? "w+b" : r->weight ? "w" : r->bias ? "b" : "nowb");
    if (r->op == CF_OP_BIAS_ACT)
        k += (size_t)snprintf(extra + k, sizeof extra - k, "%s", r->bias ? "+bias" : "");
    if (r->residual) k += (size_t)snprintf(extra + k, sizeof extra - k, "/residual");
    if (r->residual_out) k += (size_t)snprintf(extra + k, sizeof extra - k, "/residual_out");
    if (r->inplace) k += (size_t)snprintf(extra + k, sizeof extra - k, "/inplace");
    if (r->halves) k += (size_t)snprintf(extra + k, sizeof extra - k, "/halves");
    if (r->scale != 0.0f) k += (size_t)snprintf(extra + k, sizeof extra - k, "/scale%g", r->scale);
    if (r->layout == RL_PADDED) k += (size_t)snprintf(extra + k, sizeof extra - k, "/padded+offset");
    if (r->layout == RL_PERMUTED) k += (size_t)snprintf(extra + k, sizeof extra - k, "/permuted");
    if (r->inf_x) k += (size_t)snprintf(extra + k, sizeof extra - k, "/inf");
    if (r->ninf_rows) snprintf(extra + k, sizeof extra - k, "/-inf-rows");

    cf_case *c = cf_case_add(l, r->op, r->dt, fns[r->op], "%s/%s/%s%s", cf_op_name(r->op), cf_dtype_tag(r->dt),
                             shape, extra);
    c->p.rows.eps = r->eps;
    c->p.rows.scale = r->scale;
    c->p.rows.act = r->act;
    const int64_t H = r->shape[r->ndim - 1];
    int64_t rows = 1;
    for (int i = 0; i < r->ndim - 1; i++) rows *= r->shape[i];
    cf_spec xs = rows_spec(r, r->shape, 0);

    cf_arg *x;
    if (r->inplace) {
        x = cf_case_arg(c, OUT_, "out", CF_INOUT, xs);
        cf_arg *xv = cf_case_arg(c, X_, "x", CF_IN, xs);
        xv->view_of = OUT_;
    } else if (r->halves) {
        /* gate and up: the two halves of the last dim of one [.., 2H] tensor */
        int64_t sh2[4];
        memcpy(sh2, r->shape, sizeof sh2);
        sh2[r->ndim - 1] = 2 * H;
        cf_spec gs = rows_spec(r, sh2, 0);
        x = cf_case_arg(c, GU_, "gate|up", CF_IN, gs);
        cf_spec gate = gs, up = gs;
        gate.shape[r->ndim - 1] = H;
        up.shape[r->ndim - 1] = H;
        up.offset += H;
        cf_case_arg(c, X_, "gate", CF_IN, gate)->view_of = GU_;
        cf_case_arg(c, UP_, "up", CF_IN, up)->view_of = GU_;
        cf_case_arg(c, OUT_, "out", CF_OUT, rows_spec(r, r->shape, 1));
    } else {
        x = cf_case_arg(c, X_, r->op == CF_OP_GLU ? "gate" : "x", CF_IN, xs);
        cf_case_arg(c, OUT_, "out", CF_OUT, rows_spec(r, r->shape, 1));
        if (r->op == CF_OP_GLU) cf_case_arg(c, UP_, "up", CF_IN, rows_spec(r, r->shape, 2));
    }
    cf_arg_gen(x, CF_GEN_NORMAL, r->op == CF_OP_LAYERNORM ? 1.0f : 0.0f, r->op == CF_OP_SOFTMAX ? 2.0f : 1.0f);
    if (r->inf_x) {
        cf_arg_special(x, 1, 1, INFINITY);
        if (r->op == CF_OP_BIAS_ACT) cf_arg_special(x, 2, 1, -INFINITY);
    }
    if (r->ninf_rows && rows >= 3) {
        cf_arg_special(x, H, H, -INFINITY);
        cf_arg_special(x, 2 * H, H / 2, -INFINITY);
    }
    if (r->weight) cf_arg_gen(cf_case_arg(c, W_, "weight", CF_IN, cf_shape(r->dt, 1, H)), CF_GEN_UNIFORM, 0.5f, 1.5f);
    if (r->bias) cf_case_arg(c, BI_, "bias", CF_IN, cf_shape(r->dt, 1, H));
    if (r->residual) cf_arg_gen(cf_case_arg(c, RES_, "desc->residual", CF_IN, rows_spec(r, r->shape, 3)), CF_GEN_NORMAL, 0.0f, 1.0f);
    if (r->residual_out) cf_case_arg(c, RESO_, "desc->residual_out", CF_OUT, rows_spec(r, r->shape, 4));
}

/* ---------------------------------------------------------------- rope cases */

enum { FT_NONE = 0, FT_CONTIG, FT_STRIDED };

typedef struct ropecfg {
    pk_dtype dt;
    int64_t b, s, hq, hk, d, rotary_dim;
    int interleaved, positions, k_null, bhsd;
    int freq_table; /* FT_*: desc->inv_freq */
    float theta;
} ropecfg;

static ropecfg RP(pk_dtype dt, int64_t b, int64_t s, int64_t hq, int64_t hk, int64_t d)
{
    ropecfg r;
    memset(&r, 0, sizeof r);
    r.dt = dt;
    r.b = b;
    r.s = s;
    r.hq = hq;
    r.hk = hk;
    r.d = d;
    r.theta = 10000.0f;
    return r;
}

static void add_rope(cf_case_list *l, const ropecfg *r)
{
    char extra[96] = "";
    size_t k = 0;
    if (r->rotary_dim) k += (size_t)snprintf(extra + k, sizeof extra - k, "/rot%lld", (long long)r->rotary_dim);
    if (r->theta != 10000.0f) k += (size_t)snprintf(extra + k, sizeof extra - k, "/theta%g", r->theta);
    if (r->positions) k += (size_t)snprintf(extra + k, sizeof extra - k, "/positions");
    if (r->k_null) k += (size_t)snprintf(extra + k, sizeof extra - k, "/k-null");
    if (r->bhsd) k += (size_t)snprintf(extra + k, sizeof extra - k, "/bhsd+offset");
    if (r->freq_table)
        snprintf(extra + k, sizeof extra - k, "/inv_freq%s", r->freq_table == FT_STRIDED ? "-strided" : "");
    cf_case *c = cf_case_add(l, CF_OP_ROPE, r->dt, run_rope, "rope/%s/%s/b%llds%lld/h%lld-%lld/d%lld%s",
                             cf_dtype_tag(r->dt), r->interleaved ? "interleaved" : "neox", (long long)r->b,
                             (long long)r->s, (long long)r->hq, (long long)r->hk, (long long)r->d, extra);
    cf_rope_params *p = &c->p.rope;
    p->theta = r->theta;
    p->rotary_dim = r->rotary_dim;
    p->interleaved = r->interleaved;
    if (r->positions) {
        p->has_positions = 1;
        for (int64_t i = 0; i < r->b * r->s && i < 512; i++)
            p->positions[i] = (int32_t)((i * 977 + 13 * (i / r->s)) % 2048); /* scattered, up to 2047 */
    }
    cf_spec qs = cf_shape(r->dt, 4, r->b, r->s, r->hq, r->d);
    cf_spec ks = cf_shape(r->dt, 4, r->b, r->s, r->hk, r->d);
    if (r->bhsd) {
        static const int ord[4] = {0, 2, 1, 3};
        cf_spec_order(&qs, ord);
        cf_spec_order(&ks, ord);
        qs.offset = 6;
        ks.offset = 10;
    }
    cf_arg_gen(cf_case_arg(c, 0, "q", CF_INOUT, qs), CF_GEN_NORMAL, 0.0f, 1.0f);
    if (!r->k_null) cf_arg_gen(cf_case_arg(c, 1, "k", CF_INOUT, ks), CF_GEN_NORMAL, 0.0f, 1.0f);
    if (r->freq_table) {
        /* scaled RoPE's frequencies are no longer a power series: any positive values */
        cf_spec fs = cf_shape(PK_F32, 1, (r->rotary_dim ? r->rotary_dim : r->d) / 2);
        if (r->freq_table == FT_STRIDED) {
            fs.stride[0] = 3;
            fs.offset = 5;
        }
        p->has_inv_freq = 1;
        cf_arg_gen(cf_case_arg(c, 2, "desc->inv_freq", CF_IN, fs), CF_GEN_UNIFORM, 1e-4f, 1.0f);
    }
}

/* ---------------------------------------------------------------- the lists */

void cf_cases_rows(cf_case_list *l)
{
    static const pk_dtype dts[3] = {PK_F32, PK_F16, PK_BF16};
    static const int64_t widths[5] = {1, 7, 64, 4097, 8192};
    rcfg r;

    for (int t = 0; t < 3; t++) {
        pk_dtype dt = dts[t];

        /* rmsnorm */
        for (int i = 0; i < 5; i++) {
            r = R(CF_OP_RMSNORM, dt, 2, 3, widths[i], 0, 0);
            r.weight = 1;
            add_rows(l, &r);
        }
        r = R(CF_OP_RMSNORM, dt, 1, 64, 0, 0, 0);
        r.weight = 1;
        add_rows(l, &r);
        r = R(CF_OP_RMSNORM, dt, 3, 2, 3, 100, 0);
        r.weight = 1;
        r.layout = RL_PADDED;
        add_rows(l, &r);
        r = R(CF_OP_RMSNORM, dt, 4, 2, 2, 3, 33);
        r.weight = 1;
        r.layout = RL_PERMUTED;
        add_rows(l, &r);
        r = R(CF_OP_RMSNORM, dt, 2, 5, 257, 0, 0);
        r.weight = 1;
        r.residual = r.residual_out = 1;
        add_rows(l, &r);
        r = R(CF_OP_RMSNORM, dt, 3, 2, 3, 64, 0);
        r.weight = 1;
        r.residual = r.residual_out = 1;
        r.layout = RL_PADDED;
        r.eps = 1e-5f;
        add_rows(l, &r);
        if (t == 0) {
            r = R(CF_OP_RMSNORM, dt, 2, 4, 96, 0, 0);
            r.weight = 1;
            r.residual = 1;
            add_rows(l, &r);
        }
        if (t == 2) {
            r = R(CF_OP_RMSNORM, dt, 2, 4, 96, 0, 0);
            r.weight = 1;
            r.residual_out = 1;
            add_rows(l, &r);
        }
        r = R(CF_OP_RMSNORM, dt, 2, 3, 16, 0, 0);
        r.weight = 1;
        r.inf_x = 1;
        add_rows(l, &r);

        /* layernorm */
        for (int i = 0; i < 4; i++) {
            r = R(CF_OP_LAYERNORM, dt, 2, 3, widths[i], 0, 0);
            r.weight = r.bias = 1;
            r.eps = 1e-5f;
            add_rows(l, &r);
        }
        for (int v = 0; v < 3; v++) {
            r = R(CF_OP_LAYERNORM, dt, 2, 4, 65, 0, 0);
            r.weight = v == 0;
            r.bias = v == 1;
            r.eps = 1e-5f;
            add_rows(l, &r);
        }
        r = R(CF_OP_LAYERNORM, dt, 2, 5, 130, 0, 0);
        r.weight = r.bias = 1;
        r.residual = r.residual_out = 1;
        r.eps = 1e-5f;
        add_rows(l, &r);
        r = R(CF_OP_LAYERNORM, dt, 3, 3, 2, 48, 0);
        r.weight = r.bias = 1;
        r.layout = RL_PADDED;
        r.eps = 1e-5f;
        add_rows(l, &r);

        /* Every register-chunk count of the GPU row kernels
         * (tests/test_cover_rows.c names them): rows of 2 columns (the
         * strided path, 2 chunks), 4 to 64 (1 to 8 chunks of 16 bytes a
         * thread), and longer than 512 threads hold (16392: streamed). */
        static const int64_t cw[6] = {2, 4, 8, 16, 64, 16392};
        static const int per_row_ops[3] = {CF_OP_RMSNORM, CF_OP_LAYERNORM, CF_OP_SOFTMAX};
        for (int o = 0; o < 3; o++)
            for (int i = 0; i < 6; i++) {
                if (per_row_ops[o] != CF_OP_SOFTMAX && cw[i] == 64) continue; /* above */
                r = R(per_row_ops[o], dt, 2, 2 + i % 2, cw[i], 0, 0);
                r.weight = per_row_ops[o] != CF_OP_SOFTMAX;
                r.bias = per_row_ops[o] == CF_OP_LAYERNORM;
                r.eps = 1e-5f;
                r.residual = r.residual_out = per_row_ops[o] == CF_OP_RMSNORM && i == 3;
                add_rows(l, &r);
            }

        /* The OpenCL row plan (backends/opencl/opencl_rows_plan.c; names in
         * tests/test_cover_rows.c): one row whose length is no multiple of
         * the vector (the vector path with a partial last vector); on a
         * GPU, 4 vectors a work-item (3001: the strided path; 12288) and
         * streamed rows of vectors of 8 (32776), 4 (16388 = 4 x 4097) and
         * 16 (65552 = 16 x 4097: past 1024 work-items of 4 vectors);
         * leading dims that do not fold into one (the row found by
         * division) on the vector path. */
        static const int64_t tail_w[2] = {4100, 1001};
        for (int o = 0; o < 3; o++)
            for (int i = 0; i < 2; i++) {
                r = R(per_row_ops[o], dt, 2, 1, tail_w[i], 0, 0);
                r.weight = per_row_ops[o] != CF_OP_SOFTMAX;
                r.bias = per_row_ops[o] == CF_OP_LAYERNORM;
                r.residual = r.residual_out = per_row_ops[o] == CF_OP_RMSNORM && i == 0;
                r.eps = 1e-5f;
                add_rows(l, &r);
            }
        static const int64_t long_w[5] = {3001, 12288, 32776, 16388, 65552};
        for (int o = 0; o < 3; o++)
            for (int i = 0; i < 5; i++) {
                r = R(per_row_ops[o], dt, 2, 2, long_w[i], 0, 0);
                r.weight = per_row_ops[o] != CF_OP_SOFTMAX;
                r.eps = 1e-5f;
                add_rows(l, &r);
            }
        r = R(CF_OP_RMSNORM, dt, 4, 2, 2, 3, 64);
        r.weight = 1;
        r.layout = RL_PERMUTED;
        add_rows(l, &r);
        r = R(CF_OP_GLU, dt, 2, 1, 1001, 0, 0);
        r.act = PK_ACT_SILU;
        add_rows(l, &r);
        /* more rows, and more blocks of a glu, than a 2-core CPU's capped
         * grid: the kernels' grid-stride loops run more than once */
        r = R(CF_OP_RMSNORM, dt, 2, 300, 64, 0, 0);
        r.weight = 1;
        r.residual = r.residual_out = 1;
        add_rows(l, &r);
        r = R(CF_OP_GLU, dt, 2, 4, 600000, 0, 0);
        r.act = PK_ACT_SILU;
        add_rows(l, &r);
        r = R(CF_OP_GLU, dt, 4, 2, 3, 2, 64);
        r.act = PK_ACT_SILU;
        r.layout = RL_PERMUTED;
        add_rows(l, &r);
        r = R(CF_OP_BIAS_ACT, dt, 2, 1, 1001, 0, 0);
        r.act = PK_ACT_GELU;
        r.bias = 1;
        add_rows(l, &r);
        r = R(CF_OP_BIAS_ACT, dt, 2, 3, 64, 0, 0);
        r.act = PK_ACT_RELU;
        r.bias = 1;
        add_rows(l, &r);

        /* glu */
        static const pk_activation gacts[4] = {PK_ACT_SILU, PK_ACT_GELU, PK_ACT_GELU_TANH, PK_ACT_RELU};
        static const int64_t gw[4] = {64, 7, 4097, 1};
        for (int i = 0; i < 4; i++) {
            r = R(CF_OP_GLU, dt, 2, 3, gw[i], 0, 0);
            r.act = gacts[i];
            add_rows(l, &r);
        }
        r = R(CF_OP_GLU, dt, 3, 2, 3, 96, 0);
        r.act = PK_ACT_SILU;
        r.halves = 1;
        add_rows(l, &r);
        r = R(CF_OP_GLU, dt, 2, 4, 33, 0, 0);
        r.act = PK_ACT_GELU_TANH;
        r.halves = 1;
        add_rows(l, &r);
        r = R(CF_OP_GLU, dt, 3, 2, 2, 50, 0);
        r.act = PK_ACT_GELU;
        r.layout = RL_PADDED;
        add_rows(l, &r);

        /* bias_act */
        static const pk_activation acts[5] = {PK_ACT_NONE, PK_ACT_RELU, PK_ACT_GELU, PK_ACT_GELU_TANH, PK_ACT_SILU};
        for (int i = 0; i < 5; i++) {
            r = R(CF_OP_BIAS_ACT, dt, 2, 5, 33, 0, 0);
            r.act = acts[i];
            r.bias = 1;
            add_rows(l, &r);
        }
        r = R(CF_OP_BIAS_ACT, dt, 3, 2, 3, 70, 0);
        r.act = PK_ACT_GELU;
        add_rows(l, &r);
        r = R(CF_OP_BIAS_ACT, dt, 2, 4, 40, 0, 0);
        r.act = PK_ACT_SILU;
        r.bias = 1;
        r.inplace = 1;
        add_rows(l, &r);
        r = R(CF_OP_BIAS_ACT, dt, 4, 2, 3, 2, 17);
        r.act = PK_ACT_GELU_TANH;
        r.bias = 1;
        r.layout = RL_PERMUTED;
        add_rows(l, &r);
        r = R(CF_OP_BIAS_ACT, dt, 2, 3, 8, 0, 0);
        r.act = PK_ACT_RELU;
        r.bias = 1;
        r.inf_x = 1;
        add_rows(l, &r);

        /* softmax */
        static const int64_t sw[5] = {1, 7, 64, 1000, 4097};
        for (int i = 0; i < 5; i++) {
            r = R(CF_OP_SOFTMAX, dt, 2, 3, sw[i], 0, 0);
            add_rows(l, &r);
        }
        r = R(CF_OP_SOFTMAX, dt, 2, 4, 100, 0, 0);
        r.scale = 2.5f;
        add_rows(l, &r);
        r = R(CF_OP_SOFTMAX, dt, 2, 4, 37, 0, 0);
        r.ninf_rows = 1;
        add_rows(l, &r);
        r = R(CF_OP_SOFTMAX, dt, 3, 2, 3, 77, 0);
        r.scale = 0.125f;
        r.layout = RL_PADDED;
        add_rows(l, &r);

        /* rope */
        ropecfg p;
        for (int il = 0; il < 2; il++)
            for (int part = 0; part < 2; part++) {
                p = RP(dt, 2, 7, 4, 2, 64);
                p.interleaved = il;
                p.rotary_dim = part ? 24 : 0;
                add_rope(l, &p);
            }
        p = RP(dt, 2, 5, 2, 2, 128);
        p.positions = 1;
        add_rope(l, &p);
        p = RP(dt, 1, 9, 8, 1, 64);
        p.interleaved = 1;
        p.positions = 1;
        add_rope(l, &p);
        p = RP(dt, 1, 6, 4, 1, 80);
        p.k_null = 1;
        add_rope(l, &p);
        p = RP(dt, 2, 5, 4, 2, 96);
        p.bhsd = 1;
        p.rotary_dim = 32;
        add_rope(l, &p);
        p = RP(dt, 1, 4, 2, 2, 128);
        p.theta = 500000.0f;
        p.positions = 1;
        add_rope(l, &p);
        /* a frequency table: both layouts, with and without k, partial */
        for (int il = 0; il < 2; il++)
            for (int kn = 0; kn < 2; kn++) {
                p = RP(dt, 2, 5, 4, 2, kn ? 128 : 64);
                p.interleaved = il;
                p.k_null = kn;
                p.rotary_dim = il == kn ? 0 : kn ? 32 : 48;
                p.positions = 1;
                p.freq_table = FT_CONTIG;
                add_rope(l, &p);
            }
        /* a strided table at an offset, and theta 0, which a table makes unused */
        p = RP(dt, 1, 9, 8, 1, 128);
        p.rotary_dim = 64;
        p.positions = 1;
        p.freq_table = FT_STRIDED;
        p.theta = 0.0f;
        add_rope(l, &p);
    }
}
