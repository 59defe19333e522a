/* f16/bf16 GEMM on CDNA matrix cores (gfx90a, gfx942, gfx950), any strides. Only
 * built where PK_HIP_MFMA is 1; gemm.hip gives other targets the tiled
 * body under the same names.
 *
 * 256 threads = 4 waves of 64 in 2 x 2 compute a TILE x TILE block of d,
 * each wave (TILE/2)^2 as NB x NB blocks of v_mfma_f32_32x32x8 (f16 or
 * bf16_1k), in the block loop of gemm_common.h (pk_gemm_matrix: LDS rows
 * of 36 elements, where the 8-byte operand reads of 32 lanes hit distinct
 * banks).
 *
 * Operand and result layout of v_mfma_f32_32x32x8 (one block, wave64):
 *   A (32 x 8):  lane l holds A[l % 32][4 (l / 32) + 0..3]
 *   B (8 x 32):  lane l holds B[4 (l / 32) + 0..3][l % 32]
 *   D (32 x 32): lane l, register r holds D[8 (r / 4) + 4 (l / 32) + r % 4][l % 32]
 * Every output is one lane's sum in ascending k: deterministic. */
#pragma once

#include "gemm_common.h"

#if PK_HIP_MFMA

typedef _Float16 pk_half4 __attribute__((ext_vector_type(4)));
typedef short pk_short4 __attribute__((ext_vector_type(4)));
typedef float pk_float16 __attribute__((ext_vector_type(16)));

/* acc += a b for one 32 x 32 x 8 block; a and b are 4 packed 16-bit values */
template <int DT> __device__ __forceinline__ pk_float16 pk_mfma_32x32x8(uint2 a, uint2 b, pk_float16 acc);
template <typename V> __device__ __forceinline__ V pk_as(uint2 x)
{
    V v;
    memcpy(&v, &x, 8);
    return v;
}
template <> __device__ __forceinline__ pk_float16 pk_mfma_32x32x8<1>(uint2 a, uint2 b, pk_float16 acc)
{
    return __builtin_amdgcn_mfma_f32_32x32x8f16(pk_as<pk_half4>(a), pk_as<pk_half4>(b), acc, 0, 0, 0);
}
template <> __device__ __forceinline__ pk_float16 pk_mfma_32x32x8<2>(uint2 a, uint2 b, pk_float16 acc)
{
    return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(pk_as<pk_short4>(a), pk_as<pk_short4>(b), acc, 0, 0, 0);
}

/* A thread's share of a TILE x TILE block: 4 waves of 64 in 2 x 2, each
 * (TILE/2)^2 as NB x NB blocks of 32 x 32 (pk_gemm_matrix's Op) */
template <int DT, int TILE> struct pk_mfma_op {
    static constexpr int WT = TILE / 2, NB = WT / 32;
    pk_float16 acc[NB][NB];

    __device__ __forceinline__ void zero()
    {
#pragma unroll
        for (int i = 0; i < NB; i++)
#pragma unroll
            for (int j = 0; j < NB; j++)
#pragma unroll
                for (int r = 0; r < 16; r++) acc[i][j][r] = 0.0f;
    }

    __device__ __forceinline__ void step(const unsigned short (*rows)[PK_GEMM_LDS_ROW])
    {
        const int lane = threadIdx.x % 64, wave = threadIdx.x / 64;
        const int wm = wave / 2 * WT, wn = wave % 2 * WT;
#pragma unroll
        for (int s = 0; s < 32 / 8; s++) {
            const int kk = 8 * s + 4 * (lane / 32);
            uint2 fa[NB], fb[NB];
#pragma unroll
            for (int i = 0; i < NB; i++) {
                fa[i] = *reinterpret_cast<const uint2 *>(&rows[wm + 32 * i + lane % 32][kk]);
                fb[i] = *reinterpret_cast<const uint2 *>(&rows[TILE + wn + 32 * i + lane % 32][kk]);
            }
#pragma unroll
            for (int i = 0; i < NB; i++)
#pragma unroll
                for (int j = 0; j < NB; j++) acc[i][j] = pk_mfma_32x32x8<DT>(fa[i], fb[j], acc[i][j]);
        }
    }

    __device__ __forceinline__ void finish(const pk_gemm_out &out, long long z, long long m0, long long n0, long long m,
                                           long long n) const
    {
        const int lane = threadIdx.x % 64, wave = threadIdx.x / 64;
        const int wm = wave / 2 * WT, wn = wave % 2 * WT;
#pragma unroll
        for (int i = 0; i < NB; i++)
#pragma unroll
            for (int j = 0; j < NB; j++)
#pragma unroll
                for (int r = 0; r < 16; r++) {
                    const long long gm = m0 + wm + 32 * i + 8 * (r / 4) + 4 * (lane / 32) + r % 4;
                    const long long gn = n0 + wn + 32 * j + lane % 32;
                    if (gm < m && gn < n) pk_gemm_finish(out, z, gm, gn, acc[i][j][r]);
                }
    }
};

template <int DT, int TILE> __device__ __forceinline__ void pk_gemm_mfma(const pk_gemm_kargs &ka)
{
    pk_gemm_matrix<pk_mfma_op<DT, TILE>, TILE>(ka);
}

#endif
