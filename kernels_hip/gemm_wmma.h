/* f16/bf16 GEMM on RDNA matrix cores (WMMA, wave32; wmma.h: the
 * instruction, its layouts per generation GEN, and its emulation on
 * NVIDIA). Built natively where PK_HIP_WMMA == GEN and on HIP on NVIDIA
 * (PORTKERN_HIP_WMMA picks them there, so that conformance runs the
 * staging, the fragments and the epilogue of this file); other AMD targets
 * build the tiled body under the same names (gemm.hip).
 *
 * 256 threads = 8 waves of 32 as 2 (m) x 4 (n) compute a TILE x TILE
 * block of d, each wave (TILE/2) x (TILE/4) as MB x NB blocks of 16 x 16,
 * one v_wmma_f32_16x16x16 per block and 16 k, in the block loop of
 * gemm_common.h (pk_gemm_matrix), as gemm_mfma.h. Every output is one
 * lane's sum over k in steps of 16: deterministic. */
#pragma once

#include "gemm_common.h"
#include "wmma.h"

/* A thread's share of a TILE x TILE block: 8 waves of 32 as 2 (m) x 4
 * (n), each (TILE/2) x (TILE/4) as MB x NB blocks of 16 x 16
 * (pk_gemm_matrix's Op) */
template <int GEN, int DT, int TILE> struct pk_wmma_op {
    static constexpr int WTM = TILE / 2, WTN = TILE / 4, MB = WTM / 16, NB = WTN / 16;
    pk_wmma_acc acc[MB][NB];

    __device__ __forceinline__ void zero()
    {
#pragma unroll
        for (int i = 0; i < MB; i++)
#pragma unroll
            for (int j = 0; j < NB; j++)
#pragma unroll
                for (int v = 0; v < 8; v++) acc[i][j].v[v] = 0.0f;
    }

    __device__ __forceinline__ void step(const unsigned short (*rows)[PK_GEMM_LDS_ROW])
    {
        const int lane = threadIdx.x % 32, wave = threadIdx.x / 32;
        const int wm = wave / 4 * WTM, wn = wave % 4 * WTN;
#pragma unroll
        for (int s = 0; s < 32 / 16; s++) {
            pk_wmma_frag<GEN> fa[MB], fb[NB];
#pragma unroll
            for (int i = 0; i < MB; i++) fa[i] = pk_wmma_load<GEN>(&rows[wm + 16 * i + lane % 16][16 * s], lane);
#pragma unroll
            for (int j = 0; j < NB; j++) fb[j] = pk_wmma_load<GEN>(&rows[TILE + wn + 16 * j + lane % 16][16 * s], lane);
#pragma unroll
            for (int i = 0; i < MB; i++)
#pragma unroll
                for (int j = 0; j < NB; j++) pk_wmma<GEN, DT>(fa[i], fb[j], acc[i][j]);
        }
    }

    __device__ __forceinline__ void finish(const pk_gemm_out &out, long long z, long long m0, long long n0, long long m,
                                           long long n) const
    {
        const int lane = threadIdx.x % 32, wave = threadIdx.x / 32;
        const int wm = wave / 4 * WTM, wn = wave % 4 * WTN;
#pragma unroll
        for (int i = 0; i < MB; i++)
#pragma unroll
            for (int j = 0; j < NB; j++)
#pragma unroll
                for (int v = 0; v < 8; v++) {
                    const long long gm = m0 + wm + 16 * i + pk_wmma_row<GEN>(lane, v);
                    const long long gn = n0 + wn + 16 * j + lane % 16;
                    if (gm < m && gn < n) pk_gemm_finish(out, z, gm, gn, acc[i][j].v[v]);
                }
    }
};

template <int GEN, int DT, int TILE> __device__ __forceinline__ void pk_gemm_wmma(const pk_gemm_kargs &ka)
{
    pk_gemm_matrix<pk_wmma_op<GEN, DT, TILE>, TILE>(ka);
}
