/* Unit test of the CUDA GEMM plan: representative problems get the kernel
 * variant, layout, tile and grid the plan promises, and anything the fast
 * kernels cannot take falls back to the SIMT kernel. */
#include <stdio.h>
#include <string.h>

#include "cuda_gemm_plan.h"

static int failures;

#define H200_SMS 132
#define H200_SMEM (227u * 1024u)

/* batch x m x n x k, A [M,K] row-major (or [K,M] if trans_a), B [K,N] row-major (or [N,K] if
 * trans_b), packed */
static pk_gemm_problem problem(pk_dtype dt, int64_t batch, int64_t m, int64_t n, int64_t k, int trans_a,
                               int trans_b)
{
    pk_gemm_problem p;
    memset(&p, 0, sizeof p);
    p.batch = batch, p.m = m, p.n = n, p.k = k;
    p.a.mem = p.b.mem = p.d.mem = (pk_mem)(uintptr_t)4096;
    p.a.dtype = p.b.dtype = p.d.dtype = dt;
    p.a.stride[0] = m * k;
    p.a.stride[1] = trans_a ? 1 : k;
    p.a.stride[2] = trans_a ? m : 1;
    p.b.stride[0] = k * n;
    p.b.stride[1] = trans_b ? 1 : n;
    p.b.stride[2] = trans_b ? k : 1;
    p.d.stride[0] = m * n, p.d.stride[1] = n, p.d.stride[2] = 1;
    p.alpha = 1.0f;
    return p;
}

/* PORTKERN_CUDA_GEMM as knob (NULL: unset; the test does not read the
 * environment, so a value set there cannot change what it checks) */
static pk_cu_gemm_plan expect_knob(const pk_gemm_problem *p, int sms, size_t smem, const char *knob,
                                   const char *kernel, unsigned gx, unsigned gy, unsigned smem_bytes, int line)
{
    pk_cu_gemm_plan plan;
    pk_cu_gemm_plan_pick_knob(p, sms, smem, pk_cu_gemm_knob_of(knob), &plan);
    /* only the skinny kernel waits for its predecessor before it reads */
    const int early = !strncmp(kernel, "pk_gemm_skinny_", 15);
    if (strcmp(pk_cu_gemm_kernel_names[plan.kernel], kernel) || (gx && plan.grid[0] != gx) ||
        (gy && plan.grid[1] != gy) || plan.smem != smem_bytes || plan.grid[2] != 1 || plan.block[1] != 1 || plan.block[2] != 1 ||
        plan.early != early) {
        failures++;
        printf("FAIL line %d: got %s grid %u,%u smem %u early %d; want %s grid %u,%u smem %u early %d\n", line,
               pk_cu_gemm_kernel_names[plan.kernel], plan.grid[0], plan.grid[1], plan.smem, plan.early, kernel, gx,
               gy, smem_bytes, early);
    }
    return plan;
}

static void expect(const pk_gemm_problem *p, int sms, size_t smem, const char *kernel, unsigned gx, unsigned gy,
                   unsigned smem_bytes, int line)
{
    expect_knob(p, sms, smem, NULL, kernel, gx, gy, smem_bytes, line);
}

/* the decode kernel: a block of `warps` warps per 16 columns, 1 KiB of shared memory per warp */
static void expect_decode(const pk_gemm_problem *p, const char *knob, const char *kernel, unsigned gx,
                          unsigned warps, int line)
{
    pk_cu_gemm_plan plan =
        expect_knob(p, H200_SMS, H200_SMEM, knob, kernel, gx, (unsigned)p->batch, warps * 1024, line);
    if (plan.block[0] != 32 * warps || plan.kind != PK_CU_GEMM_DECODE) {
        failures++;
        printf("FAIL line %d: block %u kind %d; want %u threads of the decode kernel\n", line, plan.block[0],
               (int)plan.kind, 32 * warps);
    }
}

#define EXPECT(p, kernel, gx, gy, smem) expect(&(p), H200_SMS, H200_SMEM, kernel, gx, gy, smem, __LINE__)

/* the shared memory of the Hopper tile whose kernel is named `kernel`
 * (its name's end: 128x256 is also the start of 128x256p) */
static unsigned wgmma_smem(const char *kernel)
{
    const size_t len = strlen(kernel);
#define T_SMEM(a, b, c, i, name, bm, bn, st, cost, trial, form, out)                                   \
    if (len > sizeof #name && !strcmp(kernel + len - sizeof #name, "_" #name))                      \
        return PK_CU_WGMMA_SMEM(bm, bn, st, out);
    PK_CU_WGMMA_TILES(T_SMEM, 0, 0, 0)
#undef T_SMEM
    return 0;
}

/* the Hopper kernel takes p (kernel non-NULL: with that grid) or leaves it (NULL) */
static void expect_wgmma(const pk_gemm_problem *p, const char *knob, const char *kernel, unsigned gx, unsigned gy,
                         int line)
{
    pk_cu_gemm_plan plan;
    int took = pk_cu_gemm_plan_wgmma(p, H200_SMS, pk_cu_gemm_knob_of(knob), &plan);
    if (!kernel ? took
                : !took || strcmp(pk_cu_gemm_kernel_names[plan.kernel], kernel) || plan.grid[0] != gx ||
                      plan.grid[1] != gy || plan.block[0] != PK_CU_WGMMA_THREADS || plan.smem != wgmma_smem(kernel) ||
                      plan.kind != PK_CU_GEMM_WGMMA) {
        failures++;
        printf("FAIL line %d: wgmma %s (%s grid %u,%u); want %s grid %u,%u\n", line, took ? "took it" : "left it",
               took ? pk_cu_gemm_kernel_names[plan.kernel] : "-", took ? plan.grid[0] : 0, took ? plan.grid[1] : 0,
               kernel ? kernel : "none", gx, gy);
    }
}

static void wgmma_cases(void)
{
    /* the linear layout, a tile per SM at least: one persistent block per SM */
    pk_gemm_problem p = problem(PK_BF16, 1, 4096, 4096, 4096, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_128x256s", H200_SMS, 1, __LINE__);
    expect_wgmma(&p, "mma", NULL, 0, 0, __LINE__);
    expect_wgmma(&p, "decode", "pk_gemm_wgmma_bf16_128x256s", H200_SMS, 1, __LINE__);
    /* the plan's 128 x 256 tile writes through TMA where D allows it: a
     * 16-bit output, rows 16-byte aligned; three stages and its staging tiles in shared
     * memory. Elsewhere the four-stage tile that writes from registers. */
    expect_wgmma(&p, "128x256s", "pk_gemm_wgmma_bf16_128x256s", H200_SMS, 1, __LINE__);
    {
        pk_cu_gemm_plan plan;
        pk_cu_gemm_plan_wgmma(&p, H200_SMS, pk_cu_gemm_knob_of(NULL), &plan);
        if (!plan.out || plan.smem != 3 * (128 + 256) * 64 * 2 + 1024 + 128 * 256 * 2 + 2 * 3 * 8) {
            failures++;
            printf("FAIL line %d: 128x256s out %d smem %u\n", __LINE__, plan.out, plan.smem);
        }
        pk_cu_gemm_plan_wgmma(&p, H200_SMS, pk_cu_gemm_knob_of("128x256"), &plan);
        if (plan.out || plan.smem != 4 * (128 + 256) * 64 * 2 + 1024 + 2 * 4 * 8) {
            failures++;
            printf("FAIL line %d: 128x256 out %d smem %u\n", __LINE__, plan.out, plan.smem);
        }
    }
    {
        pk_gemm_problem q = p;
        q.d.dtype = PK_F32; /* a 32-bit output */
        expect_wgmma(&q, NULL, "pk_gemm_wgmma_bf16_128x256", H200_SMS, 1, __LINE__);
        /* an epilogue: into the staging tiles as from registers */
        q = p;
        q.bias.mem = p.d.mem;
        expect_wgmma(&q, NULL, "pk_gemm_wgmma_bf16_128x256s", H200_SMS, 1, __LINE__);
        q = p;
        q.act = PK_ACT_SILU;
        expect_wgmma(&q, NULL, "pk_gemm_wgmma_bf16_128x256s", H200_SMS, 1, __LINE__);
        q = p;
        q.residual.mem = p.d.mem;
        expect_wgmma(&q, NULL, "pk_gemm_wgmma_bf16_128x256s", H200_SMS, 1, __LINE__);
        q = p;
        q.c.mem = p.d.mem, q.beta = 1.0f;
        expect_wgmma(&q, NULL, "pk_gemm_wgmma_bf16_128x256s", H200_SMS, 1, __LINE__);
        q = p;
        q.d.stride[1] = 4100; /* rows not whole 16-byte units apart */
        expect_wgmma(&q, NULL, "pk_gemm_wgmma_bf16_128x256", H200_SMS, 1, __LINE__);
        q = p;
        q.d.offset = 3;
        expect_wgmma(&q, NULL, "pk_gemm_wgmma_bf16_128x256", H200_SMS, 1, __LINE__);
        q = p;
        q.d.stride[1] = 1, q.d.stride[2] = 4096; /* D column-major */
        expect_wgmma(&q, NULL, "pk_gemm_wgmma_bf16_128x256", H200_SMS, 1, __LINE__);
    }
    p = problem(PK_F16, 1, 2048, 14336, 4096, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_f16_128x256s", H200_SMS, 1, __LINE__);
    /* edges everywhere: TMA fills zeros (648 tiles of 128 x 192, five
     * waves, against 480 of 128 x 256, four of a larger tile) */
    p = problem(PK_BF16, 1, 3001, 5000, 1000, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_128x192s", H200_SMS, 1, __LINE__);
    /* the tile whose waves cost least: 64 tiles of 128 x 256 are one wave
     * as 128 tiles of 128 x 128 are, of half the size */
    p = problem(PK_BF16, 1, 1024, 2048, 4096, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_128x128", 128, 1, __LINE__);
    /* 128 tiles of 128 x 256 (one wave) against 256 of 128 x 128 (two) */
    p = problem(PK_BF16, 1, 1024, 4096, 4096, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_128x256s", 128, 1, __LINE__);
    /* 112 of 128 x 192 (one wave) against 80 of 128 x 256 (one wave of
     * a larger tile) or 160 of 128 x 128 (two) */
    p = problem(PK_BF16, 1, 2048, 1280, 8192, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_128x192s", 112, 1, __LINE__);
    /* the 1B qkv: 256 of 128 x 192 (two waves) against 192 of 128 x 256
     * (two) */
    p = problem(PK_BF16, 1, 2048, 3072, 2048, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_128x192s", H200_SMS, 1, __LINE__);
    /* 4096^3: 4 waves of 128 x 256 against 6 of 128 x 192 */
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_128x256s", H200_SMS, 1, __LINE__);
    /* one wave either way: the smallest tile (128 of 64 x 128 against 64
     * of 128 x 128 or 64 x 256) */
    p = problem(PK_BF16, 1, 256, 4096, 4096, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_64x128", 128, 1, __LINE__);
    /* one wave of 128 tiles of 64 x 64 against 64 of 64 x 128 */
    p = problem(PK_BF16, 1, 128, 4096, 4096, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_64x64", 128, 1, __LINE__);
    /* 16 tiles of 64 x 64, a quarter of the device or less: split, but
     * 64 x 64 only whole (its split forms untimed): 8 tiles of 64 x 128
     * split 8 ways fill 64 multiprocessors */
    p = problem(PK_BF16, 1, 64, 1024, 4096, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_64x128", 64, 1, __LINE__);
    /* fewer than 64 rows: the 64-row tiles alone (112 tiles of 64 x 256,
     * one wave, against 224 of 64 x 128, two); a 128-row tile not even
     * when the knob names it */
    p = problem(PK_BF16, 1, 63, 28672, 4096, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_64x256", 112, 1, __LINE__);
    expect_wgmma(&p, "128x128", NULL, 0, 0, __LINE__);
    p = problem(PK_BF16, 1, 17, 6144, 4096, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_64x64", 96, 1, __LINE__);
    /* PORTKERN_CUDA_GEMM naming a tile: that tile wherever the kernel takes the problem */
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 0, 1);
    expect_wgmma(&p, "128x128", "pk_gemm_wgmma_bf16_128x128", H200_SMS, 1, __LINE__);
    p = problem(PK_BF16, 1, 128, 4096, 4096, 0, 1);
    expect_wgmma(&p, "128x256", "pk_gemm_wgmma_bf16_128x256", 16, 1, __LINE__);
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 1, 1);
    expect_wgmma(&p, "128x128", NULL, 0, 0, __LINE__);
    /* batches count: 8 x 32 tiles; 132 / 32 = 4 batches at a time */
    p = problem(PK_BF16, 8, 1024, 1024, 512, 0, 1);
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_128x256s", 32, 4, __LINE__);
    p.b.stride[0] = 0; /* one W for every batch */
    expect_wgmma(&p, NULL, "pk_gemm_wgmma_bf16_128x256s", 32, 4, __LINE__);
    p.a.stride[0] = 1000 * 512; /* batch planes overlap: not a TMA map */
    expect_wgmma(&p, NULL, NULL, 0, 0, __LINE__);
    /* only k-contiguous operands, 16-bit, whole 16-byte rows that do not overlap */
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 0, 0);
    expect_wgmma(&p, NULL, NULL, 0, 0, __LINE__);
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 1, 1);
    expect_wgmma(&p, NULL, NULL, 0, 0, __LINE__);
    p = problem(PK_F32, 1, 4096, 4096, 4096, 0, 1);
    expect_wgmma(&p, NULL, NULL, 0, 0, __LINE__);
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 0, 1);
    p.a.offset = 4;
    expect_wgmma(&p, NULL, NULL, 0, 0, __LINE__);
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 0, 1);
    p.b.stride[2] = 64;
    expect_wgmma(&p, NULL, NULL, 0, 0, __LINE__);
    p = problem(PK_BF16, 1, 4096, 4096, 4100, 0, 1);
    expect_wgmma(&p, NULL, NULL, 0, 0, __LINE__);
}

/* the Hopper kernel takes p under knob as kernel, in `splits` ranges of
 * `steps` k steps (1 and K's steps: unsplit), on gx x gy blocks */
static void expect_split(const pk_gemm_problem *p, const char *knob, const char *kernel, int splits, int steps,
                         unsigned gx, unsigned gy, int line)
{
    pk_cu_gemm_plan plan;
    expect_wgmma(p, knob, kernel, gx, gy, line);
    if (!pk_cu_gemm_plan_wgmma(p, H200_SMS, pk_cu_gemm_knob_of(knob), &plan)) return;
    const int64_t tm = plan.tile_m, tn = plan.tile_n;
    const size_t part = splits > 1 ? (size_t)(p->batch * ((p->m + tm - 1) / tm) * ((p->n + tn - 1) / tn) * splits * tm * tn * 4) : 0;
    if (plan.splits != splits || plan.steps != steps || plan.part_bytes != part) {
        failures++;
        printf("FAIL line %d: %d ranges of %d steps, %zu bytes of partials; want %d of %d, %zu\n", line, plan.splits,
               plan.steps, plan.part_bytes, splits, steps, part);
    }
}

static void expect_pair(const pk_gemm_problem *p, const char *knob, int pair, int line)
{
    pk_cu_gemm_plan plan;
    if (!pk_cu_gemm_plan_wgmma(p, H200_SMS, pk_cu_gemm_knob_of(knob), &plan) || plan.pair != pair ||
        (pair && plan.grid[0] % 2)) {
        failures++;
        printf("FAIL line %d: pair %d grid %u; want pair %d, an even grid\n", line, plan.pair, plan.grid[0], pair);
    }
}

static void expect_knob_parse(const char *value, pk_cu_gemm_knob_kind kind, int tile, int splits, int line)
{
    const pk_cu_gemm_knob k = pk_cu_gemm_knob_of(value);
    const int has_tile = kind == PK_CU_GEMM_KNOB_TILE || kind == PK_CU_GEMM_KNOB_WIDE;
    if (k.kind != kind || (has_tile && (k.tile != tile || k.splits != splits))) {
        failures++;
        printf("FAIL line %d: '%s' parsed as kind %d tile %d splits %d\n", line, value, (int)k.kind, k.tile, k.splits);
    }
}

/* the f32 kernel of aligned layouts, under knob: kernel, splits, steps, grid */
static void expect_vec(const pk_gemm_problem *p, const char *knob, const char *kernel, int splits, int steps,
                       unsigned gx, unsigned gy, int line)
{
    pk_cu_gemm_plan plan = expect_knob(p, H200_SMS, H200_SMEM, knob, kernel, gx, gy, 0, line);
    const size_t part = splits > 1 ? (size_t)(p->batch * ((p->m + 127) / 128) * ((p->n + 127) / 128)) * splits * 128 * 128 * 4 : 0;
    if (plan.kind != PK_CU_GEMM_VEC || (splits > 1 ? plan.splits != splits || plan.steps != steps : plan.splits > 1) ||
        plan.part_bytes != part) {
        failures++;
        printf("FAIL line %d: kind %d, %d ranges of %d steps, %zu bytes; want VEC, %d of %d, %zu\n", line, (int)plan.kind,
               plan.splits, plan.steps, plan.part_bytes, splits, steps, part);
    }
}

/* the wide-thread f32 kernel under its tile's knob: kernel, a tile of bm
 * x bn, splits, steps, grid; 128 threads */
static void expect_wide(const pk_gemm_problem *p, const char *knob, const char *kernel, int bm, int bn, int splits,
                        int steps, unsigned gx, unsigned gy, int line)
{
    pk_cu_gemm_plan plan = expect_knob(p, H200_SMS, H200_SMEM, knob, kernel, gx, gy, 0, line);
    const size_t part =
        splits > 1 ? (size_t)(p->batch * ((p->m + bm - 1) / bm) * ((p->n + bn - 1) / bn)) * splits * bm * bn * 4 : 0;
    if (plan.kind != PK_CU_GEMM_VEC || plan.block[0] != 128 ||
        (splits > 1 ? plan.splits != splits || plan.steps != steps : plan.splits > 1) || plan.part_bytes != part) {
        failures++;
        printf("FAIL line %d: kind %d, %u threads, %d ranges of %d steps, %zu bytes; want VEC, 128, %d of %d, %zu\n",
               line, (int)plan.kind, plan.block[0], plan.splits, plan.steps, plan.part_bytes, splits, steps, part);
    }
}

struct named {
    int line;
    const char *const *parts; /* NULL-ended */
};

static void fail_if_named(void *ctx, const char *name, int split)
{
    (void)split;
    const struct named *n = ctx;
    for (int i = 0; n->parts[i]; i++)
        if (strstr(name, n->parts[i])) {
            failures++;
            printf("FAIL line %d: the plan without a knob can pick %s\n", n->line, name);
        }
}

/* The wide-thread f32 kernel: its tile's knob, and f32w the plan's from 128
 * rows and columns on */
static void wide_cases(void)
{
    /* 1024 tiles of either shape fill the device's 264 block slots: unsplit */
    pk_gemm_problem f = problem(PK_F32, 1, 4096, 4096, 4096, 0, 1);
    expect_wide(&f, "f32w", "pk_gemm_simt_f32w_ak_bk", 128, 128, 1, 0, 32 * 32, 1, __LINE__);
    expect_wide(&f, "f32t", "pk_gemm_simt_f32t_ak_bk", 256, 64, 1, 0, 16 * 64, 1, __LINE__);
    /* M = 256: 64 tiles of either shape, 4 ranges of 128 steps fill one
     * wave (cuBLAS's split there); forced, 2 ranges, or 1 */
    f = problem(PK_F32, 1, 256, 4096, 4096, 0, 1);
    expect_wide(&f, "f32t", "pk_gemm_simt_f32t_ak_bk", 256, 64, 4, 128, 64 * 4, 1, __LINE__);
    expect_wide(&f, "f32w", "pk_gemm_simt_f32w_ak_bk", 128, 128, 4, 128, 64 * 4, 1, __LINE__);
    expect_wide(&f, "f32t:2", "pk_gemm_simt_f32t_ak_bk", 256, 64, 2, 256, 64 * 2, 1, __LINE__);
    expect_wide(&f, "f32w:1", "pk_gemm_simt_f32w_ak_bk", 128, 128, 1, 0, 64, 1, __LINE__);
    /* 16 asked of 25 steps: ranges of 2, 13 of them (the last of 1) */
    f = problem(PK_F32, 1, 256, 512, 200, 1, 0);
    expect_wide(&f, "f32w:16", "pk_gemm_simt_f32w_am_bn", 128, 128, 13, 2, 8 * 13, 1, __LINE__);
    /* ... unforced, too few steps for ranges of 16: unsplit */
    expect_wide(&f, "f32t", "pk_gemm_simt_f32t_am_bn", 256, 64, 1, 0, 8, 1, __LINE__);
    f = problem(PK_F32, 1, 256, 512, 200, 0, 0);
    expect_wide(&f, "f32w", "pk_gemm_simt_f32w_ak_bn", 128, 128, 1, 0, 8, 1, __LINE__);
    /* a batch: 16 tiles in all, 16 ranges of 16 steps */
    f = problem(PK_F32, 2, 256, 512, 2048, 1, 1);
    expect_wide(&f, "f32t", "pk_gemm_simt_f32t_am_bk", 256, 64, 16, 16, 8 * 16, 2, __LINE__);
    /* rows not whole float4s: the SIMT kernel, as without the knob */
    f = problem(PK_F32, 1, 256, 512, 201, 0, 1);
    expect_knob(&f, H200_SMS, H200_SMEM, "f32w", "pk_gemm_simt_f32_64", 4 * 8, 1, 0, __LINE__);
    /* 16-bit problems: as without the knob */
    f = problem(PK_BF16, 1, 256, 512, 2048, 0, 1);
    pk_cu_gemm_plan none, wide;
    pk_cu_gemm_plan_pick_knob(&f, H200_SMS, H200_SMEM, pk_cu_gemm_knob_of(NULL), &none);
    pk_cu_gemm_plan_pick_knob(&f, H200_SMS, H200_SMEM, pk_cu_gemm_knob_of("f32t"), &wide);
    if (memcmp(&none, &wide, sizeof none)) {
        failures++;
        printf("FAIL line %d: f32t changed a bf16 plan (%s, not %s)\n", __LINE__,
               pk_cu_gemm_kernel_names[wide.kernel], pk_cu_gemm_kernel_names[none.kernel]);
    }
    /* without a knob (or another one), f32w from 128 rows and columns
     * on: 4096^3 unsplit, M = 256 in 4 ranges, every layout; VEC below
     * (127 rows or columns) and under the vec and trial knobs; f32t never */
    static const char *const others[] = {NULL, "mma", "128x128", "f32", "f32w:0"};
    for (int i = 0; i < (int)(sizeof others / sizeof others[0]); i++)
        for (int l = 0; l < 4; l++) {
            static const char *const names[] = {"pk_gemm_simt_f32w_ak_bn", "pk_gemm_simt_f32w_ak_bk",
                                                "pk_gemm_simt_f32w_am_bn", "pk_gemm_simt_f32w_am_bk"};
            f = problem(PK_F32, 1, 4096, 4096, 4096, l >> 1, l & 1);
            expect_wide(&f, others[i], names[l], 128, 128, 1, 0, 32 * 32, 1, __LINE__);
            f = problem(PK_F32, 1, 256, 4096, 4096, l >> 1, l & 1);
            expect_wide(&f, others[i], names[l], 128, 128, 4, 128, 64 * 4, 1, __LINE__);
        }
    f = problem(PK_F32, 1, 127, 4096, 4096, 0, 1);
    expect_vec(&f, NULL, "pk_gemm_simt_f32_64_ak_bk", 1, 0, 2 * 64, 1, __LINE__);
    f = problem(PK_F32, 1, 4096, 127, 4096, 1, 1);
    expect_vec(&f, NULL, "pk_gemm_simt_f32_64_am_bk", 1, 0, 64 * 2, 1, __LINE__);
    f = problem(PK_F32, 1, 4096, 4096, 4096, 0, 1);
    expect_vec(&f, "vec", "pk_gemm_simt_f32_128_ak_bk", 1, 0, 32 * 32, 1, __LINE__);
    f = problem(PK_F32, 1, 256, 4096, 4096, 0, 1);
    expect_vec(&f, "vec", "pk_gemm_simt_f32_64_ak_bk", 1, 0, 4 * 64, 1, __LINE__);
    expect_vec(&f, "trial", "pk_gemm_simt_f32_128_ak_bk", 5, 103, 64 * 5, 1, __LINE__);
    static const char *const never[] = {"pk_gemm_simt_f32t_", NULL};
    int line = __LINE__;
    pk_cu_gemm_plan_kernels(1, H200_SMEM, fail_if_named, (void *)&(struct named){line, never});
    expect_knob_parse("vec", PK_CU_GEMM_KNOB_VEC, 0, 0, __LINE__);

    expect_knob_parse("f32w", PK_CU_GEMM_KNOB_WIDE, 0, 0, __LINE__);
    expect_knob_parse("f32t", PK_CU_GEMM_KNOB_WIDE, 1, 0, __LINE__);
    expect_knob_parse("f32w:4", PK_CU_GEMM_KNOB_WIDE, 0, 4, __LINE__);
    expect_knob_parse("f32t:16", PK_CU_GEMM_KNOB_WIDE, 1, 16, __LINE__);
    static const char *const bad[] = {"f32w:",  "f32w:0", "f32t:17", "f32t:2x", "f32",
                                      "f32wt", "F32w",   "f32w@2",  "f32t:2@4"};
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++)
        expect_knob_parse(bad[i], PK_CU_GEMM_KNOB_NONE, 0, 0, __LINE__);
}

/* Trial tiles and split-K: only under a knob until the bench times them */
static void split_cases(void)
{
    /* f32, 16 tiles of 128 x 128 (M = 256 by 1024... 4096): unsplit 64 x 64
     * under the vec knob (without it, f32w: wide_cases); with it, k in ranges that give two waves: 256
     * tiles... here 2 x 32 = 64 tiles, 5 ranges of 103 steps (512 steps) */
    pk_gemm_problem f = problem(PK_F32, 1, 256, 4096, 4096, 0, 1);
    expect_vec(&f, "vec", "pk_gemm_simt_f32_64_ak_bk", 1, 0, 4 * 64, 1, __LINE__);
    expect_vec(&f, "trial", "pk_gemm_simt_f32_128_ak_bk", 5, 103, 64 * 5, 1, __LINE__);
    /* 8 tiles: 16 ranges at most, of 16 steps each */
    f = problem(PK_F32, 1, 256, 512, 2048, 1, 0);
    expect_vec(&f, "trial", "pk_gemm_simt_f32_128_am_bn", 16, 16, 8 * 16, 1, __LINE__);
    /* K too short for ranges of 16 steps: unsplit */
    f = problem(PK_F32, 1, 256, 512, 200, 0, 1);
    expect_vec(&f, "trial", "pk_gemm_simt_f32_64_ak_bk", 1, 0, 4 * 8, 1, __LINE__);
    /* enough 128 x 128 tiles: as without the knob */
    f = problem(PK_F32, 1, 4096, 4096, 4096, 0, 1);
    expect_vec(&f, "trial", "pk_gemm_simt_f32_128_ak_bk", 1, 0, 32 * 32, 1, __LINE__);
    /* a batch: the tiles of every batch count */
    f = problem(PK_F32, 2, 256, 512, 2048, 0, 1);
    expect_vec(&f, "trial", "pk_gemm_simt_f32_128_ak_bk", 16, 16, 8 * 16, 2, __LINE__);

    expect_knob_parse("trial", PK_CU_GEMM_KNOB_TRIAL, 0, 0, __LINE__);
    expect_knob_parse("64x128", PK_CU_GEMM_KNOB_TILE, 3, 0, __LINE__);
    expect_knob_parse("128x128:2", PK_CU_GEMM_KNOB_TILE, 1, 2, __LINE__);
    expect_knob_parse("64x256:16", PK_CU_GEMM_KNOB_TILE, 2, 16, __LINE__);
    expect_knob_parse("128x256p", PK_CU_GEMM_KNOB_TILE, 4, 0, __LINE__);
    expect_knob_parse("128x256", PK_CU_GEMM_KNOB_TILE, 0, 0, __LINE__);
    expect_knob_parse("64x256pp:2", PK_CU_GEMM_KNOB_TILE, 5, 2, __LINE__);
    expect_knob_parse("64x256pp:2@4", PK_CU_GEMM_KNOB_TILE, 5, 2, __LINE__);
    expect_knob_parse("128x256p@6", PK_CU_GEMM_KNOB_TILE, 4, 0, __LINE__);
    expect_knob_parse("128x256s", PK_CU_GEMM_KNOB_TILE, 6, 0, __LINE__);
    expect_knob_parse("128x256s:3", PK_CU_GEMM_KNOB_TILE, 6, 3, __LINE__);
    /* a name that starts another's: the whole name decides */
    expect_knob_parse("64x64p", PK_CU_GEMM_KNOB_TILE, 9, 0, __LINE__);
    expect_knob_parse("64x64", PK_CU_GEMM_KNOB_TILE, 7, 0, __LINE__);
    expect_knob_parse("128x128p@4", PK_CU_GEMM_KNOB_TILE, 11, 0, __LINE__);
    expect_knob_parse("128x192s:2", PK_CU_GEMM_KNOB_TILE, 13, 2, __LINE__);
    if (pk_cu_gemm_knob_of("64x256pp:2@4").blocks != 4 || pk_cu_gemm_knob_of("64x128").blocks != 0) {
        failures++;
        printf("FAIL line %d: '@' blocks\n", __LINE__);
    }
    static const char *const bad_at[] = {"64x128@", "64x128@0", "64x128:2@", "64x128@3:2", "64x128:2@x", "64x128@-1"};
    for (int i = 0; i < (int)(sizeof bad_at / sizeof bad_at[0]); i++)
        expect_knob_parse(bad_at[i], PK_CU_GEMM_KNOB_NONE, 0, 0, __LINE__);
    static const char *const bad[] = {"64x128:", "64x128:0", "64x128:17", "64x128:3x", "64x128:-2", "64x12", "128x2560", "Trial"};
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) expect_knob_parse(bad[i], PK_CU_GEMM_KNOB_NONE, 0, 0, __LINE__);

    /* without the knob: split only where the unsplit tiles fill a
     * quarter of the device or less, never a trial tile. 64 tiles of
     * 64 x 64 (M = 64) are more than a quarter: whole (32 of 64 x 128
     * split in 4 ran slower, bench/RESULTS.md, 2026-12-08); the trial
     * plan weighs the pair sharing A too: 128 tiles of 64 x 32 */
    pk_gemm_problem p = problem(PK_BF16, 1, 64, 4096, 4096, 0, 1);
    expect_split(&p, NULL, "pk_gemm_wgmma_bf16_64x64", 1, 64, 64, 1, __LINE__);
    expect_split(&p, "trial", "pk_gemm_wgmma_bf16_64x32a", 1, 64, 128, 1, __LINE__);
    /* 128 tiles (M = 128): whole, the trial knob splits 64 x 256 four ways */
    p = problem(PK_BF16, 1, 128, 4096, 4096, 0, 1);
    expect_split(&p, NULL, "pk_gemm_wgmma_bf16_64x64", 1, 64, 128, 1, __LINE__);
    expect_split(&p, "trial", "pk_gemm_wgmma_bf16_64x256", 4, 16, 128, 1, __LINE__);
    {
        /* on 256 multiprocessors 64 tiles (M = 64) are a quarter: split;
         * on 255 not */
        p = problem(PK_BF16, 1, 64, 4096, 4096, 0, 1);
        pk_cu_gemm_plan plan;
        if (!pk_cu_gemm_plan_wgmma(&p, 256, pk_cu_gemm_knob_of(NULL), &plan) || plan.splits < 2 ||
            !pk_cu_gemm_plan_wgmma(&p, 255, pk_cu_gemm_knob_of(NULL), &plan) || plan.splits != 1) {
            failures++;
            printf("FAIL line %d: the quarter's bound\n", __LINE__);
        }
    }
    /* 24 rows: a 64-row tile, split (64 x 64 whole only; the trial knob
     * weighs its split forms) */
    p = problem(PK_F16, 1, 24, 2048, 1024, 0, 1);
    expect_split(&p, NULL, "pk_gemm_wgmma_f16_64x128", 4, 4, 64, 1, __LINE__);
    expect_split(&p, "trial", "pk_gemm_wgmma_f16_64x32a", 1, 16, 64, 1, __LINE__);
    p = problem(PK_F16, 1, 16, 2048, 1024, 0, 1); /* the decode kernels' */
    expect_split(&p, "trial", NULL, 0, 0, 0, 0, __LINE__);
    /* enough tiles: unsplit; the pairs sharing B, slower than the plain
     * 128 x 256 wherever timed, only where the knob names them */
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 0, 1);
    expect_split(&p, "trial", "pk_gemm_wgmma_bf16_128x256s", 1, 64, H200_SMS, 1, __LINE__);
    expect_pair(&p, "trial", 0, __LINE__);
    expect_pair(&p, "128x256", 0, __LINE__);
    expect_pair(&p, NULL, 0, __LINE__);
    /* pairs never split; 3 rows of tiles make 2 pairs of rows (the last
     * block of each column empty), 3 columns: 12 blocks */
    p = problem(PK_BF16, 1, 300, 600, 1000, 0, 1);
    expect_split(&p, "128x256p:3", "pk_gemm_wgmma_bf16_128x256p", 1, 16, 12, 1, __LINE__);
    expect_pair(&p, "128x256p", 1, __LINE__);
    /* pairs along n sharing A: 3 rows of tiles of 64 x 32 by 19 columns
     * (600 / 32, the last 24 wide) make 10 pairs of columns a row, 60
     * blocks; never split; A's box is halved, not B's. Pairs sharing B
     * with 64-row tiles: 5 rows of tiles (M = 300) make 3 pairs of rows,
     * 10 columns, 60 blocks */
    p = problem(PK_BF16, 1, 130, 600, 1000, 0, 1);
    expect_split(&p, "64x32a:3", "pk_gemm_wgmma_bf16_64x32a", 1, 16, 60, 1, __LINE__);
    {
        pk_cu_gemm_plan plan;
        if (!pk_cu_gemm_plan_wgmma(&p, H200_SMS, pk_cu_gemm_knob_of("64x32a"), &plan) || !plan.pair ||
            !plan.pair_a || plan.tile_m != 64 || plan.tile_n != 32) {
            failures++;
            printf("FAIL line %d: 64x32a: pair %d pair_a %d tile %u x %u\n", __LINE__, plan.pair, plan.pair_a,
                   plan.tile_m, plan.tile_n);
        }
        p = problem(PK_BF16, 1, 300, 600, 1000, 0, 1);
        if (!pk_cu_gemm_plan_wgmma(&p, H200_SMS, pk_cu_gemm_knob_of("64x64p"), &plan) || !plan.pair || plan.pair_a ||
            plan.grid[0] != 60) {
            failures++;
            printf("FAIL line %d: 64x64p: pair %d pair_a %d grid %u\n", __LINE__, plan.pair, plan.pair_a, plan.grid[0]);
        }
    }
    /* ping-pong: 64-row units, split as asked, no clusters */
    p = problem(PK_BF16, 2, 130, 520, 600, 0, 1); /* 3 x 3 tiles a batch, 10 steps: 4, 4, 2 */
    expect_split(&p, "64x256pp:3", "pk_gemm_wgmma_bf16_64x256pp", 3, 4, 27, 2, __LINE__);
    expect_pair(&p, "64x256pp:3", 0, __LINE__);
    /* '@': at most that many blocks, one row of them (even for pairs) */
    p = problem(PK_BF16, 1, 300, 600, 520, 0, 1);
    expect_split(&p, "64x256pp@4", "pk_gemm_wgmma_bf16_64x256pp", 1, 9, 4, 1, __LINE__);
    p = problem(PK_BF16, 2, 520, 600, 520, 0, 1);
    expect_split(&p, "128x256p@5", "pk_gemm_wgmma_bf16_128x256p", 1, 9, 6, 1, __LINE__);
    expect_split(&p, "128x128:2@3", "pk_gemm_wgmma_bf16_128x128", 2, 5, 3, 1, __LINE__);
    /* ping-pong only where a block gets two units or more, unless forced:
     * M = 512 by 4096 (256 units of 64 x 256) against 256 by 4096 (128) */
    p = problem(PK_BF16, 1, 256, 4096, 4096, 0, 1);
    pk_cu_gemm_plan pp;
    if (pk_cu_gemm_plan_wgmma(&p, H200_SMS, pk_cu_gemm_knob_of("trial"), &pp) &&
        !strcmp(pk_cu_gemm_kernel_names[pp.kernel], "pk_gemm_wgmma_bf16_64x256pp")) {
        failures++;
        printf("FAIL line %d: ping-pong with one unit a block\n", __LINE__);
    }
    /* batches: 8 blocks a batch, 16 batches side by side would be 128;
     * the grid stays even and within the device */
    p = problem(PK_BF16, 20, 256, 1024, 512, 0, 1);
    expect_split(&p, "128x256p", "pk_gemm_wgmma_bf16_128x256p", 1, 8, 8, 16, __LINE__);
    /* more tiles than flags: never split, even when forced */
    p = problem(PK_BF16, 1, 8192, 8192, 256, 0, 1);
    expect_split(&p, "128x256:2", "pk_gemm_wgmma_bf16_128x256", 1, 4, H200_SMS, 1, __LINE__);

    /* forced: the ranges asked for, fewer where K's steps leave one empty,
     * the last range shorter */
    p = problem(PK_BF16, 1, 64, 256, 1000, 0, 1); /* 16 steps: 6, 6, 4 */
    expect_split(&p, "64x128:3", "pk_gemm_wgmma_bf16_64x128", 3, 6, 6, 1, __LINE__);
    p = problem(PK_BF16, 1, 70, 520, 600, 0, 1); /* 10 steps: 3, 3, 3, 1; 2 x 3 tiles */
    expect_split(&p, "64x256:4", "pk_gemm_wgmma_bf16_64x256", 4, 3, 24, 1, __LINE__);
    p = problem(PK_BF16, 1, 64, 256, 128, 0, 1); /* 2 steps: 2 ranges of 1 */
    expect_split(&p, "64x128:16", "pk_gemm_wgmma_bf16_64x128", 2, 1, 4, 1, __LINE__);
    p = problem(PK_BF16, 1, 64, 256, 64, 0, 1); /* 1 step: unsplit */
    expect_split(&p, "64x128:4", "pk_gemm_wgmma_bf16_64x128", 1, 1, 2, 1, __LINE__);
    p = problem(PK_BF16, 1, 64, 256, 1000, 0, 1);
    expect_split(&p, "64x128:1", "pk_gemm_wgmma_bf16_64x128", 1, 16, 2, 1, __LINE__);
    /* batches: 4 tiles x 4 ranges a batch, 3 batches side by side */
    p = problem(PK_BF16, 3, 200, 296, 712, 0, 1); /* 12 steps: 4 ranges of 3 */
    p.b.stride[0] = 0;
    expect_split(&p, "128x256:5", "pk_gemm_wgmma_bf16_128x256", 4, 3, 16, 3, __LINE__);
    /* a forced 64-row tile from 17 rows, a forced 128-row one from 64 */
    p = problem(PK_BF16, 1, 17, 300, 200, 0, 1);
    expect_split(&p, "64x128", "pk_gemm_wgmma_bf16_64x128", 1, 4, 3, 1, __LINE__);
    expect_split(&p, "128x128:2", NULL, 0, 0, 0, 0, __LINE__);
}

int main(void)
{
    /* the linear layout x @ W^T on tensor cores, the largest tile when it fills the device */
    pk_gemm_problem p = problem(PK_BF16, 1, 4096, 4096, 4096, 0, 1);
    EXPECT(p, "pk_gemm_mma_bf16_128x256_ak_bk", 32 * 16, 1, 98304);
    p = problem(PK_F16, 1, 2048, 14336, 4096, 0, 1);
    EXPECT(p, "pk_gemm_mma_f16_128x256_ak_bk", 16 * 56, 1, 98304);
    /* B row-major: n contiguous; A transposed: m contiguous */
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 0, 0);
    EXPECT(p, "pk_gemm_mma_bf16_128x256_ak_bn", 0, 1, 98304);
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 1, 0);
    EXPECT(p, "pk_gemm_mma_bf16_128x256_am_bn", 0, 1, 98304);
    p = problem(PK_BF16, 1, 4096, 4096, 4096, 1, 1);
    EXPECT(p, "pk_gemm_mma_bf16_128x256_am_bk", 0, 1, 98304);
    /* fewer tiles than two waves: smaller tiles */
    p = problem(PK_BF16, 1, 2048, 4096, 512, 0, 1);
    EXPECT(p, "pk_gemm_mma_bf16_128x128_ak_bk", 16 * 32, 1, 65536);
    p = problem(PK_BF16, 1, 1024, 2048, 512, 0, 1);
    EXPECT(p, "pk_gemm_mma_bf16_64x64_ak_bk", 16 * 32, 1, 32768);
    p = problem(PK_BF16, 1, 100, 70, 40, 0, 1);
    EXPECT(p, "pk_gemm_mma_bf16_64x64_ak_bk", 2 * 2, 1, 32768);
    /* a device with less shared memory skips the tiles that do not fit */
    expect(&p, 8, 48 * 1024, "pk_gemm_mma_bf16_64x64_ak_bk", 4, 1, 32768, __LINE__);
    pk_gemm_problem big = problem(PK_BF16, 1, 4096, 4096, 4096, 0, 1);
    expect(&big, 108, 70 * 1024, "pk_gemm_mma_bf16_128x128_ak_bk", 32 * 32, 1, 65536, __LINE__);

    /* decode, a few rows: the skinny kernel, rows rounded up to 1, 2, 4 */
    p = problem(PK_BF16, 1, 1, 14336, 4096, 0, 1);
    EXPECT(p, "pk_gemm_skinny_bf16_m1", 14336 / 8, 1, 0);
    /* one row of a narrow W: two warps per column while they fit the
     * H200's 132 x 32 slots at once, unless K is too short to split */
    p = problem(PK_BF16, 1, 1, 2048, 4096, 0, 1);
    EXPECT(p, "pk_gemm_skinny_bf16_m1_k2", 2048 / 4, 1, 0);
    p = problem(PK_F16, 2, 1, 1024, 4096, 0, 1);
    EXPECT(p, "pk_gemm_skinny_f16_m1_k2", 1024 / 4, 2, 0);
    p = problem(PK_BF16, 1, 1, 4096, 4096, 0, 1);
    EXPECT(p, "pk_gemm_skinny_bf16_m1", 4096 / 8, 1, 0);
    /* a warp per column fits one wave but would run 14 rounds (down_proj) */
    p = problem(PK_BF16, 1, 1, 4096, 14336, 0, 1);
    EXPECT(p, "pk_gemm_skinny_bf16_m1_k2", 4096 / 4, 1, 0);
    p = problem(PK_BF16, 1, 1, 8192, 14336, 0, 1);
    EXPECT(p, "pk_gemm_skinny_bf16_m1", 8192 / 8, 1, 0);
    p = problem(PK_BF16, 1, 1, 2048, 256, 0, 1);
    EXPECT(p, "pk_gemm_skinny_bf16_m1", 2048 / 8, 1, 0);
    p = problem(PK_F16, 1, 3, 4096, 4096, 0, 1);
    EXPECT(p, "pk_gemm_skinny_f16_m4", 4096 / 2 / 8, 1, 0);
    p = problem(PK_BF16, 1, 4, 14336, 4096, 0, 1);
    EXPECT(p, "pk_gemm_skinny_bf16_m4", 14336 / 2 / 8, 1, 0);
    /* 5 to 16 rows: the tensor-core decode kernel, a block per 16 columns;
     * 896 blocks of 4 warps fill the H200's 132 x 32 warp slots once, 8
     * warps would not */
    p = problem(PK_BF16, 1, 8, 14336, 4096, 0, 1);
    expect_decode(&p, NULL, "pk_gemm_decode_bf16", 14336 / 16, 4, __LINE__);
    p = problem(PK_BF16, 1, 16, 14336, 4096, 0, 1);
    expect_decode(&p, NULL, "pk_gemm_decode_bf16", 14336 / 16, 4, __LINE__);
    p = problem(PK_F16, 1, 5, 14336, 4096, 0, 1);
    expect_decode(&p, NULL, "pk_gemm_decode_f16", 14336 / 16, 4, __LINE__);
    /* fewer columns: more warps per block split K (256 blocks x 16 warps) */
    p = problem(PK_BF16, 1, 16, 4096, 4096, 0, 1);
    expect_decode(&p, NULL, "pk_gemm_decode_bf16", 4096 / 16, 16, __LINE__);
    /* ... but no more than K has groups of 128 for (K = 512: 4 groups) */
    p = problem(PK_BF16, 1, 16, 4096, 512, 0, 1);
    expect_decode(&p, NULL, "pk_gemm_decode_bf16", 4096 / 16, 4, __LINE__);
    /* odd shapes: n and k with edges, batched */
    p = problem(PK_BF16, 3, 7, 100, 4100, 0, 1);
    p.a.stride[1] = 4104, p.b.stride[2] = 4104, p.a.stride[0] = 7 * 4104, p.b.stride[0] = 100 * 4104;
    expect_decode(&p, NULL, "pk_gemm_decode_bf16", 7, 16, __LINE__);
    /* PORTKERN_CUDA_GEMM=skinny / =decode send every decode problem to one kernel */
    p = problem(PK_BF16, 1, 16, 14336, 4096, 0, 1);
    expect_knob(&p, H200_SMS, H200_SMEM, "skinny", "pk_gemm_skinny_bf16_m16", 14336 / 4 / 8, 1, 0, __LINE__);
    p = problem(PK_BF16, 1, 1, 14336, 4096, 0, 1);
    expect_decode(&p, "decode", "pk_gemm_decode_bf16", 14336 / 16, 4, __LINE__);
    expect_knob(&p, H200_SMS, H200_SMEM, "other", "pk_gemm_skinny_bf16_m1", 14336 / 8, 1, 0, __LINE__);
    /* the knob changes nothing outside decode */
    p = problem(PK_BF16, 1, 17, 14336, 4096, 0, 1);
    expect_knob(&p, H200_SMS, H200_SMEM, "decode", "pk_gemm_mma_bf16_64x64_ak_bk", 224, 1, 32768, __LINE__);
    /* 17 rows: a tile kernel */
    p = problem(PK_BF16, 1, 17, 14336, 4096, 0, 1);
    EXPECT(p, "pk_gemm_mma_bf16_64x64_ak_bk", 224, 1, 32768);
    /* decode with B row-major is not the linear layout: tensor cores */
    p = problem(PK_BF16, 1, 1, 4096, 4096, 0, 0);
    EXPECT(p, "pk_gemm_mma_bf16_64x64_ak_bn", 64, 1, 32768);

    /* f32 is exact f32 on the CUDA cores, TF32 allowed or not; aligned
     * layouts read float4s, the letters naming each operand's contiguous
     * direction */
    p = problem(PK_F32, 1, 4096, 4096, 4096, 0, 1);
    p.allow_tf32 = 1;
    EXPECT(p, "pk_gemm_simt_f32w_ak_bk", 32 * 32, 1, 0);
    p = problem(PK_F32, 1, 4096, 4096, 4096, 0, 0);
    EXPECT(p, "pk_gemm_simt_f32w_ak_bn", 32 * 32, 1, 0);
    p = problem(PK_F32, 1, 4096, 4096, 4096, 1, 0);
    EXPECT(p, "pk_gemm_simt_f32w_am_bn", 32 * 32, 1, 0);
    p = problem(PK_F32, 1, 4096, 4096, 4096, 1, 1);
    EXPECT(p, "pk_gemm_simt_f32w_am_bk", 32 * 32, 1, 0);
    /* under the vec knob, fewer 128 x 128 tiles than two per SM: 64 x 64 */
    p = problem(PK_F32, 1, 1000, 1000, 300, 0, 0);
    expect_knob(&p, H200_SMS, H200_SMEM, "vec", "pk_gemm_simt_f32_64_ak_bn", 16 * 16, 1, 0, __LINE__);
    /* edges in m, n and k stay on the float4 kernel; rows 16-byte aligned */
    p = problem(PK_F32, 1, 1, 12, 10, 0, 0);
    EXPECT(p, "pk_gemm_simt_f32_64_ak_bn", 1, 1, 0);
    /* a size-1 dimension's stride does not matter, a broadcast batch (stride 0) is aligned */
    p = problem(PK_F32, 3, 1, 12, 10, 0, 0);
    p.a.stride[1] = 5, p.a.stride[0] = 0;
    EXPECT(p, "pk_gemm_simt_f32_64_ak_bn", 1, 3, 0);
    /* not in whole 16-byte units: the general kernel */
    p = problem(PK_F32, 1, 1, 10, 10, 0, 0);
    EXPECT(p, "pk_gemm_simt_f32_64", 1, 1, 0);
    p = problem(PK_F32, 1, 4096, 4096, 4096, 0, 0);
    p.a.offset = 2;
    EXPECT(p, "pk_gemm_simt_f32_128", 32 * 32, 1, 0);
    p = problem(PK_F32, 2, 4096, 4096, 4096, 0, 0);
    p.b.stride[0] = 4096 * 4096 + 2;
    EXPECT(p, "pk_gemm_simt_f32_128", 32 * 32, 2, 0);
    p = problem(PK_F32, 1, 4096, 4096, 4096, 0, 0);
    p.b.stride[1] = 2, p.b.stride[2] = 8192; /* no contiguous direction */
    EXPECT(p, "pk_gemm_simt_f32_128", 32 * 32, 1, 0);

    /* what cp.async cannot copy in 16-byte chunks goes to the SIMT kernel */
    p = problem(PK_BF16, 1, 512, 512, 4100, 0, 1); /* rows of 4100 elements: not 16-byte aligned */
    EXPECT(p, "pk_gemm_simt_bf16_64", 0, 1, 0);
    p = problem(PK_BF16, 1, 512, 512, 512, 0, 1);
    p.a.offset = 4; /* 8 bytes */
    EXPECT(p, "pk_gemm_simt_bf16_64", 0, 1, 0);
    p = problem(PK_F16, 1, 512, 512, 512, 0, 1);
    p.b.stride[1] = 2, p.b.stride[2] = 1024; /* no contiguous direction */
    EXPECT(p, "pk_gemm_simt_f16_64", 0, 1, 0);
    p = problem(PK_BF16, 1, 1, 4096, 4096, 0, 1);
    p.b.offset = 3;
    EXPECT(p, "pk_gemm_simt_bf16_64", 0, 1, 0);
    /* a size-1 dimension's stride does not matter */
    p = problem(PK_BF16, 1, 1, 512, 512, 0, 1);
    p.a.stride[1] = 3;
    EXPECT(p, "pk_gemm_skinny_bf16_m1_k2", 0, 1, 0);

    /* batches beyond grid.y's limit are looped over inside the kernel; a batch stride 0 broadcasts */
    p = problem(PK_BF16, 100000, 64, 64, 64, 0, 1);
    p.b.stride[0] = 0;
    EXPECT(p, "pk_gemm_mma_bf16_128x256_ak_bk", 1, 65535, 98304);

    wgmma_cases();
    split_cases();
    wide_cases();

    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
