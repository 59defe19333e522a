/* Shape tests the GPU GEMM plans share (CUDA and HIP): which layouts a
 * kernel that copies whole 16-byte units can read. Plain C. A stride of a
 * dimension with one index is never used, so it counts as contiguous and
 * aligned whatever its value. */
#ifndef PK_GPU_GEMM_SHAPE_H
#define PK_GPU_GEMM_SHAPE_H

#include "backend.h"

/* the stride is 1, or its dimension has one index */
int pk_gpu_contiguous(int64_t stride, int64_t size);

/* the stride is a multiple of `elems` elements, or its dimension has one index */
int pk_gpu_stride_aligned(int64_t stride, int64_t size, int64_t elems);

/* The decode layout of the skinny kernels: M <= 16, x[M,K] @ W[N,K]^T with
 * k contiguous in both, f16/bf16, every row and batch 16 bytes aligned. */
int pk_gpu_gemm_decode_fits(const pk_gemm_problem *p);

#endif /* PK_GPU_GEMM_SHAPE_H */
