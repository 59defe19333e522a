/* Decode GEMM: M <= MR rows in the linear layout, d = x[M,K] @ W[N,K]^T
 * with k contiguous in both (f16/bf16, rows 16-byte aligned; the host
 * checks). The work is streaming W once, so the kernel is built for bytes
 * in flight: each warp owns NC output columns for all M rows, its lanes
 * take 16-byte chunks of the NC weight rows U chunks at a time (adjacent
 * lanes adjacent chunks: one 512-byte run per row per load), and x is read
 * through the read-only cache, where every warp of the SM finds it. The
 * lanes' partial sums meet in a fixed xor-shuffle tree and one fixed lane
 * writes each output: deterministic, no atomics. With KS > 1, KS warps of
 * the block split K for a column group and add in a fixed order.
 * The grid covers column groups (x) and batches (y), looping beyond. */
#pragma once

#include "../kernels_gpu/gemm_skinny_cols.h"
#include "gemm_common.cuh"

/* two 16-bit values packed in a word, low half first */
template <int DT> __device__ __forceinline__ float2 pk_gemm_unpack2(unsigned w);
template <> __device__ __forceinline__ float2 pk_gemm_unpack2<1>(unsigned w)
{
    __half2 h;
    memcpy(&h, &w, 4);
    return __half22float2(h);
}
template <> __device__ __forceinline__ float2 pk_gemm_unpack2<2>(unsigned w)
{
    return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
}

template <int DT> __device__ __forceinline__ void pk_gemm_unpack8(const uint4 &v, float (&f)[8])
{
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const float2 p = pk_gemm_unpack2<DT>(w[i]);
        f[2 * i] = p.x;
        f[2 * i + 1] = p.y;
    }
}

template <int DT, int MR, int KS> __device__ __forceinline__ void pk_gemm_skinny(PK_GEMM_PARAMS)
{
    typedef PK_T(DT) T;
    /* more rows reuse each weight chunk more; more columns per warp reuse
     * each x chunk more; U keeps ~4 weight loads per lane in flight. KS
     * warps share a column group, each taking 1/KS of K: for a narrow W
     * it multiplies the warps, so that a W of few columns still fills the
     * device, and shortens each warp's chain of rounds. */
    constexpr int NC = PK_GPU_SKINNY_COLS(MR);
    constexpr int U = 4 / NC;
    constexpr int GPB = 8 / KS; /* column groups per block of 8 warps */
    static_assert(KS == 1 || KS == 2 || KS == 4 || KS == 8, "1, 2, 4 or 8 warps per column group");
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int slot = warp % GPB, part = warp / GPB;
    const long long groups = (n + NC - 1) / NC;
    const long long k8 = k / 8; /* whole 16-byte chunks; the rest is the tail */
    const long long part_chunks = (k8 + KS - 1) / KS;
    const long long c_lo = part * part_chunks < k8 ? part * part_chunks : k8;
    const long long c_hi = c_lo + part_chunks < k8 ? c_lo + part_chunks : k8;
    const T *at = static_cast<const T *>(a), *bt = static_cast<const T *>(b);
    const pk_gemm_out out = PK_GEMM_OUT;
    __shared__ float partial[KS > 1 ? (KS - 1) * GPB * MR * NC : 1];

    pk_grid_launch_dependents();
    /* Launched early behind the previous kernel (programmatic dependent
     * launch), the warp pulls its first round of weights into L2 while
     * that kernel ends. Only a prefetch may come before the wait: L2 is
     * where all writes meet, so a line fetched early is never stale, where
     * a register would be if the previous kernel wrote W. More than the
     * first round (4, 8 and 16 KiB a warp) was slower on the
     * Llama-3-8B-shaped decode (bench/RESULTS.md, 2026-11-29 19:50). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (lane < NC) { /* one bulk prefetch per weight row */
        const long long grp = (long long)blockIdx.x * GPB + slot;
        const long long col = grp * NC + lane < n ? grp * NC + lane : n - 1;
        const long long chunks = c_hi - c_lo < 32 * U ? c_hi - c_lo : 32 * U;
        if (grp < groups && blockIdx.y < batch && chunks > 0)
            pk_prefetch_l2_bulk(bt + blockIdx.y * b_sb + col * b_sn + c_lo * 8, (unsigned)chunks * 16);
    }
#endif
    pk_grid_dependency_wait();

    for (long long z = blockIdx.y; z < batch; z += gridDim.y) {
        const T *x = at + z * a_sb;
        /* every warp of the block runs the same trips: the partial sums
         * meet at barriers */
        for (long long base = (long long)blockIdx.x * GPB; base < groups; base += (long long)gridDim.x * GPB) {
            const long long grp = base + slot;
            const bool active = grp < groups;
            const long long col0 = grp * NC;
            const T *w[NC];
#pragma unroll
            for (int c = 0; c < NC; c++) /* columns past n repeat the last one, and are not stored */
                w[c] = bt + z * b_sb + (col0 + c < n ? col0 + c : n - 1) * b_sn;

            float acc[MR][NC];
#pragma unroll
            for (int r = 0; r < MR; r++)
#pragma unroll
                for (int c = 0; c < NC; c++) acc[r][c] = 0.0f;

            for (long long ch0 = c_lo + lane; active && ch0 < c_hi; ch0 += 32 * U) {
                uint4 wv[U][NC];
#pragma unroll
                for (int u = 0; u < U; u++)
#pragma unroll
                    for (int c = 0; c < NC; c++)
                        if (ch0 + u * 32 < c_hi)
                            wv[u][c] = __ldcs(reinterpret_cast<const uint4 *>(w[c] + (ch0 + u * 32) * 8));
#pragma unroll
                for (int u = 0; u < U; u++) {
                    if (ch0 + u * 32 >= c_hi) break;
                    float wf[NC][8];
#pragma unroll
                    for (int c = 0; c < NC; c++) pk_gemm_unpack8<DT>(wv[u][c], wf[c]);
#pragma unroll
                    for (int r = 0; r < MR; r++) {
                        if (r >= m) break;
                        float xf[8];
                        pk_gemm_unpack8<DT>(__ldg(reinterpret_cast<const uint4 *>(x + r * a_sm + (ch0 + u * 32) * 8)),
                                            xf);
#pragma unroll
                        for (int c = 0; c < NC; c++)
#pragma unroll
                            for (int e = 0; e < 8; e++) acc[r][c] = fmaf(xf[e], wf[c][e], acc[r][c]);
                    }
                }
            }
            if (active && part == KS - 1)
                for (long long kk = k8 * 8 + lane; kk < k; kk += 32)
#pragma unroll
                    for (int r = 0; r < MR; r++) {
                        if (r >= m) break;
                        const float xv = pk_to_f32(x[r * a_sm + kk]);
#pragma unroll
                        for (int c = 0; c < NC; c++) acc[r][c] = fmaf(xv, pk_to_f32(w[c][kk]), acc[r][c]);
                    }

#pragma unroll
            for (int r = 0; r < MR; r++)
#pragma unroll
                for (int c = 0; c < NC; c++)
#pragma unroll
                    for (int off = 16; off > 0; off >>= 1)
                        acc[r][c] += __shfl_xor_sync(0xffffffffu, acc[r][c], off);
            if (KS > 1) {
                /* the later parts' sums join the first's, in part order */
                if (part > 0 && lane == 0)
#pragma unroll
                    for (int r = 0; r < MR; r++)
#pragma unroll
                        for (int c = 0; c < NC; c++) partial[(((part - 1) * GPB + slot) * MR + r) * NC + c] = acc[r][c];
                __syncthreads();
                if (part == 0)
#pragma unroll
                    for (int p = 0; p < KS - 1; p++)
#pragma unroll
                        for (int r = 0; r < MR; r++)
#pragma unroll
                            for (int c = 0; c < NC; c++) acc[r][c] += partial[((p * GPB + slot) * MR + r) * NC + c];
                __syncthreads(); /* read before the next trip writes */
            }
            if (active && part == 0)
#pragma unroll
                for (int r = 0; r < MR; r++)
#pragma unroll
                    for (int c = 0; c < NC; c++)
                        /* spread the stores over the lanes */
                        if (lane == (r * NC + c) % 32 && r < m && col0 + c < n)
                            pk_gemm_finish(out, z, r, col0 + c, acc[r][c]);
        }
    }
}
