/* Split-KV attention, the rule every backend's plan shares: how many
 * pieces of the key range each work-group (block) of a decode problem
 * takes, so that enough of them run at once to keep the device streaming
 * K and V. Plain C, unit-tested on any machine. */
#ifndef PK_ATTN_SPLIT_H
#define PK_ATTN_SPLIT_H

#include <stdint.h>

typedef struct pk_attn_split {
    int n;         /* pieces of the key range */
    int64_t chunk; /* keys a piece: a multiple of the unit; n * chunk >= skv */
} pk_attn_split;

/* The problem has `groups` work-groups unsplit; the device should run
 * `want` at once. wave = 1: at most want of them (one wave: a second,
 * partial wave would run at a fraction of the bandwidth); wave = 0: at
 * least want. Pieces are at least min_chunk keys (so that the merge stays
 * a small part of the traffic), at most max_splits of them, and whole
 * multiples of unit keys (the kernels' key steps). */
pk_attn_split pk_attn_split_keys(int64_t skv, int64_t groups, int64_t want, int wave, int64_t min_chunk,
                                 int64_t max_splits, int64_t unit);

/* The CUDA family's plans (CUDA, HIP): a split pays off when the rows
 * sharing a kv head are few (decode) and the key range long, so that one
 * block per row tile would walk it alone; chunks stay long enough that
 * the merge is cheap, and are whole 64-key tiles of every kernel. rows:
 * query rows a kv head; blocks: the unsplit grid; resident: the blocks
 * the device holds at once (one wave of them is the aim). Otherwise one
 * piece, the keys rounded up to the tile. */
#define PK_ATTN_GPU_SPLIT_MAX_ROWS 64
#define PK_ATTN_GPU_SPLIT_MIN_SKV 512
#define PK_ATTN_GPU_KEY_UNIT 64
pk_attn_split pk_attn_split_gpu(int64_t skv, int64_t rows, int64_t blocks, int64_t resident);

#endif
