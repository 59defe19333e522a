/* GEMM entry points that need sm_90a (Hopper's wgmma and TMA), in their
 * own fatbin: built only for sm_90a and loaded only on compute capability
 * 9.0 (backends/cuda/cuda_backend.c), so the other GPUs never see them;
 * the list in gemm_kernels.h names them. Parameters: the TMA maps of A, B
 * and D and whether D's holds (`store`: built by backends/cuda/cuda_gemm.c
 * for the tiles that write through it), the split, then PK_GEMM_PARAMS as
 * every GEMM kernel. An unsplit call runs a body with no split-K code in it: the
 * hand-over, dead there, made the production tiles' loop and epilogue half
 * as long again. */
#include "../kernels_gpu/gpu_common.h"
#include "gemm_common.cuh"
#include "gemm_wgmma.cuh"

#define PK_GEMM_ENTRY(kind, module, name, ...) PK_GEMM_IN_##module(name, __VA_ARGS__)
#define PK_GEMM_IN_gemm(...)
#define PK_GEMM_IN_gemm_sm90(name, dt, i, bm, bn, stages, cost, trial, form, out)                           \
    extern "C" __global__ void __launch_bounds__(pk_wgmma::THREADS, 1)                                  \
        name(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,            \
             const __grid_constant__ CUtensorMap td, const int store, const pk_cu_gemm_split sp,         \
             PK_GEMM_PARAMS)                                                                            \
    {                                                                                                   \
        static_assert((bm) == 128 || (bm) == 64, "consumers of 64 rows");                               \
        if constexpr (!PK_CU_WGMMA_IS_PAIR(form))                                                   \
            if (sp.splits > 1) {                                                                        \
                pk_wgmma::gemm<dt, bm, bn, stages, form, true, out>(&ta, &tb, &td, 0, sp, PK_GEMM_ARGS); \
                return;                                                                                 \
            }                                                                                           \
        pk_wgmma::gemm<dt, bm, bn, stages, form, false, out>(&ta, &tb, &td, store, sp, PK_GEMM_ARGS);   \
    }

PK_CU_GEMM_KERNELS(PK_GEMM_ENTRY)
