/* Tile sizes and path choice for OpenCL attention: plain C, no OpenCL, so
 * that it can be unit-tested on the CPU. */
#ifndef PK_OPENCL_ATTENTION_PLAN_H
#define PK_OPENCL_ATTENTION_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* A work-group owns bm query rows and streams keys bn at a time; tpr
 * work-items share a row (the work-group has bm * tpr of them). */
typedef struct pk_cl_attn_tile {
    int bm, bn, tpr;
} pk_cl_attn_tile;

typedef struct pk_cl_attn_plan {
    pk_cl_attn_tile tile;
    int split;       /* 0: one fused pass; 1: split-KV partials, then a merge */
    int row_tiles;   /* split: tiles of the query rows that share a kv head */
    int n_splits;    /* split: chunks of the key range */
    int chunk;       /* split: keys per chunk, a multiple of tile.bn */
} pk_cl_attn_plan;

/* Local memory the attention kernel declares for head dim d and tile t. */
size_t pk_cl_attn_local_bytes(int d, pk_cl_attn_tile t);

/* local_mem: the device's local memory per work-group; compute_units sizes
 * the split count so that a decode step still fills the device. */
void pk_cl_attn_plan_make(int64_t batch, int64_t sq, int64_t skv, int64_t hq, int64_t hkv, int64_t d,
                          uint64_t local_mem, int compute_units, pk_cl_attn_plan *plan);

/* The variant a plan builds for head dim d: its path and tile, e.g.
 * "prefill_d64_64x16x4" or "split_d128_4x64x32" (bm x bn x tpr). */
void pk_cl_attn_plan_variant(const pk_cl_attn_plan *plan, int64_t d, char *name, size_t n);

/* Every variant pk_cl_attn_plan_make can give on a device with local_mem
 * bytes of local memory: each name once to fn. For the conformance
 * coverage test (tests/test_cover_attention.c). */
void pk_cl_attn_plan_variants(uint64_t local_mem, void (*fn)(void *ctx, const char *name), void *ctx);

#endif
