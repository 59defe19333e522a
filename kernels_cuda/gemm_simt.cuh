/* General GEMM on the CUDA cores, exact f32 arithmetic: any dtype, any
 * strides (transposes, broadcasts, unaligned views). It is also the f32
 * kernel, so it is built like a classic SGEMM.
 *
 * A block of 256 threads (16 x 16) computes a BM x BN tile, BM = BN = 64 G.
 * Per step of BK = 8 it copies A's BM x 8 and B's 8 x BN blocks into shared
 * memory as f32 ([k][m] and [k][n], zero outside the matrix) and each
 * thread accumulates 4G x 4G outputs: rows ty*4 + {0..3} + 64 gi, columns
 * tx*4 + {0..3} + 64 gj, so that its operands are float4 reads that a
 * half-warp shares (A) or spreads over all banks (B). Global loads run one
 * step ahead in registers, and the two shared buffers alternate, so each
 * step needs one barrier. The epilogue stages the accumulators in the same
 * shared memory. Adjacent threads load along the operand's
 * smaller stride, for coalescing. Each output is summed by one thread in
 * ascending k: deterministic. */
#pragma once

#include "gemm_common.cuh"
/* the f32 kernel of the aligned layouts, which the plan prefers */
#include "gemm_simt_vec.cuh"

template <int DT, int G> __device__ __forceinline__ void pk_gemm_simt(PK_GEMM_PARAMS)
{
    typedef PK_T(DT) T;
    constexpr int BM = 64 * G, BN = 64 * G, BK = 8, PAD = 4, R = 4 * G;
    constexpr int LA = BM * BK / 256, LB = BN * BK / 256;
    constexpr int LDA = BM + PAD, LDB = BN + PAD, LDE = BN + PAD;
    /* the operand buffers, and after the k loop the accumulators of 64 rows
     * at a time (float4 rows: PAD keeps 16-byte alignment) */
    constexpr int OPS = 2 * BK * (LDA + LDB), EPI = 64 * LDE;
    __shared__ __align__(16) float smem[OPS > EPI ? OPS : EPI];
    float(*as)[BK][LDA] = reinterpret_cast<float(*)[BK][LDA]>(smem);
    float(*bs)[BK][LDB] = reinterpret_cast<float(*)[BK][LDB]>(smem + 2 * BK * LDA);

    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const T *at = static_cast<const T *>(a), *bt = static_cast<const T *>(b);
    /* the direction adjacent threads load: the unit (or smaller) stride */
    const bool a_kfast = a_sk == 1 || (a_sm != 1 && llabs(a_sk) <= llabs(a_sm));
    const bool b_kfast = b_sk == 1 || (b_sn != 1 && llabs(b_sk) <= llabs(b_sn));
    const long long m_tiles = (m + BM - 1) / BM, n_tiles = (n + BN - 1) / BN;
    const long long k_tiles = (k + BK - 1) / BK;
    const pk_gemm_out out = PK_GEMM_OUT;

    for (long long z = blockIdx.y; z < batch; z += gridDim.y) {
        for (long long t = blockIdx.x; t < m_tiles * n_tiles; t += gridDim.x) {
            long long tm, tn;
            pk_gemm_tile_of(t, m_tiles, n_tiles, tm, tn);
            const long long m0 = tm * BM, n0 = tn * BN;
            const T *az = at + z * a_sb, *bz = bt + z * b_sb;
            float ra[LA], rb[LB];

            auto fetch = [&](long long k0) {
#pragma unroll
                for (int i = 0; i < LA; i++) {
                    const int e = tid + i * 256;
                    const int kk = a_kfast ? e % BK : e / BM, mm = a_kfast ? e / BK : e % BM;
                    const long long gm = m0 + mm, gk = k0 + kk;
                    ra[i] = gm < m && gk < k ? pk_to_f32(az[gm * a_sm + gk * a_sk]) : 0.0f;
                }
#pragma unroll
                for (int i = 0; i < LB; i++) {
                    const int e = tid + i * 256;
                    const int kk = b_kfast ? e % BK : e / BN, nn = b_kfast ? e / BK : e % BN;
                    const long long gk = k0 + kk, gn = n0 + nn;
                    rb[i] = gk < k && gn < n ? pk_to_f32(bz[gk * b_sk + gn * b_sn]) : 0.0f;
                }
            };
            auto stash = [&](int buf) {
#pragma unroll
                for (int i = 0; i < LA; i++) {
                    const int e = tid + i * 256;
                    if (a_kfast) as[buf][e % BK][e / BK] = ra[i];
                    else as[buf][e / BM][e % BM] = ra[i];
                }
#pragma unroll
                for (int i = 0; i < LB; i++) {
                    const int e = tid + i * 256;
                    if (b_kfast) bs[buf][e % BK][e / BK] = rb[i];
                    else bs[buf][e / BN][e % BN] = rb[i];
                }
            };

            float acc[R][R];
#pragma unroll
            for (int i = 0; i < R; i++)
#pragma unroll
                for (int j = 0; j < R; j++) acc[i][j] = 0.0f;

            if (k_tiles > 0) {
                fetch(0);
                stash(0);
            }
            __syncthreads();
            for (long long kt = 0; kt < k_tiles; kt++) {
                const int buf = (int)(kt & 1);
                if (kt + 1 < k_tiles) fetch((kt + 1) * BK);
#pragma unroll
                for (int kk = 0; kk < BK; kk++) {
                    float av[R], bv[R];
#pragma unroll
                    for (int gi = 0; gi < G; gi++) {
                        const float4 x = *reinterpret_cast<const float4 *>(&as[buf][kk][gi * 64 + ty * 4]);
                        av[gi * 4 + 0] = x.x, av[gi * 4 + 1] = x.y, av[gi * 4 + 2] = x.z, av[gi * 4 + 3] = x.w;
                        const float4 y = *reinterpret_cast<const float4 *>(&bs[buf][kk][gi * 64 + tx * 4]);
                        bv[gi * 4 + 0] = y.x, bv[gi * 4 + 1] = y.y, bv[gi * 4 + 2] = y.z, bv[gi * 4 + 3] = y.w;
                    }
#pragma unroll
                    for (int i = 0; i < R; i++)
#pragma unroll
                        for (int j = 0; j < R; j++) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
                }
                /* the other buffer was last read before the previous barrier */
                if (kt + 1 < k_tiles) stash(buf ^ 1);
                __syncthreads();
            }

            /* the last barrier of the k loop freed the operand buffers; the
             * accumulators pass through shared memory 64 rows at a time so
             * that the epilogue is one rolled loop with stores along n */
#pragma unroll
            for (int gi = 0; gi < G; gi++) {
#pragma unroll
                for (int r = 0; r < 4; r++)
#pragma unroll
                    for (int gj = 0; gj < G; gj++)
                        *reinterpret_cast<float4 *>(&smem[(ty * 4 + r) * LDE + gj * 64 + tx * 4]) =
                            make_float4(acc[gi * 4 + r][gj * 4], acc[gi * 4 + r][gj * 4 + 1],
                                        acc[gi * 4 + r][gj * 4 + 2], acc[gi * 4 + r][gj * 4 + 3]);
                __syncthreads();
#pragma unroll 1
                for (int e = tid; e < 64 * BN; e += 256) {
                    const long long gm = m0 + gi * 64 + e / BN, gn = n0 + e % BN;
                    if (gm < m && gn < n) pk_gemm_finish(out, z, gm, gn, smem[e / BN * LDE + e % BN]);
                }
                __syncthreads();
            }
        }
    }
}
