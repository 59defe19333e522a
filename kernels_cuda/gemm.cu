/* GEMM entry points: d = act(alpha * a @ b + beta * c + bias) + res.
 * backends/cuda/cuda_gemm_plan.c picks one by name:
 *   pk_gemm_mma_<dt>_<BMxBN>_a<k|m>_b<k|n>  f16/bf16 on tensor cores; a/b
 *       letter: the operand's contiguous direction (gemm_mma.cuh)
 *   pk_gemm_simt_<dt>_<BM>                  anything, exact f32 (gemm_simt.cuh)
 *   pk_gemm_simt_f32_<BM>_a<k|m>_b<k|n>     f32 with 16-byte aligned rows, float4
 *                                           loads (gemm_simt_vec.cuh)
 *   pk_gemm_skinny_<dt>_m<MR>               decode, M <= MR (gemm_skinny.cuh)
 *   pk_gemm_skinny_<dt>_m1_k2               decode, M = 1, 2 warps per column
 *   pk_gemm_decode_<dt>                     decode on tensor cores, M <= 16
 *                                           (gemm_decode.cuh)
 * All take PK_GEMM_PARAMS (kernels_gpu/gemm_abi.h). The Hopper kernel is in
 * gemm_sm90.cu, a fatbin of its own. */
#include "../kernels_gpu/gpu_common.h"
#include "gemm_common.cuh"
#include "gemm_tiles.h"
#include "gemm_decode.cuh"
#include "gemm_mma.cuh"
#include "gemm_simt.cuh"
#include "gemm_skinny.cuh"

/* tile: BM, BN, warps along m and n, pipeline stages */
#define PK_GEMM_MMA_ENTRY(dt, dtn, tile, bm, bn, wm, wn, st, al, ak, bl, bk)                               \
    extern "C" __global__ void __launch_bounds__((wm) * (wn) * 32, 1)                                     \
        pk_gemm_mma_##dtn##_##tile##_a##al##_b##bl(PK_GEMM_PARAMS)                                       \
    {                                                                                                     \
        pk_gemm_mma<dt, bm, bn, wm, wn, st, ak, bk>(PK_GEMM_ARGS);                                       \
    }

#define PK_GEMM_MMA_LAYOUTS(dt, dtn, tile, bm, bn, wm, wn, st)                                           \
    PK_GEMM_MMA_ENTRY(dt, dtn, tile, bm, bn, wm, wn, st, k, true, k, true)                               \
    PK_GEMM_MMA_ENTRY(dt, dtn, tile, bm, bn, wm, wn, st, k, true, n, false)                              \
    PK_GEMM_MMA_ENTRY(dt, dtn, tile, bm, bn, wm, wn, st, m, false, k, true)                              \
    PK_GEMM_MMA_ENTRY(dt, dtn, tile, bm, bn, wm, wn, st, m, false, n, false)

PK_CU_MMA_TILES(PK_GEMM_MMA_LAYOUTS, 1, f16)
PK_CU_MMA_TILES(PK_GEMM_MMA_LAYOUTS, 2, bf16)

#define PK_GEMM_SIMT_ENTRY(dt, dtn, g, bm)                                                                \
    extern "C" __global__ void __launch_bounds__(256) pk_gemm_simt_##dtn##_##bm(PK_GEMM_PARAMS)          \
    {                                                                                                     \
        pk_gemm_simt<dt, g>(PK_GEMM_ARGS);                                                                \
    }

PK_GEMM_SIMT_ENTRY(0, f32, 2, 128)
PK_GEMM_SIMT_ENTRY(0, f32, 1, 64)
PK_GEMM_SIMT_ENTRY(1, f16, 2, 128)
PK_GEMM_SIMT_ENTRY(1, f16, 1, 64)
PK_GEMM_SIMT_ENTRY(2, bf16, 2, 128)
PK_GEMM_SIMT_ENTRY(2, bf16, 1, 64)

/* f32 with a contiguous, 16-byte aligned direction per operand
 * (gemm_simt_vec.cuh); a/b letter as for the mma kernels. Two blocks of
 * 128 x 128 per SM: at most 128 registers. */
#define PK_GEMM_SIMT_VEC_ENTRY(bm, minb, al, ak, bl, bk)                                                  \
    extern "C" __global__ void __launch_bounds__(256, minb)                                               \
        pk_gemm_simt_f32_##bm##_a##al##_b##bl(PK_GEMM_PARAMS)                                             \
    {                                                                                                     \
        pk_gemm_simt_vec<bm, ak, bk>(PK_GEMM_ARGS);                                                       \
    }

#define PK_GEMM_SIMT_VEC_LAYOUTS(bm, minb)                                                                \
    PK_GEMM_SIMT_VEC_ENTRY(bm, minb, k, true, k, true)                                                    \
    PK_GEMM_SIMT_VEC_ENTRY(bm, minb, k, true, n, false)                                                   \
    PK_GEMM_SIMT_VEC_ENTRY(bm, minb, m, false, k, true)                                                   \
    PK_GEMM_SIMT_VEC_ENTRY(bm, minb, m, false, n, false)

PK_GEMM_SIMT_VEC_LAYOUTS(128, 2)
PK_GEMM_SIMT_VEC_LAYOUTS(64, 1)

/* threads and blocks per SM: gemm_tiles.h */
#define PK_GEMM_SKINNY_ENTRY(dt, dtn, mr, ks, name)                                                       \
    extern "C" __global__ void __launch_bounds__(PK_CU_SKINNY_THREADS, PK_CU_SKINNY_BLOCKS(mr)) pk_gemm_skinny_##dtn##_##name(PK_GEMM_PARAMS) \
    {                                                                                                     \
        pk_gemm_skinny<dt, mr, ks>(PK_GEMM_ARGS);                                                         \
    }

/* m1_k2: one row, two warps per column splitting K */
#define PK_GEMM_SKINNY_ROWS(dt, dtn)                                                                      \
    PK_GEMM_SKINNY_ENTRY(dt, dtn, 1, 1, m1)                                                               \
    PK_GEMM_SKINNY_ENTRY(dt, dtn, 1, 2, m1_k2)                                                            \
    PK_GEMM_SKINNY_ENTRY(dt, dtn, 2, 1, m2)                                                               \
    PK_GEMM_SKINNY_ENTRY(dt, dtn, 4, 1, m4)                                                               \
    PK_GEMM_SKINNY_ENTRY(dt, dtn, 8, 1, m8)                                                               \
    PK_GEMM_SKINNY_ENTRY(dt, dtn, 16, 1, m16)

PK_GEMM_SKINNY_ROWS(1, f16)
PK_GEMM_SKINNY_ROWS(2, bf16)

/* its shape: gemm_tiles.h */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define PK_GEMM_DECODE_U PK_CU_DECODE_U_SM80
#else
#define PK_GEMM_DECODE_U PK_CU_DECODE_U_SM90
#endif
#define PK_GEMM_DECODE_ENTRY(dt, dtn)                                                                     \
    extern "C" __global__ void __launch_bounds__(PK_CU_DECODE_MAX_THREADS, PK_CU_DECODE_BLOCKS)             \
        pk_gemm_decode_##dtn(PK_GEMM_PARAMS)                                                              \
    {                                                                                                     \
        pk_gemm_decode<dt, PK_CU_DECODE_NT, PK_GEMM_DECODE_U>(PK_GEMM_ARGS);                              \
    }

PK_GEMM_DECODE_ENTRY(1, f16)
PK_GEMM_DECODE_ENTRY(2, bf16)
