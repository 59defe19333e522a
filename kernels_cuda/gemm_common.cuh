/* What every CUDA GEMM kernel shares beyond the parameter list
 * (kernels_gpu/gemm_abi.h, which the host fills through pk_gpu_gemm_args
 * in backends/gpu/pk_gpu_args.c) and the fused epilogue
 * (kernels_gpu/gemm_epilogue.h): the tile order, and split-K's hand-over. */
#pragma once

#include "../kernels_gpu/gemm_epilogue.h"
#include "gemm_kernels.h"

/* Tile t of an m_tiles x n_tiles grid, in groups of 8 m-tiles walked
 * m-first: the blocks running at once share a few B column panels, which
 * keeps B in L2 when it is larger than L2. */
__device__ __forceinline__ void pk_gemm_tile_of(long long t, long long m_tiles, long long n_tiles, long long &tm,
                                                long long &tn)
{
    const long long group = 8 * n_tiles;
    const long long first = t / group * 8;
    const long long size = m_tiles - first < 8 ? m_tiles - first : 8;
    const long long r = t % group;
    tm = first + r % size;
    tn = r / size;
}

/* Split-K's hand-over (gemm_kernels.h, pk_cu_gemm_split) for a group of
 * GROUP threads (a warp: 32; or the whole block), thread t of it holding
 * N sums of range q of a tile: the group's sums to part, then its count in
 * its flag. The group that counts last reads every range's sums, its own
 * included, and adds them in range order into acc (the same bits whichever
 * group arrives last), sets the flag back to 0 and returns true; the
 * others return false. slot: the group's index over the call's tiles.
 * Partials are [slot][range][sum][t]: a warp's loads and stores of one sum
 * are 128 contiguous bytes. The whole group calls it (a block: every
 * thread, as it holds a barrier). */
template <int GROUP, int N>
__device__ __forceinline__ bool pk_gemm_split_reduce(float (&acc)[N], const pk_cu_gemm_split &sp, long long slot, int q,
                                                     int t)
{
    float *part = reinterpret_cast<float *>(sp.part) + slot * sp.splits * N * GROUP + t;
    unsigned *flag = reinterpret_cast<unsigned *>(sp.flags) + slot;
#pragma unroll
    for (int i = 0; i < N; i++) __stcg(part + (q * N + i) * GROUP, acc[i]);
    /* the sums reach L2 before the count that says they are there */
    __threadfence();
    unsigned before = 0;
    if constexpr (GROUP == 32) {
        __syncwarp();
        if (t == 0) {
            before = atomicAdd(flag, 1u);
            __threadfence();
        }
        /* the lanes read after lane 0's count and fence */
        __syncwarp();
        before = __shfl_sync(0xffffffffu, before, 0);
    } else {
        __shared__ unsigned counted;
        __syncthreads();
        if (t == 0) counted = atomicAdd(flag, 1u);
        __syncthreads();
        before = counted;
    }
    if (before != (unsigned)sp.splits - 1) return false;
    __threadfence();
#pragma unroll
    for (int i = 0; i < N; i++) acc[i] = __ldcg(part + i * GROUP);
    for (int r = 1; r < sp.splits; r++)
#pragma unroll
        for (int i = 0; i < N; i++) acc[i] += __ldcg(part + (r * N + i) * GROUP);
    if (t == 0) atomicExch(flag, 0u);
    return true;
}
