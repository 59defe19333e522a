/* The skinny decode GEMM of both CUDA-family backends (kernels_cuda/
 * gemm_skinny.cuh, kernels_hip/gemm_skinny.h): each warp (wave) owns this
 * many output columns for all mr rows. More rows reuse each weight chunk
 * more; more columns reuse each x chunk more. Plain C: the plans read it
 * too. */
#ifndef PK_GPU_SKINNY_COLS_H
#define PK_GPU_SKINNY_COLS_H

#define PK_GPU_SKINNY_COLS(mr) ((mr) <= 2 ? 1 : (mr) <= 4 ? 2 : 4)

#endif
