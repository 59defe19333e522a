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

#endif
