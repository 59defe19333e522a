/* Host helpers shared by the CUDA elementwise op files (cuda_rows.c,
 * cuda_rope.c, cuda_chain.c). */
#ifndef PK_CUDA_EW_H
#define PK_CUDA_EW_H

#include "../../kernels_cuda/ew_abi.h"
#include "cuda_internal.h"

/* Bytes per element; the module does not link the core's pk_dtype_size. */
int64_t pk_cu_ew_dtype_size(pk_dtype t);

/* The kernel argument view of v (ptr 0 when absent). */
pk_ew_view pk_cu_ew_view(const pk_view *v);

/* Whether w (absent counts as yes) can be read in aligned vector accesses
 * of `bytes` (<= 16) that start at multiples of bytes / elem_size along the
 * last dim: last stride 1, base aligned, and every leading stride aligned
 * where that dim (of sizes lead[0..2]) is longer than 1. */
int pk_cu_ew_vec_ok(const pk_ew_view *w, int64_t elem_size, const int64_t lead[3], int bytes);

/* Threads per block along x for `n` items of a 2-D grid of `total`
 * threads (the rest of the block walks rows). */
unsigned pk_cu_ew_block_x(int64_t n, unsigned total);

#endif /* PK_CUDA_EW_H */
