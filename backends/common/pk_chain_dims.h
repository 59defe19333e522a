/* The fused chain's iteration space, shared by the GPU backends' host code. */
#ifndef PK_CHAIN_DIMS_H
#define PK_CHAIN_DIMS_H

#include "backend.h"

#define PK_CHAIN_VIEWS (1 + PK_CHAIN_MAX_INPUTS)

/* The problem's dims after dropping size-1 dims and merging neighbours that
 * every view walks as one (a contiguous or broadcast pair), so that a
 * contiguous chain runs as one long row. shape[3] is the innermost; stride
 * holds the output's strides, then each input's. */
typedef struct pk_chain_dims {
    int64_t shape[PK_MAX_DIMS];
    int64_t stride[PK_CHAIN_VIEWS][PK_MAX_DIMS];
} pk_chain_dims;

pk_chain_dims pk_chain_collapse(const pk_chain_problem *p);

#endif /* PK_CHAIN_DIMS_H */
