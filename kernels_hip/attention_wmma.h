/* Attention on RDNA matrix cores (WMMA, wave32; wmma.h: the instruction,
 * its layouts for GEN 11 (gfx11) and GEN 12 (gfx12), its emulation on
 * NVIDIA): f16/bf16, head dim contiguous (the plan checks). Built natively
 * where PK_HIP_WMMA == GEN and on HIP on NVIDIA (PORTKERN_HIP_WMMA picks
 * them there); other AMD targets build attention_portable.h under the same
 * names (attention.hip). What it shares with the MFMA kernel around the
 * products: attention_matrix.h.
 *
 * A block is BM / 16 waves of 32; wave w owns the 16 packed rows
 * row0 + 16 w .. + 15 (rows and grid as attn_common.h). Per tile of BN =
 * 32 keys the block copies K as [key][d] and V transposed as [d][key]
 * into LDS; each wave then computes, with v_wmma_f32_16x16x16,
 *   S^T = K Q^T   (2 blocks of 16 keys x 16 rows; Q in registers for
 *                  D <= 128, unscaled)
 *   O^T += V^T P^T (D / 16 blocks of 16 x 16 rows)
 * so lane l's results are row r = l % 16's (column r of S^T and O^T), and
 * a row's 32 scores of a tile are in lanes r and r + 16: its max and sum
 * take one shuffle. P^T, the B operand of the second product (column r,
 * 16 keys of a block), is what lane r and r + 16 hold of S^T: on GEN 12
 * (keys 8 h + v in lane r + 16 h) it is the lane's own registers; on GEN
 * 11 (keys 2 v + h) the two lanes swap halves (p_frag). P is rounded to
 * the input dtype for the second product; l sums the f32 weights.
 * Online softmax in base 2, scores scaled by qscale after the product.
 *
 * Masks: masked scores are -inf, so P is 0 there; but 0 * NaN is NaN, so
 * when a tile that some row of the block sees only in part holds a NaN or
 * Inf in V, P V of that tile runs on the vector ALUs over each row's
 * visible keys only (the weights pass through LDS), as attention_mfma.h. */
#pragma once

#include "attention_matrix.h"
#include "attention_tiles.h"
#include "wmma.h"

namespace pk_attn {

template <int D> struct wmma_cfg {
    static constexpr int BM = PK_HIP_ATTN_WMMA_BM(D), NT = PK_HIP_ATTN_WMMA_THREADS(D), BN = 32;
    static constexpr int DB = D / 16;  /* 16-row blocks of O^T */
    static constexpr int LDK = D + 4;  /* K rows: [key][d], 8-byte aligned */
    static constexpr int LDV = BN + 4; /* V^T rows: [d][key] */
    static constexpr int LDP = BN + 1; /* weights of the slow path, output staging; f32 */
    static_assert(D % 16 == 0, "head dim a multiple of 16");
    /* static LDS: NVIDIA's limit without opt-in (HIP on NVIDIA builds it) */
    static_assert(2 * (BN * LDK + D * LDV) + 4 * BM * (LDP + 4) + 512 <= 48 * 1024, "LDS");
};

/* Lane l's B operand of key block kb of P^T (16 keys, column l % 16) from
 * its weights w[8 kb + v] of keys 16 kb + pk_wmma_row(l, v), rounded to
 * the dtype. */
template <int GEN, int DT> __device__ __forceinline__ pk_wmma_frag<GEN> p_frag(const float *w, int lane)
{
    pk_wmma_frag<GEN> f;
    if constexpr (GEN == 12) {
        /* keys 8 h + 2 i, + 1: registers 2 i, 2 i + 1 */
#pragma unroll
        for (int i = 0; i < 4; i++)
            f.w[i] = pk_f32_to_bits<DT>(w[2 * i]) | (unsigned)pk_f32_to_bits<DT>(w[2 * i + 1]) << 16;
    } else {
        /* keys 2 i (lane r, register i) and 2 i + 1 (lane r + 16): each lane
         * sends its pairs to the other half and puts the even key low */
        const bool hi = lane >= 16;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const unsigned mine = pk_f32_to_bits<DT>(w[2 * j]) | (unsigned)pk_f32_to_bits<DT>(w[2 * j + 1]) << 16;
            const unsigned other = __shfl_xor(mine, 16);
            const unsigned even = hi ? other : mine, odd = hi ? mine : other;
            f.w[2 * j] = (even & 0xffffu) | odd << 16;
            f.w[2 * j + 1] = even >> 16 | (odd & 0xffff0000u);
        }
    }
    return f;
}

template <int GEN, int DT, int D> __device__ __forceinline__ void wmma_attention(const pk_attn_params &args)
{
    typedef PK_T(DT) T;
    typedef wmma_cfg<D> C;
    typedef pk_wmma_frag<GEN> frag;
    constexpr int NT = C::NT, BM = C::BM, BN = C::BN, DB = C::DB, LDK = C::LDK, LDV = C::LDV, LDP = C::LDP;
    __shared__ __attribute__((aligned(16))) unsigned short sk[BN * LDK], sv[D * LDV];
    __shared__ float sp[BM * LDP];
    __shared__ int s_lo[BM], s_hi[BM];
    __shared__ float s_m[BM], s_l[BM];
    /* the 304 bytes of arguments are read from LDS, out of the scalar
     * registers (as the tiled kernel) */
    __shared__ pk_attn_params p;

    const int tid = threadIdx.x, lane = tid % 32, wave = tid / 32, r = lane % 16, rw = 16 * wave;
    if (tid == 0) p = args;
    __syncthreads();
    const block_pos s = block_coords(p);
    const int row0 = s.tile * BM;
    if (tid < BM) row_window(p, s, row0 + tid, s_lo[tid], s_hi[tid]);

    /* this lane's row; its Q fragments: B operand of step t holds Q[row]
     * from d = 16 t (zeros past the rows), unscaled */
    bool q_in;
    const unsigned short *qr = q_row(p, s, row0 + rw + r, q_in) + (GEN == 12 ? 8 * (lane / 16) : 0);
    auto q_frag = [&](const unsigned short *q, int t) {
        frag f;
#pragma unroll
        for (int i = 0; i < (GEN == 11 ? 8 : 4); i++)
            f.w[i] = q_in ? q[16 * t + 2 * i] | (unsigned)q[16 * t + 2 * i + 1] << 16 : 0u;
        return f;
    };
    /* Q's fragments stay in registers where they take at most 32 (GEN 11:
     * D = 64; GEN 12: D <= 128); else they are read again each tile (from
     * the caches): in registers beside the accumulators they spilled */
    constexpr bool QREG = D / 16 * (GEN == 11 ? 8 : 4) <= 32;
    frag qf[QREG ? D / 16 : 1];
    if (QREG)
#pragma unroll
        for (int t = 0; t < (QREG ? D / 16 : 1); t++) qf[t] = q_frag(qr, t);
    __syncthreads();

    const key_span keys = block_keys<BM>(s_lo, s_hi);
    const int my_lo = s_lo[rw + r], my_hi = s_hi[rw + r];
    const unsigned short *kb = k_base(p, s), *vb = v_base(p, s);

    pk_wmma_acc acc[DB];
#pragma unroll
    for (int c = 0; c < DB; c++)
#pragma unroll
        for (int v = 0; v < 8; v++) acc[c].v[v] = 0.0f;
    float m = -PK_INF, l = 0.0f;

    for (int n0 = keys.first(BN); n0 <= keys.hi_max; n0 += BN) {
        const bool slow = stage_tile<DT, D, BN, LDK, LDV, NT>(p, s, keys, kb, vb, n0, sk, sv);

        /* S^T = K Q^T, keys 16 kb .. + 15 in st[kb] */
        pk_wmma_acc st[2];
#pragma unroll
        for (int kk = 0; kk < 2; kk++)
#pragma unroll
            for (int v = 0; v < 8; v++) st[kk].v[v] = 0.0f;
        const unsigned short *qt = qr;
#if PK_HIP_AMD
        asm volatile("" : "+v"(qt)); /* else the reads of Q leave the tile loop */
#endif
#pragma unroll
        for (int t = 0; t < D / 16; t++) {
            const frag qb = QREG ? qf[QREG ? t : 0] : q_frag(qt, t);
#pragma unroll
            for (int kk = 0; kk < 2; kk++) {
                const int k_off = (16 * kk + r) * LDK + pk_wmma_after(16 * t, st[kk].v[0]);
                pk_wmma<GEN, DT>(pk_wmma_load<GEN>(&sk[k_off], lane), qb, st[kk]);
            }
        }

        /* w[8 kb + v]: key n0 + 16 kb + pk_wmma_row(lane, v) of row r */
        float w[16];
#pragma unroll
        for (int i = 0; i < 16; i++) {
            const int j = n0 + 16 * (i / 8) + pk_wmma_row<GEN>(lane, i % 8);
            w[i] = j < my_lo || j > my_hi ? -PK_INF : st[i / 8].v[i % 8] * p.qscale;
        }
        const float alpha = softmax_tile<16, 16>(w, m, l);
#pragma unroll
        for (int c = 0; c < DB; c++)
#pragma unroll
            for (int v = 0; v < 8; v++) acc[c].v[v] *= alpha;

        if (!slow) {
            /* O^T += V^T P^T, a key block at a time */
#pragma unroll
            for (int kk = 0; kk < 2; kk++) {
                const frag pb = p_frag<GEN, DT>(w + 8 * kk, lane);
#pragma unroll
                for (int c = 0; c < DB; c++) {
                    const int v_off = (16 * c + r) * LDV + pk_wmma_after(16 * kk, acc[c > 0 ? c - 1 : 0].v[0]);
                    pk_wmma<GEN, DT>(pk_wmma_load<GEN>(&sv[v_off], lane), pb, acc[c]);
                }
            }
        } else {
            slow_pv<DT, 16, DB, 8, BN, LDV>(
                w, sp + (rw + r) * LDP, sv, n0, my_lo, my_hi,
                [&](int i) { return 16 * (i / 8) + pk_wmma_row<GEN>(lane, i % 8); },
                [&](int c, int v) { return 16 * c + pk_wmma_row<GEN>(lane, v); },
                [&](int c, int v, float x, float y) { acc[c].v[v] = fmaf(x, y, acc[c].v[v]); });
        }
    }

    /* The output leaves through LDS, 32 columns (two blocks of O^T) at a
     * time (store_cols), acc indexed by constants only. */
    float *so = sp + rw * LDP; /* this wave's 16 rows x 32 columns */
#pragma unroll
    for (int cc = 0; cc < (DB + 1) / 2; cc++) {
        __syncthreads(); /* the previous columns' (or the slow path's) reads are done */
#pragma unroll
        for (int e = 0; e < 2; e++)
            if (2 * cc + e < DB)
#pragma unroll
                for (int v = 0; v < 8; v++) so[r * LDP + 16 * e + pk_wmma_row<GEN>(lane, v)] = acc[2 * cc + e].v[v];
        if (cc == 0 && lane < 16) s_m[rw + r] = m, s_l[rw + r] = l;
        __syncthreads();
        store_cols<T, D, 16, 32>(p, s, row0 + rw, 32 * cc, so, LDP, s_lo + rw, s_hi + rw, s_m + rw, s_l + rw, lane);
    }
}

} // namespace pk_attn
