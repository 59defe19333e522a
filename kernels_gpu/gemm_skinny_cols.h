/* The skinny decode GEMM of both CUDA-family backends (kernels_cuda/
 * gemm_skinny.cuh, kernels_hip/gemm_skinny.h): each warp (wave) owns this
 * many output columns for all mr rows. More rows reuse each weight chunk
 * more; more columns reuse each x chunk more. Plain C: the plans read it
 * too. */
#ifndef PK_GPU_SKINNY_COLS_H
#define PK_GPU_SKINNY_COLS_H

#define PK_GPU_SKINNY_COLS(mr) ((mr) <= 2 ? 1 : (mr) <= 4 ? 2 : 4)
/* the kernel of m rows among those of 1, 2, 4, 8 and 16 rows */
#define PK_GPU_SKINNY_INDEX(m) ((m) <= 1 ? 0 : (m) <= 2 ? 1 : (m) <= 4 ? 2 : (m) <= 8 ? 3 : 4)

#endif
