/* What every HIP GEMM kernel shares beyond the parameter list
 * (kernels_gpu/gemm_abi.h) and the fused epilogue (gemm_epilogue.h): the
 * arguments as one value (PK_GEMM_KARGS), the tile order, 16-bit pairs
 * and the per-lane register hint. */
#pragma once

#include "../kernels_gpu/gemm_epilogue.h"

/* Inside a kernel: its parameters as one pk_gemm_kargs, which the kernel
 * bodies take (and re-read through pk_fresh_args on AMD). */
#define PK_GEMM_KARGS pk_gemm_kargs{PK_GEMM_ARGS}

/* Tile t of an m_tiles x n_tiles grid, in groups of 8 m-tiles walked
 * m-first: the blocks running at once share a few B column panels, which
 * keeps B in L2 when it is larger than L2. In 32 bits (fewer than 2^32
 * tiles, m n < 2^44 at 64 x 64): a 64-bit division is a long subroutine on
 * AMD, and its registers spill. */
__device__ __forceinline__ void pk_gemm_tile_of(unsigned t, unsigned m_tiles, unsigned n_tiles, long long &tm,
                                                long long &tn)
{
    const unsigned group = 8 * n_tiles;
    const unsigned first = t / group * 8;
    const unsigned size = m_tiles - first < 8 ? m_tiles - first : 8;
    const unsigned r = t % group;
    tm = first + r % size;
    tn = r / size;
}

/* Two 16-bit values packed in a word, low half first: the skinny and MFMA
 * kernels move 16-bit operands as whole words. */
template <int DT> __device__ __forceinline__ float2 pk_gemm_unpack2(unsigned w);
template <> __device__ __forceinline__ float2 pk_gemm_unpack2<1>(unsigned w)
{
    pk_f16 h[2];
    memcpy(h, &w, 4);
    return make_float2(pk_to_f32(h[0]), pk_to_f32(h[1]));
}
template <> __device__ __forceinline__ float2 pk_gemm_unpack2<2>(unsigned w)
{
    return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
}

/* x, kept in a vector register on AMD. The compiler hoists every uniform
 * part of an address it can find into scalar registers, of which an AMD
 * wave has about 100; an element's row index passed through here stays a
 * per-lane value, so its address costs a few vector instructions instead
 * of a pair of scalar registers held across the loop. */
__device__ __forceinline__ int pk_vgpr(int x)
{
#if PK_HIP_AMD
    asm volatile("" : "+v"(x));
#endif
    return x;
}

/* The matrix-core kernels' staging (gemm_mfma.h, gemm_wmma.h), 256
 * threads: one operand's share of a step of 32 k: chunk i of this thread is row
 * (tid + 256 i) / 4 of the tile, k (tid % 4) * 8 .. + 7. The operand is
 * p[row * s_row + k * s_k] with `rows` valid rows; fast: s_k == 1 and
 * every chunk 16-byte aligned. */
template <int CH> struct pk_gemm_operand {
    const unsigned short *p;
    long long s_row, s_k;
    int rows;
    bool fast;

    __device__ __forceinline__ void fetch(uint4 (&v)[CH], long long k0, long long k) const
    {
        const int kc = (int)(threadIdx.x % 4) * 8;
        const long long kr = k - k0 - kc; /* valid k of this thread's chunks */
#pragma unroll
        for (int i = 0; i < CH; i++) {
            const int row = (int)(threadIdx.x + 256 * i) / 4;
            const unsigned short *q = p + row * s_row + (k0 + kc) * s_k;
            if (fast && row < rows && kr >= 8) {
                v[i] = *reinterpret_cast<const uint4 *>(q);
            } else {
                unsigned short e[8];
#pragma unroll
                for (int j = 0; j < 8; j++) e[j] = row < rows && j < kr ? q[pk_vgpr(j) * s_k] : 0;
                v[i] = make_uint4(e[0] | (unsigned)e[1] << 16, e[2] | (unsigned)e[3] << 16,
                                  e[4] | (unsigned)e[5] << 16, e[6] | (unsigned)e[7] << 16);
            }
        }
    }
};
