/* General attention on the CUDA cores: any dtype (f32 included), any
 * strides. The same algorithm as kernels_cl/attention_prefill.cl: a block
 * owns BM packed rows with TPR threads per row, keeps Q (pre-multiplied by
 * scale * log2 e) and one K-or-V tile of BN keys in shared memory as f32
 * with rows padded by one float, and runs the online softmax. Thread
 * (r, t) owns keys t + TPR u of a tile for the scores and output columns
 * t + TPR k for P V. Same rows, grid and outputs as the tensor-core kernel
 * (kernels_gpu/attn_common.h). */
#pragma once

#include "../kernels_gpu/attn_common.h"
#include "attention_tiles.h"

namespace pk_attn {

template <int D> struct simt_cfg {
    static constexpr int BM = PK_CU_ATTN_SIMT_BM(D);
    static constexpr int BN = PK_CU_ATTN_SIMT_BN(D);
    static constexpr int TPR = PK_CU_ATTN_SIMT_TPR(D);
    static constexpr int NT = BM * TPR;
    static constexpr int KPT = (BN + TPR - 1) / TPR; /* keys per thread in a tile */
    static constexpr int DPT = (D + TPR - 1) / TPR;  /* output columns per thread */
    static constexpr int QLD = D + 1, PLD = BN + 1;
};

template <int DT, int D> __device__ __forceinline__ void simt_attention(const pk_attn_params &p)
{
    typedef PK_T(DT) T;
    typedef simt_cfg<D> C;
    constexpr int BM = C::BM, BN = C::BN, TPR = C::TPR, QLD = C::QLD, PLD = C::PLD;
    __shared__ float sq[BM * QLD], skv[BN * QLD], sp[BM * PLD], red[BM * TPR];
    __shared__ int s_lo[BM], s_hi[BM];

    const int tid = threadIdx.x, r = tid / TPR, t = tid % TPR;
    const block_pos s = block_coords(p);
    const int row0 = s.tile * BM;

    const T *q = (const T *)p.q;
    for (int x = tid; x < BM * D; x += C::NT) {
        int i = x / D, c = x % D, pr = row0 + i;
        bool in = pr < s.rows && pr % p.sq < s.lq;
        sq[i * QLD + c] = in ? pk_to_f32(q[row_offset(p, s, p.qs, p.off[0], pr) + c * p.qs[3]]) * p.qscale : 0.0f;
    }
    if (tid < BM) row_window(p, s, row0 + tid, s_lo[tid], s_hi[tid]);
    __syncthreads();

    int lo_min = INT_MAX, hi_max = -1, lo_max = INT_MIN, hi_min = INT_MAX;
    for (int i = 0; i < BM; i++) {
        int a = s_lo[i], z = s_hi[i];
        if (a > z) continue;
        lo_min = min(lo_min, a);
        hi_max = max(hi_max, z);
        lo_max = max(lo_max, a);
        hi_min = min(hi_min, z);
    }
    const int my_lo = s_lo[r], my_hi = s_hi[r];
    const T *kb = (const T *)p.k + p.off[1] + s.b * p.ks[0] + s.kvh * p.ks[2];
    const T *vb = (const T *)p.v + p.off[2] + s.b * p.vs[0] + s.kvh * p.vs[2];

    float acc[C::DPT], m = -PK_INF, l = 0.0f;
    for (int k = 0; k < C::DPT; k++) acc[k] = 0.0f;

    for (int n0 = hi_max < 0 ? 1 : lo_min / BN * BN; n0 <= hi_max; n0 += BN) {
        for (int x = tid; x < BN * D; x += C::NT) {
            int j = x / D, c = x % D;
            skv[j * QLD + c] = n0 + j < s.lkv ? pk_to_f32(kb[(int64_t)(n0 + j) * p.ks[1] + c * p.ks[3]]) : 0.0f;
        }
        __syncthreads();

        float sc[C::KPT];
        for (int u = 0; u < C::KPT; u++) sc[u] = 0.0f;
        for (int c = 0; c < D; c++) {
            float qv = sq[r * QLD + c];
            for (int u = 0; u < C::KPT; u++) {
                int j = t + TPR * u;
                if (j < BN) sc[u] += qv * skv[j * QLD + c];
            }
        }
        float mt = -PK_INF;
        for (int u = 0; u < C::KPT; u++) {
            int j = n0 + t + TPR * u;
            sc[u] = t + TPR * u < BN && j >= my_lo && j <= my_hi ? sc[u] : -PK_INF;
            mt = nanmax(mt, sc[u]);
        }
        red[r * TPR + t] = mt;
        __syncthreads();

        float mn = m;
        for (int x = 0; x < TPR; x++) mn = nanmax(mn, red[r * TPR + x]);
        /* no visible key yet: subtract 0, not -inf (-inf - -inf is NaN) */
        float base = mn == -PK_INF ? 0.0f : mn;
        float alpha = exp2f(m - base);
        for (int u = 0; u < C::KPT; u++)
            if (t + TPR * u < BN) sp[r * PLD + t + TPR * u] = exp2f(sc[u] - base);
        m = mn;
        for (int x = tid; x < BN * D; x += C::NT) {
            int j = x / D, c = x % D;
            skv[j * QLD + c] = n0 + j < s.lkv ? pk_to_f32(vb[(int64_t)(n0 + j) * p.vs[1] + c * p.vs[3]]) : 0.0f;
        }
        __syncthreads();

        l *= alpha;
        for (int k = 0; k < C::DPT; k++) acc[k] *= alpha;
        /* a masked key must not touch the output even when its V is NaN */
        bool inside = n0 >= lo_max && n0 + BN - 1 <= hi_min;
        for (int j = 0; j < BN; j++) {
            if (!inside && (n0 + j < my_lo || n0 + j > my_hi)) continue;
            float w = sp[r * PLD + j];
            l += w;
            for (int k = 0; k < C::DPT; k++) {
                int c = t + TPR * k;
                if (c < D) acc[k] += w * skv[j * QLD + c];
            }
        }
        __syncthreads();
    }

    int pr = row0 + r;
    if (pr >= s.rows) return;
    bool live = my_lo <= my_hi && l != 0.0f;
    for (int k = 0; k < C::DPT; k++) {
        int c = t + TPR * k;
        if (c < D) write_elem<T, D>(p, s, pr, live, m, l, c, acc[k]);
    }
}

} // namespace pk_attn
