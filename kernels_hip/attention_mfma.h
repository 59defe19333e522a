/* Attention on CDNA matrix cores (gfx90a, gfx942): f16/bf16, head dim
 * contiguous (the plan checks). Built only where PK_HIP_MFMA is 1;
 * attention.hip gives other targets a portable body under the same names
 * (mfma_attention_portable below), which the plan does not pick there.
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

#include "../kernels_gpu/attn_common.h"
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

/* 16-bit storage bits to f32 and back (round to nearest even) */
template <int DT> __device__ __forceinline__ float bits_to_f32(unsigned short u);
template <> __device__ __forceinline__ float bits_to_f32<1>(unsigned short u)
{
    pk_f16 h;
    memcpy(&h, &u, 2);
    return pk_to_f32(h);
}
template <> __device__ __forceinline__ float bits_to_f32<2>(unsigned short u) { return __uint_as_float((unsigned)u << 16); }
template <int DT> __device__ __forceinline__ unsigned short f32_to_bits(float x)
{
    const PK_T(DT) h = pk_from_f32<PK_T(DT)>(x);
    unsigned short u;
    memcpy(&u, &h, 2);
    return u;
}
/* all-ones exponent: Inf or NaN */
template <int DT> __device__ __forceinline__ bool nonfinite_bits(unsigned short u)
{
    constexpr unsigned e = DT == 1 ? 0x7c00u : 0x7f80u;
    return (u & e) == e;
}

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
    const bool q_in = pr < s.rows && pr % p.sq < s.lq;
    const unsigned short *qr =
        (const unsigned short *)p.q + (q_in ? row_offset(p, s, p.qs, p.off[0], pr) : 0) + 4 * h;
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

    /* the keys any row of the block sees (the tile loop is block-uniform,
     * so every wave reaches every barrier), and the tiles every live row
     * sees in full (no mask needed for NaN V there) */
    int lo_min = 0x7fffffff, hi_max = -1, lo_max = -1, hi_min = 0x7fffffff;
#pragma unroll 8
    for (int i = 0; i < BM; i++) {
        const int lo = s_lo[i], hi = s_hi[i];
        lo_min = min(lo_min, lo <= hi ? lo : 0x7fffffff);
        hi_max = max(hi_max, lo <= hi ? hi : -1);
        lo_max = max(lo_max, lo <= hi ? lo : -1);
        hi_min = min(hi_min, lo <= hi ? hi : 0x7fffffff);
    }
    const int my_lo = s_lo[32 * wave + q], my_hi = s_hi[32 * wave + q];
    const unsigned short *kb = (const unsigned short *)p.k + p.off[1] + s.b * p.ks[0] + s.kvh * p.ks[2];
    const unsigned short *vb = (const unsigned short *)p.v + p.off[2] + s.b * p.vs[0] + s.kvh * p.vs[2];

    mf_float16 acc[DB];
#pragma unroll
    for (int c = 0; c < DB; c++)
#pragma unroll
        for (int r = 0; r < 16; r++) acc[c][r] = 0.0f;
    float m = -PK_INF, l = 0.0f;

    for (int n0 = hi_max < 0 ? 1 : lo_min / BN * BN; n0 <= hi_max; n0 += BN) {
        /* the previous tile's products and weights are read */
        __syncthreads();
        bool bad = false;
        for (int x = tid; x < BN * D; x += NT) {
            const int j = x / D, c = x % D;
            const bool in = n0 + j < s.lkv;
            const unsigned short kv = in ? kb[(int64_t)(n0 + j) * p.ks[1] + c] : 0;
            const unsigned short vv = in ? vb[(int64_t)(n0 + j) * p.vs[1] + c] : 0;
            sk[j * LDK + c] = kv;
            sv[c * LDV + j] = vv;
            bad |= nonfinite_bits<DT>(vv);
        }
        const bool edge = !(n0 >= lo_max && n0 + BN - 1 <= hi_min);
        __syncthreads(); /* the tile is in LDS */
        /* block-uniform: every thread reaches the reduction or none */
        const bool slow = edge && __syncthreads_or(bad);

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
        float mt = -PK_INF;
#pragma unroll
        for (int r = 0; r < 16; r++) {
            const int j = n0 + 8 * (r / 4) + 4 * h + r % 4;
            w[r] = j < my_lo || j > my_hi ? -PK_INF : st[r] * p.qscale;
            mt = nanmax(mt, w[r]);
        }
        mt = nanmax(mt, __shfl_xor(mt, 32));
        const float mn = nanmax(m, mt);
        /* no visible key yet: subtract 0, not -inf (-inf - -inf is NaN) */
        const float base = mn == -PK_INF ? 0.0f : mn;
        const float alpha = exp2f(m - base);
        float psum = 0.0f;
#pragma unroll
        for (int r = 0; r < 16; r++) {
            w[r] = exp2f(w[r] - base);
            psum += w[r];
        }
        l = l * alpha + (psum + __shfl_xor(psum, 32));
        m = mn;
#pragma unroll
        for (int c = 0; c < DB; c++)
#pragma unroll
            for (int r = 0; r < 16; r++) acc[c][r] *= alpha;

        if (!slow) {
            /* O^T += V^T P^T, key step t: P^T from registers 4 t .. 4 t + 3 */
#pragma unroll
            for (int t = 0; t < BN / 8; t++) {
                const uint2 pb = make_uint2(f32_to_bits<DT>(w[4 * t]) | (unsigned)f32_to_bits<DT>(w[4 * t + 1]) << 16,
                                            f32_to_bits<DT>(w[4 * t + 2]) |
                                                (unsigned)f32_to_bits<DT>(w[4 * t + 3]) << 16);
#pragma unroll
                for (int c = 0; c < DB; c++) {
                    const uint2 va = *reinterpret_cast<const uint2 *>(&sv[(32 * c + q) * LDV + 8 * t + 4 * h]);
                    acc[c] = mfma_32x32x8<DT>(va, pb, acc[c]);
                }
            }
        } else {
            /* Non-finite V in a tile some row sees in part: the weights
             * (rounded as the fast path rounds them) pass through LDS, and
             * each lane adds only the keys its row sees. */
            float *pw = sp + (32 * wave + q) * LDP;
#pragma unroll
            for (int r = 0; r < 16; r++)
                pw[8 * (r / 4) + 4 * h + r % 4] = bits_to_f32<DT>(f32_to_bits<DT>(w[r]));
            __syncthreads();
#pragma unroll 1
            for (int j = 0; j < BN; j++) {
                if (n0 + j < my_lo || n0 + j > my_hi) continue;
                const float wj = pw[j];
#pragma unroll
                for (int c = 0; c < DB; c++)
#pragma unroll
                    for (int r = 0; r < 16; r++) {
                        const int d = 32 * c + 8 * (r / 4) + 4 * h + r % 4;
                        acc[c][r] = fmaf(wj, bits_to_f32<DT>(sv[d * LDV + j]), acc[c][r]);
                    }
            }
        }
    }

    /* The output leaves through LDS, 32 columns at a time: adjacent lanes
     * store adjacent columns, and the store loop stays rolled with acc
     * indexed by constants only (unrolled with the epilogue, acc went to
     * scratch memory). */
    float *so = sp + 32 * wave * LDP; /* this wave's 32 rows x 32 columns */
    const int rw = 32 * wave;
#pragma unroll
    for (int c = 0; c < DB; c++) {
        __syncthreads(); /* the previous block's (or the slow path's) reads are done */
#pragma unroll
        for (int r = 0; r < 16; r++) so[q * LDP + 8 * (r / 4) + 4 * h + r % 4] = acc[c][r];
        if (c == 0 && h == 0) s_m[rw + q] = m, s_l[rw + q] = l;
        __syncthreads();
#pragma unroll 1
        for (int i = lane; i < 32 * 32; i += 64) {
            const int row = i / 32, col = i % 32, d = 32 * c + col, prow = row0 + rw + row;
            if (prow < s.rows && d < D) {
                const bool live = s_lo[rw + row] <= s_hi[rw + row] && s_l[rw + row] != 0.0f;
                write_elem<T, D>(p, s, prow, live, s_m[rw + row], s_l[rw + row], d, so[row * LDP + col]);
            }
        }
    }
}

#endif

/* The same entry points where there are no matrix cores (the plan picks
 * them only on MFMA targets): correct under the same launch (BM = 128
 * rows a block, NT threads) but slow. The block takes its rows one at a
 * time: thread j scores key n0 + j of a tile of NT keys, thread c
 * accumulates output column c; max and sum in a fixed order through LDS. */
template <int DT, int D> __device__ __forceinline__ void mfma_attention_portable(const pk_attn_params &args)
{
    typedef PK_T(DT) T;
    typedef mfma_cfg<D> C;
    constexpr int NT = C::NT, BM = C::BM;
    static_assert(D <= NT, "one output column a thread");
    __shared__ float sqr[D], sw[NT], red[2];
    __shared__ pk_attn_params p;

    const int tid = threadIdx.x;
    if (tid == 0) p = args;
    __syncthreads();
    const block_pos s = block_coords(p);
    const T *kb = (const T *)p.k + p.off[1] + s.b * p.ks[0] + s.kvh * p.ks[2];
    const T *vb = (const T *)p.v + p.off[2] + s.b * p.vs[0] + s.kvh * p.vs[2];

    for (int pr = s.tile * BM; pr < s.tile * BM + BM && pr < s.rows; pr++) {
        int lo, hi;
        row_window(p, s, pr, lo, hi);
        __syncthreads(); /* the previous row's reads of sqr are done */
        if (tid < D) {
            const bool in = pr % p.sq < s.lq;
            sqr[tid] = in ? pk_to_f32(((const T *)p.q)[row_offset(p, s, p.qs, p.off[0], pr) + tid * p.qs[3]]) *
                                p.qscale
                          : 0.0f;
        }
        float m = -PK_INF, l = 0.0f, acc = 0.0f;
        for (int n0 = lo <= hi ? lo : 1; n0 <= hi; n0 += NT) {
            __syncthreads();
            const int j = n0 + tid;
            float sc = -PK_INF;
            if (j <= hi) {
                sc = 0.0f;
                for (int c = 0; c < D; c++) sc = fmaf(sqr[c], pk_to_f32(kb[(int64_t)j * p.ks[1] + c * p.ks[3]]), sc);
            }
            sw[tid] = sc;
            __syncthreads();
            if (tid == 0) {
                float mt = -PK_INF;
                for (int x = 0; x < NT; x++) mt = nanmax(mt, sw[x]);
                red[0] = mt;
            }
            __syncthreads();
            const float mn = nanmax(m, red[0]);
            const float base = mn == -PK_INF ? 0.0f : mn;
            const float alpha = exp2f(m - base);
            __syncthreads();
            sw[tid] = exp2f(sc - base);
            __syncthreads();
            if (tid == 0) {
                float sum = 0.0f;
                for (int x = 0; x < NT; x++) sum += sw[x];
                red[1] = sum;
            }
            __syncthreads();
            l = l * alpha + red[1];
            m = mn;
            acc *= alpha;
            if (tid < D)
                for (int x = 0; x < NT && n0 + x <= hi; x++)
                    acc = fmaf(sw[x], pk_to_f32(vb[(int64_t)(n0 + x) * p.vs[1] + tid * p.vs[3]]), acc);
        }
        if (tid < D) write_elem<T, D>(p, s, pr, lo <= hi && l != 0.0f, m, l, tid, acc);
    }
}

} // namespace pk_attn
