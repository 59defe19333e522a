/* Portable attention on the vector ALUs: any dtype (f32 included), any
 * strides, any wave size. A block owns BM packed rows with TPR adjacent
 * threads per row (one wave holds whole rows, so a row's max and sum meet
 * in xor shuffles of width TPR), and keeps Q (times scale * log2 e), one
 * K tile and one V tile of BN keys in LDS as f32, rows padded by one float
 * against bank conflicts. Thread (r, t) scores keys t + TPR u of a tile
 * and accumulates output columns t + TPR c; the weights of a tile pass
 * through LDS so that every thread of the row sees all of them. Online
 * softmax in base 2. Rows, grid and outputs: attn_common.h.
 * Static LDS stays under 48 KiB (NVIDIA's limit without opt-in). */
#pragma once

#include "../kernels_gpu/attn_common.h"
#include "attention_tiles.h"

namespace pk_attn {

/* Prefill: the widest row tile that fits; rows16: decode and other shapes
 * with at most 16 rows per kv head (attention_tiles.h, which the plan
 * reads too). */
template <int D, bool ROWS16> struct tiled_cfg {
    static constexpr int BM = PK_HIP_ATTN_TILED_BM(D, ROWS16);
    static constexpr int TPR = PK_HIP_ATTN_TILED_TPR(D, ROWS16);
    static constexpr int BN = PK_HIP_ATTN_TILED_BN(D, ROWS16);
    static constexpr int NT = BM * TPR;
    static constexpr int KPT = (BN + TPR - 1) / TPR; /* keys per thread in a tile */
    static constexpr int DPT = (D + TPR - 1) / TPR;  /* output columns per thread */
    static constexpr int LDQ = D + 1, LDP = BN + 1;
    static constexpr int LDS = 4 * (BM * LDQ + 2 * BN * LDQ + BM * LDP + 2 * BM);
    static_assert(LDS <= 48 * 1024, "tiled attention must fit NVIDIA's static shared memory");
};

/* x reduced over the TPR lanes of a row (a fixed tree: the same bits in
 * every lane, every run) */
template <int TPR> __device__ __forceinline__ float row_max(float x)
{
#pragma unroll
    for (int off = TPR / 2; off > 0; off >>= 1) x = nanmax(x, __shfl_xor(x, off, TPR));
    return x;
}
template <int TPR> __device__ __forceinline__ float row_sum(float x)
{
#pragma unroll
    for (int off = TPR / 2; off > 0; off >>= 1) x += __shfl_xor(x, off, TPR);
    return x;
}

template <int DT, int D, bool ROWS16> __device__ __forceinline__ void tiled_attention(const pk_attn_params &args)
{
    typedef PK_T(DT) T;
    typedef tiled_cfg<D, ROWS16> C;
    constexpr int BM = C::BM, BN = C::BN, TPR = C::TPR, NT = C::NT, LDQ = C::LDQ, LDP = C::LDP;
    __shared__ float sq[BM * LDQ], sk[BN * LDQ], sv[BN * LDQ], sp[BM * LDP];
    __shared__ int s_lo[BM], s_hi[BM];
    /* The 304 bytes of arguments are read from LDS: in scalar registers
     * they would take most of an AMD wave's ~100. */
    __shared__ pk_attn_params p;

    const int tid = threadIdx.x, r = tid / TPR, t = tid % TPR;
    if (tid == 0) p = args;
    __syncthreads();
    const block_pos s = block_coords(p);
    const int row0 = s.tile * BM;

    const T *q = (const T *)p.q;
    for (int x = tid; x < BM * D; x += NT) {
        const int i = x / D, c = x % D, pr = row0 + i;
        const bool in = pr < s.rows && pr % p.sq < s.lq;
        sq[i * LDQ + c] = in ? pk_to_f32(q[row_offset(p, s, p.qs, p.off[0], pr) + c * p.qs[3]]) * p.qscale : 0.0f;
    }
    if (tid < BM) row_window(p, s, row0 + tid, s_lo[tid], s_hi[tid]);
    __syncthreads();

    /* the keys any row of the block sees: the tile loop is block-uniform,
     * so every lane reaches every shuffle */
    int lo_min = 0x7fffffff, hi_max = -1;
    /* unrolled 8 at a time: 64 rows at once kept 64 compare masks in
     * scalar register pairs, which spilled */
#pragma unroll 8
    for (int i = 0; i < BM; i++) {
        const int lo = s_lo[i], hi = s_hi[i];
        lo_min = min(lo_min, lo <= hi ? lo : 0x7fffffff);
        hi_max = max(hi_max, lo <= hi ? hi : -1);
    }
    const int my_lo = s_lo[r], my_hi = s_hi[r];
    const T *kb = (const T *)p.k + p.off[1] + s.b * p.ks[0] + s.kvh * p.ks[2];
    const T *vb = (const T *)p.v + p.off[2] + s.b * p.vs[0] + s.kvh * p.vs[2];

    float acc[C::DPT], m = -PK_INF, l = 0.0f;
#pragma unroll
    for (int c = 0; c < C::DPT; c++) acc[c] = 0.0f;

    for (int n0 = hi_max < 0 ? 1 : lo_min / BN * BN; n0 <= hi_max; n0 += BN) {
        for (int x = tid; x < BN * D; x += NT) {
            const int j = x / D, c = x % D;
            const bool in = n0 + j < s.lkv;
            sk[j * LDQ + c] = in ? pk_to_f32(kb[(int64_t)(n0 + j) * p.ks[1] + c * p.ks[3]]) : 0.0f;
            sv[j * LDQ + c] = in ? pk_to_f32(vb[(int64_t)(n0 + j) * p.vs[1] + c * p.vs[3]]) : 0.0f;
        }
        __syncthreads();

        float sc[C::KPT];
#pragma unroll
        for (int u = 0; u < C::KPT; u++) sc[u] = 0.0f;
        for (int c = 0; c < D; c++) {
            const float qv = sq[r * LDQ + c];
#pragma unroll
            for (int u = 0; u < C::KPT; u++)
                if (t + TPR * u < BN) sc[u] = fmaf(qv, sk[(t + TPR * u) * LDQ + c], sc[u]);
        }
        float mt = -PK_INF;
#pragma unroll
        for (int u = 0; u < C::KPT; u++) {
            const int j = n0 + t + TPR * u;
            if (t + TPR * u >= BN || j < my_lo || j > my_hi) sc[u] = -PK_INF;
            mt = nanmax(mt, sc[u]);
        }
        const float mn = nanmax(m, row_max<TPR>(mt));
        /* no visible key yet: subtract 0, not -inf (-inf - -inf is NaN) */
        const float base = mn == -PK_INF ? 0.0f : mn;
        const float alpha = exp2f(m - base);
        float psum = 0.0f;
#pragma unroll
        for (int u = 0; u < C::KPT; u++) {
            const float w = exp2f(sc[u] - base);
            psum += w;
            if (t + TPR * u < BN) sp[r * LDP + t + TPR * u] = w;
        }
        l = l * alpha + row_sum<TPR>(psum);
        m = mn;
#pragma unroll
        for (int c = 0; c < C::DPT; c++) acc[c] *= alpha;
        __syncthreads();

        /* a masked key must not touch the output even when its V is NaN */
        for (int j = 0; j < BN; j++) {
            if (n0 + j < my_lo || n0 + j > my_hi) continue;
            const float w = sp[r * LDP + j];
#pragma unroll
            for (int c = 0; c < C::DPT; c++)
                if (t + TPR * c < D) acc[c] = fmaf(w, sv[j * LDQ + t + TPR * c], acc[c]);
        }
        __syncthreads();
    }

    const int pr = row0 + r;
    if (pr >= s.rows) return;
    const bool live = my_lo <= my_hi && l != 0.0f;
#pragma unroll
    for (int c = 0; c < C::DPT; c++)
        if (t + TPR * c < D) write_elem<T, D>(p, s, pr, live, m, l, t + TPR * c, acc[c]);
}

} // namespace pk_attn
