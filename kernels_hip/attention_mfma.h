/* Attention on CDNA matrix cores (gfx90a, gfx942, gfx950): f16/bf16, head dim
 * contiguous (the plan checks). Built only where PK_HIP_MFMA is 1;
 * attention.hip gives other targets a portable body under the same names
 * (attention_portable.h), which the plan does not pick there. What it
 * shares with the WMMA kernel around the products: attention_matrix.h.
 *
 * A block is NW = 4 waves of 64; wave w owns the 32 packed rows
 * row0 + 32 w .. + 31 (rows and grid as attn_common.h, BM = 128).
 * Per tile of BN = 32 keys the block copies K as [key][d] and V
 * transposed as [d][key] into LDS (16-bit, rows padded by 4 elements);
 * each wave then computes, with v_mfma_f32_32x32x8 (f16 / bf16_1k),
 *   S^T = K Q^T   (32 keys x 32 rows; Q in registers for D <= 128, unscaled)
 *   O^T += V^T P^T (D x 32 rows, in ceil(D / 32) blocks of 32)
 * Operand and result layout of v_mfma_f32_32x32x8, wave64 (gemm_mfma.h):
 *   A (32 x 8):  lane l holds A[l % 32][4 (l / 32) + 0..3]
 *   B (8 x 32):  lane l holds B[4 (l / 32) + 0..3][l % 32]
 *   D (32 x 32): lane l, register r holds D[8 (r / 4) + 4 (l / 32) + r % 4][l % 32]
 * So lane l holds scores of row l % 32 for 16 of the tile's keys (the
 * other 16 are in lane l ^ 32: the row's max and sum take one shuffle),
 * and registers 4 s .. 4 s + 3 of S^T are exactly the B operand (P^T) of
 * key step s of the second product: P never leaves the lane. P is
 * rounded to the input dtype for the second product; l sums the f32
 * weights (as the CUDA tensor-core kernel). Online softmax in base 2,
 * scores scaled by qscale after the product.
 *
 * Masks: masked scores are -inf, so P is 0 there; but 0 * NaN is NaN, so
 * when a tile that some row of the block sees only in part holds a NaN or
 * Inf in V, P V of that tile runs on the vector ALUs over each row's
 * visible keys only (the weights pass through LDS). */
#pragma once

#include "attention_matrix.h"
#include "attention_tiles.h"

namespace pk_attn {

template <int D> struct mfma_cfg {
    static constexpr int NW = PK_HIP_ATTN_MFMA_WAVES, NT = PK_HIP_ATTN_MFMA_THREADS, BM = PK_HIP_ATTN_MFMA_BM, BN = 32;
    static constexpr int DB = (D + 31) / 32; /* 32-wide blocks of output columns */
    static constexpr int LDK = D + 4;         /* K rows: [key][d] */
    static constexpr int LDV = BN + 4;        /* V^T rows: [d][key], d < 32 DB */
    static constexpr int LDP = BN + 1;        /* weights of the slow path, f32 */
    static_assert(D % 8 == 0, "head dim a multiple of 8");
};

#if PK_HIP_MFMA

typedef _Float16 mf_half4 __attribute__((ext_vector_type(4)));
typedef short mf_short4 __attribute__((ext_vector_type(4)));
typedef float mf_float16 __attribute__((ext_vector_type(16)));

template <typename V> __device__ __forceinline__ V mf_as(uint2 x)
{
    V v;
    memcpy(&v, &x, 8);
    return v;
}
/* acc += a b for one 32 x 32 x 8 block; a and b are 4 packed 16-bit values */
template <int DT> __device__ __forceinline__ mf_float16 mfma_32x32x8(uint2 a, uint2 b, mf_float16 acc);
template <> __device__ __forceinline__ mf_float16 mfma_32x32x8<1>(uint2 a, uint2 b, mf_float16 acc)
{
    return __builtin_amdgcn_mfma_f32_32x32x8f16(mf_as<mf_half4>(a), mf_as<mf_half4>(b), acc, 0, 0, 0);
}
template <> __device__ __forceinline__ mf_float16 mfma_32x32x8<2>(uint2 a, uint2 b, mf_float16 acc)
{
    return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(mf_as<mf_short4>(a), mf_as<mf_short4>(b), acc, 0, 0, 0);
}

template <int DT, int D> __device__ __forceinline__ void mfma_attention(const pk_attn_params &args)
{
    typedef PK_T(DT) T;
    typedef mfma_cfg<D> C;
    constexpr int NT = C::NT, BM = C::BM, BN = C::BN, DB = C::DB, LDK = C::LDK, LDV = C::LDV, LDP = C::LDP;
    __shared__ __attribute__((aligned(16))) unsigned short sk[BN * LDK], sv[32 * DB * LDV];
    __shared__ float sp[BM * LDP];
    __shared__ int s_lo[BM], s_hi[BM];
    __shared__ float s_m[BM], s_l[BM];
    /* the 304 bytes of arguments are read from LDS, out of the scalar
     * registers (as the tiled kernel) */
    __shared__ pk_attn_params p;

    const int tid = threadIdx.x, lane = tid % 64, wave = tid / 64, h = lane / 32, q = lane % 32;
    if (tid == 0) p = args;
    /* V^T rows past D stay zero (their outputs are not written) */
    for (int x = tid; x < (32 * DB - D) * LDV; x += NT) sv[D * LDV + x] = 0;
    __syncthreads();
    const block_pos s = block_coords(p);
    const int row0 = s.tile * BM;
    if (tid < BM) row_window(p, s, row0 + tid, s_lo[tid], s_hi[tid]);

    /* this lane's row; its Q fragments: B operand of step t holds
     * Q[row][8 t + 4 h .. + 3] (zeros past the rows), unscaled */
    const int pr = row0 + 32 * wave + q;
    bool q_in;
    const unsigned short *qr = q_row(p, s, pr, q_in) + 4 * h;
    auto q_frag = [&](int t) {
        unsigned short e[4];
#pragma unroll
        for (int j = 0; j < 4; j++) e[j] = q_in ? qr[8 * t + j] : 0;
        return make_uint2(e[0] | (unsigned)e[1] << 16, e[2] | (unsigned)e[3] << 16);
    };
    /* D <= 128: Q's fragments stay in registers; D = 256 reads them again
     * each tile (from the caches): in registers beside the 128
     * accumulators they spilled */
    constexpr bool QREG = D <= 128;
    uint2 qf[QREG ? D / 8 : 1];
    if (QREG)
#pragma unroll
        for (int t = 0; t < (QREG ? D / 8 : 1); t++) qf[t] = q_frag(t);
    __syncthreads();

    const key_span keys = block_keys<BM>(s_lo, s_hi);
    const int my_lo = s_lo[32 * wave + q], my_hi = s_hi[32 * wave + q];
    const unsigned short *kb = k_base(p, s), *vb = v_base(p, s);

    mf_float16 acc[DB];
#pragma unroll
    for (int c = 0; c < DB; c++)
#pragma unroll
        for (int r = 0; r < 16; r++) acc[c][r] = 0.0f;
    float m = -PK_INF, l = 0.0f;

    for (int n0 = keys.first(BN); n0 <= keys.hi_max; n0 += BN) {
        const bool slow = stage_tile<DT, D, BN, LDK, LDV, NT>(p, s, keys, kb, vb, n0, sk, sv);

        /* S^T = K Q^T */
        mf_float16 st;
#pragma unroll
        for (int r = 0; r < 16; r++) st[r] = 0.0f;
#pragma unroll
        for (int t = 0; t < D / 8; t++) {
            const uint2 ka = *reinterpret_cast<const uint2 *>(&sk[q * LDK + 8 * t + 4 * h]);
            st = mfma_32x32x8<DT>(ka, QREG ? qf[QREG ? t : 0] : q_frag(t), st);
        }

        /* register r: key n0 + 8 (r / 4) + 4 h + r % 4 of row q */
        float w[16];
#pragma unroll
        for (int r = 0; r < 16; r++) {
            const int j = n0 + 8 * (r / 4) + 4 * h + r % 4;
            w[r] = j < my_lo || j > my_hi ? -PK_INF : st[r] * p.qscale;
        }
        const float alpha = softmax_tile<16, 32>(w, m, l);
#pragma unroll
        for (int c = 0; c < DB; c++)
#pragma unroll
            for (int r = 0; r < 16; r++) acc[c][r] *= alpha;

        if (!slow) {
            /* O^T += V^T P^T, key step t: P^T from registers 4 t .. 4 t + 3 */
#pragma unroll
            for (int t = 0; t < BN / 8; t++) {
                const uint2 pb = make_uint2(pk_f32_to_bits<DT>(w[4 * t]) | (unsigned)pk_f32_to_bits<DT>(w[4 * t + 1]) << 16,
                                            pk_f32_to_bits<DT>(w[4 * t + 2]) |
                                                (unsigned)pk_f32_to_bits<DT>(w[4 * t + 3]) << 16);
#pragma unroll
                for (int c = 0; c < DB; c++) {
                    const uint2 va = *reinterpret_cast<const uint2 *>(&sv[(32 * c + q) * LDV + 8 * t + 4 * h]);
                    acc[c] = mfma_32x32x8<DT>(va, pb, acc[c]);
                }
            }
        } else {
            slow_pv<DT, 16, DB, 16, BN, LDV>(
                w, sp + (32 * wave + q) * LDP, sv, n0, my_lo, my_hi,
                [&](int r) { return 8 * (r / 4) + 4 * h + r % 4; },
                [&](int c, int r) { return 32 * c + 8 * (r / 4) + 4 * h + r % 4; },
                [&](int c, int r, float x, float y) { acc[c][r] = fmaf(x, y, acc[c][r]); });
        }
    }

    /* The output leaves through LDS, 32 columns at a time (store_cols), acc
     * indexed by constants only. */
    float *so = sp + 32 * wave * LDP; /* this wave's 32 rows x 32 columns */
    const int rw = 32 * wave;
#pragma unroll
    for (int c = 0; c < DB; c++) {
        __syncthreads(); /* the previous block's (or the slow path's) reads are done */
#pragma unroll
        for (int r = 0; r < 16; r++) so[q * LDP + 8 * (r / 4) + 4 * h + r % 4] = acc[c][r];
        if (c == 0 && h == 0) s_m[rw + q] = m, s_l[rw + q] = l;
        __syncthreads();
        store_cols<T, D, 32, 64>(p, s, row0 + rw, 32 * c, so, LDP, s_lo + rw, s_hi + rw, s_m + rw, s_l + rw, lane);
    }
}

#endif

} // namespace pk_attn
