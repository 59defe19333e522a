/* Decode GEMM: M <= MR rows in the linear layout, d = x[M,K] @ W[N,K]^T
 * with k contiguous in both (f16/bf16, rows 16-byte aligned; the plan
 * checks). The work is streaming W once, so the kernel is built for bytes
 * in flight: each wave owns NC output columns for all M rows; its lanes
 * take 16-byte chunks of the NC weight rows, U chunks at a time, adjacent
 * lanes adjacent chunks. x is small and stays in the caches. The lanes'
 * partial sums meet in a fixed xor-shuffle tree over the wave, whatever
 * its size, and one fixed lane writes each output: deterministic, no
 * atomics, no split-K. The grid covers column groups (x) and batches (y),
 * looping beyond. */
#pragma once

#include "../kernels_gpu/gemm_skinny_cols.h"
#include "gemm_common.h"

template <int DT> __device__ __forceinline__ void pk_gemm_unpack8(const uint4 &v, float (&f)[8])
{
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const float2 p = pk_unpack2<DT>(w[i]);
        f[2 * i] = p.x;
        f[2 * i + 1] = p.y;
    }
}

/* The arguments are read where they are used (pk_fresh_args): held in
 * scalar registers across the loops, with the unrolled rows' addresses,
 * they spilled; the epilogue's wait in LDS. Each row's x address is a
 * per-lane value (pk_vgpr). */
template <int DT, int MR> __device__ __forceinline__ void pk_gemm_skinny(const pk_gemm_kargs &ka)
{
#define KA pk_fresh_args(ka)
    typedef PK_T(DT) T;
    /* U keeps ~4 weight loads per lane in flight */
    constexpr int NC = PK_GPU_SKINNY_COLS(MR);
    constexpr int U = 4 / NC;
    const int wave = warpSize, lane = threadIdx.x % wave, waves_per_block = blockDim.x / wave;
    const long long waves = (long long)gridDim.x * waves_per_block;
    /* the epilogue's arguments wait in LDS */
    __shared__ pk_gemm_out out;
    if (threadIdx.x == 0) out = pk_gemm_out_of(KA);
    __syncthreads();
    if (KA.m <= 0) return;

    for (long long z = blockIdx.y; z < KA.batch; z += gridDim.y) {
        for (long long grp = (long long)blockIdx.x * waves_per_block + threadIdx.x / wave;
             grp < (KA.n + NC - 1) / NC; grp += waves) {
            const long long col0 = grp * NC, n = KA.n, m = KA.m;
            const long long k8 = KA.k / 8; /* whole 16-byte chunks; the rest is the tail */
            const int last = (int)(m < MR ? m : MR) - 1; /* the last row read */
            const T *w[NC];
#pragma unroll
            for (int c = 0; c < NC; c++) /* columns past n repeat the last one, and are not stored */
                w[c] = static_cast<const T *>(KA.b) + z * KA.b_sb + (col0 + c < n ? col0 + c : n - 1) * KA.b_sn;

            float acc[MR][NC];
#pragma unroll
            for (int r = 0; r < MR; r++)
#pragma unroll
                for (int c = 0; c < NC; c++) acc[r][c] = 0.0f;

            for (long long ch0 = lane; ch0 < k8; ch0 += (long long)wave * U) {
                uint4 wv[U][NC];
#pragma unroll
                for (int u = 0; u < U; u++)
#pragma unroll
                    for (int c = 0; c < NC; c++)
                        if (ch0 + u * wave < k8)
                            wv[u][c] = *reinterpret_cast<const uint4 *>(w[c] + (ch0 + u * wave) * 8);
                const T *x = static_cast<const T *>(KA.a) + z * KA.a_sb;
                const long long a_sm = KA.a_sm;
                /* Rows past m read row m - 1 again (their sums are never
                 * stored): no per-row branch, whose masks held across the
                 * loop spilled scalar registers */
#pragma unroll
                for (int u = 0; u < U; u++) {
                    if (ch0 + u * wave < k8) {
                        float wf[NC][8];
#pragma unroll
                        for (int c = 0; c < NC; c++) pk_gemm_unpack8<DT>(wv[u][c], wf[c]);
                        const T *xu = x + (ch0 + u * wave) * 8;
#pragma unroll
                        for (int r = 0; r < MR; r++) {
                            float xf[8];
                            pk_gemm_unpack8<DT>(*reinterpret_cast<const uint4 *>(xu + min(pk_vgpr(r), last) * a_sm),
                                                xf);
#pragma unroll
                            for (int c = 0; c < NC; c++)
#pragma unroll
                                for (int e = 0; e < 8; e++) acc[r][c] = fmaf(xf[e], wf[c][e], acc[r][c]);
                        }
                    }
                }
            }
            for (long long kk = k8 * 8 + lane; kk < KA.k; kk += wave) {
                const T *x = static_cast<const T *>(KA.a) + z * KA.a_sb + kk;
                const long long a_sm = KA.a_sm;
#pragma unroll
                for (int r = 0; r < MR; r++) {
                    const float xv = pk_to_f32(x[min(pk_vgpr(r), last) * a_sm]);
#pragma unroll
                    for (int c = 0; c < NC; c++) acc[r][c] = fmaf(xv, pk_to_f32(w[c][kk]), acc[r][c]);
                }
            }

            /* the lanes of a wave reconverge here (its group loop is
             * uniform), so all of them take part in the shuffles */
#pragma unroll
            for (int r = 0; r < MR; r++)
#pragma unroll
                for (int c = 0; c < NC; c++)
                    for (int off = wave / 2; off > 0; off >>= 1) acc[r][c] += __shfl_xor(acc[r][c], off, wave);
            /* spread the stores over the lanes: lane e % wave writes output
             * e = r NC + c, picked from acc by constant indices (one
             * epilogue call in a rolled loop: unrolled MR NC times it kept
             * acc out of registers) */
            for (int e0 = 0; e0 < MR * NC; e0 += wave) {
                const int e = pk_vgpr(e0 + lane), r = e / NC, c = e % NC;
                float v = 0.0f;
#pragma unroll
                for (int x = 0; x < MR * NC; x++)
                    if (x == e) v = acc[x / NC][x % NC];
                if (e < MR * NC && r < m && col0 + c < n) pk_gemm_finish(out, z, r, col0 + c, v);
            }
        }
    }
#undef KA
}
