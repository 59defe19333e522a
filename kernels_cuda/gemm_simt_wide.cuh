/* f32 GEMM for the problems gemm_simt_vec.cuh takes (A: k or m
 * contiguous, B: k or n, 16-byte aligned rows), in fewer and wider
 * threads: the plan's from 128 rows and columns on in 128 x 128 tiles
 * (f32w), 256 x 64 ones (f32t) by PORTKERN_CUDA_GEMM alone
 * (gemm_kernels.h's WIDE, cuda_gemm_plan.c). The same exactness:
 * plain FFMA, each output summed by one thread in ascending k.
 *
 * Why wide (cuBLAS's f32 shape on Hopper): VEC's threads own 64 outputs
 * each and lean on 16 warps a multiprocessor to hide their latencies.
 * Here each of the block's 4 warps owns a 64 x 64 piece of the tile and
 * each lane 8 (m) x 16 (n) outputs: more FFMAs for each shared-memory read
 * than VEC's lanes get, and, with two blocks a multiprocessor (two warps a
 * scheduler), the FMA pipes kept busy by the independent products in one
 * thread's registers rather than by other warps. The tile is BM x BN,
 * warps BM / 64 by BN / 64.
 *
 * A warp's lanes form 8 (m) x 4 (n); a lane's rows are two runs of 4, 32
 * apart, its columns four runs of 4, 16 apart. A fragment of A is then
 * one float4 that 4 lanes share (8 distinct ones: 128 contiguous bytes,
 * one wavefront), one of B a float4 that 8 lanes share (64 bytes, one
 * wavefront): 6 reads for 128 FFMAs a lane and k. A lane of 16 (m) x 8
 * (n) costs the same reads in the other proportion, and the warp's piece
 * is 64 x 64 in both tiles, so one lane shape serves both.
 *
 * Feeding as VEC: each step of BK k, a thread's float4s of the next step
 * are loaded into registers while this step's products run; shared memory
 * holds both operands k-major in two alternating buffers (one barrier a
 * step), a k-contiguous operand transposed on its way in. The kk loop is
 * unrolled, the next kk's fragments read while this kk's FFMAs run.
 *
 * Edges, split-K and the epilogue are VEC's: a float4 that leaves its row
 * and rows past m, n, k or the unit's range of k read as zeros (0 * Inf
 * would poison real outputs), split ranges added through
 * pk_gemm_split_reduce, outputs written through pk_gemm_finish. */
#pragma once

#include "gemm_common.cuh"
#include "gemm_kernels.h"
#include "gemm_simt_vec.cuh" /* pk_simt_load4 */

/* A_K: a_sk == 1 (else a_sm == 1); B_K: b_sk == 1 (else b_sn == 1); or
 * that dimension has one index */
template <int BM, int BN, bool A_K, bool B_K>
__device__ __forceinline__ void pk_gemm_simt_wide(const pk_cu_gemm_split &sp, PK_GEMM_PARAMS)
{
    constexpr int T = PK_CU_WIDE_THREADS, BK = PK_CU_WIDE_BK, WN = BN / 64;
    static_assert(BM % 64 == 0 && BN % 64 == 0 && BM / 64 * WN * 32 == T, "a warp owns a 64 x 64 piece");
    /* BK = 8: the transposing stores below are conflict-free with two
     * float4s per row of k; the next step's float4s stay few registers */
    static_assert(BK == 8, "the stores' bank arithmetic assumes two float4s per row of k");
    /* Bank arithmetic. A k-contiguous operand's lanes take rows r = lane /
     * 2 of k quarters c = lane % 2, and store each of their 4 values at
     * word (4 c + e) LD + r: with 4 LD = 16 mod 32 the even lanes fill
     * banks 0-15 and the odd ones 16-31. LD = BM + 4 (or BN + 4) is 4 mod
     * 8 for any multiple of 8, which gives that, and keeps rows 16-byte
     * aligned for the float4 fragment reads. An m- or n-contiguous
     * operand's lanes store whole float4s along a row of k: a quarter warp
     * covers 32 consecutive words. */
    constexpr int LA = BM + 4, LB = BN + 4;
    /* each thread's float4s a step (NA of A, NB of B) and the rows of the
     * strided index between them */
    constexpr int NA = BM * BK / 4 / T, NB = BN * BK / 4 / T;
    constexpr int A_RS = A_K ? T / (BK / 4) : T / (BM / 4), B_RS = B_K ? T / (BK / 4) : T / (BN / 4);
    static_assert(NA * T * 4 == BM * BK && NB * T * 4 == BN * BK && T % (BM / 4) == 0 && T % (BN / 4) == 0,
                  "whole float4s per thread, one column each");
    /* the operand buffers, and after the k loop the accumulators of half
     * the tile's rows at a time (each warp's first or second 32 rows) */
    constexpr int OPS = 2 * BK * (LA + LB), EPI = BM / 2 * LB;
    __shared__ __align__(16) float smem[OPS > EPI ? OPS : EPI];
    float(*as)[BK][LA] = reinterpret_cast<float(*)[BK][LA]>(smem);
    float(*bs)[BK][LB] = reinterpret_cast<float(*)[BK][LB]>(smem + 2 * BK * LA);

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    /* this thread's outputs: rows row0 + 32 g + {0..3}, g < 2, columns
     * col0 + 16 j + {0..3}, j < 4 */
    const int row0 = warp / WN * 64 + (lane >> 2) * 4, col0 = warp % WN * 64 + (lane & 3) * 4;
    /* this thread's float4s of each operand per step: strided index r + i
     * RS (A: m or k, B: n or k), contiguous index c, within the tile */
    const int a_r = A_K ? tid / (BK / 4) : tid / (BM / 4), a_c = A_K ? tid % (BK / 4) * 4 : tid % (BM / 4) * 4;
    const int b_r = B_K ? tid / (BK / 4) : tid / (BN / 4), b_c = B_K ? tid % (BK / 4) * 4 : tid % (BN / 4) * 4;
    /* A_RS rows of the strided index apart, in elements */
    const long long a_step = (long long)A_RS * (A_K ? a_sm : a_sk), b_step = (long long)B_RS * (B_K ? b_sn : b_sk);

    const float *af = static_cast<const float *>(a), *bf = static_cast<const float *>(b);
    const long long m_tiles = (m + BM - 1) / BM, n_tiles = (n + BN - 1) / BN, tiles = m_tiles * n_tiles;
    const int splits = sp.splits > 1 ? sp.splits : 1;
    const pk_gemm_out out = PK_GEMM_OUT;

    for (long long z = blockIdx.y; z < batch; z += gridDim.y) {
        for (long long u = blockIdx.x; u < tiles * splits; u += gridDim.x) {
            const pk_simt_unit w = pk_simt_unit_of<BM, BN, BK>(u, splits, sp, m_tiles, n_tiles, k);
            const long long t = w.t, m0 = w.m0, n0 = w.n0, k0 = w.k0, kc = w.kc, k_tiles = w.k_tiles;
            const int q = w.q;
            /* the first float4 of each operand of the first step; a
             * k-contiguous operand's float4 has kl - c elements left in
             * its row (kl: the unit's k left), and its row exists while it
             * is below m (n); an m- (n-) contiguous one has `left` elements
             * in its row, which exists while below kl */
            const float *pa = af + z * a_sb + (A_K ? (m0 + a_r) * a_sm + k0 + a_c : (k0 + a_r) * a_sk + m0 + a_c);
            const float *pb = bf + z * b_sb + (B_K ? (n0 + b_r) * b_sn + k0 + b_c : (k0 + b_r) * b_sk + n0 + b_c);
            const long long a_left = m - m0 - a_c, b_left = n - n0 - b_c;
            /* no test at all while the step lies inside the matrices */
            const bool inner = m0 + BM <= m && n0 + BN <= n;
            float4 va[NA], vb[NB];

            auto fetch = [&](long long kl) {
                if (inner && kl >= BK) {
#pragma unroll
                    for (int i = 0; i < NA; i++) va[i] = __ldg(reinterpret_cast<const float4 *>(pa + i * a_step));
#pragma unroll
                    for (int i = 0; i < NB; i++) vb[i] = __ldg(reinterpret_cast<const float4 *>(pb + i * b_step));
                } else {
#pragma unroll
                    for (int i = 0; i < NA; i++)
                        va[i] = A_K ? pk_simt_load4(pa + i * a_step, kl - a_c, m0 + a_r + i * A_RS < m)
                                    : pk_simt_load4(pa + i * a_step, a_left, a_r + i * A_RS < kl);
#pragma unroll
                    for (int i = 0; i < NB; i++)
                        vb[i] = B_K ? pk_simt_load4(pb + i * b_step, kl - b_c, n0 + b_r + i * B_RS < n)
                                    : pk_simt_load4(pb + i * b_step, b_left, b_r + i * B_RS < kl);
                }
                pa += A_K ? BK : BK * a_sk;
                pb += B_K ? BK : BK * b_sk;
            };
            auto stash = [&](int buf) {
#pragma unroll
                for (int i = 0; i < NA; i++) {
                    const int r = a_r + i * A_RS;
                    if (A_K) {
                        as[buf][a_c + 0][r] = va[i].x, as[buf][a_c + 1][r] = va[i].y;
                        as[buf][a_c + 2][r] = va[i].z, as[buf][a_c + 3][r] = va[i].w;
                    } else {
                        *reinterpret_cast<float4 *>(&as[buf][r][a_c]) = va[i];
                    }
                }
#pragma unroll
                for (int i = 0; i < NB; i++) {
                    const int r = b_r + i * B_RS;
                    if (B_K) {
                        bs[buf][b_c + 0][r] = vb[i].x, bs[buf][b_c + 1][r] = vb[i].y;
                        bs[buf][b_c + 2][r] = vb[i].z, bs[buf][b_c + 3][r] = vb[i].w;
                    } else {
                        *reinterpret_cast<float4 *>(&bs[buf][r][b_c]) = vb[i];
                    }
                }
            };

            float acc[128];
#pragma unroll
            for (int i = 0; i < 128; i++) acc[i] = 0.0f;
            /* fragments of two kk, the next read while the current's FFMAs run */
            float fa[2][8], fb[2][16];
            auto frag = [&](int buf, int kk, int f) {
#pragma unroll
                for (int g = 0; g < 2; g++) {
                    const float4 x = *reinterpret_cast<const float4 *>(&as[buf][kk][row0 + 32 * g]);
                    fa[f][4 * g] = x.x, fa[f][4 * g + 1] = x.y, fa[f][4 * g + 2] = x.z, fa[f][4 * g + 3] = x.w;
                }
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    const float4 y = *reinterpret_cast<const float4 *>(&bs[buf][kk][col0 + 16 * j]);
                    fb[f][4 * j] = y.x, fb[f][4 * j + 1] = y.y, fb[f][4 * j + 2] = y.z, fb[f][4 * j + 3] = y.w;
                }
            };

            if (k_tiles > 0) {
                fetch(kc);
                stash(0);
            }
            __syncthreads();
            for (long long kt = 0; kt < k_tiles; kt++) {
                const int buf = (int)(kt & 1);
                if (kt + 1 < k_tiles) fetch(kc - (kt + 1) * BK);
                frag(buf, 0, 0);
#pragma unroll
                for (int kk = 0; kk < BK; kk++) {
                    if (kk + 1 < BK) frag(buf, kk + 1, (kk + 1) & 1);
#pragma unroll
                    for (int i = 0; i < 8; i++)
#pragma unroll
                        for (int j = 0; j < 16; j++)
                            acc[i * 16 + j] = fmaf(fa[kk & 1][i], fb[kk & 1][j], acc[i * 16 + j]);
                }
                /* the other buffer was last read before the previous barrier */
                if (kt + 1 < k_tiles) stash(buf ^ 1);
                __syncthreads();
            }

            /* split: only the block that adds the ranges' sums goes on */
            if (splits > 1 && !pk_gemm_split_reduce<T>(acc, sp, z * tiles + t, q, tid)) continue;

            /* the last barrier of the k loop freed the operand buffers; the
             * accumulators pass through shared memory, rows row0 + 32 g +
             * {0..3} of every thread at a time, so that the epilogue is one
             * rolled loop with stores along n. Staged row s is tile row
             * (s / 32) 64 + 32 g + s % 32. The float4 stores: a quarter
             * warp's two rows 4 LB apart (16 mod 32 words) and four
             * columns 4 apart fill the 32 banks once. */
            const int s0 = warp / WN * 32 + (lane >> 2) * 4;
#pragma unroll
            for (int g = 0; g < 2; g++) {
#pragma unroll
                for (int r = 0; r < 4; r++)
#pragma unroll
                    for (int j = 0; j < 4; j++) {
                        const float *v = &acc[(4 * g + r) * 16 + 4 * j];
                        *reinterpret_cast<float4 *>(&smem[(s0 + r) * LB + col0 + 16 * j]) =
                            make_float4(v[0], v[1], v[2], v[3]);
                    }
                __syncthreads();
#pragma unroll 1
                for (int e = tid; e < BM / 2 * BN; e += T) {
                    const int s = e / BN;
                    const long long gm = m0 + (s >> 5) * 64 + 32 * g + (s & 31), gn = n0 + e % BN;
                    if (gm < m && gn < n) pk_gemm_finish(out, z, gm, gn, smem[s * LB + e % BN]);
                }
                __syncthreads();
            }
        }
    }
}
