/* Runs and times one bench case: inputs of random values (never zeros,
 * which can run faster than real data), rotated over enough copies that
 * the L2 of an H200 cannot hold them, warm-up, then the repetitions:
 * intervals of back-to-back calls between device events; the median of
 * their time a call and the p10..p90 spread. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "pk_internal.h"

#define PK_BENCH_MAX_COPIES 8
#define PK_BENCH_ROTATE_BYTES (256.0 * 1024 * 1024) /* ~4x the largest L2 in sight */
#define PK_BENCH_WARMUP 3

int pk_bench_vendor_on = 1;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static float rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (float)((rng_state >> 40) & 0xffffff) / 16777216.0f * 2.0f - 1.0f;
}

/* A buffer of n random values in [-scale, scale]. */
static pk_status random_buffer(pk_context *ctx, pk_dtype dt, int64_t n, float scale, pk_buffer **out)
{
    size_t es = pk_dtype_size(dt), bytes = (size_t)n * es;
    pk_status s = pk_alloc(ctx, bytes, out);
    if (s != PK_SUCCESS) return s;
    size_t chunk = 1 << 22;
    unsigned char *host = malloc(chunk * es);
    if (!host) return PK_ERR_OUT_OF_MEMORY;
    for (size_t done = 0; done < (size_t)n && s == PK_SUCCESS; done += chunk) {
        size_t m = (size_t)n - done < chunk ? (size_t)n - done : chunk;
        for (size_t i = 0; i < m; i++) {
            float v = rnd() * scale;
            if (dt == PK_F32) ((float *)host)[i] = v;
            else ((uint16_t *)host)[i] = dt == PK_F16 ? pk_f32_to_f16(v) : pk_f32_to_bf16(v);
        }
        s = pk_upload(*out, done * es, host, m * es);
    }
    free(host);
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Intervals of back-to-back calls long enough that the events bounding
 * them weigh little: NVIDIA's OpenCL spends microseconds of host time on
 * each marker and leaves the device that long idle, so that an event
 * between every two calls of a short decode GEMM timed it well above the
 * same calls without events (bench/RESULTS.md, 2026-12-02 13:35). Each
 * interval still holds every call's host cost: a host slower than the
 * device shows. */
#define PK_BENCH_INTERVAL_MS 0.25
#define PK_BENCH_MAX_CALLS 64

static pk_status elapsed_between(pk_context *ctx, pk_bench_run_fn run, void *state, int first, int calls, float *ms)
{
    pk_event *a = NULL, *b = NULL;
    pk_status s = pk_event_record(ctx, &a);
    for (int i = 0; i < calls && s == PK_SUCCESS; i++) s = run(state, first + i);
    if (s == PK_SUCCESS) s = pk_event_record(ctx, &b);
    if (s == PK_SUCCESS) s = pk_event_elapsed(a, b, ms);
    if (a) pk_event_free(a);
    if (b) pk_event_free(b);
    return s;
}

pk_status pk_bench_time(pk_context *ctx, pk_bench_run_fn run, void *state, int reps, pk_bench_result *r)
{
    pk_status s = PK_SUCCESS;
    for (int i = 0; i < PK_BENCH_WARMUP && s == PK_SUCCESS; i++) s = run(state, i);
    if (s == PK_SUCCESS) s = pk_finish(ctx);
    /* the warm calls once more, timed together: the calls an interval takes */
    float warm = 0;
    if (s == PK_SUCCESS) s = elapsed_between(ctx, run, state, 0, PK_BENCH_WARMUP, &warm);
    if (s != PK_SUCCESS) return s;
    const double one = warm / PK_BENCH_WARMUP;
    int calls = one >= PK_BENCH_INTERVAL_MS ? 1 : one > 0 ? (int)ceil(PK_BENCH_INTERVAL_MS / one) : PK_BENCH_MAX_CALLS;
    if (calls > PK_BENCH_MAX_CALLS) calls = PK_BENCH_MAX_CALLS;
    /* One event between two intervals ends the first and starts the next,
     * without a second event's host cost between them. */
    pk_event **ev = calloc((size_t)reps + 1, sizeof *ev);
    double *ms = calloc((size_t)reps, sizeof *ms);
    if (!ev || !ms) {
        free(ev);
        free(ms);
        return PK_ERR_OUT_OF_MEMORY;
    }
    int done = 0, call = 0;
    s = pk_event_record(ctx, &ev[0]);
    for (; done < reps && s == PK_SUCCESS; done++) {
        for (int j = 0; j < calls && s == PK_SUCCESS; j++) s = run(state, call++);
        if (s == PK_SUCCESS) s = pk_event_record(ctx, &ev[done + 1]);
    }
    for (int i = 0; i < done && s == PK_SUCCESS; i++) {
        float t = 0;
        s = pk_event_elapsed(ev[i], ev[i + 1], &t);
        ms[i] = t / calls;
    }
    for (int i = 0; i <= reps; i++)
        if (ev[i]) pk_event_free(ev[i]);
    if (s == PK_SUCCESS) {
        qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
        r->ms = ms[reps / 2];
        r->spread = (ms[reps * 9 / 10] - ms[reps / 10]) / r->ms;
        r->calls = calls;
    }
    free(ev);
    free(ms);
    return s;
}

/* ---- GEMM: D[M,N] = x[M,K] @ W^T (linear) or x @ W (W [K,N]) */

typedef struct gemm_state {
    pk_context *ctx;
    const pk_bench_case *c;
    pk_buffer *x[PK_BENCH_MAX_COPIES], *w[PK_BENCH_MAX_COPIES], *y;
    int copies;
} gemm_state;

static pk_status gemm_run(void *state, int i)
{
    gemm_state *g = state;
    const pk_bench_case *c = g->c;
    int j = i % g->copies;
    pk_tensor x = pk_tensor_make(g->x[j], 0, c->dtype, 2, (int64_t[]){c->m, c->k});
    pk_tensor w = c->linear ? pk_tensor_make(g->w[j], 0, c->dtype, 2, (int64_t[]){c->n, c->k})
                            : pk_tensor_make(g->w[j], 0, c->dtype, 2, (int64_t[]){c->k, c->n});
    pk_tensor y = pk_tensor_make(g->y, 0, c->dtype, 2, (int64_t[]){c->m, c->n});
    pk_gemm_desc d = PK_GEMM_DESC_INIT;
    d.trans_b = c->linear;
    return pk_gemm(g->ctx, &d, &x, &w, NULL, &y);
}

static int copies_for(double bytes, const pk_device_info *info)
{
    int n = (int)ceil(PK_BENCH_ROTATE_BYTES / (bytes > 1 ? bytes : 1));
    if (n > PK_BENCH_MAX_COPIES) n = PK_BENCH_MAX_COPIES;
    while (n > 1 && bytes * n > (double)info->global_mem_bytes / 4) n--;
    return n < 1 ? 1 : n;
}

static pk_status bench_gemm(pk_context *ctx, const pk_device_info *info, const pk_bench_case *c, int reps,
                            pk_bench_result *r)
{
    double es = (double)pk_dtype_size(c->dtype);
    pk_bench_counts(c, &r->flops, &r->bytes);
    r->metric_bytes = es * (double)c->n * c->k;
    gemm_state g = {ctx, c, {0}, {0}, NULL, copies_for(es * ((double)c->m * c->k + (double)c->n * c->k), info)};
    pk_status s = PK_SUCCESS;
    int made = 0;
    for (; made < g.copies && s == PK_SUCCESS; made++) {
        s = random_buffer(ctx, c->dtype, c->m * c->k, 1.0f, &g.x[made]);
        if (s == PK_SUCCESS) s = random_buffer(ctx, c->dtype, c->n * c->k, 1.0f, &g.w[made]);
    }
    if (s == PK_SUCCESS) s = pk_alloc(ctx, (size_t)(es * (double)c->m * (double)c->n), &g.y);
    if (s == PK_SUCCESS) s = pk_bench_time(ctx, gemm_run, &g, reps, r);
    if (s == PK_SUCCESS && !pk_bench_vendor_on) {
        snprintf(r->vendor_na, sizeof r->vendor_na, "skipped (--no-vendor)");
    } else if (s == PK_SUCCESS && info->backend == PK_BACKEND_CUDA) {
        r->vendor = "cuBLAS";
        const char *why = NULL;
        r->vendor_ms = pk_bench_cublas_gemm(ctx, c, g.x[0], g.w, g.copies, g.y, reps, &why);
        if (r->vendor_ms <= 0 && why) snprintf(r->note, sizeof r->note, "cuBLAS: %s", why);
        if (r->vendor_ms <= 0 && why) snprintf(r->vendor_na, sizeof r->vendor_na, "%s", why);
    } else if (s == PK_SUCCESS && info->backend == PK_BACKEND_OPENCL) {
        r->vendor = "CLBlast";
        const char *why = NULL;
        int missing = 0;
        r->vendor_ms = pk_bench_clblast_gemm(ctx, c, g.x[0], g.w, g.copies, g.y, reps, &why, &missing);
        if (r->vendor_ms <= 0) snprintf(r->vendor_na, sizeof r->vendor_na, "%s", why ? why : "failed");
        r->vendor_error = missing;
    } else if (s == PK_SUCCESS) {
        snprintf(r->vendor_na, sizeof r->vendor_na, "no vendor library for %s", pk_backend_name(info->backend));
    }
    for (int i = 0; i < made; i++) {
        pk_free(g.x[i]);
        pk_free(g.w[i]);
    }
    pk_free(g.y);
    return s;
}

/* ---- attention: q [B,Sq,Hq,D], k/v [B,Skv,Hkv,D] */

typedef struct attn_state {
    pk_context *ctx;
    const pk_bench_case *c;
    pk_buffer *q, *k[PK_BENCH_MAX_COPIES], *v[PK_BENCH_MAX_COPIES], *o;
    int copies;
} attn_state;

static pk_status attn_run(void *state, int i)
{
    attn_state *a = state;
    const pk_bench_case *c = a->c;
    int j = i % a->copies;
    pk_tensor q = pk_tensor_make(a->q, 0, c->dtype, 4, (int64_t[]){c->batch, c->sq, c->hq, c->d});
    pk_tensor k = pk_tensor_make(a->k[j], 0, c->dtype, 4, (int64_t[]){c->batch, c->skv, c->hkv, c->d});
    pk_tensor v = pk_tensor_make(a->v[j], 0, c->dtype, 4, (int64_t[]){c->batch, c->skv, c->hkv, c->d});
    pk_tensor o = pk_tensor_make(a->o, 0, c->dtype, 4, (int64_t[]){c->batch, c->sq, c->hq, c->d});
    pk_attention_desc d = PK_ATTENTION_DESC_INIT;
    d.causal = c->causal;
    return pk_attention(a->ctx, &d, &q, &k, &v, &o);
}

static pk_status bench_attention(pk_context *ctx, const pk_device_info *info, const pk_bench_case *c, int reps,
                                 pk_bench_result *r)
{
    double es = (double)pk_dtype_size(c->dtype);
    pk_bench_counts(c, &r->flops, &r->bytes);
    double qo = es * c->batch * c->sq * c->hq * c->d, kv = 2 * es * c->batch * c->skv * c->hkv * c->d;
    r->metric_bytes = kv;
    attn_state a = {ctx, c, NULL, {0}, {0}, NULL, copies_for(kv, info)};
    pk_status s = random_buffer(ctx, c->dtype, c->batch * c->sq * c->hq * c->d, 1.0f, &a.q);
    int made = 0;
    for (; made < a.copies && s == PK_SUCCESS; made++) {
        s = random_buffer(ctx, c->dtype, c->batch * c->skv * c->hkv * c->d, 1.0f, &a.k[made]);
        if (s == PK_SUCCESS) s = random_buffer(ctx, c->dtype, c->batch * c->skv * c->hkv * c->d, 1.0f, &a.v[made]);
    }
    if (s == PK_SUCCESS) s = pk_alloc(ctx, (size_t)qo, &a.o);
    if (s == PK_SUCCESS) s = pk_bench_time(ctx, attn_run, &a, reps, r);
    for (int i = 0; i < made; i++) {
        pk_free(a.k[i]);
        pk_free(a.v[i]);
    }
    if (a.q) pk_free(a.q);
    if (a.o) pk_free(a.o);
    return s;
}

/* ---- rows: add+RMSNorm (x, residual -> out, residual_out) and SwiGLU */

typedef struct rows_state {
    pk_context *ctx;
    const pk_bench_case *c;
    pk_buffer *in[2], *out[2], *w;
} rows_state;

static pk_status rows_run(void *state, int i)
{
    (void)i;
    rows_state *r = state;
    const pk_bench_case *c = r->c;
    int64_t shape[2] = {c->m, c->n};
    pk_tensor a = pk_tensor_make(r->in[0], 0, c->dtype, 2, shape);
    pk_tensor b = pk_tensor_make(r->in[1], 0, c->dtype, 2, shape);
    pk_tensor o = pk_tensor_make(r->out[0], 0, c->dtype, 2, shape);
    if (c->op == PK_BENCH_SWIGLU) return pk_glu(r->ctx, PK_ACT_SILU, &a, &b, &o);
    pk_tensor ro = pk_tensor_make(r->out[1], 0, c->dtype, 2, shape);
    pk_tensor w = pk_tensor_make(r->w, 0, c->dtype, 1, &c->n);
    pk_norm_desc d = PK_NORM_DESC_INIT;
    d.residual = &b;
    d.residual_out = &ro;
    return pk_rmsnorm(r->ctx, &d, &a, &w, &o);
}

static pk_status bench_rows(pk_context *ctx, const pk_bench_case *c, int reps, pk_bench_result *r)
{
    double es = (double)pk_dtype_size(c->dtype), t = es * c->m * c->n;
    int norm = c->op == PK_BENCH_RMSNORM;
    pk_bench_counts(c, &r->flops, &r->bytes);
    r->metric_bytes = r->bytes;
    rows_state st = {ctx, c, {0}, {0}, NULL};
    /* each tensor here is larger than the L2, so one copy does not flatter */
    pk_status s = random_buffer(ctx, c->dtype, c->m * c->n, 1.0f, &st.in[0]);
    if (s == PK_SUCCESS) s = random_buffer(ctx, c->dtype, c->m * c->n, 1.0f, &st.in[1]);
    if (s == PK_SUCCESS) s = pk_alloc(ctx, (size_t)t, &st.out[0]);
    if (s == PK_SUCCESS && norm) s = pk_alloc(ctx, (size_t)t, &st.out[1]);
    if (s == PK_SUCCESS && norm) s = random_buffer(ctx, c->dtype, c->n, 1.0f, &st.w);
    if (s == PK_SUCCESS) s = pk_bench_time(ctx, rows_run, &st, reps, r);
    pk_buffer *all[] = {st.in[0], st.in[1], st.out[0], st.out[1], st.w};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]) pk_free(all[i]);
    return s;
}

/* ---- RoPE: in place on q [B,S,Hq,D] and k [B,S,Hkv,D], Llama 3's theta;
 * with inv_freq the same frequencies come from a device table instead */

#define PK_BENCH_ROPE_THETA 500000.0f

typedef struct rope_state {
    pk_context *ctx;
    const pk_bench_case *c;
    pk_buffer *q[PK_BENCH_MAX_COPIES], *k[PK_BENCH_MAX_COPIES], *freq;
    int32_t *pos;
    int copies;
} rope_state;

static pk_status rope_run(void *state, int i)
{
    rope_state *r = state;
    const pk_bench_case *c = r->c;
    int j = i % r->copies;
    pk_tensor q = pk_tensor_make(r->q[j], 0, c->dtype, 4, (int64_t[]){c->batch, c->sq, c->hq, c->d});
    pk_tensor k = pk_tensor_make(r->k[j], 0, c->dtype, 4, (int64_t[]){c->batch, c->sq, c->hkv, c->d});
    pk_tensor f = r->freq ? pk_tensor_make(r->freq, 0, PK_F32, 1, (int64_t[]){c->d / 2}) : (pk_tensor){0};
    pk_rope_desc d = PK_ROPE_DESC_INIT;
    d.theta = PK_BENCH_ROPE_THETA;
    d.positions = r->pos;
    d.inv_freq = r->freq ? &f : NULL;
    return pk_rope(r->ctx, &d, &q, &k);
}

static pk_status bench_rope(pk_context *ctx, const pk_device_info *info, const pk_bench_case *c, int reps,
                            pk_bench_result *r)
{
    double es = (double)pk_dtype_size(c->dtype);
    pk_bench_counts(c, &r->flops, &r->bytes);
    r->metric_bytes = r->bytes;
    int64_t tokens = c->batch * c->sq, half = c->d / 2;
    rope_state st = {ctx, c, {0}, {0}, NULL, NULL, copies_for(es * tokens * (c->hq + c->hkv) * c->d, info)};
    st.pos = malloc((size_t)tokens * sizeof *st.pos);
    float *freq = malloc((size_t)half * sizeof *freq);
    pk_status s = st.pos && freq ? PK_SUCCESS : PK_ERR_OUT_OF_MEMORY;
    /* prefill: positions 0..S-1; decode: each sequence 4k tokens in */
    for (int64_t t = 0; s == PK_SUCCESS && t < tokens; t++)
        st.pos[t] = (int32_t)(c->sq > 1 ? t % c->sq : 4095 + t);
    int made = 0;
    for (; made < st.copies && s == PK_SUCCESS; made++) {
        s = random_buffer(ctx, c->dtype, tokens * c->hq * c->d, 1.0f, &st.q[made]);
        if (s == PK_SUCCESS) s = random_buffer(ctx, c->dtype, tokens * c->hkv * c->d, 1.0f, &st.k[made]);
    }
    if (s == PK_SUCCESS && c->op == PK_BENCH_ROPE_INV_FREQ) {
        for (int64_t i = 0; i < half; i++) freq[i] = powf(PK_BENCH_ROPE_THETA, -(float)(2 * i) / (float)c->d);
        s = pk_alloc(ctx, (size_t)half * sizeof *freq, &st.freq);
        if (s == PK_SUCCESS) s = pk_upload(st.freq, 0, freq, (size_t)half * sizeof *freq);
    }
    if (s == PK_SUCCESS) s = pk_bench_time(ctx, rope_run, &st, reps, r);
    for (int i = 0; i < made; i++) {
        if (st.q[i]) pk_free(st.q[i]);
        if (st.k[i]) pk_free(st.k[i]);
    }
    if (st.freq) pk_free(st.freq);
    free(st.pos);
    free(freq);
    return s;
}

/* ---- rows by device index: m distinct rows spread over the table (a
 * decode batch's tokens or cache slots), every call the same indices */

typedef struct index_state {
    pk_context *ctx;
    const pk_bench_case *c;
    pk_buffer *table, *rows, *index;
} index_state;

static pk_status index_run(void *state, int i)
{
    (void)i;
    index_state *x = state;
    const pk_bench_case *c = x->c;
    pk_tensor table = pk_tensor_make(x->table, 0, c->dtype, 2, (int64_t[]){c->k, c->n});
    pk_tensor rows = pk_tensor_make(x->rows, 0, c->dtype, 2, (int64_t[]){c->m, c->n});
    pk_tensor index = pk_tensor_make(x->index, 0, PK_I32, 1, &c->m);
    return c->op == PK_BENCH_GATHER ? pk_gather_rows(x->ctx, &table, &index, &rows)
                                    : pk_scatter_rows(x->ctx, &rows, &index, &table);
}

static pk_status bench_index(pk_context *ctx, const pk_bench_case *c, int reps, pk_bench_result *r)
{
    pk_bench_counts(c, &r->flops, &r->bytes);
    r->metric_bytes = r->bytes;
    index_state st = {ctx, c, NULL, NULL, NULL};
    int32_t *idx = malloc((size_t)c->m * sizeof *idx);
    pk_status s = idx ? PK_SUCCESS : PK_ERR_OUT_OF_MEMORY;
    for (int64_t i = 0; s == PK_SUCCESS && i < c->m; i++) idx[i] = (int32_t)((i * 7919) % c->k);
    if (s == PK_SUCCESS) s = random_buffer(ctx, c->dtype, c->k * c->n, 1.0f, &st.table);
    if (s == PK_SUCCESS) s = random_buffer(ctx, c->dtype, c->m * c->n, 1.0f, &st.rows);
    if (s == PK_SUCCESS) s = pk_alloc(ctx, (size_t)c->m * sizeof *idx, &st.index);
    if (s == PK_SUCCESS) s = pk_upload(st.index, 0, idx, (size_t)c->m * sizeof *idx);
    if (s == PK_SUCCESS) s = pk_bench_time(ctx, index_run, &st, reps, r);
    pk_buffer *all[] = {st.table, st.rows, st.index};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]) pk_free(all[i]);
    free(idx);
    return s;
}

pk_status pk_bench_run(pk_context *ctx, const pk_bench_case *c, int reps, pk_bench_result *r)
{
    memset(r, 0, sizeof *r);
    pk_device_info info;
    pk_status s = pk_context_info(ctx, &info);
    if (s != PK_SUCCESS) return s;
    switch (c->op) {
    case PK_BENCH_GEMM: return bench_gemm(ctx, &info, c, reps, r);
    case PK_BENCH_ATTENTION: return bench_attention(ctx, &info, c, reps, r);
    case PK_BENCH_ROPE:
    case PK_BENCH_ROPE_INV_FREQ: return bench_rope(ctx, &info, c, reps, r);
    case PK_BENCH_GATHER:
    case PK_BENCH_SCATTER: return bench_index(ctx, c, reps, r);
    default: return bench_rows(ctx, c, reps, r);
    }
}

pk_status pk_bench_random_buffer(pk_context *ctx, pk_dtype dt, int64_t n, pk_buffer **out)
{
    return random_buffer(ctx, dt, n, 1.0f, out);
}
