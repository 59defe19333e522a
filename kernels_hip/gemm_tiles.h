/* The HIP GEMM kernels' launch shape as data, read by the plan
 * (backends/hip/hip_gemm_plan.c) and the kernel build (gemm.hip). */
#ifndef PK_HIP_GEMM_TILES_H
#define PK_HIP_GEMM_TILES_H

/* every GEMM kernel's block */
#define PK_HIP_GEMM_THREADS 256

#endif
