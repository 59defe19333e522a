/* What every HIP GEMM kernel shares beyond the parameter list
 * (kernels_gpu/gemm_abi.h) and the fused epilogue (gemm_epilogue.h): the
 * arguments as one value (PK_GEMM_KARGS), the tile order, the per-lane
 * register hint and the matrix-core kernels' staging and block loop. */
#pragma once

#include "../kernels_gpu/gemm_epilogue.h"
#include "bits16.h"

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
 * threads: one operand's share of a step of 32 k: chunk i of this thread
 * is row
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

/* The matrix-core kernels' block loop (gemm_mfma.h, gemm_wmma.h): 256
 * threads compute TILE x TILE blocks of d. Per step of 32 k the block
 * copies A's TILE x 32 and B's 32 x TILE into LDS as [row][k] (A: row m,
 * B: row n), rows padded to 36 elements (72 bytes), in chunks of 8 k of
 * one row (pk_gemm_operand); the next step's chunks wait in registers
 * while this one computes, the two buffers alternate, one barrier a step.
 * Op<TILE> holds a thread's sums: zero(), step(rows) for a step's LDS
 * (rows[0..TILE) A, rows[TILE..2 TILE) B), finish(out, z, m0, n0, m, n). */
#define PK_GEMM_LDS_ROW 36
template <class Op, int TILE> __device__ __forceinline__ void pk_gemm_matrix(const pk_gemm_kargs &ka)
{
#define KA pk_fresh_args(ka)
    constexpr int BK = 32, CH = TILE * BK / 8 / 256;
    __shared__ __attribute__((aligned(16))) unsigned short lds[2][2 * TILE][PK_GEMM_LDS_ROW];
    /* the arguments are read where they are used (pk_fresh_args): held in
     * scalar registers across the loops they spilled; the epilogue's wait
     * in LDS (the k loop's barriers order the store before the reads) */
    __shared__ pk_gemm_out out;
    if (threadIdx.x == 0) out = pk_gemm_out_of(pk_fresh_args(ka));

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
            Op op;
            op.zero();

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
                op.step(lds[buf]);
                /* the other buffer was last read before the previous barrier */
                if (ks + 1 < k_steps) stash(buf ^ 1);
                __syncthreads();
            }
            op.finish(out, z, m0, n0, KA.m, KA.n);
        }
    }
#undef KA
}
