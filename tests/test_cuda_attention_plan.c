/* Unit test of the CUDA attention plan: prefill, decode and fallback
 * problems get the kernel, tile and split the kernels expect, and
 * PORTKERN_CUDA_ATTN (given as the knob) forces a prefill variant only
 * where that variant is built and fits; the Hopper kernel (its ping-pong
 * form without a knob, the other under PORTKERN_CUDA_ATTN=wgmma) only on
 * sm_90 with its module loaded, never under =mma. */
#include <stdio.h>
#include <string.h>

#include "cuda_attention_plan.h"

static int failures;

#define H200_SMS 132
#define H200_SMEM (227u * 1024u)
#define A100_SMS 108
#define A100_SMEM (163u * 1024u)

/* q, k, v, o packed [B, S, H, D] */
static pk_attention_problem problem(pk_dtype dt, int64_t batch, int64_t sq, int64_t skv, int64_t hq, int64_t hkv,
                                    int64_t d)
{
    pk_attention_problem p;
    memset(&p, 0, sizeof p);
    p.batch = batch, p.sq = sq, p.skv = skv, p.hq = hq, p.hkv = hkv, p.d = d;
    pk_view *v[4] = {&p.q, &p.k, &p.v, &p.o};
    for (int i = 0; i < 4; i++) {
        int64_t s = i == 0 || i == 3 ? sq : skv, h = i == 0 || i == 3 ? hq : hkv;
        v[i]->mem = (pk_mem)(uintptr_t)4096;
        v[i]->dtype = dt;
        v[i]->stride[0] = s * h * d, v[i]->stride[1] = h * d, v[i]->stride[2] = d, v[i]->stride[3] = 1;
    }
    p.uniform_lengths = 1;
    return p;
}

/* counts the Hopper kernels (and that none is split) */
static void count_wgmma(void *ctx, const char *name, int split)
{
    if (!strncmp(name, "pk_attn_wgmma_", 14)) *(int *)ctx += split ? 100 : 1;
}

static void expect(const pk_attention_problem *p, int sms, size_t smem, const char *knob, pk_cu_attn_kind kind,
                   int bm, int threads, unsigned smem_bytes, int n_splits, int line)
{
    pk_cu_attn_plan plan;
    /* (the mma.sync plan: as on an sm_90 device without the Hopper module) */
    pk_cu_attn_plan_make_knob(p, 90, sms, smem, 0, pk_cu_attn_knob_of(knob), &plan);
    int64_t rows = p->sq * (p->hq / p->hkv);
    if (plan.kind != (int)kind || plan.bm != bm || plan.threads != threads ||
        (smem_bytes && plan.smem != smem_bytes) || plan.n_splits != n_splits ||
        plan.row_tiles != (int)((rows + bm - 1) / bm) || plan.chunk % 64 ||
        (int64_t)plan.chunk * plan.n_splits < p->skv || (int64_t)plan.chunk * (plan.n_splits - 1) >= p->skv) {
        failures++;
        printf("FAIL line %d: got %s bm %d threads %d smem %u splits %d chunk %d\n", line,
               pk_cu_attn_kernel_names[plan.kernel], plan.bm, plan.threads, plan.smem, plan.n_splits, plan.chunk);
    }
}

/* The keys a tile of the named Hopper kernel: 176 for the wide one, else
 * 128 (64 at D = 256) */
static int wgmma_keys(const char *kernel, int64_t d) { return strstr(kernel, "n176") ? 176 : d == 256 ? 64 : 128; }

/* The Hopper kernel: p's plan on a device of compute capability sm
 * (wgmma: its module loaded) under the knob, and without it */
static void expect_wgmma(const pk_attention_problem *p, int sm, int sms, size_t smem, int wgmma, const char *knob,
                         const char *kernel, int line)
{
    pk_cu_attn_plan plan;
    pk_cu_attn_plan_make_knob(p, sm, sms, smem, wgmma, pk_cu_attn_knob_of(knob), &plan);
    const int64_t rows = p->sq * (p->hq / p->hkv);
    const int taken = plan.kind == PK_CU_ATTN_WGMMA;
    int ok = !strcmp(pk_cu_attn_kernel_names[plan.kernel], kernel);
    if (taken)
        ok = ok && plan.bm == 128 && plan.threads == 384 && plan.n_splits == 1 &&
             plan.row_tiles == (int)((rows + 127) / 128) && plan.chunk % 64 == 0 && plan.chunk >= p->skv &&
             plan.smem == (unsigned)(1024 + 128 * p->d * 2 + 2 * 2 * wgmma_keys(kernel, p->d) * p->d * 2 + 64 + 1024 + 64) &&
             /* TMA boxes of the tile's keys, but under wgmma-pp-cpasync */
             plan.tile_keys == (knob && !strcmp(knob, "wgmma-pp-cpasync") ? 0 : wgmma_keys(kernel, p->d));
    else
        ok = ok && plan.tile_keys == 0;
    if (!ok) {
        failures++;
        printf("FAIL line %d: got %s (kind %d, bm %d, threads %d, smem %u, splits %d, chunk %d); want %s\n", line,
               pk_cu_attn_kernel_names[plan.kernel], plan.kind, plan.bm, plan.threads, plan.smem, plan.n_splits,
               plan.chunk, kernel);
    }
}

static void wgmma_tests(void)
{
    /* the bench's prefill on the H200: the ping-pong form without a knob
     * (or an unknown one) and under wgmma-pp, the other under wgmma, each
     * dtype and head dim */
    pk_attention_problem p = problem(PK_BF16, 8, 2048, 2048, 32, 32, 128);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, NULL, "pk_attn_wgmma_bf16_d128_pp", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "bogus", "pk_attn_wgmma_bf16_d128_pp", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma", "pk_attn_wgmma_bf16_d128", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma-pp", "pk_attn_wgmma_bf16_d128_pp", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 0, "wgmma-pp", "pk_attn_mma_bf16_d128_rows128", __LINE__);
    /* never under mma or a tile's knob, without the module, or before sm_90 */
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "mma", "pk_attn_mma_bf16_d128_rows128", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 0, NULL, "pk_attn_mma_bf16_d128_rows128", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "rows128w8", "pk_attn_mma_bf16_d128_rows128w8", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 0, "wgmma", "pk_attn_mma_bf16_d128_rows128", __LINE__);
    expect_wgmma(&p, 80, A100_SMS, A100_SMEM, 0, "wgmma", "pk_attn_mma_bf16_d128_rows128", __LINE__);
    expect_wgmma(&p, 80, A100_SMS, A100_SMEM, 1, "wgmma", "pk_attn_mma_bf16_d128_rows128", __LINE__);
    expect_wgmma(&p, 100, H200_SMS, H200_SMEM, 1, "wgmma", "pk_attn_mma_bf16_d128_rows128", __LINE__);
    p.q.dtype = p.k.dtype = p.v.dtype = p.o.dtype = PK_F16;
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma", "pk_attn_wgmma_f16_d128", __LINE__);
    p = problem(PK_F16, 4, 2048, 2048, 16, 16, 64);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma", "pk_attn_wgmma_f16_d64", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma-pp", "pk_attn_wgmma_f16_d64_pp", __LINE__);
    p = problem(PK_BF16, 2, 1000, 1000, 8, 8, 256);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma", "pk_attn_wgmma_bf16_d256", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, NULL, "pk_attn_wgmma_bf16_d256_pp", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "mma", "pk_attn_mma_bf16_d256_rows", __LINE__);
    /* no mask bounding the keys (the API's -1): 176-key tiles at D = 128
     * in the ping-pong form under wgmma-pp176 only, not at other head
     * dims, not with causal or window masks */
    p = problem(PK_BF16, 8, 2048, 2048, 32, 32, 128);
    p.window_left = p.window_right = -1;
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma-pp176", "pk_attn_wgmma_bf16_d128n176_pp", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, NULL, "pk_attn_wgmma_bf16_d128_pp", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma-pp", "pk_attn_wgmma_bf16_d128_pp", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma", "pk_attn_wgmma_bf16_d128", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 0, NULL, "pk_attn_mma_bf16_d128_rows128", __LINE__);
    /* the plan's kernel with cp.async copies only: the same kernel, no
     * TMA boxes asked for; nothing without the module */
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma-pp-cpasync", "pk_attn_wgmma_bf16_d128_pp", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 0, "wgmma-pp-cpasync", "pk_attn_mma_bf16_d128_rows128", __LINE__);
    p.q.dtype = p.k.dtype = p.v.dtype = p.o.dtype = PK_F16;
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma-pp176", "pk_attn_wgmma_f16_d128n176_pp", __LINE__);
    p.window_right = 0; /* causal */
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma-pp176", "pk_attn_wgmma_f16_d128_pp", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma-pp-cpasync", "pk_attn_wgmma_f16_d128_pp", __LINE__);
    p.window_right = -1, p.window_left = 100;
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma-pp176", "pk_attn_wgmma_f16_d128_pp", __LINE__);
    p = problem(PK_BF16, 4, 2048, 2048, 16, 16, 64);
    p.window_left = p.window_right = -1;
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, NULL, "pk_attn_wgmma_bf16_d64_pp", __LINE__);
    p = problem(PK_BF16, 2, 1000, 1000, 8, 8, 256);
    p.window_left = p.window_right = -1;
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, NULL, "pk_attn_wgmma_bf16_d256_pp", __LINE__);
    /* where the 176-key tiles' shared memory does not fit, the 128-key ones */
    p = problem(PK_BF16, 8, 2048, 2048, 32, 32, 128);
    p.window_left = p.window_right = -1;
    expect_wgmma(&p, 90, H200_SMS, 200u * 1024u, 1, "wgmma-pp176", "pk_attn_wgmma_bf16_d128_pp", __LINE__);

    /* long context GQA (B1 Hq32 Hkv8 S8192): many row tiles, one pass */
    p = problem(PK_BF16, 1, 8192, 8192, 32, 8, 128);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma", "pk_attn_wgmma_bf16_d128", __LINE__);

    /* what it does not take falls back to the plan's own choice: head dims
     * 80 and 96, f32, strided head dims, decode (16 rows or fewer), a
     * split-KV shape (few rows, long keys), too little shared memory */
    p = problem(PK_BF16, 8, 2048, 2048, 32, 32, 96);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma", "pk_attn_mma_bf16_d96_rows128", __LINE__);
    p = problem(PK_F32, 2, 256, 256, 4, 4, 64);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma", "pk_attn_simt_f32_d64", __LINE__);
    p = problem(PK_BF16, 2, 256, 256, 4, 4, 64);
    p.k.stride[3] = 2;
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma", "pk_attn_simt_bf16_d64", __LINE__);
    p = problem(PK_BF16, 1, 1, 32768, 32, 8, 128);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma", "pk_attn_mma_bf16_d128_keys", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, NULL, "pk_attn_mma_bf16_d128_keys", __LINE__);
    p = problem(PK_BF16, 1, 40, 8192, 2, 2, 128);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma", "pk_attn_mma_bf16_d128_rows", __LINE__);
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, NULL, "pk_attn_mma_bf16_d128_rows", __LINE__);
    p = problem(PK_BF16, 1, 40, 300, 2, 2, 128); /* few rows, short keys: one pass, taken */
    expect_wgmma(&p, 90, H200_SMS, H200_SMEM, 1, "wgmma", "pk_attn_wgmma_bf16_d128", __LINE__);
    p = problem(PK_BF16, 2, 1000, 1000, 8, 8, 256);
    expect_wgmma(&p, 90, H200_SMS, 160u * 1024u, 1, "wgmma", "pk_attn_mma_bf16_d256_rows", __LINE__);

    /* the variant lists on the H200 with the module: the plan's has the
     * six ping-pong kernels of the head dims' own tiles (2 dtypes x 3 head
     * dims), the knob's the eight others (the form without turns, the
     * 176-key tiles at D = 128); neither has any without the module or on
     * the A100 */
    static const struct { int sm, wgmma, knob, want; } lists[] = {
        {90, 1, 1, 8}, {90, 1, 0, 6}, {90, 0, 1, 0}, {90, 0, 0, 0}, {80, 1, 1, 0}, {80, 1, 0, 0},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        int n = 0;
        if (lists[i].knob)
            pk_cu_attn_plan_knob_variants(lists[i].sm, H200_SMEM, lists[i].wgmma, count_wgmma, &n);
        else
            pk_cu_attn_plan_variants(lists[i].sm, H200_SMEM, lists[i].wgmma, count_wgmma, &n);
        if (n != lists[i].want) {
            failures++;
            printf("FAIL: sm %d, module %d, knob list %d: %d Hopper variants, want %d\n", lists[i].sm,
                   lists[i].wgmma, lists[i].knob, n, lists[i].want);
        }
    }
}

int main(void)
{
    /* the bench's prefill: 128-row blocks of 4 warps, 64-key tiles, two stages:
     * Q 128 x 136 + 2 x 2 x 64 x 136 bf16, the row windows and (m, l) */
    pk_attention_problem p = problem(PK_BF16, 8, 2048, 2048, 32, 32, 128);
    unsigned r128 = 128 * 136 * 2 + 4 * 64 * 136 * 2 + 128 * 8 + 128 * 8;
    expect(&p, H200_SMS, H200_SMEM, NULL, PK_CU_ATTN_MMA_ROWS128, 128, 128, r128, 1, __LINE__);
    expect(&p, H200_SMS, H200_SMEM, "bogus", PK_CU_ATTN_MMA_ROWS128, 128, 128, r128, 1, __LINE__);
    expect(&p, H200_SMS, H200_SMEM, "rows128n32", PK_CU_ATTN_MMA_ROWS128N32, 128, 128,
           128 * 136 * 2 + 4 * 32 * 136 * 2 + 2048, 1, __LINE__);
    expect(&p, H200_SMS, H200_SMEM, "rows128w8", PK_CU_ATTN_MMA_ROWS128W8, 128, 256, r128, 1, __LINE__);
    expect(&p, H200_SMS, H200_SMEM, "rows", PK_CU_ATTN_MMA_ROWS, 64, 128,
           64 * 136 * 2 + 4 * 64 * 136 * 2 + 1024, 1, __LINE__);
    expect(&p, A100_SMS, A100_SMEM, NULL, PK_CU_ATTN_MMA_ROWS128, 128, 128, r128, 1, __LINE__);
    p.q.dtype = p.k.dtype = p.v.dtype = p.o.dtype = PK_F16;
    expect(&p, H200_SMS, H200_SMEM, NULL, PK_CU_ATTN_MMA_ROWS128, 128, 128, r128, 1, __LINE__);

    /* few row tiles: 64-row blocks; the knob still forces a 128-row one */
    p = problem(PK_BF16, 1, 512, 512, 8, 8, 128);
    expect(&p, H200_SMS, H200_SMEM, NULL, PK_CU_ATTN_MMA_ROWS, 64, 128, 0, 1, __LINE__);
    expect(&p, H200_SMS, H200_SMEM, "rows128", PK_CU_ATTN_MMA_ROWS128, 128, 128, r128, 1, __LINE__);

    /* D = 256: no 128-row variant is built, the knob falls back */
    p = problem(PK_BF16, 8, 2048, 2048, 32, 32, 256);
    unsigned r256 = 64 * 264 * 2 + 4 * 32 * 264 * 2 + 1024;
    expect(&p, H200_SMS, H200_SMEM, NULL, PK_CU_ATTN_MMA_ROWS, 64, 128, r256, 1, __LINE__);
    expect(&p, H200_SMS, H200_SMEM, "rows128w8", PK_CU_ATTN_MMA_ROWS, 64, 128, r256, 1, __LINE__);

    /* decode: 16 GQA-packed rows, warps split the keys, split-KV; the knob leaves it alone */
    p = problem(PK_BF16, 1, 1, 32768, 32, 8, 128);
    unsigned keys = 16 * 136 * 2 + 2 * 3 * 64 * 136 * 2 + 16 * 8 + 4 * 16 * 8;
    pk_cu_attn_plan plan;
    pk_cu_attn_plan_make_knob(&p, 90, H200_SMS, H200_SMEM, 1, -1, &plan);
    expect(&p, H200_SMS, H200_SMEM, "rows128", PK_CU_ATTN_MMA_KEYS, 16, 128, keys, plan.n_splits, __LINE__);
    if (plan.n_splits < 2) {
        failures++;
        printf("FAIL line %d: decode got %d splits\n", __LINE__, plan.n_splits);
    }

    /* f32 and strided head dims: the CUDA-core kernel, knob or not */
    p = problem(PK_F32, 2, 256, 256, 4, 4, 64);
    expect(&p, H200_SMS, H200_SMEM, "rows128", PK_CU_ATTN_SIMT, 64, 256, 0, 1, __LINE__);
    p = problem(PK_BF16, 2, 256, 256, 4, 4, 64);
    p.q.stride[3] = 2;
    expect(&p, H200_SMS, H200_SMEM, "rows", PK_CU_ATTN_SIMT, 64, 256, 0, 1, __LINE__);

    /* each mma.sync kind's kernel by dtype and head dim, the merge by o's
     * dtype (the Hopper kernels' names: wgmma_tests) */
    static const struct {
        pk_dtype dt, o;
        int64_t sq, d;
        const char *knob, *kernel, *merge;
    } names[] = {
        {PK_BF16, PK_BF16, 2048, 128, "rows128w8", "pk_attn_mma_bf16_d128_rows128w8", "pk_attn_merge_bf16"},
        {PK_F16, PK_F32, 2048, 96, "rows128n32", "pk_attn_mma_f16_d96_rows128n32", "pk_attn_merge_f32"},
        {PK_F16, PK_F16, 2048, 80, NULL, "pk_attn_mma_f16_d80_rows128", "pk_attn_merge_f16"},
        {PK_BF16, PK_BF16, 256, 256, NULL, "pk_attn_mma_bf16_d256_rows", "pk_attn_merge_bf16"},
        {PK_F16, PK_F16, 1, 64, NULL, "pk_attn_mma_f16_d64_keys", "pk_attn_merge_f16"},
        {PK_F32, PK_F32, 1, 256, NULL, "pk_attn_simt_f32_d256", "pk_attn_merge_f32"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        p = problem(names[i].dt, 8, names[i].sq, 4096, 32, 8, names[i].d);
        p.o.dtype = names[i].o;
        pk_cu_attn_plan_make_knob(&p, 90, H200_SMS, H200_SMEM, 0, pk_cu_attn_knob_of(names[i].knob), &plan);
        if (strcmp(pk_cu_attn_kernel_names[plan.kernel], names[i].kernel) ||
            strcmp(pk_cu_attn_kernel_names[plan.merge], names[i].merge)) {
            failures++;
            printf("FAIL: %s and %s; want %s and %s\n", pk_cu_attn_kernel_names[plan.kernel],
                   pk_cu_attn_kernel_names[plan.merge], names[i].kernel, names[i].merge);
        }
    }
    wgmma_tests();
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
