/* GEMM entry points: d = act(alpha * a @ b + beta * c + bias) + res, one
 * per entry of the list in gemm_kernels.h but its Hopper kernels
 * (gemm_sm90.cu). All take PK_GEMM_PARAMS (kernels_gpu/gemm_abi.h), VEC
 * and WIDE after their split-K arguments. */
#include "../kernels_gpu/gpu_common.h"
#include "gemm_common.cuh"
#include "gemm_kernels.h"
#include "gemm_decode.cuh"
#include "gemm_mma.cuh"
#include "gemm_simt.cuh"
#include "gemm_simt_wide.cuh"
#include "gemm_skinny.cuh"

#define PK_GEMM_ENTRY(kind, module, name, ...) PK_GEMM_IN_##module(kind, name, __VA_ARGS__)
#define PK_GEMM_IN_gemm(kind, name, ...) PK_GEMM_##kind(name, __VA_ARGS__)
#define PK_GEMM_IN_gemm_sm90(...)

#define PK_GEMM_MMA(name, dt, tile, bm, bn, wm, wn, st, ak, bk)                                         \
    extern "C" __global__ void __launch_bounds__((wm) * (wn) * 32, 1) name(PK_GEMM_PARAMS)              \
    {                                                                                                   \
        pk_gemm_mma<dt, bm, bn, wm, wn, st, (ak) != 0, (bk) != 0>(PK_GEMM_ARGS);                        \
    }

#define PK_GEMM_SIMT(name, dt, bm)                                                                      \
    extern "C" __global__ void __launch_bounds__(256) name(PK_GEMM_PARAMS)                              \
    {                                                                                                   \
        pk_gemm_simt<dt, (bm) / 64>(PK_GEMM_ARGS);                                                      \
    }

/* two blocks of 128 x 128 per SM: at most 128 registers. The split-K
 * arguments first (gemm_kernels.h), then PK_GEMM_PARAMS. */
#define PK_GEMM_VEC(name, bm, ak, bk)                                                                   \
    extern "C" __global__ void __launch_bounds__(256, (bm) / 64) name(const pk_cu_gemm_split sp, PK_GEMM_PARAMS) \
    {                                                                                                   \
        pk_gemm_simt_vec<bm, (ak) != 0, (bk) != 0>(sp, PK_GEMM_ARGS);                                   \
    }

/* PK_CU_WIDE_BLOCKS blocks per SM: each thread's 128 sums and the
 * fragments in at most 255 registers; the split-K arguments first, as
 * VEC's */
#define PK_GEMM_WIDE(name, i, bm, bn, ak, bk)                                                           \
    extern "C" __global__ void __launch_bounds__(PK_CU_WIDE_THREADS, PK_CU_WIDE_BLOCKS)                 \
        name(const pk_cu_gemm_split sp, PK_GEMM_PARAMS)                                                 \
    {                                                                                                   \
        pk_gemm_simt_wide<bm, bn, (ak) != 0, (bk) != 0>(sp, PK_GEMM_ARGS);                              \
    }

#define PK_GEMM_SKINNY(name, dt, mr, ks)                                                                \
    extern "C" __global__ void __launch_bounds__(PK_CU_SKINNY_THREADS, PK_CU_SKINNY_BLOCKS(mr)) name(PK_GEMM_PARAMS) \
    {                                                                                                   \
        pk_gemm_skinny<dt, mr, ks>(PK_GEMM_ARGS);                                                       \
    }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define PK_GEMM_DECODE_U PK_CU_DECODE_U_SM80
#else
#define PK_GEMM_DECODE_U PK_CU_DECODE_U_SM90
#endif
#define PK_GEMM_DECODE(name, dt)                                                                        \
    extern "C" __global__ void __launch_bounds__(PK_CU_DECODE_MAX_THREADS, PK_CU_DECODE_BLOCKS) name(PK_GEMM_PARAMS) \
    {                                                                                                   \
        pk_gemm_decode<dt, PK_CU_DECODE_NT, PK_GEMM_DECODE_U>(PK_GEMM_ARGS);                            \
    }

PK_CU_GEMM_KERNELS(PK_GEMM_ENTRY)
