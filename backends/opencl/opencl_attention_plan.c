/* Tile sizes and path choice for OpenCL attention.
 *
 * Local memory holds the Q tile and one K-or-V tile as f32 with rows padded
 * by one float (so that the rows a warp reads at once fall in different
 * banks), the tile of probabilities, and a small row reduction buffer. The
 * budget is 32 KiB even where the device has more (NVIDIA: 48 KiB) so that
 * two work-groups can share a multiprocessor. */
#include <stdio.h>

#include "opencl_attention_plan.h"

#define PK_CL_ATTN_LOCAL_BUDGET 32768u
#define PK_CL_ATTN_DECODE_WG 128

/* Split-KV pays off when there are few query rows per kv head (decode) and
 * the key range is long enough that one work-group per row would walk it
 * alone. Chunks are at least this many keys, so the merge stays cheap. */
#define PK_CL_ATTN_SPLIT_MAX_SQ 4
#define PK_CL_ATTN_SPLIT_MIN_SKV 512
#define PK_CL_ATTN_MIN_CHUNK 256
#define PK_CL_ATTN_MAX_SPLITS 64

size_t pk_cl_attn_local_bytes(int d, pk_cl_attn_tile t)
{
    size_t floats = (size_t)t.bm * (d + 1) + (size_t)t.bn * (d + 1) + (size_t)t.bm * (t.bn + 1) +
                    (size_t)t.bm * t.tpr;
    /* per row: the q row's offset (long) and its key window (two ints) */
    return floats * 4 + (size_t)t.bm * 16;
}

static void fit(int d, uint64_t budget, pk_cl_attn_tile *t)
{
    while (pk_cl_attn_local_bytes(d, *t) > budget && t->bn > 8) t->bn /= 2;
    while (pk_cl_attn_local_bytes(d, *t) > budget && t->bm > 1) t->bm /= 2;
}

/* Prefill: many rows per work-group so that each K/V tile is reused by
 * many queries; few work-items per row so that each holds D / tpr output
 * columns (at most 32 floats) in registers. */
static pk_cl_attn_tile prefill_tile(int64_t d)
{
    switch (d) {
    case 64: return (pk_cl_attn_tile){64, 16, 4};
    case 80:
    case 96: return (pk_cl_attn_tile){32, 32, 4};
    case 128: return (pk_cl_attn_tile){32, 16, 4};
    default: return (pk_cl_attn_tile){16, 8, 8};
    }
}

/* Decode: the rows are the few queries of the heads that share a kv head,
 * so the work-group spreads over output columns instead, and takes longer
 * key tiles. */
static pk_cl_attn_tile decode_tile(int64_t rows, int64_t d)
{
    int cap = d == 256 ? 16 : 32;
    int bm = 1;
    while (bm < rows && bm < cap) bm *= 2;
    int tpr = PK_CL_ATTN_DECODE_WG / bm;
    if (tpr < d / 32) tpr = (int)(d / 32);
    return (pk_cl_attn_tile){bm, 64, tpr};
}

void pk_cl_attn_plan_make(int64_t batch, int64_t sq, int64_t skv, int64_t hq, int64_t hkv, int64_t d,
                          uint64_t local_mem, int compute_units, pk_cl_attn_plan *plan)
{
    uint64_t budget = local_mem && local_mem < PK_CL_ATTN_LOCAL_BUDGET ? local_mem : PK_CL_ATTN_LOCAL_BUDGET;
    int64_t rows = sq * (hq / hkv);
    *plan = (pk_cl_attn_plan){0};
    plan->split = sq <= PK_CL_ATTN_SPLIT_MAX_SQ && skv >= PK_CL_ATTN_SPLIT_MIN_SKV;
    plan->tile = plan->split ? decode_tile(rows, d) : prefill_tile(d);
    fit((int)d, budget, &plan->tile);
    if (!plan->split) return;

    int bn = plan->tile.bn;
    plan->row_tiles = (int)((rows + plan->tile.bm - 1) / plan->tile.bm);
    int64_t groups = batch * hkv * plan->row_tiles;
    int64_t target = 4 * (int64_t)(compute_units > 0 ? compute_units : 1);
    int64_t n = (target + groups - 1) / groups;
    int64_t most = skv / PK_CL_ATTN_MIN_CHUNK;
    if (n > most) n = most;
    if (n > PK_CL_ATTN_MAX_SPLITS) n = PK_CL_ATTN_MAX_SPLITS;
    if (n < 1) n = 1;
    int64_t chunk = (skv + n - 1) / n;
    chunk = (chunk + bn - 1) / bn * bn;
    plan->chunk = (int)chunk;
    plan->n_splits = (int)((skv + chunk - 1) / chunk);
}

void pk_cl_attn_plan_variant(const pk_cl_attn_plan *plan, int64_t d, char *name, size_t n)
{
    snprintf(name, n, "%s_d%d_%dx%dx%d", plan->split ? "split" : "prefill", (int)d, plan->tile.bm, plan->tile.bn,
             plan->tile.tpr);
}

void pk_cl_attn_plan_variants(uint64_t local_mem, void (*fn)(void *ctx, const char *name), void *ctx)
{
    static const int dims[] = {64, 80, 96, 128, 256};
    char name[64];
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        const int d = dims[i];
        /* prefill, then a split of 1, 2, 4, ... query rows per kv head up
         * to the widest decode tile: one sq = 1 problem each, as the plan
         * makes it */
        pk_cl_attn_plan plan;
        pk_cl_attn_plan_make(1, PK_CL_ATTN_SPLIT_MAX_SQ + 1, PK_CL_ATTN_SPLIT_MIN_SKV, 1, 1, d, local_mem, 1, &plan);
        pk_cl_attn_plan_variant(&plan, d, name, sizeof name);
        fn(ctx, name);
        int last_bm = 0;
        for (int64_t rows = 1; rows <= 64; rows *= 2) {
            pk_cl_attn_plan_make(1, 1, PK_CL_ATTN_SPLIT_MIN_SKV, rows, 1, d, local_mem, 1, &plan);
            if (plan.tile.bm == last_bm) continue;
            last_bm = plan.tile.bm;
            pk_cl_attn_plan_variant(&plan, d, name, sizeof name);
            fn(ctx, name);
        }
    }
}
