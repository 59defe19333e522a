/* The portable GEMM: exact f32 arithmetic on the vector ALUs, any dtype,
 * any strides (transposes, broadcasts, unaligned views), any wave size (it
 * uses no cross-lane operation). It is the f32 kernel everywhere and the
 * f16/bf16 kernel where there are no matrix cores (RDNA, NVIDIA through
 * HIP).
 *
 * 256 threads as 16 x 16 (tx, ty) compute a BM x BM tile, BM = 64 G. Per
 * step of BK = 16 the block copies A's BM x BK and B's BK x BM blocks into
 * LDS as f32, transposed to [k][m] and [k][n] and zero outside the matrix,
 * and thread (tx, ty) accumulates rows 4 ty + {0..3} + 64 gi by columns
 * 4 tx + {0..3} + 64 gj (gi, gj < G): its operands are 16-byte LDS reads
 * that 16 lanes share (A) or that cover consecutive banks (B). The next
 * step's global loads are in registers while this one computes, and the
 * two LDS buffers alternate: one barrier per step. Adjacent threads load
 * along the operand's smaller stride, for coalescing. Every output is one
 * thread's sum in ascending k: deterministic. */
#pragma once

#include "gemm_common.h"

template <int DT, int G> struct pk_gemm_tiled_cfg {
    static constexpr int NT = 256, BM = 64 * G, BK = 16, LD = BM + 4;
    /* two buffers of A and B; after the k loop, 64 rows of accumulators */
    static constexpr int OPS = 2 * 2 * BK * LD, EPI = 64 * LD, LDS = OPS > EPI ? OPS : EPI;
};

template <int DT, int G, bool AK, bool BKF>
__device__ __forceinline__ void pk_gemm_tiled_body(float *lds, const pk_gemm_out &out, const pk_gemm_kargs &ka)
{
#define KA pk_fresh_args(ka)
    typedef PK_T(DT) T;
    typedef pk_gemm_tiled_cfg<DT, G> C;
    constexpr int NT = C::NT, BM = C::BM, BK = C::BK, LD = C::LD, R = 4 * G;
    constexpr int PER = BM * BK / NT; /* elements of each operand a thread copies per step */

    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const T *at = static_cast<const T *>(KA.a), *bt = static_cast<const T *>(KA.b);
    const long long m_tiles = (KA.m + BM - 1) / BM, n_tiles = (KA.n + BM - 1) / BM;
    const long long k_steps = (KA.k + BK - 1) / BK;

    for (long long z = blockIdx.y; z < KA.batch; z += gridDim.y) {
        const T *az = at + z * KA.a_sb, *bz = bt + z * KA.b_sb;
        for (long long t = blockIdx.x; t < m_tiles * n_tiles; t += gridDim.x) {
            long long tm, tn;
            pk_gemm_tile_of((unsigned)t, (unsigned)m_tiles, (unsigned)n_tiles, tm, tn);
            const long long m0 = tm * BM, n0 = tn * BM;
            /* Element i of a thread's share of a BM x BK block sits at
             * (row r0 + i dr, k k0 + i dk), stepping along the fast
             * direction: NT / BK rows, or NT / BM k */
            constexpr int a_dr = AK ? NT / BK : 0, a_dk = AK ? 0 : NT / BM;
            constexpr int b_dr = BKF ? NT / BK : 0, b_dk = BKF ? 0 : NT / BM;
            const int a_r0 = AK ? tid / BK : tid % BM, a_k0 = AK ? tid % BK : tid / BM;
            const int b_r0 = BKF ? tid / BK : tid % BM, b_k0 = BKF ? tid % BK : tid / BM;
            const int a_rows = (int)(KA.m - m0 < BM ? KA.m - m0 : BM), b_rows = (int)(KA.n - n0 < BM ? KA.n - n0 : BM);
            const T *pa = az + (m0 + a_r0) * KA.a_sm + a_k0 * KA.a_sk, *pb = bz + (n0 + b_r0) * KA.b_sn + b_k0 * KA.b_sk;
            float ra[PER], rb[PER];

            auto fetch = [&](long long k0) {
                const int kr = (int)(KA.k - k0 < BK ? KA.k - k0 : BK);
                const T *qa = pa + k0 * KA.a_sk, *qb = pb + k0 * KA.b_sk;
#pragma unroll
                for (int i = 0; i < PER; i++) {
                    const int ia = pk_vgpr(i), ib = pk_vgpr(i);
                    ra[i] = a_r0 + i * a_dr < a_rows && a_k0 + i * a_dk < kr
                                ? pk_to_f32(qa[ia * a_dr * KA.a_sm + ia * a_dk * KA.a_sk])
                                : 0.0f;
                    rb[i] = b_r0 + i * b_dr < b_rows && b_k0 + i * b_dk < kr
                                ? pk_to_f32(qb[ib * b_dr * KA.b_sn + ib * b_dk * KA.b_sk])
                                : 0.0f;
                }
            };
            auto stash = [&](int buf) {
                float *as = lds + buf * 2 * BK * LD, *bs = as + BK * LD;
#pragma unroll
                for (int i = 0; i < PER; i++) {
                    as[(a_k0 + i * a_dk) * LD + a_r0 + i * a_dr] = ra[i];
                    bs[(b_k0 + i * b_dk) * LD + b_r0 + i * b_dr] = rb[i];
                }
            };

            float acc[R][R];
#pragma unroll
            for (int i = 0; i < R; i++)
#pragma unroll
                for (int j = 0; j < R; j++) acc[i][j] = 0.0f;

            /* the previous tile's epilogue may still read the LDS */
            __syncthreads();
            if (k_steps > 0) {
                fetch(0);
                stash(0);
            }
            __syncthreads();
            for (long long ks = 0; ks < k_steps; ks++) {
                const int buf = (int)(ks & 1);
                if (ks + 1 < k_steps) fetch((ks + 1) * BK);
                const float *as = lds + buf * 2 * BK * LD, *bs = as + BK * LD;
#pragma unroll
                for (int kk = 0; kk < BK; kk++) {
                    float av[R], bv[R];
#pragma unroll
                    for (int g = 0; g < G; g++) {
                        const float4 x = *reinterpret_cast<const float4 *>(as + kk * LD + g * 64 + ty * 4);
                        const float4 y = *reinterpret_cast<const float4 *>(bs + kk * LD + g * 64 + tx * 4);
                        av[4 * g] = x.x, av[4 * g + 1] = x.y, av[4 * g + 2] = x.z, av[4 * g + 3] = x.w;
                        bv[4 * g] = y.x, bv[4 * g + 1] = y.y, bv[4 * g + 2] = y.z, bv[4 * g + 3] = y.w;
                    }
#pragma unroll
                    for (int i = 0; i < R; i++)
#pragma unroll
                        for (int j = 0; j < R; j++) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
                }
                /* the other buffer was last read before the previous barrier */
                if (ks + 1 < k_steps) stash(buf ^ 1);
                __syncthreads();
            }

            /* 64 rows at a time through LDS, so that the epilogue is one
             * rolled loop whose adjacent threads store adjacent columns */
#pragma unroll
            for (int gi = 0; gi < G; gi++) {
                if (gi) __syncthreads();
#pragma unroll
                for (int r = 0; r < 4; r++)
#pragma unroll
                    for (int gj = 0; gj < G; gj++)
                        *reinterpret_cast<float4 *>(lds + (ty * 4 + r) * LD + gj * 64 + tx * 4) =
                            make_float4(acc[4 * gi + r][4 * gj], acc[4 * gi + r][4 * gj + 1],
                                        acc[4 * gi + r][4 * gj + 2], acc[4 * gi + r][4 * gj + 3]);
                __syncthreads();
#pragma unroll 1
                for (int e = tid; e < 64 * BM; e += NT) {
                    const long long gm = m0 + gi * 64 + e / BM, gn = n0 + e % BM;
                    if (gm < KA.m && gn < KA.n) pk_gemm_finish(out, z, gm, gn, lds[(e / BM) * LD + e % BM]);
                }
            }
        }
    }
#undef KA
}

/* AK / BKF: whether adjacent threads load A / B along k, the operand's
 * unit (or smaller) stride; compile-time, so that the copy's index steps
 * are constants. */
template <int DT, int G> __device__ __forceinline__ void pk_gemm_tiled(const pk_gemm_kargs &ka)
{
    const long long a_sk = pk_fresh_args(ka).a_sk, a_sm = pk_fresh_args(ka).a_sm;
    const long long b_sk = pk_fresh_args(ka).b_sk, b_sn = pk_fresh_args(ka).b_sn;
    const bool ak = a_sk == 1 || (a_sm != 1 && (a_sk < 0 ? -a_sk : a_sk) <= (a_sm < 0 ? -a_sm : a_sm));
    const bool bk = b_sk == 1 || (b_sn != 1 && (b_sk < 0 ? -b_sk : b_sk) <= (b_sn < 0 ? -b_sn : b_sn));
    __shared__ __attribute__((aligned(16))) float lds[pk_gemm_tiled_cfg<DT, G>::LDS];
    /* The arguments are read where they are used (pk_fresh_args): held
     * in scalar registers across the k loop they spilled (an AMD wave has
     * about 100). The epilogue's wait in LDS; the k loop's barriers order
     * this store before every read. */
    __shared__ pk_gemm_out out;
    if (threadIdx.x == 0) out = pk_gemm_out_of(pk_fresh_args(ka));
    if (ak && bk) pk_gemm_tiled_body<DT, G, true, true>(lds, out, ka);
    else if (ak) pk_gemm_tiled_body<DT, G, true, false>(lds, out, ka);
    else if (bk) pk_gemm_tiled_body<DT, G, false, true>(lds, out, ka);
    else pk_gemm_tiled_body<DT, G, false, false>(lds, out, ka);
}
