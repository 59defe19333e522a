/* The HIP GEMM kernels as data: their launch shape and entry points, read
 * by the plan (backends/hip/hip_gemm_plan.c), the launch (backends/gpu) and
 * the kernel build (gemm.hip). */
#ifndef PK_HIP_GEMM_KERNELS_H
#define PK_HIP_GEMM_KERNELS_H

/* every GEMM kernel's block */
#define PK_HIP_GEMM_THREADS 256

/* Every entry point, once: X(kind, module, name, ...), module the kernel
 * file, and kind's arguments:
 *   MFMA   DT, BM    f16/bf16 on CDNA matrix cores, BM x BM tiles
 *                    (gemm_mfma.h); targets without MFMA build the 64 x 64
 *                    tiled body under the same names
 *   WMMA   DT, GEN, BM  f16/bf16 on RDNA matrix cores of generation GEN
 *                    (11: gfx11, 12: gfx12), BM x BM tiles (gemm_wmma.h);
 *                    other targets build the 64 x 64 tiled body, HIP on
 *                    NVIDIA the WMMA body with the instruction emulated
 *   TILED  DT        anything, exact f32, 64 x 64 tiles (gemm_tiled.h): at
 *                    128 x 128 the k loop's addresses spill scalar
 *                    registers on gfx90a
 *   SKINNY DT, rows  decode, M <= rows (gemm_skinny.h)
 * DT is the pk_dtype (0 f32, 1 f16, 2 bf16). */
#define PK_HIP_GEMM_KERNELS(X)                                                                          \
    X(TILED, gemm, pk_gemm_tiled_f32_64, 0) X(TILED, gemm, pk_gemm_tiled_f16_64, 1)                     \
    X(TILED, gemm, pk_gemm_tiled_bf16_64, 2) PK_HIP_GEMM_HALF(X, f16, 1) PK_HIP_GEMM_HALF(X, bf16, 2)
#define PK_HIP_GEMM_HALF(X, dt, DT)                                                                     \
    X(MFMA, gemm, pk_gemm_mfma_##dt##_128, DT, 128) X(MFMA, gemm, pk_gemm_mfma_##dt##_64, DT, 64)       \
    X(WMMA, gemm, pk_gemm_wmma11_##dt##_128, DT, 11, 128) X(WMMA, gemm, pk_gemm_wmma11_##dt##_64, DT, 11, 64) \
    X(WMMA, gemm, pk_gemm_wmma12_##dt##_128, DT, 12, 128) X(WMMA, gemm, pk_gemm_wmma12_##dt##_64, DT, 12, 64) \
    X(SKINNY, gemm, pk_gemm_skinny_##dt##_m1, DT, 1) X(SKINNY, gemm, pk_gemm_skinny_##dt##_m2, DT, 2)   \
    X(SKINNY, gemm, pk_gemm_skinny_##dt##_m4, DT, 4) X(SKINNY, gemm, pk_gemm_skinny_##dt##_m8, DT, 8)   \
    X(SKINNY, gemm, pk_gemm_skinny_##dt##_m16, DT, 16)

#endif
