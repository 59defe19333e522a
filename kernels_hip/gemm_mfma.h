/* f16/bf16 GEMM on CDNA matrix cores (gfx90a, gfx942), any strides. Only
 * built where PK_HIP_MFMA is 1; gemm.hip gives other targets the tiled
 * body under the same names.
 *
 * 256 threads = 4 waves of 64 in 2 x 2 compute a TILE x TILE block of d,
 * each wave (TILE/2)^2 as NB x NB blocks of v_mfma_f32_32x32x8 (f16 or
 * bf16_1k). Per step of BK = 32 the block copies A's TILE x 32 and B's
 * 32 x TILE into LDS as [row][k] (A: row m, B: row n), 16-bit, rows padded
 * to 36 elements (72 bytes: the 8-byte operand reads of 32 lanes then hit
 * distinct banks). The copy is in chunks of 8 k of one row: one 16-byte
 * load where the operand is k-contiguous and aligned (the linear layout),
 * else 8 element loads. Next step's chunks wait in registers while this
 * step computes; the two LDS buffers alternate, one barrier per step.
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

template <int DT, int TILE> __device__ __forceinline__ void pk_gemm_mfma(const pk_gemm_kargs &ka)
{
#define KA pk_fresh_args(ka)
    constexpr int BK = 32, LD = BK + 4, WT = TILE / 2, NB = WT / 32, CH = TILE * BK / 8 / 256;
    /* [buffer][A rows, then B rows][LD] */
    __shared__ __attribute__((aligned(16))) unsigned short lds[2][2 * TILE][LD];
    /* the arguments are read where they are used (pk_fresh_args): held in
     * scalar registers across the loops they spilled; the epilogue's wait
     * in LDS (the k loop's barriers order the store before the reads) */
    __shared__ pk_gemm_out out;
    if (threadIdx.x == 0) out = pk_gemm_out_of(pk_fresh_args(ka));

    const int lane = threadIdx.x % 64, wave = threadIdx.x / 64;
    const int wm = wave / 2 * WT, wn = wave % 2 * WT;
    const unsigned short *at = static_cast<const unsigned short *>(KA.a), *bt = static_cast<const unsigned short *>(KA.b);
    const long long m_tiles = (KA.m + TILE - 1) / TILE, n_tiles = (KA.n + TILE - 1) / TILE;
    const long long k_steps = (KA.k + BK - 1) / BK;
    /* 16-byte chunks need k contiguous and every chunk start aligned */
    const bool a_fast = KA.a_sk == 1 && KA.a_sm % 8 == 0 && KA.a_sb % 8 == 0 && reinterpret_cast<uint64_t>(KA.a) % 16 == 0;
    const bool b_fast = KA.b_sk == 1 && KA.b_sn % 8 == 0 && KA.b_sb % 8 == 0 && reinterpret_cast<uint64_t>(KA.b) % 16 == 0;

    for (long long z = blockIdx.y; z < KA.batch; z += gridDim.y) {
        for (long long t = blockIdx.x; t < m_tiles * n_tiles; t += gridDim.x) {
            long long tm, tn;
            pk_gemm_tile_of((unsigned)t, (unsigned)m_tiles, (unsigned)n_tiles, tm, tn);
            const long long m0 = tm * TILE, n0 = tn * TILE;
            const pk_gemm_operand<CH> oa = {at + z * KA.a_sb + m0 * KA.a_sm, KA.a_sm, KA.a_sk,
                                            (int)(KA.m - m0 < TILE ? KA.m - m0 : TILE), a_fast};
            const pk_gemm_operand<CH> ob = {bt + z * KA.b_sb + n0 * KA.b_sn, KA.b_sn, KA.b_sk,
                                            (int)(KA.n - n0 < TILE ? KA.n - n0 : TILE), b_fast};
            uint4 va[CH], vb[CH];
            auto stash = [&](int buf) {
                const int kc = (int)(threadIdx.x % 4) * 8;
#pragma unroll
                for (int i = 0; i < CH; i++) {
                    const int row = (int)(threadIdx.x + 256 * i) / 4;
                    /* rows are 72 bytes: 8-byte stores keep the alignment */
                    uint2 *sa = reinterpret_cast<uint2 *>(&lds[buf][row][kc]);
                    uint2 *sb = reinterpret_cast<uint2 *>(&lds[buf][TILE + row][kc]);
                    sa[0] = make_uint2(va[i].x, va[i].y), sa[1] = make_uint2(va[i].z, va[i].w);
                    sb[0] = make_uint2(vb[i].x, vb[i].y), sb[1] = make_uint2(vb[i].z, vb[i].w);
                }
            };

            pk_float16 acc[NB][NB];
#pragma unroll
            for (int i = 0; i < NB; i++)
#pragma unroll
                for (int j = 0; j < NB; j++)
#pragma unroll
                    for (int r = 0; r < 16; r++) acc[i][j][r] = 0.0f;

            /* the previous tile's last step may still read the LDS */
            __syncthreads();
            if (k_steps > 0) {
                oa.fetch(va, 0, KA.k);
                ob.fetch(vb, 0, KA.k);
                stash(0);
            }
            __syncthreads();
            for (long long ks = 0; ks < k_steps; ks++) {
                const int buf = (int)(ks & 1);
                if (ks + 1 < k_steps) {
                    oa.fetch(va, (ks + 1) * BK, KA.k);
                    ob.fetch(vb, (ks + 1) * BK, KA.k);
                }
#pragma unroll
                for (int s = 0; s < BK / 8; s++) {
                    const int kk = 8 * s + 4 * (lane / 32);
                    uint2 fa[NB], fb[NB];
#pragma unroll
                    for (int i = 0; i < NB; i++) {
                        fa[i] = *reinterpret_cast<const uint2 *>(&lds[buf][wm + 32 * i + lane % 32][kk]);
                        fb[i] = *reinterpret_cast<const uint2 *>(&lds[buf][TILE + wn + 32 * i + lane % 32][kk]);
                    }
#pragma unroll
                    for (int i = 0; i < NB; i++)
#pragma unroll
                        for (int j = 0; j < NB; j++) acc[i][j] = pk_mfma_32x32x8<DT>(fa[i], fb[j], acc[i][j]);
                }
                /* the other buffer was last read before the previous barrier */
                if (ks + 1 < k_steps) stash(buf ^ 1);
                __syncthreads();
            }

            const long long m = KA.m, n = KA.n;
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
    }
#undef KA
}

#endif
