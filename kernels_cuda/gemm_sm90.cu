/* GEMM entry points that need sm_90a (Hopper's wgmma and TMA), in their
 * own fatbin: built only for sm_90a and loaded only on compute capability
 * 9.0 (backends/cuda/cuda_backend.c), so the other GPUs never see them.
 *   pk_gemm_wgmma_<dt>_128x256   f16/bf16, A and B k-contiguous (gemm_wgmma.cuh)
 * Parameters: the TMA maps of A and B (built by backends/cuda/cuda_gemm.c),
 * then PK_GEMM_PARAMS as every GEMM kernel. */
#include "../kernels_gpu/gpu_common.h"
#include "gemm_common.cuh"
#include "gemm_wgmma.cuh"

#define PK_GEMM_WGMMA_ENTRY(dt, dtn)                                                                      \
    extern "C" __global__ void __launch_bounds__(pk_wgmma::THREADS, 1) pk_gemm_wgmma_##dtn##_128x256(     \
        const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, PK_GEMM_PARAMS)    \
    {                                                                                                     \
        pk_wgmma::gemm<dt>(&ta, &tb, PK_GEMM_ARGS);                                                       \
    }

PK_GEMM_WGMMA_ENTRY(1, f16)
PK_GEMM_WGMMA_ENTRY(2, bf16)
