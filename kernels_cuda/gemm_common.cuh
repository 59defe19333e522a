/* What every CUDA GEMM kernel shares beyond the parameter list
 * (kernels_gpu/gemm_abi.h, which the host fills through pk_gpu_gemm_args
 * in backends/gpu/pk_gpu_args.c) and the fused epilogue
 * (kernels_gpu/gemm_epilogue.h): the tile order. */
#pragma once

#include "../kernels_gpu/gemm_epilogue.h"

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
