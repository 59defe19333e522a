/* The tuner's search (pk_tune_search; pk_internal_tune runs it in a
 * worker process, pk_tune_proc.c): searches a kernel family's named
 * parameters on one device for the fastest values that still compute what
 * the reference computes.
 *
 * A family has cases to time (the shapes that matter: the bench's on a
 * GPU, smaller ones on a CPU device) and small cases to check. The search
 * starts from the values the context has (its table entry, or what an
 * earlier tuning stored) and walks one parameter at a time through its
 * choices (coordinate descent), keeping a change that is faster by more
 * than the noise, until a pass changes nothing or the time is up. Every
 * candidate is first run on the check cases and compared with the
 * reference backend on the same inputs; one that fails to build or run, or
 * that differs from the reference, is refused and never timed (a launch
 * that does not fit the device is such a failure: the OpenCL backend says
 * PK_ERR_UNSUPPORTED and the context goes on). A failure that loses the
 * context (a device fault) ends the search there, naming the candidate:
 * every later one would be refused for the lost context alone. Timed
 * inputs rotate through copies larger than a GPU's L2 cache, as the
 * bench's do, so that a memory-bound kernel is timed on memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pk_tune.h"

#define MAX_CASES 4
#define MAX_TENSORS 8
#define MAX_PARAMS 16
#define MAX_SEEN 1024
#define REPLY 8192

typedef enum { OP_GEMM, OP_RMSNORM, OP_SOFTMAX, OP_GLU, OP_ATTN, OP_ROPE, OP_CHAIN } op_kind;

/* dims: GEMM {batch, m, n, k, linear}; RMSNORM, SOFTMAX, GLU, CHAIN {rows,
 * cols}; ATTN {b, sq, skv, hq, hkv, d, causal}; ROPE {b, s, hq, hk, d} */
typedef struct tcase {
    op_kind op;
    pk_dtype dt;
    int64_t a[7];
} tcase;

typedef struct inst {
    int nt, out;
    pk_buffer *buf[MAX_TENSORS];
    pk_tensor t[MAX_TENSORS];
} inst;

typedef struct family_cases {
    int ntime, ncheck;
    tcase time[MAX_CASES], check[MAX_CASES];
} family_cases;

double pk_tune_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void pk_internal_tune_bar(const pk_internal_tune_progress *p, int width, char *cells)
{
    double f = p->limit_s > 0 ? p->elapsed_s / p->limit_s : 1;
    int fill = (int)((f > 1 ? 1 : f) * width);
    for (int i = 0; i < width; i++) cells[i] = i < fill ? '#' : '.';
    cells[width] = 0;
}

/* ---- the cases of each family */

#define GEMM(dt_, b, m, n, k, lin) ((tcase){OP_GEMM, dt_, {b, m, n, k, lin}})
#define ROWS(op_, dt_, r, c) ((tcase){op_, dt_, {r, c}})
#define ATTN(dt_, b, sq, skv, hq, hkv, d, causal) ((tcase){OP_ATTN, dt_, {b, sq, skv, hq, hkv, d, causal}})
#define ROPE(dt_, b, s, hq, hk, d) ((tcase){OP_ROPE, dt_, {b, s, hq, hk, d}})

/* Shapes chosen so that the plan takes the family's path whatever the
 * candidate: large GEMM tiles get a batch of at least two tiles per
 * compute unit, small ones fewer tiles than that, decode tiles M = 3..4
 * with B in the [K, N] layout (the linear one goes to the skinny kernel). */
/* The dtype that reaches a SIMT tile: bf16, except where the device has
 * matrix units, whose 16-bit GEMM ([K, N] b included), prefill and decode
 * attention run on the tensor-core kernels; there f32 is what takes the
 * tile. */
static pk_dtype simt_dtype(const pk_device_info *info) { return info->matrix_units ? PK_F32 : PK_BF16; }

static int cases_of(const char *family, const pk_device_info *info, family_cases *fc)
{
    memset(fc, 0, sizeof *fc);
    const int cpu = info->is_cpu;
    const int64_t units = info->compute_units > 0 ? info->compute_units : 1;
    tcase *t = fc->time, *c = fc->check;
#define T(x) (t[fc->ntime++] = (x))
#define C(x) (c[fc->ncheck++] = (x))
    if (!strcmp(family, "gemm_large")) {
        T(cpu ? GEMM(PK_F32, 1, 512, 512, 512, 0) : GEMM(PK_F32, 1, 4096, 4096, 4096, 0));
        C(GEMM(PK_F32, 2 * units, 130, 131, 67, 0));
    } else if (!strcmp(family, "gemm_small")) {
        T(cpu ? GEMM(PK_F32, 1, 128, 128, 2048, 0) : GEMM(PK_F32, 1, 1024, 1024, 4096, 0));
        C(GEMM(PK_F32, 1, 72, 72, 67, 0));
    } else if (!strcmp(family, "gemm_decode")) {
        const pk_dtype dt = simt_dtype(info);
        T(cpu ? GEMM(dt, 1, 4, 1024, 1024, 0) : GEMM(dt, 1, 4, 4096, 4096, 0));
        C(GEMM(dt, 1, 3, 77, 67, 0));
    } else if (!strcmp(family, "gemm_mma")) {
        /* tensor cores only: 16-bit, k-contiguous rows on 16 bytes; the
         * check case has two tiles per compute unit at any tile size */
        if (!info->matrix_units) return -1;
        T(GEMM(PK_BF16, 1, 4096, 4096, 4096, 1));
        C(GEMM(PK_BF16, 2 * units, 130, 264, 72, 1));
        C(GEMM(PK_F16, 2 * units, 130, 264, 72, 0));
    } else if (!strcmp(family, "gemm_mma_small")) {
        /* M = 128 and 256: fewer large tiles than compute units at any
         * tile size, and taller than a narrow tile (at most 64 rows) */
        if (!info->matrix_units) return -1;
        T(GEMM(PK_BF16, 1, 128, 4096, 4096, 1));
        T(GEMM(PK_BF16, 1, 256, 4096, 4096, 1));
        C(GEMM(PK_BF16, 1, 70, 72, 72, 1));
        C(GEMM(PK_F16, 1, 97, 136, 40, 0));
        /* k long enough to be split */
        C(GEMM(PK_BF16, 1, 70, 136, 4104, 1));
        C(GEMM(PK_F16, 2, 97, 72, 2056, 0));
    } else if (!strcmp(family, "gemm_mma_narrow")) {
        /* timed at M = 64 (a 32-row candidate leaves it to the small
         * tile, and pays for that here) and 32, and at M = 64 by N = 1024,
         * whose few tiles want k split (searched on the two others alone,
         * max_splits went to 1 and that shape ran 1.4x slower on the H100:
         * bench/RESULTS.md, 2026-12-05); checked at M = 17..32, one row of
         * narrow tiles at either height searched, past the skinny kernel
         * (M <= 16) */
        if (!info->matrix_units) return -1;
        T(GEMM(PK_BF16, 1, 64, 4096, 4096, 1));
        T(GEMM(PK_BF16, 1, 32, 14336, 4096, 1));
        T(GEMM(PK_BF16, 1, 64, 1024, 4096, 1));
        C(GEMM(PK_BF16, 1, 30, 72, 72, 1));
        C(GEMM(PK_F16, 1, 17, 136, 40, 0));
        /* k long enough to be split */
        C(GEMM(PK_BF16, 1, 32, 136, 4104, 1));
        C(GEMM(PK_F16, 2, 25, 72, 2056, 0));
    } else if (!strcmp(family, "skinny")) {
        if (cpu) {
            T(GEMM(PK_BF16, 1, 1, 4096, 2048, 1));
            T(GEMM(PK_BF16, 1, 16, 4096, 2048, 1));
        } else {
            T(GEMM(PK_BF16, 1, 1, 4096, 4096, 1));
            T(GEMM(PK_BF16, 1, 1, 14336, 4096, 1));
            T(GEMM(PK_BF16, 1, 16, 14336, 4096, 1));
        }
        C(GEMM(PK_BF16, 1, 1, 77, 3000, 1));
        C(GEMM(PK_BF16, 1, 3, 77, 3000, 1));
        C(GEMM(PK_BF16, 1, 13, 50, 2056, 1));
    } else if (!strcmp(family, "rows")) {
        T(ROWS(OP_RMSNORM, PK_BF16, cpu ? 512 : 16384, 4096));
        C(ROWS(OP_RMSNORM, PK_BF16, 37, 4096));
        C(ROWS(OP_RMSNORM, PK_BF16, 5, 1000));
        C(ROWS(OP_SOFTMAX, PK_F32, 9, 5000));
    } else if (!strcmp(family, "elementwise")) {
        T(ROWS(OP_GLU, PK_BF16, cpu ? 64 : 8192, 14336));
        C(ROWS(OP_GLU, PK_BF16, 37, 1000));
        C(ROWS(OP_GLU, PK_F32, 3, 4096));
    } else if (!strcmp(family, "attn_decode")) {
        const pk_dtype dt = simt_dtype(info);
        if (cpu) {
            T(ATTN(dt, 1, 1, 4096, 8, 2, 128, 0));
        } else {
            T(ATTN(dt, 32, 1, 4096, 32, 8, 128, 0));
            T(ATTN(dt, 1, 1, 131072, 32, 8, 128, 0));
        }
        C(ATTN(dt, 2, 1, 1000, 8, 2, 128, 0));
        C(ATTN(dt, 1, 2, 777, 4, 1, 128, 1));
    } else if (!strcmp(family, "attn_prefill")) {
        const pk_dtype dt = simt_dtype(info);
        T(cpu ? ATTN(dt, 1, 128, 128, 4, 4, 128, 1) : ATTN(dt, 2, 1024, 1024, 32, 8, 128, 1));
        C(ATTN(dt, 1, 70, 70, 2, 2, 128, 1));
        C(ATTN(dt, 1, 33, 50, 2, 1, 128, 0));
    } else if (!strcmp(family, "rope")) {
        T(cpu ? ROPE(PK_BF16, 1, 256, 32, 8, 128) : ROPE(PK_BF16, 1, 4096, 32, 8, 128));
        C(ROPE(PK_BF16, 2, 5, 4, 2, 128));
    } else if (!strcmp(family, "chain")) {
        T(ROWS(OP_CHAIN, PK_F32, cpu ? 512 : 8192, cpu ? 4096 : 8192));
        C(ROWS(OP_CHAIN, PK_F32, 37, 1000));
    } else {
        return -1;
    }
#undef T
#undef C
    return 0;
}

/* ---- instances: a case's tensors on one context */

static pk_status add_tensor(pk_context *ctx, inst *in, pk_dtype dt, int ndim, const int64_t *shape)
{
    pk_tensor *t = &in->t[in->nt];
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    pk_status s = pk_alloc(ctx, (size_t)n * pk_dtype_size(dt), &in->buf[in->nt]);
    if (s != PK_SUCCESS) return s;
    *t = pk_tensor_make(in->buf[in->nt], 0, dt, ndim, shape);
    in->nt++;
    return PK_SUCCESS;
}

static void free_inst(inst *in)
{
    for (int i = 0; i < in->nt; i++) pk_free(in->buf[i]);
    memset(in, 0, sizeof *in);
}

/* Tensors: the inputs, then the output (in->out); ROPE's q is both. */
static pk_status make_inst(pk_context *ctx, const tcase *c, inst *in)
{
    memset(in, 0, sizeof *in);
    const int64_t *a = c->a;
    pk_status s = PK_SUCCESS;
#define ADD(dt_, nd, ...)                                                                  \
    do {                                                                                   \
        const int64_t sh_[] = {__VA_ARGS__};                                               \
        if (s == PK_SUCCESS) s = add_tensor(ctx, in, dt_, nd, sh_);                        \
    } while (0)
    switch (c->op) {
    case OP_GEMM:
        if (a[0] > 1) {
            ADD(c->dt, 3, a[0], a[1], a[3]);
            if (a[4]) ADD(c->dt, 3, a[0], a[2], a[3]);
            else ADD(c->dt, 3, a[0], a[3], a[2]);
            ADD(c->dt, 3, a[0], a[1], a[2]);
        } else {
            ADD(c->dt, 2, a[1], a[3]);
            if (a[4]) ADD(c->dt, 2, a[2], a[3]);
            else ADD(c->dt, 2, a[3], a[2]);
            ADD(c->dt, 2, a[1], a[2]);
        }
        break;
    case OP_RMSNORM: /* x, residual, weight, residual_out, out */
        ADD(c->dt, 2, a[0], a[1]);
        ADD(c->dt, 2, a[0], a[1]);
        ADD(c->dt, 1, a[1]);
        ADD(c->dt, 2, a[0], a[1]);
        ADD(c->dt, 2, a[0], a[1]);
        break;
    case OP_SOFTMAX:
        ADD(c->dt, 2, a[0], a[1]);
        ADD(c->dt, 2, a[0], a[1]);
        break;
    case OP_GLU:
    case OP_CHAIN:
        ADD(c->dt, 2, a[0], a[1]);
        ADD(c->dt, 2, a[0], a[1]);
        ADD(c->dt, 2, a[0], a[1]);
        break;
    case OP_ATTN: /* q, k, v, o */
        ADD(c->dt, 4, a[0], a[1], a[3], a[5]);
        ADD(c->dt, 4, a[0], a[2], a[4], a[5]);
        ADD(c->dt, 4, a[0], a[2], a[4], a[5]);
        ADD(c->dt, 4, a[0], a[1], a[3], a[5]);
        break;
    case OP_ROPE: /* q, k; q is compared */
        ADD(c->dt, 4, a[0], a[1], a[2], a[4]);
        ADD(c->dt, 4, a[0], a[1], a[3], a[4]);
        break;
    }
#undef ADD
    in->out = c->op == OP_ROPE ? 0 : in->nt - 1;
    if (s != PK_SUCCESS) free_inst(in);
    return s;
}

static pk_status run_inst(pk_context *ctx, const tcase *c, inst *in)
{
    pk_tensor *t = in->t;
    switch (c->op) {
    case OP_GEMM: {
        pk_gemm_desc d = PK_GEMM_DESC_INIT;
        d.trans_b = (int)c->a[4];
        return pk_gemm(ctx, &d, &t[0], &t[1], NULL, &t[2]);
    }
    case OP_RMSNORM: {
        pk_norm_desc d = PK_NORM_DESC_INIT;
        d.residual = &t[1];
        d.residual_out = &t[3];
        return pk_rmsnorm(ctx, &d, &t[0], &t[2], &t[4]);
    }
    case OP_SOFTMAX: return pk_softmax(ctx, 0.5f, &t[0], &t[1]);
    case OP_GLU: return pk_glu(ctx, PK_ACT_SILU, &t[0], &t[1], &t[2]);
    case OP_CHAIN: {
        const pk_chain_step steps[] = {
            {PK_CHAIN_MUL_IMM, 0, 0, 0.5f}, {PK_CHAIN_ADD, 2, 1, 0.0f}, {PK_CHAIN_SILU, 3, 0, 0.0f}};
        pk_chain_desc d = {2, t, 3, steps};
        return pk_chain(ctx, &d, &t[2]);
    }
    case OP_ATTN: {
        pk_attention_desc d = PK_ATTENTION_DESC_INIT;
        d.causal = (int)c->a[6];
        return pk_attention(ctx, &d, &t[0], &t[1], &t[2], &t[3]);
    }
    case OP_ROPE: {
        pk_rope_desc d = PK_ROPE_DESC_INIT;
        return pk_rope(ctx, &d, &t[0], &t[1]);
    }
    }
    return PK_ERR_INTERNAL;
}

static size_t tensor_bytes(const pk_tensor *t)
{
    size_t n = pk_dtype_size(t->dtype);
    for (int i = 0; i < t->ndim; i++) n *= (size_t)t->shape[i];
    return n;
}

/* Timed inputs hold one small value everywhere (the speed of these kernels
 * does not depend on the values); the outputs are written anyway. */
static pk_status fill_inst(inst *in)
{
    for (int i = 0; i < in->nt; i++) {
        uint32_t pat;
        if (in->t[i].dtype == PK_F32) {
            float f = 0.0625f;
            memcpy(&pat, &f, 4);
        } else {
            uint16_t h = in->t[i].dtype == PK_BF16 ? pk_f32_to_bf16(0.0625f) : pk_f32_to_f16(0.0625f);
            pat = (uint32_t)h | (uint32_t)h << 16;
        }
        pk_status s = pk_fill(in->buf[i], 0, tensor_bytes(&in->t[i]), &pat, 4);
        if (s != PK_SUCCESS) return s;
    }
    return PK_SUCCESS;
}

/* ---- checking against the reference */

static float to_f32(pk_dtype dt, const void *p, size_t i)
{
    if (dt == PK_F32) return ((const float *)p)[i];
    uint16_t h = ((const uint16_t *)p)[i];
    return dt == PK_BF16 ? pk_bf16_to_f32(h) : pk_f16_to_f32(h);
}

typedef struct checked {
    tcase c;
    void *host[MAX_TENSORS]; /* the inputs */
    void *want;              /* the reference's output */
    size_t out_bytes;
    inst dev;
} checked;

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void free_checked(checked *k)
{
    for (int i = 0; i < MAX_TENSORS; i++) free(k->host[i]);
    free(k->want);
    free_inst(&k->dev);
}

static pk_status upload_inputs(checked *k, inst *in)
{
    for (int i = 0; i < in->nt; i++) {
        if (!k->host[i]) continue;
        pk_status s = pk_upload(in->buf[i], 0, k->host[i], tensor_bytes(&in->t[i]));
        if (s != PK_SUCCESS) return s;
    }
    return PK_SUCCESS;
}

/* Random inputs in [-1, 1), the reference's output from them, and the
 * device's instance to run candidates on. */
static pk_status prepare_check(pk_context *ctx, pk_context *ref, const tcase *c, checked *k, char *why, size_t n)
{
    memset(k, 0, sizeof *k);
    k->c = *c;
    inst r;
    pk_status s = make_inst(ref, c, &r);
    if (s != PK_SUCCESS) {
        snprintf(why, n, "reference: %s", pk_last_error(ref));
        return s;
    }
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < r.nt && s == PK_SUCCESS; i++) {
        size_t bytes = tensor_bytes(&r.t[i]), count = bytes / pk_dtype_size(r.t[i].dtype);
        int input = i != r.out || c->op == OP_ROPE;
        if (!(k->host[i] = calloc(1, bytes ? bytes : 1))) s = PK_ERR_OUT_OF_MEMORY;
        for (size_t e = 0; input && s == PK_SUCCESS && e < count; e++) {
            float v = (float)((double)(rng_next(&seed) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
            if (r.t[i].dtype == PK_F32) ((float *)k->host[i])[e] = v;
            else ((uint16_t *)k->host[i])[e] = r.t[i].dtype == PK_BF16 ? pk_f32_to_bf16(v) : pk_f32_to_f16(v);
        }
    }
    k->out_bytes = tensor_bytes(&r.t[r.out]);
    if (s == PK_SUCCESS && !(k->want = malloc(k->out_bytes))) s = PK_ERR_OUT_OF_MEMORY;
    if (s == PK_SUCCESS) s = upload_inputs(k, &r);
    if (s == PK_SUCCESS) s = run_inst(ref, c, &r);
    if (s == PK_SUCCESS) s = pk_download(r.buf[r.out], 0, k->want, k->out_bytes);
    if (s != PK_SUCCESS) snprintf(why, n, "reference: %s", pk_last_error(ref));
    free_inst(&r);
    if (s == PK_SUCCESS && (s = make_inst(ctx, c, &k->dev)) != PK_SUCCESS)
        snprintf(why, n, "device: %s", pk_last_error(ctx));
    if (s != PK_SUCCESS) free_checked(k);
    return s;
}

/* Runs the device on the check inputs; 0 if it matches the reference
 * within a few roundings of the output's dtype (scaled by the size of the
 * outputs: a wrong kernel is off by their whole size), else -1 and why. */
static int check_candidate(pk_context *ctx, checked *k, char *why, size_t n)
{
    pk_dtype dt = k->dev.t[k->dev.out].dtype;
    void *got = malloc(k->out_bytes);
    pk_status s = got ? upload_inputs(k, &k->dev) : PK_ERR_OUT_OF_MEMORY;
    if (s == PK_SUCCESS) s = run_inst(ctx, &k->c, &k->dev);
    if (s == PK_SUCCESS) s = pk_download(k->dev.buf[k->dev.out], 0, got, k->out_bytes);
    if (s != PK_SUCCESS) {
        snprintf(why, n, "%s", got ? pk_last_error(ctx) : "out of host memory");
        free(got);
        return -1;
    }
    size_t count = k->out_bytes / pk_dtype_size(dt);
    double rms = 0;
    for (size_t i = 0; i < count; i++) rms += (double)to_f32(dt, k->want, i) * to_f32(dt, k->want, i);
    rms = sqrt(rms / (double)(count ? count : 1));
    const double eps = dt == PK_F32 ? 1.0 / (1 << 20) : dt == PK_F16 ? 1.0 / (1 << 11) : 1.0 / (1 << 8);
    int bad = 0;
    for (size_t i = 0; i < count && !bad; i++) {
        double w = to_f32(dt, k->want, i), g = to_f32(dt, got, i);
        if (!(fabs(g - w) <= 8 * eps * (fabs(w) + rms))) {
            snprintf(why, n, "output %zu is %g, the reference %g", i, g, w);
            bad = 1;
        }
    }
    free(got);
    return bad ? -1 : 0;
}

/* ---- timing */

typedef struct timed {
    tcase c;
    int copies;
    inst in[8];
} timed;

static pk_status prepare_timed(pk_context *ctx, const tcase *c, timed *t)
{
    memset(t, 0, sizeof *t);
    t->c = *c;
    pk_device_info info;
    pk_context_info(ctx, &info);
    pk_status s = make_inst(ctx, c, &t->in[0]);
    if (s != PK_SUCCESS) return s;
    size_t bytes = 0;
    for (int i = 0; i < t->in[0].nt; i++) bytes += tensor_bytes(&t->in[0].t[i]);
    /* past the L2 of any GPU portkern knows (the H200's is 50 MB) */
    const size_t rotate = (size_t)(info.is_cpu ? 64 : 256) << 20;
    t->copies = 1;
    while (t->copies < 8 && (size_t)t->copies * bytes < rotate) {
        if (make_inst(ctx, c, &t->in[t->copies]) != PK_SUCCESS) break; /* fewer copies: still timed */
        t->copies++;
    }
    for (int i = 0; i < t->copies && s == PK_SUCCESS; i++) s = fill_inst(&t->in[i]);
    return s;
}

static void free_timed(timed *t)
{
    for (int i = 0; i < t->copies; i++) free_inst(&t->in[i]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median milliseconds of the case (one warm-up run first: it builds the
 * kernels); -1 on failure. */
static double time_case(pk_context *ctx, timed *t)
{
    enum { MIN_REPS = 5, MAX_REPS = 40 };
    double ms[MAX_REPS], total = 0;
    int reps = 0;
    if (run_inst(ctx, &t->c, &t->in[0]) != PK_SUCCESS || pk_finish(ctx) != PK_SUCCESS) return -1;
    while (reps < MAX_REPS && (reps < MIN_REPS || total < 30.0)) {
        pk_event *e0 = NULL, *e1 = NULL;
        float f = 0;
        pk_status s = pk_event_record(ctx, &e0);
        if (s == PK_SUCCESS) s = run_inst(ctx, &t->c, &t->in[reps % t->copies]);
        if (s == PK_SUCCESS) s = pk_event_record(ctx, &e1);
        if (s == PK_SUCCESS) s = pk_event_elapsed(e0, e1, &f);
        if (e0) pk_event_free(e0);
        if (e1) pk_event_free(e1);
        if (s != PK_SUCCESS) return -1;
        ms[reps++] = f;
        total += f;
    }
    qsort(ms, (size_t)reps, sizeof ms[0], cmp_double);
    return ms[reps / 2];
}

/* ---- the search */

typedef struct param {
    char name[96]; /* family.name */
    int lo, hi, nchoices, choices[8];
} param;

static int parse_params(pk_context *ctx, const char *family, param *ps, int max)
{
    char *reply = malloc(REPLY);
    if (!reply || pk_internal_params(ctx, "list", reply, REPLY) != PK_SUCCESS) {
        free(reply);
        return -1;
    }
    int n = 0;
    size_t fl = strlen(family);
    for (char *line = strtok(reply, "\n"); line && n < max; line = strtok(NULL, "\n")) {
        if (strncmp(line, family, fl) || line[fl] != '.') continue;
        param *p = &ps[n];
        int used = 0;
        if (sscanf(line, "%95s %d %d%n", p->name, &p->lo, &p->hi, &used) < 3) continue;
        p->nchoices = 0;
        for (char *s = line + used; p->nchoices < 8;) {
            int v, k = 0;
            if (sscanf(s, "%d%n", &v, &k) != 1) break;
            p->choices[p->nchoices++] = v;
            s += k;
        }
        if (p->nchoices) n++;
    }
    free(reply);
    return n;
}

/* values[i] of params ps as a spec */
static void spec_of(const param *ps, int n, const int *values, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s=%d", i ? "," : "", ps[i].name, values[i]);
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

typedef struct search {
    pk_context *ctx;
    const char *family;
    checked check[MAX_CASES];
    timed time[MAX_CASES];
    int ncheck, ntime;
    double base[MAX_CASES]; /* the starting values' medians */
    pk_internal_tune_progress prog;
    const pk_tune_events *ev;
    double t0;
    char lost_by[512]; /* the candidate whose failure lost the context, and why */
} search;

/* evaluate's answer for a candidate after which the context is lost */
#define LOST (-2.0)

/* Refuses a candidate; LOST where its failure lost the context (a device
 * failure: every later candidate would be refused for that alone, so the
 * search stops there and names it), else -1. */
static double refused(search *se, const char *spec, const char *why)
{
    char line[512];
    snprintf(line, sizeof line, "%.300s: %.200s", spec, why);
    se->prog.rejected++;
    if (se->ev->refused) se->ev->refused(se->ev->user, line);
    const pk_status f = pk_finish(se->ctx);
    if (f != PK_ERR_CONTEXT_LOST && f != PK_ERR_DEVICE_FAILURE) return -1;
    snprintf(se->lost_by, sizeof se->lost_by, "%.511s", line);
    return LOST;
}

/* The geometric mean of the timed cases' medians relative to the starting
 * values' (1: as fast); -1 when the candidate is refused, LOST when that
 * lost the context. */
static double evaluate(search *se, const char *spec, int first)
{
    char req[2048], reply[2048], why[200];
    snprintf(req, sizeof req, "set %s", spec);
    if (pk_internal_params(se->ctx, req, reply, sizeof reply) != PK_SUCCESS)
        return refused(se, spec, pk_last_error(se->ctx));
    for (int i = 0; i < se->ncheck; i++)
        if (check_candidate(se->ctx, &se->check[i], why, sizeof why)) return refused(se, spec, why);
    double logsum = 0;
    for (int i = 0; i < se->ntime; i++) {
        double ms = time_case(se->ctx, &se->time[i]);
        if (ms <= 0) return refused(se, spec, pk_last_error(se->ctx));
        if (first) se->base[i] = ms;
        logsum += log(ms / se->base[i]);
    }
    return exp(logsum / se->ntime);
}

static void report_progress(search *se)
{
    se->prog.elapsed_s = pk_tune_now() - se->t0;
    if (se->ev->progress) se->ev->progress(se->ev->user, &se->prog);
}

_Thread_local int pk_tune_active;

pk_status pk_tune_search(pk_context *ctx, const char *family, const char *start, double deadline,
                         const pk_tune_events *ev, char *why, size_t n)
{
    if (n) why[0] = 0;
    pk_device_info info;
    pk_context_info(ctx, &info);
    family_cases fc;
    param ps[MAX_PARAMS];
    int np = parse_params(ctx, family, ps, MAX_PARAMS);
    if (np < 0) {
        snprintf(why, n, "%s", pk_last_error(ctx));
        return PK_ERR_UNSUPPORTED;
    }
    if (np == 0 || cases_of(family, &info, &fc)) {
        snprintf(why, n, "%s: nothing to search (no such family, or no parameter with choices)", family);
        return PK_ERR_INVALID_ARGUMENT;
    }

    search *se = calloc(1, sizeof *se);
    pk_context *ref = NULL;
    if (!se) return PK_ERR_OUT_OF_MEMORY;
    const int was_active = pk_tune_active;
    pk_tune_active = 1;
    se->ctx = ctx;
    se->family = family;
    se->ev = ev;
    se->t0 = pk_tune_now();
    se->prog.family = family;
    se->prog.limit_s = deadline - se->t0;
    pk_status s = pk_open(PK_BACKEND_REF, 0, &ref);
    if (s != PK_SUCCESS) snprintf(why, n, "reference backend: %s", pk_last_error(NULL));
    for (int i = 0; s == PK_SUCCESS && i < fc.ncheck; i++)
        if ((s = prepare_check(ctx, ref, &fc.check[i], &se->check[i], why, n)) == PK_SUCCESS) se->ncheck++;
    for (int i = 0; s == PK_SUCCESS && i < fc.ntime; i++) {
        if ((s = prepare_timed(ctx, &fc.time[i], &se->time[i])) == PK_SUCCESS) se->ntime++;
        else snprintf(why, n, "timed case: %s", pk_last_error(ctx));
    }

    /* the starting values */
    int best[MAX_PARAMS];
    char spec[2048], reply[2048], req[2100];
    if (s == PK_SUCCESS && start) {
        snprintf(req, sizeof req, "set %s", start);
        if ((s = pk_internal_params(ctx, req, reply, sizeof reply)) != PK_SUCCESS)
            snprintf(why, n, "starting values: %s", pk_last_error(ctx));
    }
    snprintf(req, sizeof req, "get %s", family);
    if (s == PK_SUCCESS && (s = pk_internal_params(ctx, req, reply, sizeof reply)) != PK_SUCCESS)
        snprintf(why, n, "%s", pk_last_error(ctx));
    for (int i = 0; s == PK_SUCCESS && i < np; i++) {
        const char *at = strstr(reply, ps[i].name);
        best[i] = at ? atoi(at + strlen(ps[i].name) + 1) : ps[i].choices[0];
    }
    double best_score = 0;
    char first[2048] = "";
    if (s == PK_SUCCESS) {
        spec_of(ps, np, best, first, sizeof first);
        best_score = evaluate(se, first, 1);
        if (best_score == LOST) {
            s = PK_ERR_DEVICE_FAILURE;
        } else if (best_score < 0) {
            /* the starting values themselves fail: any candidate that passes wins */
            for (int i = 0; i < se->ntime; i++) se->base[i] = 1;
            best_score = INFINITY;
        } else {
            se->prog.tried++;
            for (int i = 0; i < se->ntime; i++) se->prog.table_ms += se->base[i];
            se->prog.best_ms = se->prog.table_ms;
            if (ev->best) ev->best(ev->user, first);
        }
        report_progress(se);
    }

    uint64_t seen[MAX_SEEN];
    int nseen = 0;
    if (s == PK_SUCCESS) seen[nseen++] = hash_str(first);
    /* A candidate starts only if one as slow as the slowest so far (at
     * first: the starting values' own run, which built their kernels)
     * ends in time. Only a guess: one candidate's build can take far
     * longer than another's, which is why pk_internal_tune runs this in a
     * worker process that it stops at the deadline. */
    double slowest = pk_tune_now() - se->t0;
#define TIME_LEFT() (pk_tune_now() + slowest < deadline)
    for (int improved = 1; s == PK_SUCCESS && improved;) {
        improved = 0;
        for (int p = 0; p < np && s == PK_SUCCESS && TIME_LEFT(); p++)
            for (int c = 0; c < ps[p].nchoices && TIME_LEFT(); c++) {
                int cand[MAX_PARAMS];
                memcpy(cand, best, sizeof cand);
                cand[p] = ps[p].choices[c];
                spec_of(ps, np, cand, spec, sizeof spec);
                uint64_t h = hash_str(spec);
                int dup = 0;
                for (int i = 0; i < nseen; i++) dup |= seen[i] == h;
                if (dup || nseen == MAX_SEEN) continue;
                seen[nseen++] = h;
                double t1 = pk_tune_now();
                double score = evaluate(se, spec, 0);
                if (pk_tune_now() - t1 > slowest) slowest = pk_tune_now() - t1;
                if (score == LOST) {
                    s = PK_ERR_DEVICE_FAILURE;
                    report_progress(se);
                    break;
                }
                if (score >= 0) {
                    se->prog.tried++;
                    /* 2%: more than the spread of a median on a quiet device */
                    if (score < best_score * 0.98) {
                        best_score = score;
                        memcpy(best, cand, sizeof best);
                        improved = 1;
                        se->prog.best_ms = 0;
                        for (int i = 0; i < se->ntime; i++) se->prog.best_ms += se->base[i] * score;
                        if (ev->best) ev->best(ev->user, spec);
                    }
                }
                report_progress(se);
            }
        if (!TIME_LEFT()) break;
    }
#undef TIME_LEFT

    if (se->lost_by[0]) {
        snprintf(why, n, "%s: stopped after %d timed and %d refused: the device failed under %.300s, which lost the context",
                 family, se->prog.tried, se->prog.rejected, se->lost_by);
    } else if (s == PK_SUCCESS && isinf(best_score)) {
        snprintf(why, n, "%s: every candidate was refused", family);
        s = PK_ERR_INVALID_ARGUMENT;
    } else if (s == PK_SUCCESS) {
        spec_of(ps, np, best, spec, sizeof spec);
        snprintf(req, sizeof req, "set %s", spec);
        if ((s = pk_internal_params(ctx, req, reply, sizeof reply)) != PK_SUCCESS)
            snprintf(why, n, "%s: %s", family, pk_last_error(ctx));
    } else if (why[0] == 0) {
        snprintf(why, n, "%s: %s", family, pk_status_string(s));
    }
    for (int i = 0; i < se->ncheck; i++) free_checked(&se->check[i]);
    for (int i = 0; i < se->ntime; i++) free_timed(&se->time[i]);
    if (ref) pk_close(ref);
    free(se);
    pk_tune_active = was_active;
    return s;
}
