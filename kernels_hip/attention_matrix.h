/* What the matrix-core attention kernels (attention_mfma.h on CDNA,
 * attention_wmma.h on RDNA) share around their products: the key range of
 * a block, the staging of a K and V tile in LDS, the online softmax of a
 * lane's scores, P V where V holds NaN or Inf, and the store of the output
 * from LDS. Rows, grid, masks
 * and outputs: attn_common.h. */
#pragma once

#include "../kernels_gpu/attn_common.h"
#include "bits16.h"

namespace pk_attn {

/* The keys any row of the block sees, [lo_min, hi_max], and those every
 * row that sees some key sees, [lo_max, hi_min]: a tile inside the latter
 * needs no mask, and so no care for NaN or Inf in V. The tile loop runs
 * over the former for the whole block, so every wave reaches every
 * barrier. */
struct key_span {
    int lo_min, hi_max, lo_max, hi_min;

    __device__ __forceinline__ int first(int bn) const { return hi_max < 0 ? 1 : lo_min / bn * bn; }
    __device__ __forceinline__ bool partial(int n0, int bn) const { return !(n0 >= lo_max && n0 + bn - 1 <= hi_min); }
};

template <int BM> __device__ __forceinline__ key_span block_keys(const int *s_lo, const int *s_hi)
{
    key_span k = {0x7fffffff, -1, -1, 0x7fffffff};
#pragma unroll 8
    for (int i = 0; i < BM; i++) {
        const int lo = s_lo[i], hi = s_hi[i];
        k.lo_min = min(k.lo_min, lo <= hi ? lo : 0x7fffffff);
        k.hi_max = max(k.hi_max, lo <= hi ? hi : -1);
        k.lo_max = max(k.lo_max, lo <= hi ? lo : -1);
        k.hi_min = min(k.hi_min, lo <= hi ? hi : 0x7fffffff);
    }
    return k;
}

/* Packed row pr's Q as 16-bit storage bits (d contiguous); in: pr is a
 * query row (else its fragments are zeros) */
__device__ __forceinline__ const unsigned short *q_row(const pk_attn_params &p, const block_pos &s, int pr, bool &in)
{
    in = pr < s.rows && pr % p.sq < s.lq;
    return (const unsigned short *)p.q + (in ? row_offset(p, s, p.qs, p.off[0], pr) : 0);
}

/* The block's K and V as 16-bit storage bits (the plan gives these
 * kernels d contiguous) */
__device__ __forceinline__ const unsigned short *k_base(const pk_attn_params &p, const block_pos &s)
{
    return (const unsigned short *)p.k + p.off[1] + s.b * p.ks[0] + s.kvh * p.ks[2];
}
__device__ __forceinline__ const unsigned short *v_base(const pk_attn_params &p, const block_pos &s)
{
    return (const unsigned short *)p.v + p.off[2] + s.b * p.vs[0] + s.kvh * p.vs[2];
}

/* The block's next tile of keys, n0 .. n0 + BN - 1, once every thread
 * is done with the previous one: K into sk as [key][d] (rows LDK apart),
 * V into sv transposed, [d][key] (rows LDV apart), zeros past the keys.
 * Returns (the same in every thread) whether P V of the tile must take
 * the vector ALUs: a NaN or Inf in V of a tile some row sees in part. */
template <int DT, int D, int BN, int LDK, int LDV, int NT>
__device__ __forceinline__ bool stage_tile(const pk_attn_params &p, const block_pos &s, const key_span &keys,
                                           const unsigned short *kb, const unsigned short *vb, int n0,
                                           unsigned short *sk, unsigned short *sv)
{
    __syncthreads();
    bool bad = false;
    for (int x = threadIdx.x; x < BN * D; x += NT) {
        const int j = x / D, c = x % D;
        const bool in = n0 + j < s.lkv;
        const unsigned short kv = in ? kb[(int64_t)(n0 + j) * p.ks[1] + c] : 0;
        const unsigned short vv = in ? vb[(int64_t)(n0 + j) * p.vs[1] + c] : 0;
        sk[j * LDK + c] = kv;
        sv[c * LDV + j] = vv;
        bad |= pk_nonfinite_bits<DT>(vv);
    }
    const bool edge = keys.partial(n0, BN);
    __syncthreads(); /* the tile is in LDS */
    /* block-uniform: every thread reaches the reduction or none */
    return edge && __syncthreads_or(bad);
}

/* One tile of a row's online softmax in base 2: w holds this lane's
 * scores of the row (-inf where masked), the lane XOR away the rest. w
 * becomes the weights, m and l the row's running max and sum; returns the
 * factor for the accumulators. Both lanes get the same bits (a + b is
 * b + a). */
template <int N, int XOR> __device__ __forceinline__ float softmax_tile(float (&w)[N], float &m, float &l)
{
    float mt = -PK_INF;
#pragma unroll
    for (int i = 0; i < N; i++) mt = nanmax(mt, w[i]);
    mt = nanmax(mt, __shfl_xor(mt, XOR));
    const float mn = nanmax(m, mt);
    /* no visible key yet: subtract 0, not -inf (-inf - -inf is NaN) */
    const float base = mn == -PK_INF ? 0.0f : mn;
    const float alpha = exp2f(m - base);
    float psum = 0.0f;
#pragma unroll
    for (int i = 0; i < N; i++) {
        w[i] = exp2f(w[i] - base);
        psum += w[i];
    }
    l = l * alpha + (psum + __shfl_xor(psum, XOR));
    m = mn;
    return alpha;
}

/* P V of a tile on the vector ALUs, for a tile with a NaN or Inf in V
 * that some row sees in part (0 * NaN is NaN): the lane's N weights w[i],
 * of keys n0 + key(i), pass through its row's pw in LDS (rounded as the
 * products round them); then over the keys [lo, hi] its row sees, in
 * order, fma(c, e, weight, V[key][col(c, e)]) adds to accumulator e of
 * block c (C blocks of E). */
template <int DT, int N, int C, int E, int BN, int LDV, class Key, class Col, class Fma>
__device__ __forceinline__ void slow_pv(const float (&w)[N], float *pw, const unsigned short *sv, int n0, int lo,
                                        int hi, Key key, Col col, Fma fma)
{
#pragma unroll
    for (int i = 0; i < N; i++) pw[key(i)] = pk_bits_to_f32<DT>(pk_f32_to_bits<DT>(w[i]));
    __syncthreads();
#pragma unroll 1
    for (int j = 0; j < BN; j++) {
        if (n0 + j < lo || n0 + j > hi) continue;
        const float wj = pw[j];
#pragma unroll
        for (int c = 0; c < C; c++)
#pragma unroll
            for (int e = 0; e < E; e++) fma(c, e, wj, pk_bits_to_f32<DT>(sv[col(c, e) * LDV + j]));
    }
}

/* A wave's store of ROWS packed rows from prow0 on, output columns d0 ..
 * d0 + 31, staged in LDS as so[row * ldp + col]; lo, hi, sm, sl are those
 * rows' windows, maxima and sums. Adjacent lanes store adjacent columns;
 * the loop stays rolled (unrolled with the epilogue, accumulators went to
 * scratch memory). */
template <typename T, int D, int ROWS, int WAVE>
__device__ __forceinline__ void store_cols(const pk_attn_params &p, const block_pos &s, int prow0, int d0,
                                           const float *so, int ldp, const int *lo, const int *hi, const float *sm,
                                           const float *sl, int lane)
{
#pragma unroll 1
    for (int i = lane; i < ROWS * 32; i += WAVE) {
        const int row = i / 32, col = i % 32, d = d0 + col, prow = prow0 + row;
        if (prow < s.rows && d < D) {
            const bool live = lo[row] <= hi[row] && sl[row] != 0.0f;
            write_elem<T, D>(p, s, prow, live, sm[row], sl[row], d, so[row * ldp + col]);
        }
    }
}

} // namespace pk_attn
