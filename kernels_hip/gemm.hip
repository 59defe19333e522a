/* GEMM entry points: d = act(alpha * a @ b + beta * c + bias) + res.
 * backends/hip/hip_gemm_plan.c picks one by name:
 *   pk_gemm_mfma_<dt>_<BM>    f16/bf16 on CDNA matrix cores, BM x BM tiles
 *                             (gemm_mfma.h); on targets without MFMA the
 *                             same names run the tiled body
 *   pk_gemm_tiled_<dt>_64     anything, exact f32 (gemm_tiled.h)
 *   pk_gemm_skinny_<dt>_m<MR> decode, M <= MR (gemm_skinny.h)
 * All take PK_GEMM_PARAMS (kernels_gpu/gemm_abi.h) and PK_HIP_GEMM_THREADS
 * (gemm_tiles.h). */
#include "gemm_common.h"
#include "gemm_tiles.h"
#include "gemm_mfma.h"
#include "gemm_skinny.h"
#include "gemm_tiled.h"

#define PK_GEMM_TILED_ENTRY(dt, dtn, g, bm)                                                               \
    extern "C" __global__ void __launch_bounds__(PK_HIP_GEMM_THREADS) pk_gemm_tiled_##dtn##_##bm(PK_GEMM_PARAMS)         \
    {                                                                                                     \
        pk_gemm_tiled<dt, g>(PK_GEMM_KARGS);                                                               \
    }

/* 64 x 64 only: at 128 x 128 the k loop's addresses spill scalar
 * registers on gfx90a */
PK_GEMM_TILED_ENTRY(0, f32, 1, 64)
PK_GEMM_TILED_ENTRY(1, f16, 1, 64)
PK_GEMM_TILED_ENTRY(2, bf16, 1, 64)

/* without matrix cores the 64 x 64 tiled body, which loops over however
 * many tiles the grid leaves it */
#if PK_HIP_MFMA
#define PK_GEMM_MFMA_BODY(dt, g) pk_gemm_mfma<dt, 64 * (g)>(PK_GEMM_KARGS)
#else
#define PK_GEMM_MFMA_BODY(dt, g) pk_gemm_tiled<dt, 1>(PK_GEMM_KARGS)
#endif

#define PK_GEMM_MFMA_ENTRY(dt, dtn, g, bm)                                                                \
    extern "C" __global__ void __launch_bounds__(PK_HIP_GEMM_THREADS) pk_gemm_mfma_##dtn##_##bm(PK_GEMM_PARAMS)          \
    {                                                                                                     \
        PK_GEMM_MFMA_BODY(dt, g);                                                                         \
    }

PK_GEMM_MFMA_ENTRY(1, f16, 2, 128)
PK_GEMM_MFMA_ENTRY(1, f16, 1, 64)
PK_GEMM_MFMA_ENTRY(2, bf16, 2, 128)
PK_GEMM_MFMA_ENTRY(2, bf16, 1, 64)

#define PK_GEMM_SKINNY_ENTRY(dt, dtn, mr)                                                                 \
    extern "C" __global__ void __launch_bounds__(PK_HIP_GEMM_THREADS) pk_gemm_skinny_##dtn##_m##mr(PK_GEMM_PARAMS)       \
    {                                                                                                     \
        pk_gemm_skinny<dt, mr>(PK_GEMM_KARGS);                                                             \
    }

#define PK_GEMM_SKINNY_ROWS(dt, dtn)                                                                      \
    PK_GEMM_SKINNY_ENTRY(dt, dtn, 1)                                                                      \
    PK_GEMM_SKINNY_ENTRY(dt, dtn, 2)                                                                      \
    PK_GEMM_SKINNY_ENTRY(dt, dtn, 4)                                                                      \
    PK_GEMM_SKINNY_ENTRY(dt, dtn, 8)                                                                      \
    PK_GEMM_SKINNY_ENTRY(dt, dtn, 16)

PK_GEMM_SKINNY_ROWS(1, f16)
PK_GEMM_SKINNY_ROWS(2, bf16)
