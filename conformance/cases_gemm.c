/* GEMM cases: D = act(alpha op(A) op(B) + beta C + bias) + residual.
 * Args: 0 a, 1 b, 2 c, 3 d, 4 desc->bias, 5 desc->residual. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "conform.h"

enum { A_ = 0, B_, C_, D_, BIAS_, RES_ };
enum { C_NONE = 0, C_SEPARATE, C_ALIAS };
enum { LAY_CONTIG = 0, LAY_PAD, LAY_COLMAJOR, LAY_OFFSET, LAY_ALL };
enum { BC_NONE = 0, BC_A1, BC_B0, BC_A2D };
enum { SP_NONE = 0, SP_NAN_INF };

static pk_status run_gemm(const cf_case *c, pk_context *ctx, const pk_tensor *t)
{
    pk_gemm_desc d = PK_GEMM_DESC_INIT;
    d.trans_a = c->p.gemm.trans_a;
    d.trans_b = c->p.gemm.trans_b;
    d.alpha = c->p.gemm.alpha;
    d.beta = c->p.gemm.beta;
    d.act = c->p.gemm.act;
    d.bias = cf_t(t, BIAS_);
    d.residual = cf_t(t, RES_);
    return pk_gemm(ctx, &d, cf_t(t, A_), cf_t(t, B_), cf_t(t, C_), cf_t(t, D_));
}

typedef struct gcfg {
    pk_dtype in, out;
    int64_t batch; /* 0: 2-D operands */
    int64_t m, n, k;
    int ta, tb;
    float alpha, beta;
    int c_mode;
    int bias, res;
    pk_activation act;
    int layout;
    int bcast;
    int special;
    int overlap_a; /* A's batches overlap: batch z starts 8 rows after z - 1 */
    int large;     /* CF_SIZE_GPU */
    const char *knob; /* PORTKERN_CUDA_GEMM's value, or NULL */
} gcfg;

static gcfg G(pk_dtype dt, int64_t m, int64_t n, int64_t k, int ta, int tb)
{
    gcfg g;
    memset(&g, 0, sizeof g);
    g.in = g.out = dt;
    g.m = m;
    g.n = n;
    g.k = k;
    g.ta = ta;
    g.tb = tb;
    g.alpha = 1.0f;
    return g;
}

/* alpha, beta C (a separate C), bias, GELU and residual at once: every
 * step of the epilogue after a kernel's own sums */
static void every_epilogue(gcfg *g)
{
    g->alpha = 0.5f;
    g->beta = 1.0f;
    g->c_mode = C_SEPARATE;
    g->bias = 1;
    g->act = PK_ACT_GELU;
    g->res = 1;
}

/* A 2-D or batched 3-D spec of rows x cols, laid out as the case says. */
static cf_spec mat(const gcfg *g, pk_dtype dt, int64_t batch, int64_t rows, int64_t cols, int colmajor_ok)
{
    cf_spec s = batch ? cf_shape(dt, 3, batch, rows, cols) : cf_shape(dt, 2, rows, cols);
    if (g->layout == LAY_PAD || g->layout == LAY_ALL) cf_spec_pad(&s, 5);
    if ((g->layout == LAY_COLMAJOR || g->layout == LAY_ALL) && colmajor_ok) {
        static const int o2[2] = {1, 0}, o3[3] = {0, 2, 1};
        cf_spec_order(&s, batch ? o3 : o2);
    }
    if (g->layout == LAY_OFFSET || g->layout == LAY_ALL) {
        s.offset = 7;
        s.tail = 5;
    }
    return s;
}

static void add(cf_case_list *l, const gcfg *g)
{
    char dts[16], shape[64], tr[16], ab[48] = "", epi[64] = "", lay[24] = "", bc[16] = "", sp[32] = "";
    if (g->in == g->out) snprintf(dts, sizeof dts, "%s", cf_dtype_tag(g->in));
    else snprintf(dts, sizeof dts, "%s-%s", cf_dtype_tag(g->in), cf_dtype_tag(g->out));
    if (g->batch)
        snprintf(shape, sizeof shape, "b%lldm%lldn%lldk%lld", (long long)g->batch, (long long)g->m,
                 (long long)g->n, (long long)g->k);
    else
        snprintf(shape, sizeof shape, "m%lldn%lldk%lld", (long long)g->m, (long long)g->n, (long long)g->k);
    snprintf(tr, sizeof tr, "tA%dtB%d", g->ta, g->tb);
    if (g->alpha != 1.0f || g->beta != 0.0f || g->c_mode != C_NONE)
        snprintf(ab, sizeof ab, "/alpha%gbeta%g%s", g->alpha, g->beta,
                 g->c_mode == C_ALIAS ? "-c=d" : g->c_mode == C_SEPARATE ? "-c" : "");
    if (g->bias || g->res || g->act) {
        size_t k = 0;
        k += (size_t)snprintf(epi + k, sizeof epi - k, "/");
        if (g->bias) k += (size_t)snprintf(epi + k, sizeof epi - k, "bias");
        if (g->act) k += (size_t)snprintf(epi + k, sizeof epi - k, "%s%s", g->bias ? "+" : "", cf_act_tag(g->act));
        if (g->res) snprintf(epi + k, sizeof epi - k, "%sresidual", (g->bias || g->act) ? "+" : "");
    }
    static const char *const lays[] = {"", "/padded", "/colmajor", "/offset", "/padded+colmajor+offset"};
    snprintf(lay, sizeof lay, "%s", lays[g->layout]);
    static const char *const bcs[] = {"", "/bcastA1", "/bcastB0", "/a2d"};
    snprintf(bc, sizeof bc, "%s", bcs[g->bcast]);
    snprintf(sp, sizeof sp, "%s%s%s", g->special ? "/nan+inf" : "", g->overlap_a ? "/overlapA" : "",
             g->large ? "/large" : "");

    cf_case *c = cf_case_add(l, CF_OP_GEMM, g->out, run_gemm, "gemm/%s/%s/%s%s%s%s%s%s%s%s", dts, shape, tr, ab,
                             epi, bc, lay, sp, g->knob ? "/knob:" : "", g->knob ? g->knob : "");
    c->size = g->large ? CF_SIZE_GPU : CF_SIZE_ANY;
    if (g->knob) snprintf(c->knob, sizeof c->knob, "PORTKERN_CUDA_GEMM=%s", g->knob);
    c->p.gemm.trans_a = g->ta;
    c->p.gemm.trans_b = g->tb;
    c->p.gemm.alpha = g->alpha;
    c->p.gemm.beta = g->beta;
    c->p.gemm.act = g->act;

    int64_t ab_batch = g->batch, a_batch = g->batch;
    if (g->bcast == BC_A1) a_batch = 1;
    if (g->bcast == BC_A2D) a_batch = 0;
    cf_spec sa = g->ta ? mat(g, g->in, a_batch, g->k, g->m, 1) : mat(g, g->in, a_batch, g->m, g->k, 1);
    cf_spec sb = g->tb ? mat(g, g->in, ab_batch, g->n, g->k, 1) : mat(g, g->in, ab_batch, g->k, g->n, 1);
    if (g->bcast == BC_B0) sb.stride[0] = 0;
    if (g->overlap_a) sa.stride[0] = 8 * sa.stride[g->ta ? 2 : 1];
    cf_spec sd = mat(g, g->out, g->batch, g->m, g->n, 0);

    /* outputs O(1): A ~ U(-1,1), B ~ U(-s,s) with K s^2 / 9 ~ 1/3 */
    float s = g->k > 0 ? (float)sqrt(3.0 / (double)g->k) : 1.0f;
    cf_arg *a = cf_case_arg(c, A_, "a", CF_IN, sa);
    cf_arg *b = cf_case_arg(c, B_, "b", CF_IN, sb);
    cf_arg_gen(b, CF_GEN_UNIFORM, -s, s);
    if (g->special) {
        /* a NaN in row 1 and an inf in row m-1 of A (logical flat index) */
        int64_t rows = g->ta ? g->k : g->m, cols = g->ta ? g->m : g->k;
        (void)rows;
        if (g->ta) {
            cf_arg_special(a, 2 * cols + 1, 1, NAN);         /* A^T[2][1]: A[1][2] */
            cf_arg_special(a, 0 * cols + (g->m - 1), 1, INFINITY);
        } else {
            cf_arg_special(a, 1 * cols + 2, 1, NAN);
            cf_arg_special(a, (g->m - 1) * cols + 0, 1, -INFINITY);
        }
    }
    if (g->c_mode == C_ALIAS) {
        cf_case_arg(c, D_, "d", CF_INOUT, sd);
        cf_arg *cc = cf_case_arg(c, C_, "c", CF_IN, sd);
        cc->view_of = D_;
    } else {
        if (g->c_mode == C_SEPARATE) cf_case_arg(c, C_, "c", CF_IN, mat(g, g->out, g->batch, g->m, g->n, 1));
        cf_case_arg(c, D_, "d", CF_OUT, sd);
    }
    if (g->bias) cf_case_arg(c, BIAS_, "desc->bias", CF_IN, cf_shape(g->out, 1, g->n));
    if (g->res) cf_case_arg(c, RES_, "desc->residual", CF_IN, mat(g, g->out, g->batch, g->m, g->n, 1));
}

void cf_cases_gemm(cf_case_list *l)
{
    static const pk_dtype dts[3] = {PK_F32, PK_F16, PK_BF16};
    gcfg g;

    for (int t = 0; t < 3; t++) {
        pk_dtype dt = dts[t];

        /* Shapes that are multiples of no tile, size-1 dims; linear and plain layouts. */
        static const int64_t shp[][3] = {
            {1, 1, 1},   {3, 17, 33},  {17, 33, 65},   {65, 33, 129}, {127, 129, 31},
            {129, 65, 257}, {1, 257, 127}, {33, 1, 17}, {64, 64, 64}, {257, 127, 65},
        };
        for (int i = 0; i < (int)(sizeof shp / sizeof shp[0]); i++) {
            g = G(dt, shp[i][0], shp[i][1], shp[i][2], 0, i & 1);
            add(l, &g);
        }

        /* All four transposes. */
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                g = G(dt, 65, 31, 129, ta, tb);
                add(l, &g);
                g = G(dt, 7, 19, 40, ta, tb);
                g.bias = 1;
                g.act = PK_ACT_SILU;
                add(l, &g);
            }

        /* Decode: M = 1..16, linear layout x @ W^T. */
        static const int64_t dm[] = {1, 2, 3, 4, 7, 8, 12, 16};
        for (int i = 0; i < 8; i++) {
            g = G(dt, dm[i], 200, 256, 0, 1);
            if (i == 5) g.bias = 1;
            add(l, &g);
        }
        /* the skinny kernel's 8- and 16-row forms, which only the knob
         * picks (the decode kernel takes those rows by default) */
        for (int i = 0; i < 2 && dt != PK_F32; i++) {
            g = G(dt, i ? 12 : 8, 200, 256, 0, 1);
            g.knob = "skinny";
            add(l, &g);
        }

        /* Decode with K split (OpenCL's skinny kernel splits K when few
         * column groups exist; 2600 and 3000 are no multiple of any
         * split's round of vectors), one row bucket each (M = 1, 2, 3..4,
         * 5..8, 9..16), with every epilogue and a batch. K = 2603 and 203,
         * padded to aligned rows of 2608 and 208: a partial last vector. */
        static const struct { int64_t batch, m, k; int layout, bias, res, alias; pk_activation act; } dk[] = {
            {3, 1, 3000, LAY_CONTIG, 0, 1, 0, PK_ACT_NONE}, {0, 2, 2600, LAY_CONTIG, 0, 0, 0, PK_ACT_NONE},
            {0, 3, 2600, LAY_CONTIG, 1, 1, 1, PK_ACT_GELU}, {0, 6, 2603, LAY_PAD, 1, 0, 0, PK_ACT_SILU},
            {2, 16, 2600, LAY_CONTIG, 0, 1, 1, PK_ACT_GELU_TANH}, {0, 5, 203, LAY_PAD, 1, 1, 0, PK_ACT_RELU},
        };
        for (int i = 0; i < (int)(sizeof dk / sizeof dk[0]); i++) {
            g = G(dt, dk[i].m, 37, dk[i].k, 0, 1);
            g.batch = dk[i].batch;
            g.layout = dk[i].layout;
            g.bias = dk[i].bias;
            g.res = dk[i].res;
            g.act = dk[i].act;
            if (dk[i].alias) {
                g.beta = 0.5f;
                g.c_mode = C_ALIAS;
            }
            add(l, &g);
        }

        /* Long K with small M, N. */
        g = G(dt, 4, 5, 4096, 0, 1);
        add(l, &g);
        g = G(dt, 1, 33, 4097, 0, 1);
        add(l, &g);
        g = G(dt, 3, 2, 8193, 0, 0);
        add(l, &g);
        g = G(dt, 2, 3, 5000, 1, 0);
        add(l, &g);

        /* One row, K split among warps (1 to 8 per column on CUDA) and
         * counts of 16-byte chunks that no split divides; with a decode
         * layer's residual, a bias, a batch. */
        g = G(dt, 1, 300, 1000, 0, 1);
        g.res = 1;
        add(l, &g);
        g = G(dt, 1, 70, 14343, 0, 1);
        g.bias = 1;
        add(l, &g);
        g = G(dt, 1, 40, 2056, 0, 1);
        g.batch = 2;
        add(l, &g);

        /* alpha / beta. */
        g = G(dt, 33, 17, 65, 0, 1);
        g.alpha = 0.5f;
        add(l, &g);
        g.alpha = 1.0f;
        g.beta = 1.0f;
        g.c_mode = C_SEPARATE;
        add(l, &g);
        g.c_mode = C_ALIAS;
        add(l, &g);
        g.alpha = 2.0f;
        g.beta = -0.5f;
        add(l, &g);
        g = G(dt, 33, 17, 65, 1, 0);
        g.beta = 0.5f;
        g.c_mode = C_SEPARATE;
        g.layout = LAY_PAD;
        add(l, &g);

        /* Every epilogue and combinations. */
        static const struct { int bias, res; pk_activation act; } ep[] = {
            {1, 0, PK_ACT_NONE},      {0, 0, PK_ACT_RELU},      {0, 0, PK_ACT_GELU},
            {0, 0, PK_ACT_GELU_TANH}, {0, 0, PK_ACT_SILU},      {0, 1, PK_ACT_NONE},
            {1, 0, PK_ACT_RELU},      {1, 0, PK_ACT_GELU},      {1, 1, PK_ACT_SILU},
            {1, 1, PK_ACT_GELU_TANH}, {1, 1, PK_ACT_NONE},
        };
        for (int i = 0; i < (int)(sizeof ep / sizeof ep[0]); i++) {
            g = G(dt, 33, 65, 47, i % 3 == 2, i % 2 == 0);
            g.bias = ep[i].bias;
            g.res = ep[i].res;
            g.act = ep[i].act;
            add(l, &g);
        }
        g = G(dt, 17, 40, 33, 0, 1);
        g.beta = 1.0f;
        g.c_mode = C_ALIAS;
        g.bias = 1;
        g.res = 1;
        g.act = PK_ACT_SILU;
        add(l, &g);

        /* Batched and broadcast batch. */
        g = G(dt, 17, 9, 33, 0, 0);
        g.batch = 3;
        add(l, &g);
        g.tb = 1;
        g.bcast = BC_B0;
        add(l, &g);
        g.tb = 0;
        g.ta = 1;
        g.bcast = BC_A1;
        add(l, &g);
        g = G(dt, 9, 31, 20, 0, 1);
        g.batch = 2;
        g.bias = 1;
        g.res = 1;
        g.act = PK_ACT_GELU;
        g.beta = 1.0f;
        g.c_mode = C_SEPARATE;
        add(l, &g);

        /* Strides and byte offsets. */
        for (int lay = LAY_PAD; lay <= LAY_ALL; lay++) {
            g = G(dt, 31, 18, 43, lay & 1, 1);
            if (lay == LAY_ALL) {
                g.batch = 2;
                g.bias = 1;
                g.res = 1;
                g.act = PK_ACT_RELU;
            }
            g.layout = lay;
            add(l, &g);
        }

        /* K = 0: D = epilogue(beta C). */
        g = G(dt, 5, 7, 0, 0, 1);
        g.bias = 1;
        g.act = PK_ACT_SILU;
        add(l, &g);
        g = G(dt, 5, 7, 0, 0, 0);
        g.beta = 1.0f;
        g.c_mode = C_SEPARATE;
        add(l, &g);

        /* Large enough that a GPU runs its biggest tiles (on the H200: at
         * least one 128 x 256 tile per SM for the Hopper kernel, two
         * 128 x 128 per SM for the SIMT kernel), with edges in m, n and k. */
        g = G(dt, 1500, 2900, 136, 0, 1);
        add(l, &g);
        if (dt != PK_F32) {
            g = G(dt, 1500, 2900, 72, 0, 1);
            g.beta = 0.5f;
            g.c_mode = C_ALIAS;
            g.bias = 1;
            g.res = 1;
            g.act = PK_ACT_GELU_TANH;
            add(l, &g);
            g = G(dt, 1030, 1100, 96, 0, 1);
            g.batch = 3;
            g.bcast = BC_B0;
            add(l, &g);
        }

        /* The production tiles of the GPU kernels, one case per kernel
         * (tests/test_cover_gemm.c names them), GPU-only: too slow on a
         * CPU device. Just past the thresholds of a 132-SM H200 (and a
         * 108-SM A100), so that the float64 reference stays quick:
         *  - 2 x 1096 x 4440: 324 tiles of 128 x 256, two per SM: the
         *    mma.sync kernel's largest tile for every layout the Hopper
         *    kernel does not take (B n-major, A m-major, A's batches
         *    overlapping, which no TMA map describes), and MFMA's 128 x 128
         *    on a 304-CU gfx942 (630 tiles);
         *  - 2 x 1096 x 1944: 144 of 128 x 256 but 288 of 128 x 128: the
         *    next tile, and the SIMT kernel's 128 x 128 (f32 in every
         *    float4 layout, K = 41 for none; 16-bit at K = 41, which no
         *    16-byte copy reads).
         * K = 40: a whole 32-deep k step and an edge; m and n are edges
         * too. Rows 16-byte aligned where the layout asks for it. */
        static const int lay4[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 1}}; /* ta, tb, overlapA */
        for (int big = 0; big < 2 && dt != PK_F32; big++)
            for (int i = 0; i < 4; i++) {
                g = G(dt, 1096, big ? 4440 : 1944, 40, lay4[i][0], lay4[i][1]);
                g.batch = 2;
                g.overlap_a = lay4[i][2];
                g.large = 1;
                if (i == 1 && big) { /* an epilogue on the largest tile too */
                    g.bias = 1;
                    g.act = PK_ACT_SILU;
                }
                add(l, &g);
            }
        for (int i = 0; i < 4; i++) {
            if (dt != PK_F32 && i > 0) break;
            g = i == 0 ? G(dt, 1096, 1944, 41, 0, 1) : G(dt, 1096, 1944, 40, lay4[i - 1][0], lay4[i - 1][1]);
            g.batch = 2;
            g.large = 1;
            add(l, &g);
        }
        /* The Hopper kernel's tiles, both operands k-major, GPU-only: 132
         * tiles of 128 x 256 on a 132-SM H200 (one wave, where 128 x 128
         * needs two), and 34 of 128 x 128 (one wave, as 18 of 128 x 256
         * are); m, n and K = 40 edges as above */
        static const int hopper_mn[2][2] = {{1536, 2816}, {256, 2176}};
        for (int i = 0; i < 2 && dt != PK_F32; i++) {
            g = G(dt, hopper_mn[i][0], hopper_mn[i][1], 40, 0, 1);
            g.large = 1;
            add(l, &g);
        }
        /* The Hopper kernel's trial tiles (64 rows) and split-K, which only
         * a knob picks until timed (cuda_gemm_plan.h), GPU-only: a tile
         * forced unsplit from 17 rows on, and forced in k ranges ("tile:n":
         * the last range shorter, n cut to the ranges K's steps fill); the
         * added ranges then go through every epilogue, a batch (each tile's
         * flags and partials its own) and a broadcast B; the pairs of
         * blocks sharing B (an odd count of tile rows: one block of a pair
         * past M) under every epilogue and a broadcast B; ping-pong's
         * consumers taking units in turn (several a block), whole and
         * split; and the trial plan
         * as it stands. K a multiple of 8: TMA needs 16-byte rows */
        static const struct {
            const char *knob;
            int64_t batch, m, n, k;
            int epilogue, bcast;
        } hs[] = {
            {"64x128", 0, 40, 300, 200, 0, 0},     {"64x256", 0, 100, 600, 136, 1, 0},
            {"64x128:3", 0, 64, 256, 1000, 1, 0},  {"64x256:4", 0, 70, 520, 600, 0, 0},
            {"128x128:2", 2, 130, 200, 296, 0, 0}, {"128x256:5", 3, 200, 296, 712, 0, 1},
            {"trial", 0, 64, 1024, 2048, 0, 0},    {"trial", 0, 24, 2048, 1024, 0, 0},
            {"128x256p", 2, 300, 600, 136, 1, 0},  {"128x256p", 3, 520, 300, 200, 0, 1},
            {"64x256pp", 0, 200, 300, 136, 1, 0},  {"64x256pp:3", 2, 130, 520, 600, 0, 0},
            /* "@n": n blocks at most, so that each walks several units and
             * its ring wraps (more k steps than stages): the hand-over of
             * stages between units, ping-pong's turns, the pairs' empty
             * barriers (the other block's arrivals) */
            {"64x256pp@4", 0, 300, 600, 520, 1, 0},  {"64x256pp:3@4", 2, 130, 520, 1000, 0, 0},
            {"128x256p@4", 2, 520, 600, 520, 0, 1},  {"128x128:2@3", 0, 520, 600, 900, 1, 0},
            {"64x128:3@4", 0, 100, 520, 1800, 0, 0}, {"64x256@4", 0, 100, 600, 520, 0, 0},
            /* the production tiles the same way (their rings wrap nowhere
             * else in the suite) */
            {"128x256@2", 0, 300, 600, 520, 1, 0},   {"128x128@3", 2, 300, 300, 520, 0, 1},
            /* the tile that writes through TMA: edges TMA clips, a batch
             * with a broadcast B over blocks that each write several tiles
             * from their staging tiles, every epilogue and split (both from
             * the registers) */
            {"128x256s", 0, 300, 600, 136, 0, 0},    {"128x256s@2", 2, 520, 600, 520, 0, 1},
            {"128x256s", 0, 200, 296, 712, 1, 0},    {"128x256s:3", 0, 200, 296, 712, 0, 0},
            /* the 64 x 64 tile (two consumers of 32 columns, a deep ring):
             * edges, split under every epilogue, its ring wrapping over
             * several units a block */
            {"64x64", 0, 40, 300, 200, 0, 0},        {"64x64:3", 2, 100, 130, 1000, 1, 0},
            {"64x64@4", 0, 130, 300, 1800, 0, 1},
            /* cuBLAS's shapes as pairs: sharing A (an odd count of tile
             * columns: one block of a pair past N) and sharing B (an odd
             * count of tile rows), under every epilogue, and a batch with
             * a broadcast B over a few pairs whose rings wrap; 160 columns:
             * a pair's half box of B is 80 rows, the last tile 20 wide;
             * 192 columns written through TMA: three staged blocks a
             * consumer, edges, every epilogue, split */
            {"64x32a", 0, 64, 270, 200, 1, 0},       {"64x32a@4", 2, 130, 270, 1800, 0, 1},
            {"64x64p", 0, 130, 300, 200, 1, 0},      {"64x64p@4", 2, 200, 300, 1000, 0, 1},
            {"128x64a", 0, 200, 270, 200, 1, 0},     {"128x64a@4", 2, 130, 300, 1000, 0, 1},
            {"128x128p", 0, 300, 300, 200, 1, 0},    {"128x128p@4", 2, 520, 300, 600, 0, 1},
            {"128x160p", 0, 300, 500, 200, 1, 0},    {"128x160p@4", 2, 520, 340, 600, 0, 1},
            {"128x192p", 0, 300, 400, 200, 1, 0},    {"128x192p@4", 2, 520, 600, 520, 0, 1},
            {"128x192s", 0, 300, 600, 136, 0, 0},    {"128x192s", 0, 200, 400, 712, 1, 0},
            {"128x192s@2", 2, 520, 600, 520, 0, 1},  {"128x192s:3", 0, 200, 400, 712, 0, 0},
        };
        for (int i = 0; i < (int)(sizeof hs / sizeof hs[0]) && dt != PK_F32; i++) {
            g = G(dt, hs[i].m, hs[i].n, hs[i].k, 0, 1);
            g.batch = hs[i].batch;
            g.bcast = hs[i].bcast ? BC_B0 : BC_NONE;
            if (hs[i].epilogue) every_epilogue(&g);
            g.large = 1;
            g.knob = hs[i].knob;
            add(l, &g);
        }
        /* the tile that writes through TMA with alpha alone (still its
         * staged path), and into an f32 D (no map: from the registers) */
        for (int i = 0; i < 2 && dt != PK_F32; i++) {
            g = G(dt, 260, 520, 200, 0, 1);
            g.alpha = 0.5f;
            if (i == 1) g.out = PK_F32;
            g.large = 1;
            g.knob = "128x256s@3";
            add(l, &g);
        }
        /* ... and through its fused epilogue into the staging tiles: the
         * engine's residual alone, and C in place with a bias (c == d,
         * read before TMA writes the tile), edges in both */
        for (int i = 0; i < 2 && dt != PK_F32; i++) {
            g = G(dt, 300, 520, 200, 0, 1);
            if (i == 0) {
                g.res = 1;
            } else {
                g.beta = 1.0f;
                g.c_mode = C_ALIAS;
                g.bias = 1;
            }
            g.large = 1;
            g.knob = "128x256s@2";
            add(l, &g);
        }
        /* b's rows all one row (a stride of 0 between them): no tensor map
         * takes that, so on NVIDIA's OpenCL with TMA the small shape keeps
         * mma.sync's tile here, unsplit (M = 520: 160 of its tiles) and
         * split (M = 130, K = 1800: the knob case above) */
        if (dt != PK_F32) {
            g = G(dt, 520, 2048, 200, 0, 1);
            g.bcast = BC_B0;
            g.large = 1;
            add(l, &g);
        }
        /* the f32 kernel of aligned layouts split in k (trial): every
         * layout, 8 tiles of 128 x 128 in 16 ranges of 16 steps; an
         * epilogue on one, a batch on another */
        for (int i = 0; i < 4 && dt == PK_F32; i++) {
            g = G(dt, 256, 512, 2048, i >> 1, i & 1);
            if (i == 1) every_epilogue(&g);
            if (i == 2) g.batch = 2;
            g.large = 1;
            g.knob = "trial";
            add(l, &g);
        }
        /* the wide-thread f32 kernel (knobs f32w and f32t: its tiles,
         * GPU-only), each tile in every layout: edges in m and n past whole
         * tiles, k in 25 steps (unsplit) and in 130 cut in 3 or 5 ranges,
         * the last ending half a step short. A k-contiguous operand's rows
         * must be whole float4s, an m- or n-contiguous one's too: each of
         * m, n and k leaves the 4-grid only where no operand runs along it.
         * NaN and inf in A (past k, A's next row must not leak in as 0 *
         * inf), every epilogue both unsplit and added from ranges, a batch
         * with its own flags and partials, a batch over a broadcast B; then
         * the ranges the plan picks for two tiles, and a float4 cut short
         * by the row's end (M = 1 or N = 1: no alignment asked of the
         * other stride). */
        static const struct {
            const char *knob, *split;
            int bm, bn;
        } wide[] = {{"f32w", "f32w:3", 128, 128}, {"f32t", "f32t:5", 256, 64}};
        for (int w = 0; w < 2 && dt == PK_F32; w++) {
            for (int i = 0; i < 4; i++) {
                const int ta = i >> 1, tb = i & 1, k_grid = !ta || tb;
                for (int split = 0; split < 2; split++) {
                    const int64_t wm = wide[w].bm + (ta ? 72 : 73), wn = 2 * wide[w].bn + (tb ? 7 : 4);
                    g = G(dt, wm, wn, (split ? 1036 : 196) - !k_grid, ta, tb);
                    if (!split && i == 0) g.special = SP_NAN_INF;
                    if (i == 1) every_epilogue(&g);
                    if (split && i == 2) g.batch = 2;
                    if (!split && i == 3) g.batch = 3, g.bcast = BC_B0;
                    g.large = 1;
                    g.knob = split ? wide[w].split : wide[w].knob;
                    add(l, &g);
                }
            }
            g = G(dt, 100, wide[w].bn + 20, 2052, 0, 1);
            g.large = 1;
            g.knob = wide[w].knob;
            add(l, &g);
            g = G(dt, 1, 132, 13, 0, 0);
            g.large = 1;
            g.knob = wide[w].knob;
            add(l, &g);
            g = G(dt, 132, 1, 13, 1, 1);
            g.large = 1;
            g.knob = wide[w].knob;
            add(l, &g);
        }
        /* VEC's 128 x 128 tile, which the plan gives way to f32w from 128
         * rows and columns on: under the vec knob, two waves of its tiles
         * (18 x 18 of them), every layout, edges in m and n past whole
         * tiles (float4 rows: m, n and k multiples of 4) */
        for (int i = 0; i < 4 && dt == PK_F32; i++) {
            g = G(dt, 2180, 2300, 12, i >> 1, i & 1);
            if (i == 1) every_epilogue(&g);
            g.large = 1;
            g.knob = "vec";
            add(l, &g);
        }
        /* mma.sync's small tile with A m-major */
        if (dt != PK_F32) {
            g = G(dt, 72, 40, 48, 1, 1);
            add(l, &g);
        }
        /* OpenCL's tensor-core small tile (a few tiles for the compute
         * units; M = 70 and 97) and narrow tile (one row of tiles covers
         * M; 40 and 33) with B k-major: 3 steps of k, unsplit; 129 steps,
         * split in pieces (the last shorter, ending on an 8-deep edge)
         * whose sums the last piece takes through alpha, beta C, bias,
         * GELU and residual; B n-major, 65 steps, split, over a batch of 2 */
        if (dt != PK_F32) {
            for (int narrow = 0; narrow < 2; narrow++) {
                const int64_t m = narrow ? 40 : 70;
                g = G(dt, m, 136, 72, 0, 1);
                add(l, &g);
                g = G(dt, m, 136, 4104, 0, 1);
                every_epilogue(&g);
                add(l, &g);
                g = G(dt, narrow ? 33 : 97, 72, 2056, 0, 0);
                g.batch = 2;
                add(l, &g);
            }
            /* OpenCL's tensor-core k loop without bounds (interior tiles,
             * k a multiple of its 32-deep steps) with B n-major, where
             * every case above has an edge in k or no interior tile: the
             * small tile (15 tiles of 128 x 64) and, GPU-only, the large
             * one (169 tiles of 128 x 128) */
            g = G(dt, 300, 264, 96, 0, 0);
            add(l, &g);
            /* the narrow tile with B k-major, M its height and k whole
             * rounds of steps in each of 2 pieces: its copies and loads
             * without bounds */
            g = G(dt, 64, 264, 512, 0, 1);
            add(l, &g);
            g = G(dt, 1540, 1544, 64, 0, 0);
            g.large = 1;
            add(l, &g);
        }

        /* NaN and inf in A: rows 1 and m-1 of D are NaN / inf. */
        g = G(dt, 9, 13, 21, t == 1, 1);
        g.special = SP_NAN_INF;
        add(l, &g);
    }

    /* Mixed: 16-bit inputs, f32 output (C, bias, residual in f32). */
    g = G(PK_BF16, 65, 33, 129, 0, 1);
    g.out = PK_F32;
    add(l, &g);
    g.bias = 1;
    g.res = 1;
    g.act = PK_ACT_GELU;
    add(l, &g);
    g = G(PK_BF16, 4, 100, 1024, 0, 1);
    g.out = PK_F32;
    g.beta = 1.0f;
    g.c_mode = C_ALIAS;
    add(l, &g);
    g = G(PK_BF16, 17, 9, 33, 1, 0);
    g.out = PK_F32;
    g.batch = 3;
    g.bcast = BC_B0;
    g.layout = LAY_OFFSET;
    add(l, &g);
    g = G(PK_F16, 33, 65, 47, 0, 1);
    g.out = PK_F32;
    g.bias = 1;
    g.act = PK_ACT_SILU;
    add(l, &g);
    g = G(PK_BF16, 1, 1, 1, 0, 0);
    g.out = PK_F16;
    add(l, &g);
    /* f32 output of the Hopper kernel (144 tiles of 128 x 256, both
     * operands k-major with 16-byte rows: a TMA map each): its paired
     * stores, then its out-of-line fused epilogue, GPU-only */
    g = G(PK_BF16, 1096, 3896, 40, 0, 1);
    g.out = PK_F32;
    g.large = 1;
    add(l, &g);
    g.alpha = 0.5f;
    g.beta = 1.0f;
    g.c_mode = C_SEPARATE;
    g.bias = 1;
    g.res = 1;
    g.act = PK_ACT_GELU_TANH;
    add(l, &g);

    /* A 2-D A with a batched B (batch 1 broadcast), and empty outputs. */
    g = G(PK_F32, 9, 17, 12, 0, 0);
    g.batch = 3;
    g.bcast = BC_A2D;
    add(l, &g);
    g = G(PK_F32, 0, 5, 7, 0, 1);
    add(l, &g);
    g = G(PK_F16, 4, 0, 7, 0, 1);
    add(l, &g);
}
