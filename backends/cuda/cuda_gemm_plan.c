/* The CUDA GEMM plan. In order of preference:
 *  - decode (tensor cores) or skinny (CUDA cores): M <= 16 in the linear
 *    layout (x[M,K] @ W[N,K]^T, k contiguous in both), f16/bf16, 16-byte
 *    aligned rows. Decode is bound by reading W once; a tile kernel would
 *    pad M to its tile. The skinny kernel does M FMAs per weight and keeps
 *    up with HBM for a few rows only (on the H200 at M = 1, far from it at
 *    M = 16: bench/RESULTS.md, 2026-11-29 13:10); from DECODE_MIN_M rows
 *    on, the decode kernel does them all in
 *    one mma. PORTKERN_CUDA_GEMM=skinny or =decode sends every such problem
 *    to that one kernel, for A/B timing of the crossover (any other value,
 *    or none, leaves the choice to M).
 *  - mma: f16/bf16 where each operand has a contiguous direction (A: k or
 *    m, B: k or n) and 16-byte aligned offsets and strides, which cp.async
 *    needs. The largest tile that still gives the device two waves of
 *    blocks (1 block of 128 x 256 per SM), else the next smaller one.
 *  - simt: the rest, and every f32 problem (exact f32; TF32 is not used
 *    even when allowed).
 * A stride of a dimension of size 1 is never used, so it does not count
 * against contiguity or alignment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels_gpu/gemm_skinny_cols.h"
#include "cuda_gemm_plan.h"
#include "pk_gpu_args.h"
#include "pk_gpu_gemm_shape.h"

typedef struct mma_tile {
    const char *name;
    int bm, bn, threads, stages;
} mma_tile;

#define MMA_TILE(a, b, name, bm, bn, wm, wn, st) {#name, bm, bn, 32 * (wm) * (wn), st},
static const mma_tile mma_tiles[] = {PK_CU_MMA_TILES(MMA_TILE, 0, 0)};
#undef MMA_TILE

#define DECODE_MIN_M 5
/* the one-row skinny kernel's warps that an SM holds */
#define SKINNY_WARPS_PER_SM (PK_CU_SKINNY_BLOCKS(1) * PK_CU_SKINNY_THREADS / 32)
/* the decode kernel's shape (gemm_tiles.h); its warps take at least two
 * steps of k each, counted in sm_90's steps */
#define DECODE_COLS (8 * PK_CU_DECODE_NT)
#define DECODE_GROUP_K (PK_CU_DECODE_U_SM90 * 32)
#define DECODE_WARPS_PER_SM (PK_CU_DECODE_BLOCKS * PK_CU_DECODE_MAX_THREADS / 32)
#define DECODE_MAX_WARPS (PK_CU_DECODE_MAX_THREADS / 32)

static int64_t cdiv(int64_t x, int64_t y) { return (x + y - 1) / y; }

static unsigned clamp_grid(int64_t x, unsigned limit) { return x > (int64_t)limit ? limit : (unsigned)x; }

/* Which direction of A (k: 'k', m: 'm') and B (k: 'k', n: 'n') the mma
 * kernel can copy in 16-byte chunks; 0 when none. */
static char mma_layout_a(const pk_gemm_problem *p)
{
    const pk_view *a = &p->a;
    if (a->offset % 8 || !pk_gpu_stride_aligned(a->stride[0], p->batch, 8)) return 0;
    if (pk_gpu_contiguous(a->stride[2], p->k) && pk_gpu_stride_aligned(a->stride[1], p->m, 8)) return 'k';
    if (pk_gpu_contiguous(a->stride[1], p->m) && pk_gpu_stride_aligned(a->stride[2], p->k, 8)) return 'm';
    return 0;
}

static char mma_layout_b(const pk_gemm_problem *p)
{
    const pk_view *b = &p->b;
    if (b->offset % 8 || !pk_gpu_stride_aligned(b->stride[0], p->batch, 8)) return 0;
    if (pk_gpu_contiguous(b->stride[1], p->k) && pk_gpu_stride_aligned(b->stride[2], p->n, 8)) return 'k';
    if (pk_gpu_contiguous(b->stride[2], p->n) && pk_gpu_stride_aligned(b->stride[1], p->k, 8)) return 'n';
    return 0;
}

static int64_t tiles_of(const pk_gemm_problem *p, int bm, int bn)
{
    return p->batch * cdiv(p->m, bm) * cdiv(p->n, bn);
}

static void set_grid(pk_cu_gemm_plan *out, int64_t blocks_x, int64_t batch, unsigned threads)
{
    out->grid[0] = clamp_grid(blocks_x < 1 ? 1 : blocks_x, PK_CU_GEMM_MAX_GRID_X);
    out->grid[1] = clamp_grid(batch, PK_CU_GEMM_MAX_GRID_YZ);
    out->grid[2] = 1;
    out->block[0] = threads;
    out->block[1] = out->block[2] = 1;
}

/* rows of `row_elems` elements `stride` apart, side by side (no overlap) and
 * whole 16-byte units apart: a TMA map's row */
static int tma_rows(int64_t stride, int64_t row_elems) { return stride >= row_elems && stride % 8 == 0; }

int pk_cu_gemm_plan_wgmma(const pk_gemm_problem *p, int sm_count, const char *knob, pk_cu_gemm_plan *out)
{
    if (knob && !strcmp(knob, "mma")) return 0;
    if (p->a.dtype == PK_F32 || mma_layout_a(p) != 'k' || mma_layout_b(p) != 'k') return 0;
    if (p->a.stride[2] != 1 || p->b.stride[1] != 1) return 0; /* k really contiguous, not just size 1 */
    if (p->m < 2 || p->n < 2 || !tma_rows(p->a.stride[1], p->k) || !tma_rows(p->b.stride[2], p->k)) return 0;
    /* a batch plane is a map's third dimension: after the whole matrix, or
     * the same plane for every batch (stride 0) */
    if (p->batch > 1 && p->a.stride[0] && p->a.stride[0] < p->m * p->a.stride[1]) return 0;
    if (p->batch > 1 && p->b.stride[0] && p->b.stride[0] < p->n * p->b.stride[2]) return 0;
    if (p->k > 0x7fffffff || p->m > 0x7fffffff || p->n > 0x7fffffff || p->batch > 0x7fffffff) return 0;
    if (tiles_of(p, PK_CU_WGMMA_BM, PK_CU_WGMMA_BN) < (int64_t)(sm_count < 1 ? 1 : sm_count)) return 0;

    memset(out, 0, sizeof *out);
    out->kind = PK_CU_GEMM_WGMMA;
    snprintf(out->kernel, sizeof out->kernel, "pk_gemm_wgmma_%s_128x256", pk_gpu_dtype_tag(p->a.dtype));
    /* persistent: one block per multiprocessor walks the tiles */
    int64_t tiles = cdiv(p->m, PK_CU_WGMMA_BM) * cdiv(p->n, PK_CU_WGMMA_BN);
    int64_t per_batch = tiles < sm_count ? tiles : sm_count;
    set_grid(out, per_batch, p->batch, PK_CU_WGMMA_THREADS);
    if ((int64_t)out->grid[0] * out->grid[1] > sm_count) /* several batches: fill the device, not more */
        out->grid[1] = (unsigned)(sm_count / out->grid[0] > 0 ? sm_count / out->grid[0] : 1);
    out->smem = PK_CU_WGMMA_SMEM;
    return 1;
}

/* Which direction of A (k: 'k', m: 'm') and B (k: 'k', n: 'n') the f32
 * SIMT kernel of the aligned layouts reads in float4s: contiguous, with
 * rows and batches whole 16-byte units apart from a 16-byte aligned
 * start; 0 when none. */
static char simt_layout_a(const pk_gemm_problem *p)
{
    const pk_view *a = &p->a;
    if (a->dtype != PK_F32 || a->offset % 4 || !pk_gpu_stride_aligned(a->stride[0], p->batch, 4)) return 0;
    if (pk_gpu_contiguous(a->stride[2], p->k) && pk_gpu_stride_aligned(a->stride[1], p->m, 4)) return 'k';
    if (pk_gpu_contiguous(a->stride[1], p->m) && pk_gpu_stride_aligned(a->stride[2], p->k, 4)) return 'm';
    return 0;
}

static char simt_layout_b(const pk_gemm_problem *p)
{
    const pk_view *b = &p->b;
    if (b->dtype != PK_F32 || b->offset % 4 || !pk_gpu_stride_aligned(b->stride[0], p->batch, 4)) return 0;
    if (pk_gpu_contiguous(b->stride[1], p->k) && pk_gpu_stride_aligned(b->stride[2], p->n, 4)) return 'k';
    if (pk_gpu_contiguous(b->stride[2], p->n) && pk_gpu_stride_aligned(b->stride[1], p->k, 4)) return 'n';
    return 0;
}

void pk_cu_gemm_plan_pick_knob(const pk_gemm_problem *p, int sm_count, size_t smem_optin, const char *knob,
                               pk_cu_gemm_plan *out)
{
    memset(out, 0, sizeof *out);
    const char *dt = pk_gpu_dtype_tag(p->a.dtype);
    if (sm_count < 1) sm_count = 1;
    const int force_skinny = knob && !strcmp(knob, "skinny"), force_decode = knob && !strcmp(knob, "decode");

    if (pk_gpu_gemm_decode_fits(p) && !force_skinny && (p->m >= DECODE_MIN_M || force_decode)) {
        /* a block per strip of columns, its warps splitting K: as many warps
         * as still fit every block in one wave and still find a group of k
         * each (4 at least) */
        const int64_t blocks = cdiv(p->n, DECODE_COLS) * p->batch;
        unsigned warps = 4;
        while (warps < DECODE_MAX_WARPS && blocks * 2 * warps <= (int64_t)DECODE_WARPS_PER_SM * sm_count &&
               p->k / DECODE_GROUP_K >= 2 * (int64_t)warps)
            warps *= 2;
        out->kind = PK_CU_GEMM_DECODE;
        snprintf(out->kernel, sizeof out->kernel, "pk_gemm_decode_%s", dt);
        set_grid(out, cdiv(p->n, DECODE_COLS), p->batch, 32 * warps);
        out->smem = warps * (DECODE_COLS / 8) * 4 * 32 * 4; /* the warps' accumulators */
        return;
    }

    if (pk_gpu_gemm_decode_fits(p)) {
        int mr = p->m <= 1 ? 1 : p->m <= 2 ? 2 : p->m <= 4 ? 4 : p->m <= 8 ? 8 : 16;
        const int nc = PK_GPU_SKINNY_COLS(mr);
        /* One row: two warps per column where that still fits one wave
         * (W of few columns: more loads in flight), or where one wave of a
         * warp per column would leave each warp a long chain of rounds
         * (8 or more of 32 lanes x 4 chunks: on the H200 down_proj's 14,
         * 4096 x 14336, ran faster split, q_proj's 4 slower; bench/RESULTS.md,
         * 2026-11-29 19:50). */
        const int64_t warps = p->n * p->batch, slots = (int64_t)SKINNY_WARPS_PER_SM * sm_count;
        const int64_t rounds = cdiv(p->k / 8, 32 * 4);
        int ks = mr == 1 && p->k / 8 >= 2 * 32 && (2 * warps <= slots || (warps <= slots && rounds >= 8)) ? 2 : 1;
        out->kind = PK_CU_GEMM_SKINNY;
        snprintf(out->kernel, sizeof out->kernel, "pk_gemm_skinny_%s_m%d%s", dt, mr, ks == 2 ? "_k2" : "");
        set_grid(out, cdiv(cdiv(p->n, nc), PK_CU_SKINNY_THREADS / 32 / ks), p->batch, PK_CU_SKINNY_THREADS);
        out->early = 1;
        return;
    }

    char la = p->a.dtype == PK_F32 ? 0 : mma_layout_a(p);
    char lb = p->a.dtype == PK_F32 ? 0 : mma_layout_b(p);
    if (la && lb) {
        const int count = (int)(sizeof mma_tiles / sizeof mma_tiles[0]);
        const mma_tile *t = NULL;
        for (int i = 0; i < count; i++) {
            const mma_tile *c = &mma_tiles[i];
            size_t smem = (size_t)c->stages * (size_t)(c->bm + c->bn) * PK_CU_MMA_BK * 2;
            if (smem > smem_optin) continue;
            t = c;
            if (tiles_of(p, c->bm, c->bn) >= 2 * (int64_t)sm_count) break;
        }
        if (t) {
            out->kind = PK_CU_GEMM_MMA;
            snprintf(out->kernel, sizeof out->kernel, "pk_gemm_mma_%s_%s_a%c_b%c", dt, t->name, la, lb);
            out->smem = (unsigned)(t->stages * (t->bm + t->bn) * PK_CU_MMA_BK * 2);
            set_grid(out, cdiv(p->m, t->bm) * cdiv(p->n, t->bn), p->batch, (unsigned)t->threads);
            return;
        }
    }

    /* two blocks of 128 x 128 per SM: 128 when that fills the device once */
    int bm = tiles_of(p, 128, 128) >= 2 * (int64_t)sm_count ? 128 : 64;
    char sa = simt_layout_a(p), sb = simt_layout_b(p);
    out->kind = PK_CU_GEMM_SIMT;
    if (sa && sb)
        snprintf(out->kernel, sizeof out->kernel, "pk_gemm_simt_%s_%d_a%c_b%c", dt, bm, sa, sb);
    else
        snprintf(out->kernel, sizeof out->kernel, "pk_gemm_simt_%s_%d", dt, bm);
    set_grid(out, cdiv(p->m, bm) * cdiv(p->n, bm), p->batch, 256);
}

void pk_cu_gemm_plan_kernels(int has_wgmma, size_t smem_optin, void (*fn)(void *ctx, const char *name), void *ctx)
{
    static const char *const half[2] = {"f16", "bf16"}, *const all[3] = {"f32", "f16", "bf16"};
    static const char la[2] = {'k', 'm'}, lb[2] = {'k', 'n'};
    char name[64];
    for (int t = 0; t < 2; t++) {
        const char *dt = half[t];
        /* skinny below DECODE_MIN_M rows (m8 and m16 only by the knob),
         * K split in two for one row */
        static const char *const skinny[] = {"m1", "m1_k2", "m2", "m4"};
        for (int i = 0; i < 4; i++) {
            snprintf(name, sizeof name, "pk_gemm_skinny_%s_%s", dt, skinny[i]);
            fn(ctx, name);
        }
        snprintf(name, sizeof name, "pk_gemm_decode_%s", dt);
        fn(ctx, name);
        if (has_wgmma) {
            snprintf(name, sizeof name, "pk_gemm_wgmma_%s_128x256", dt);
            fn(ctx, name);
        }
        /* every tile that fits (the last one that fits takes what the
         * others leave), every layout: wgmma refuses k-major operands
         * that a TMA map cannot describe (overlapping rows or batches) */
        for (size_t i = 0; i < sizeof mma_tiles / sizeof mma_tiles[0]; i++) {
            const mma_tile *c = &mma_tiles[i];
            if ((size_t)c->stages * (size_t)(c->bm + c->bn) * PK_CU_MMA_BK * 2 > smem_optin) continue;
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++) {
                    snprintf(name, sizeof name, "pk_gemm_mma_%s_%s_a%c_b%c", dt, c->name, la[a], lb[b]);
                    fn(ctx, name);
                }
        }
    }
    /* SIMT: f32, and 16-bit operands that no 16-byte copy can read; the
     * float4 layouts for f32 only */
    for (int t = 0; t < 3; t++)
        for (int bm = 64; bm <= 128; bm *= 2) {
            snprintf(name, sizeof name, "pk_gemm_simt_%s_%d", all[t], bm);
            fn(ctx, name);
            for (int a = 0; a < 2 && t == 0; a++)
                for (int b = 0; b < 2; b++) {
                    snprintf(name, sizeof name, "pk_gemm_simt_%s_%d_a%c_b%c", all[t], bm, la[a], lb[b]);
                    fn(ctx, name);
                }
        }
}

void pk_cu_gemm_plan_knob_kernels(void (*fn)(void *ctx, const char *name), void *ctx)
{
    static const char *const half[2] = {"f16", "bf16"}, *const rows[2] = {"m8", "m16"};
    char name[64];
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < 2; i++) {
            snprintf(name, sizeof name, "pk_gemm_skinny_%s_%s", half[t], rows[i]);
            fn(ctx, name);
        }
}
