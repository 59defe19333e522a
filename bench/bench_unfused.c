/* The unfused path, through portkern's own calls, as a framework without
 * fused kernels runs it: attention as a GEMM into a score matrix in memory,
 * a softmax pass, and a second GEMM; add+RMSNorm as an add pass and a norm
 * pass; SwiGLU as a SiLU pass and a multiply pass. It shows what fusion
 * buys on each device, measured with the same events as the fused op.
 * One copy of each input: the score matrix traffic (or the extra passes)
 * is what this path is about, and it dwarfs any cache. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct unfused_state {
    pk_context *ctx;
    const pk_bench_case *c;
    pk_buffer *in[3], *tmp, *mask, *out[2];
} unfused_state;

static void set_strides(pk_tensor *t, int64_t s0, int64_t s1, int64_t s2)
{
    t->stride[0] = s0;
    t->stride[1] = s1;
    t->stride[2] = s2;
}

/* Per batch element: without GQA one batched GEMM over all heads; with GQA
 * one per KV head, batched over the query heads that share it (K and V
 * broadcast with batch stride 0), since a single batch stride cannot map
 * query head h to KV head h / group. */
static pk_status attention_run(void *state, int i)
{
    (void)i;
    unfused_state *u = state;
    const pk_bench_case *c = u->c;
    pk_dtype dt = c->dtype;
    size_t es = pk_dtype_size(dt);
    int64_t g = c->hq / c->hkv, units = g == 1 ? 1 : c->hkv, heads = g == 1 ? c->hq : g;
    pk_status s = PK_SUCCESS;
    for (int64_t b = 0; b < c->batch && s == PK_SUCCESS; b++) {
        for (int64_t j = 0; j < units && s == PK_SUCCESS; j++) {
            size_t qoff = (size_t)(((b * c->sq) * c->hq + j * g) * c->d) * es;
            size_t kvoff = (size_t)(((b * c->skv) * c->hkv + j) * c->d) * es;
            int64_t kv_bstride = g == 1 ? c->d : 0;
            pk_tensor q = pk_tensor_make(u->in[0], qoff, dt, 3, (int64_t[]){heads, c->sq, c->d});
            set_strides(&q, c->d, c->hq * c->d, 1);
            pk_tensor k = pk_tensor_make(u->in[1], kvoff, dt, 3, (int64_t[]){heads, c->skv, c->d});
            set_strides(&k, kv_bstride, c->hkv * c->d, 1);
            pk_tensor v = pk_tensor_make(u->in[2], kvoff, dt, 3, (int64_t[]){heads, c->skv, c->d});
            set_strides(&v, kv_bstride, c->hkv * c->d, 1);
            pk_tensor sc = pk_tensor_make(u->tmp, 0, dt, 3, (int64_t[]){heads, c->sq, c->skv});
            pk_tensor o = pk_tensor_make(u->out[0], qoff, dt, 3, (int64_t[]){heads, c->sq, c->d});
            set_strides(&o, c->d, c->hq * c->d, 1);
            pk_gemm_desc d = PK_GEMM_DESC_INIT;
            d.trans_b = 1;
            d.alpha = 1.0f / sqrtf((float)c->d);
            pk_tensor mask;
            if (c->causal) { /* scores + (0 | -inf), the mask read from memory as frameworks do */
                mask = pk_tensor_make(u->mask, 0, dt, 3, (int64_t[]){heads, c->sq, c->skv});
                mask.stride[0] = 0;
                d.beta = 1.0f;
            }
            s = pk_gemm(u->ctx, &d, &q, &k, c->causal ? &mask : NULL, &sc);
            pk_tensor rows = pk_tensor_make(u->tmp, 0, dt, 2, (int64_t[]){heads * c->sq, c->skv});
            if (s == PK_SUCCESS) s = pk_softmax(u->ctx, 1.0f, &rows, &rows);
            pk_gemm_desc d2 = PK_GEMM_DESC_INIT;
            if (s == PK_SUCCESS) s = pk_gemm(u->ctx, &d2, &sc, &v, NULL, &o);
        }
    }
    return s;
}

static pk_status rows_run(void *state, int i)
{
    (void)i;
    unfused_state *u = state;
    const pk_bench_case *c = u->c;
    int64_t shape[2] = {c->m, c->n};
    pk_tensor a = pk_tensor_make(u->in[0], 0, c->dtype, 2, shape);
    pk_tensor b = pk_tensor_make(u->in[1], 0, c->dtype, 2, shape);
    pk_tensor t = pk_tensor_make(u->tmp, 0, c->dtype, 2, shape);
    pk_tensor o = pk_tensor_make(u->out[0], 0, c->dtype, 2, shape);
    pk_status s;
    if (c->op == PK_BENCH_SWIGLU) {
        s = pk_bias_act(u->ctx, PK_ACT_SILU, &a, NULL, &t);
        pk_tensor ins[2] = {t, b};
        pk_chain_step mul = {PK_CHAIN_MUL, 0, 1, 0};
        pk_chain_desc d = {2, ins, 1, &mul};
        if (s == PK_SUCCESS) s = pk_chain(u->ctx, &d, &o);
        return s;
    }
    /* h = x + residual is the new residual stream, then normalised */
    pk_tensor ins[2] = {a, b};
    pk_chain_step add = {PK_CHAIN_ADD, 0, 1, 0};
    pk_chain_desc d = {2, ins, 1, &add};
    s = pk_chain(u->ctx, &d, &t);
    pk_tensor w = pk_tensor_make(u->in[2], 0, c->dtype, 1, &c->n);
    pk_norm_desc nd = PK_NORM_DESC_INIT;
    if (s == PK_SUCCESS) s = pk_rmsnorm(u->ctx, &nd, &t, &w, &o);
    return s;
}

static pk_status alloc_mask(pk_context *ctx, const pk_bench_case *c, pk_buffer **out)
{
    size_t es = pk_dtype_size(c->dtype), n = (size_t)(c->sq * c->skv);
    pk_status s = pk_alloc(ctx, n * es, out);
    if (s != PK_SUCCESS) return s;
    uint16_t *h16 = calloc(n, es);
    if (!h16) return PK_ERR_OUT_OF_MEMORY;
    for (int64_t i = 0; i < c->sq; i++)
        for (int64_t j = 0; j < c->skv; j++) {
            float v = j <= i + c->skv - c->sq ? 0.0f : -INFINITY; /* bottom-right aligned, as pk_attention */
            size_t at = (size_t)(i * c->skv + j);
            if (c->dtype == PK_F32) ((float *)(void *)h16)[at] = v;
            else h16[at] = c->dtype == PK_F16 ? pk_f32_to_f16(v) : pk_f32_to_bf16(v);
        }
    s = pk_upload(*out, 0, h16, n * es);
    free(h16);
    return s;
}

double pk_bench_unfused(pk_context *ctx, const pk_bench_case *c, int reps, char *why, size_t why_len)
{
    if (c->op == PK_BENCH_GEMM || c->op == PK_BENCH_ROPE || c->op == PK_BENCH_ROPE_INV_FREQ ||
        c->op == PK_BENCH_GATHER || c->op == PK_BENCH_SCATTER) {
        snprintf(why, why_len, "%s has no unfused form",
                 c->op == PK_BENCH_GEMM ? "a GEMM" : c->op == PK_BENCH_GATHER || c->op == PK_BENCH_SCATTER ? "a row move" : "RoPE");
        return 0;
    }
    unfused_state u = {ctx, c, {0}, NULL, NULL, {0}};
    pk_status s;
    pk_bench_run_fn run;
    size_t es = pk_dtype_size(c->dtype);
    if (c->op == PK_BENCH_ATTENTION) {
        int64_t g = c->hq / c->hkv, heads = g == 1 ? c->hq : g;
        s = pk_bench_random_buffer(ctx, c->dtype, c->batch * c->sq * c->hq * c->d, &u.in[0]);
        if (s == PK_SUCCESS) s = pk_bench_random_buffer(ctx, c->dtype, c->batch * c->skv * c->hkv * c->d, &u.in[1]);
        if (s == PK_SUCCESS) s = pk_bench_random_buffer(ctx, c->dtype, c->batch * c->skv * c->hkv * c->d, &u.in[2]);
        if (s == PK_SUCCESS) s = pk_alloc(ctx, (size_t)(heads * c->sq * c->skv) * es, &u.tmp);
        if (s == PK_SUCCESS) s = pk_alloc(ctx, (size_t)(c->batch * c->sq * c->hq * c->d) * es, &u.out[0]);
        if (s == PK_SUCCESS && c->causal) s = alloc_mask(ctx, c, &u.mask);
        run = attention_run;
    } else {
        s = pk_bench_random_buffer(ctx, c->dtype, c->m * c->n, &u.in[0]);
        if (s == PK_SUCCESS) s = pk_bench_random_buffer(ctx, c->dtype, c->m * c->n, &u.in[1]);
        if (s == PK_SUCCESS) s = pk_bench_random_buffer(ctx, c->dtype, c->n, &u.in[2]);
        if (s == PK_SUCCESS) s = pk_alloc(ctx, (size_t)(c->m * c->n) * es, &u.tmp);
        if (s == PK_SUCCESS) s = pk_alloc(ctx, (size_t)(c->m * c->n) * es, &u.out[0]);
        run = rows_run;
    }
    pk_bench_result r = {0};
    if (s == PK_SUCCESS) s = pk_bench_time(ctx, run, &u, reps, &r);
    if (s != PK_SUCCESS) snprintf(why, why_len, "%s: %s", pk_status_string(s), pk_last_error(ctx));
    pk_buffer *all[] = {u.in[0], u.in[1], u.in[2], u.tmp, u.mask, u.out[0], u.out[1]};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]) pk_free(all[i]);
    return s == PK_SUCCESS ? r.ms : 0;
}
