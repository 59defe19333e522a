/* Tile sizes and path choice for OpenCL attention: plain C, no OpenCL, so
 * that it can be unit-tested on the CPU. */
#ifndef PK_OPENCL_ATTENTION_PLAN_H
#define PK_OPENCL_ATTENTION_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "opencl_params.h"

/* Prefill: a work-group owns bm query rows and streams keys bn at a time;
 * tpr work-items share a row (the work-group has bm * tpr of them). */
typedef struct pk_cl_attn_tile {
    int bm, bn, tpr;
} pk_cl_attn_tile;

/* Decode (attention_decode.cl, pk_attn_decode): a work-group owns `rows`
 * query rows of one kv head (the GQA group's heads times sq) and one chunk
 * of keys. tpk work-items share a key, each holding nv runs of 8 elements
 * of it; the work-group has slots = wg / tpk such teams, each streaming
 * `unroll` keys a step with its own online softmax (the loads of a step
 * are in flight while the one before is worked on). vec: K and V are read
 * 16 bytes at a time (contiguous, 16-byte aligned rows). */
typedef struct pk_cl_attn_decode {
    int rows, tpk, nv, slots, unroll, vec;
} pk_cl_attn_decode;

/* NVIDIA's tensor cores (attention_mma.cl): nw warps of 16 query rows
 * each, nwn warps that split each tile's keys, bn keys a tile, st tiles
 * of K and V in flight. Prefill: nwn = 1. Decode: nw = 1 (16 GQA-packed
 * rows), and the splits aim at per_cu work-groups a compute unit. */
typedef struct pk_cl_attn_mma_tile {
    int nw, bn, st, nwn, per_cu;
} pk_cl_attn_mma_tile;

typedef struct pk_cl_attn_plan {
    int split;       /* 0: one fused pass (prefill); 1: decode partials, then a merge */
    int mma;         /* on the tensor cores (mt), not the portable tile or decode kernel */
    pk_cl_attn_tile tile;   /* prefill */
    pk_cl_attn_mma_tile mt; /* mma, prefill or split */
    pk_cl_attn_decode dec;  /* split */
    int row_tiles;   /* split: tiles of the query rows that share a kv head */
    int n_splits;    /* split: chunks of the key range */
    int chunk;       /* split: keys per chunk, a multiple of slots * unroll (mma: of bn) */
    int merge_groups;/* split: groups of D work-items that share a row's merge */
    int max_regs;    /* split, NVIDIA: registers a work-item of the decode kernel may use
                        (-cl-nv-maxrregcount); 0: no bound */
} pk_cl_attn_plan;

/* Local memory the prefill kernel declares for head dim d and tile t. */
size_t pk_cl_attn_local_bytes(int d, pk_cl_attn_tile t);

/* Local memory attention_mma.cl declares for head dim d and tile t
 * (decode: pk_attn_mma_decode, else pk_attn_mma). */
size_t pk_cl_attn_mma_local_bytes(int d, pk_cl_attn_mma_tile t, int decode);

/* Whether attention_mma.cl takes p's operands: 16-bit, D a multiple of
 * 16 up to 256 and contiguous, every offset and stride of q, k and v a
 * whole number of 16 bytes. */
int pk_cl_attn_mma_layout(const pk_attention_problem *p);

/* Local memory the decode kernel declares for head dim d. */
size_t pk_cl_attn_decode_local_bytes(int d, pk_cl_attn_decode t);

/* Whether the 16-byte loads of the decode kernel can read K and V of p:
 * unit stride over D and every other stride and offset a whole number of
 * 16 bytes (buffers themselves are at least 128-byte aligned). */
int pk_cl_attn_vec_ok(const pk_attention_problem *p);

/* A class's table entries (pk_cl_params_default gathers them). */
const pk_cl_attn_decode_params *pk_cl_attn_decode_table(pk_cl_vendor cls);
const pk_cl_attn_prefill_params *pk_cl_attn_prefill_table(pk_cl_vendor cls);

/* The plan for p from prm on device dev (its local memory and compute units). */
void pk_cl_attn_plan_make(const pk_cl_params *prm, const pk_attention_problem *p, const pk_device_info *dev,
                          pk_cl_attn_plan *plan);

/* The variant a plan builds for head dim d: its path and tile, e.g.
 * "prefill_d64_64x16x4" (bm x bn x tpr), "mma_d128_w4_n32_s2" (warps,
 * keys a tile, stages), "mma_decode_d128_k2_n32_s2" (warps of keys, keys
 * a tile, stages) or "decode_d128_r4_t8x2_u2_vec" (rows, tpk x nv,
 * unroll, loads). */
void pk_cl_attn_plan_variant(const pk_cl_attn_plan *plan, int64_t d, char *name, size_t n);

/* Every variant pk_cl_attn_plan_make can give on dev: each name once to
 * fn. For the conformance coverage test (tests/test_cover_attention.c). */
void pk_cl_attn_plan_variants(const pk_cl_params *prm, const pk_device_info *dev, void (*fn)(void *ctx, const char *name), void *ctx);

#endif
