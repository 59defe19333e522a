/* The matrix-core attention kernels' entry points where their matrix cores
 * are missing (attention.hip builds it under their names; the plan picks
 * them only where the cores are): correct under the same launch (BM rows a
 * block, NT threads) but slow. The block takes its rows one at a time:
 * thread j scores key n0 + j of a tile of NT keys, thread c accumulates
 * output columns c, c + NT, ...; max and sum in a fixed order through LDS. */
#pragma once

#include "../kernels_gpu/attn_common.h"

namespace pk_attn {

template <int DT, int D, int BM, int NT> __device__ __forceinline__ void matrix_attention_portable(const pk_attn_params &args)
{
    typedef PK_T(DT) T;
    constexpr int CPT = (D + NT - 1) / NT; /* output columns a thread */
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
        const bool in = pr % p.sq < s.lq;
        for (int c = tid; c < D; c += NT)
            sqr[c] = in ? pk_to_f32(((const T *)p.q)[row_offset(p, s, p.qs, p.off[0], pr) + c * p.qs[3]]) * p.qscale
                        : 0.0f;
        float m = -PK_INF, l = 0.0f, acc[CPT] = {};
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
#pragma unroll
            for (int u = 0; u < CPT; u++) {
                const int c = tid + NT * u;
                acc[u] *= alpha;
                if (c < D)
                    for (int x = 0; x < NT && n0 + x <= hi; x++)
                        acc[u] = fmaf(sw[x], pk_to_f32(vb[(int64_t)(n0 + x) * p.vs[1] + c * p.vs[3]]), acc[u]);
            }
        }
#pragma unroll
        for (int u = 0; u < CPT; u++)
            if (tid + NT * u < D) write_elem<T, D>(p, s, pr, lo <= hi && l != 0.0f, m, l, tid + NT * u, acc[u]);
    }
}

} // namespace pk_attn
