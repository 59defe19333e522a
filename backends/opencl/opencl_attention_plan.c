/* Tile sizes and path choice for OpenCL attention.
 *
 * Prefill: local memory holds the Q tile and one K-or-V tile as f32 with
 * rows padded by one float (so that the rows a warp reads at once fall in
 * different banks), the tile of probabilities, and a small row reduction
 * buffer. The budget is 32 KiB even where the device has more (NVIDIA: 48
 * KiB) so that two work-groups can share a multiprocessor.
 *
 * Decode is bound by reading K and V once: the plan sizes each work-item's
 * loads (16 bytes per run of 8 elements, `chunks` runs of K and as many of
 * V in flight a step), on NVIDIA bounds its registers so that enough
 * work-groups share a multiprocessor, and spreads the key range over
 * enough work-groups to keep every compute unit streaming. */
#include <stdio.h>

#include "opencl_attention_plan.h"
#include "pk_attn_layout.h"
#include "pk_attn_split.h"

#define PK_CL_ATTN_LOCAL_BUDGET 32768u

/* Decode when there are few query rows per kv head and the key range is
 * long enough to be worth splitting. */
#define PK_CL_ATTN_SPLIT_MAX_SQ 4
#define PK_CL_ATTN_SPLIT_MIN_SKV 512
#define PK_CL_ATTN_MAX_SPLITS 256

/* GPUs: 128 work-items, each with 4 runs of K and 4 of V a step (8 KiB
 * of each a work-group, pipelined: the next step's loads are in flight
 * while a step is worked on), and registers for the accumulator and a
 * step's Q kept to 32 floats. 8 work-groups per compute unit (counted for
 * the splits) cover the latency of HBM. Chunks of at least 256 keys keep
 * the merge a small fraction of the traffic; the merge takes 256
 * work-items a group (a multiple of D). NVIDIA: at most 168 registers a
 * work-item, so that 3 work-groups of 128 share a multiprocessor (ptxas
 * fits this tile, D 128 and 4 rows, in 144 without spilling, and 8 keys a
 * step in 168; unbounded it took 255 for those, which fits 2). CPUs
 * (PoCL): what portkern tune found on two cores of a Xeon (PoCL 3.1), where
 * a work-group is a loop on one core: groups of 64 items with 8 runs a
 * step and registers for 64 floats, 2 rows a group, 16 groups per core
 * (the merge's share of the traffic is small at any count there). The
 * GPUs' entries run on PoCL in CI's class check (tools/class_check.sh).
 * The NVIDIA entry is what portkern tune found on the
 * H200 (NVIDIA's OpenCL, driver 580): 8 runs a step with registers for 64
 * floats, no register bound, 2 work-groups per multiprocessor aimed at
 * (the 168 bound above was the starting point). */
static const pk_cl_attn_decode_params decode_table[PK_CL_VENDOR_COUNT] = {
    /*                     wg chunks q_floats max_rows wg_per_cu min_chunk merge_wg regs */
    [PK_CL_VENDOR_NVIDIA] = {128, 8, 64, 8, 2, 256, 256, 0},
    [PK_CL_VENDOR_AMD]    = {128, 4, 32, 8, 8, 256, 256, 0},
    [PK_CL_VENDOR_INTEL]  = {128, 4, 32, 8, 8, 256, 256, 0},
    [PK_CL_VENDOR_CPU]    = {64, 8, 64, 2, 16, 256, 256, 0},
    [PK_CL_VENDOR_OTHER]  = {128, 4, 32, 8, 8, 256, 256, 0},
};

/* Prefill: many rows per work-group so that each K/V tile is reused by
 * many queries; few work-items per row so that each holds D / tpr output
 * columns (at most 32 floats) in registers. Per head-dim class (D = 64,
 * 80 or 96, 128, any other): bm, bn, tpr. CPUs: the tuner's D = 128 tile
 * has 2 items a row (64 floats each: a CPU's items are loop iterations,
 * and fewer of them a row means fewer partial reductions). */
#define PREFILL {{64, 32, 32, 16}, {16, 32, 16, 8}, {4, 4, 4, 8}}
static const pk_cl_attn_prefill_params prefill_table[PK_CL_VENDOR_COUNT] = {
    [PK_CL_VENDOR_NVIDIA] = PREFILL, [PK_CL_VENDOR_AMD] = PREFILL, [PK_CL_VENDOR_INTEL] = PREFILL,
    [PK_CL_VENDOR_OTHER] = PREFILL,
    [PK_CL_VENDOR_CPU] = {{64, 32, 32, 16}, {16, 32, 16, 8}, {4, 4, 2, 8}},
};

/* The tensor-core prefill: 4 warps (64 query rows) and 2 stages of K and
 * V; the most keys a tile (64, 32, 16) whose stages fit the device's local
 * memory (NVIDIA's OpenCL: 48 KiB a work-group), which also holds the Q
 * tile on its way to registers. Decode: 16 rows, 2 warps splitting tiles
 * of 32 keys, 2 stages (35 KiB at D = 128), and splits for 6 work-groups
 * a compute unit in one wave (the best of the five tiles timed on the
 * H200, bench/RESULTS.md 2026-12-02). Not searched by the tuner. */
static const pk_cl_attn_mma_tile mma_tile = {4, 64, 2, 1, 0};
static const pk_cl_attn_mma_tile mma_decode_tile = {1, 32, 2, 2, 6};

size_t pk_cl_attn_mma_local_bytes(int d, pk_cl_attn_mma_tile t, int decode)
{
    /* K and V stages of rows of d + 8 elements, then each row's window;
     * decode: each warp's (m, l) of each row */
    size_t rows = (size_t)16 * t.nw;
    return (size_t)2 * t.st * t.bn * (d + 8) * 2 + rows * 2 * sizeof(int) +
           (decode ? rows * t.nwn * 2 * sizeof(float) : 0);
}

int pk_cl_attn_mma_layout(const pk_attention_problem *p)
{
    /* the shared rule, for the head dims attention_mma.cl is built for
     * (buffers themselves are aligned far beyond 16 bytes) */
    return p->d % 16 == 0 && p->d <= 256 && pk_attn_mma_rows(p);
}

/* Whether tile t of head dim d fits local memory lm: every warp's keys
 * whole k16 steps, Q (16 nw rows) passing through the stages, and in
 * decode the warps' merge (f32 rows of d + 4) in them after the loop. */
static int mma_fits(int64_t d, pk_cl_attn_mma_tile t, int decode, uint64_t lm)
{
    const int64_t stage_bytes = (int64_t)2 * t.st * t.bn * (d + 8) * 2;
    return t.bn >= 16 * t.nwn && 2 * t.st * t.bn >= 16 * t.nw &&
           (!decode || (int64_t)t.nwn * 16 * t.nw * (d + 4) * 4 <= stage_bytes) &&
           pk_cl_attn_mma_local_bytes((int)d, t, decode) <= lm;
}

/* the mma tile for head dim d within local memory lm: fewer keys a tile,
 * then (decode) fewer warps to split them; bn = 0 when none fits */
static pk_cl_attn_mma_tile mma_fit(int64_t d, int decode, uint64_t lm)
{
    pk_cl_attn_mma_tile t = decode ? mma_decode_tile : mma_tile;
    while (!mma_fits(d, t, decode, lm) && t.bn > 16 * t.nwn) t.bn /= 2;
    while (!mma_fits(d, t, decode, lm) && t.nwn > 1) {
        t.nwn /= 2;
        t.bn /= 2;
    }
    if (!mma_fits(d, t, decode, lm)) t.bn = 0;
    return t;
}

const pk_cl_attn_decode_params *pk_cl_attn_decode_table(pk_cl_vendor cls)
{
    return (unsigned)cls < PK_CL_VENDOR_COUNT ? &decode_table[cls] : NULL;
}

const pk_cl_attn_prefill_params *pk_cl_attn_prefill_table(pk_cl_vendor cls)
{
    return (unsigned)cls < PK_CL_VENDOR_COUNT ? &prefill_table[cls] : NULL;
}

size_t pk_cl_attn_local_bytes(int d, pk_cl_attn_tile t)
{
    size_t floats = (size_t)t.bm * (d + 1) + (size_t)t.bn * (d + 1) + (size_t)t.bm * (t.bn + 1) +
                    (size_t)t.bm * t.tpr;
    /* per row: the q row's offset (long) and its key window (two ints) */
    return floats * 4 + (size_t)t.bm * 16;
}

size_t pk_cl_attn_decode_local_bytes(int d, pk_cl_attn_decode t)
{
    /* as attention_decode.cl declares it: the tile's Q rows, two steps'
     * score partials (each lane's padded by rv floats) and two steps'
     * sums, then (reused) the slots' merge; in float4s */
    size_t step_rows = (size_t)t.slots * t.unroll * t.rows, rv = t.rows >= 4 ? 4 : (size_t)t.rows;
    size_t red = (size_t)t.rows * d + 2 * (size_t)t.tpk * (step_rows + rv) + 2 * step_rows;
    size_t mrg = (size_t)t.slots * d + 2 * (size_t)t.slots * t.rows;
    size_t floats = red > mrg ? red : mrg;
    return 16 * ((floats + 3) / 4);
}

static void fit(int d, uint64_t budget, pk_cl_attn_tile *t)
{
    while (pk_cl_attn_local_bytes(d, *t) > budget && t->bn > 8) t->bn /= 2;
    while (pk_cl_attn_local_bytes(d, *t) > budget && t->bm > 1) t->bm /= 2;
}

static pk_cl_attn_tile prefill_tile(const pk_cl_attn_prefill_params *t, int64_t d)
{
    int c = d == 64 ? 0 : d == 80 || d == 96 ? 1 : d == 128 ? 2 : 3;
    return (pk_cl_attn_tile){t->bm[c], t->bn[c], t->tpr[c]};
}

int pk_cl_attn_vec_ok(const pk_attention_problem *p)
{
    const int64_t per16 = p->k.dtype == PK_F32 ? 4 : 8;
    const pk_view *kv[2] = {&p->k, &p->v};
    for (int i = 0; i < 2; i++) {
        if (kv[i]->stride[3] != 1 || kv[i]->offset % per16) return 0;
        for (int s = 0; s < 3; s++)
            if (kv[i]->stride[s] % per16) return 0;
    }
    return 1;
}

/* rows: next power of two, capped; nv: the most runs of 8 that the
 * register budget allows while 4 or more work-items still share a key (so
 * that a warp's loads cover whole 64-byte pieces of a row), dividing D / 8. */
static pk_cl_attn_decode decode_tile(int64_t rows, int64_t d, int vec, const pk_cl_attn_decode_params *dp,
                                     uint64_t local_mem)
{
    pk_cl_attn_decode t = {1, 0, 0, 0, 0, vec};
    while (t.rows < rows && t.rows < dp->max_rows) t.rows *= 2;
    int runs = (int)(d / 8);
    int most = dp->q_floats / (8 * t.rows);
    if (most > runs / 4) most = runs / 4;
    if (most > 4) most = 4;
    t.nv = 1;
    for (int n = 2; n <= most; n++)
        if (runs % n == 0) t.nv = n;
    t.tpk = runs / t.nv;
    t.slots = dp->wg / t.tpk > 0 ? dp->wg / t.tpk : 1;
    t.unroll = dp->chunks / t.nv > 0 ? dp->chunks / t.nv : 1;
    /* a step's weights (unroll x rows floats) are held beside the
     * accumulator: the same register budget */
    while (t.unroll > 1 && t.unroll * t.rows > dp->q_floats) t.unroll /= 2;
    /* local memory holds Q, two steps' partials (slots x unroll keys) and
     * their sums: fewer slots, then shorter steps */
    while (pk_cl_attn_decode_local_bytes((int)d, t) > local_mem && (t.slots > 1 || t.unroll > 1)) {
        if (t.slots > 1) t.slots /= 2;
        else t.unroll /= 2;
    }
    return t;
}

void pk_cl_attn_plan_make(const pk_cl_params *prm, const pk_attention_problem *p, const pk_device_info *dev,
                          pk_cl_attn_plan *plan)
{
    uint64_t lm = dev->local_mem_bytes;
    uint64_t budget = lm && lm < PK_CL_ATTN_LOCAL_BUDGET ? lm : PK_CL_ATTN_LOCAL_BUDGET;
    const pk_cl_attn_decode_params *dp = &prm->decode;
    int64_t rows = p->sq * (p->hq / p->hkv);
    *plan = (pk_cl_attn_plan){0};
    plan->split = p->sq <= PK_CL_ATTN_SPLIT_MAX_SQ && p->skv >= PK_CL_ATTN_SPLIT_MIN_SKV;
    if (dev->matrix_units && pk_cl_attn_mma_layout(p)) {
        plan->mt = mma_fit(p->d, plan->split, lm);
        plan->mma = plan->mt.bn > 0;
    }
    if (!plan->split) {
        if (plan->mma) return;
        plan->tile = prefill_tile(&prm->prefill, p->d);
        fit((int)p->d, budget, &plan->tile);
        return;
    }

    /* Split: the tensor-core tile takes 16 rows per warp of rows and aims at
     * one wave of per_cu work-groups a compute unit, in chunks of whole
     * tiles; the portable one its own rows and at least wg_per_cu
     * work-groups, in chunks of whole steps. */
    int tile_rows, wave;
    int64_t per_cu, key_unit;
    if (plan->mma) {
        tile_rows = 16 * plan->mt.nw;
        per_cu = plan->mt.per_cu;
        wave = 1;
        key_unit = plan->mt.bn;
    } else {
        plan->dec = decode_tile(rows, p->d, pk_cl_attn_vec_ok(p), dp, lm ? lm : budget);
        tile_rows = plan->dec.rows;
        per_cu = dp->wg_per_cu;
        wave = 0;
        key_unit = plan->dec.slots * plan->dec.unroll;
        plan->max_regs = pk_cl_vendor_of(dev) == PK_CL_VENDOR_NVIDIA ? dp->regs : 0;
    }
    plan->row_tiles = (int)((rows + tile_rows - 1) / tile_rows);
    const int64_t want = per_cu * (dev->compute_units > 0 ? dev->compute_units : 1);
    const pk_attn_split sp = pk_attn_split_keys(p->skv, p->batch * p->hkv * plan->row_tiles, want, wave,
                                                dp->min_chunk, PK_CL_ATTN_MAX_SPLITS, key_unit);
    plan->chunk = (int)sp.chunk;
    plan->n_splits = sp.n;
    plan->merge_groups = (int)(dp->merge_wg / p->d);
}

void pk_cl_attn_plan_variant(const pk_cl_attn_plan *plan, int64_t d, char *name, size_t n)
{
    const pk_cl_attn_tile *t = &plan->tile;
    const pk_cl_attn_decode *c = &plan->dec;
    if (!plan->split && plan->mma)
        snprintf(name, n, "mma_d%d_w%d_n%d_s%d", (int)d, plan->mt.nw, plan->mt.bn, plan->mt.st);
    else if (plan->mma)
        snprintf(name, n, "mma_decode_d%d_k%d_n%d_s%d", (int)d, plan->mt.nwn, plan->mt.bn, plan->mt.st);
    else if (!plan->split)
        snprintf(name, n, "prefill_d%d_%dx%dx%d", (int)d, t->bm, t->bn, t->tpr);
    else
        snprintf(name, n, "decode_d%d_r%d_t%dx%d_u%d_%s", (int)d, c->rows, c->tpk, c->nv, c->unroll,
                 c->vec ? "vec" : "any");
}

/* A problem of one batch and kv head: q rows per kv head, K and V either
 * contiguous or with D strided. */
static pk_attention_problem probe(int64_t sq, int64_t group, int64_t skv, int64_t d, int vec, pk_dtype dt)
{
    pk_attention_problem p = {0};
    p.batch = 1, p.sq = sq, p.skv = skv, p.hq = group, p.hkv = 1, p.d = d;
    pk_view *kv[2] = {&p.k, &p.v};
    for (int i = 0; i < 2; i++) {
        kv[i]->dtype = dt;
        int64_t s[4] = {skv * d, d, d, 1}, t[4] = {skv * d, 1, 1, skv};
        for (int k = 0; k < 4; k++) kv[i]->stride[k] = vec ? s[k] : t[k];
    }
    /* q [1, sq, group, d], the same dtype */
    p.q.dtype = dt;
    int64_t qs[4] = {sq * group * d, group * d, d, 1};
    for (int k = 0; k < 4; k++) p.q.stride[k] = qs[k];
    return p;
}

void pk_cl_attn_plan_variants(const pk_cl_params *prm, const pk_device_info *dev,
                              void (*fn)(void *ctx, const char *name), void *ctx)
{
    static const int dims[] = {64, 80, 96, 128, 256};
    char name[64];
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        const int d = dims[i];
        pk_cl_attn_plan plan;
        pk_attention_problem p = probe(PK_CL_ATTN_SPLIT_MAX_SQ + 1, 1, PK_CL_ATTN_SPLIT_MIN_SKV, d, 1, PK_BF16);
        pk_cl_attn_plan_make(prm, &p, dev, &plan);
        pk_cl_attn_plan_variant(&plan, d, name, sizeof name);
        fn(ctx, name);
        /* the portable prefill too, where the tensor-core one takes 16-bit
         * contiguous rows */
        if (plan.mma) {
            p = probe(PK_CL_ATTN_SPLIT_MAX_SQ + 1, 1, PK_CL_ATTN_SPLIT_MIN_SKV, d, 0, PK_BF16);
            pk_cl_attn_plan_make(prm, &p, dev, &plan);
            pk_cl_attn_plan_variant(&plan, d, name, sizeof name);
            fn(ctx, name);
        }
        /* decode on the tensor cores (one tile for any rows), which then
         * leaves f32 to the portable decode */
        pk_dtype dt = PK_BF16;
        p = probe(1, 1, PK_CL_ATTN_SPLIT_MIN_SKV, d, 1, dt);
        pk_cl_attn_plan_make(prm, &p, dev, &plan);
        if (plan.mma) {
            pk_cl_attn_plan_variant(&plan, d, name, sizeof name);
            fn(ctx, name);
            dt = PK_F32;
        }
        /* portable decode: 1, 2, 4, ... rows per kv head, both loads, up
         * to the widest row tile (more rows take more work-groups of it) */
        for (int vec = 1; vec >= 0; vec--)
            for (int64_t rows = 1;; rows *= 2) {
                p = probe(1, rows, PK_CL_ATTN_SPLIT_MIN_SKV, d, vec, dt);
                pk_cl_attn_plan_make(prm, &p, dev, &plan);
                if (plan.dec.rows < rows) break;
                pk_cl_attn_plan_variant(&plan, d, name, sizeof name);
                fn(ctx, name);
            }
    }
}
