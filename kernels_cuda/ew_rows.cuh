/* Row ops. rmsnorm, layernorm and softmax: blockDim.x threads per row
 * (1..512, a power of two) and blockDim.y rows per block; thread t owns
 * chunks t, t + tpr, ... of V values (V > 1: one 16-byte load). With C > 0
 * a thread keeps its C chunks in registers, so the row is read from global
 * memory once and all C loads of x (and residual) are in flight together;
 * C == 0 streams rows too long for that, re-reading them once per pass.
 * Outputs are written only in the last pass, each value by the thread that
 * read it, so out and residual_out may be exactly x or residual.
 *
 * glu and bias_act: one chunk per thread over a columns x rows grid, the
 * rows in a grid-stride loop (grid.y is bounded to 65535). */
#pragma once

#include "ew_common.cuh"

namespace pk_ew {

enum { OP_RMSNORM, OP_LAYERNORM, OP_SOFTMAX };

template <int OP, int DT, int V, int C> __device__ __forceinline__ void row_kernel(const pk_ew_rows_args &a)
{
    __shared__ float red[32];
    constexpr int K = C > 0 ? C : 1;
    const int64_t nchunk = a.cols / V, tpr = blockDim.x, tid = threadIdx.x;
    const float n = (float)a.cols;

    /* rows past the end still take part in the block's reductions */
    for (int64_t g = blockIdx.x; g * blockDim.y < a.rows; g += gridDim.x) {
        const int64_t r = g * blockDim.y + threadIdx.y;
        const bool live = r < a.rows;
        const row_idx ri = split_row(live ? r : 0, a.rows, a.lead1, a.lead2);
        const int64_t ox = row_off(a.x, ri), ores = row_off(a.res, ri), oro = row_off(a.res_out, ri),
                      oo = row_off(a.out, ri);

        /* calls f(k, j) for each chunk j this thread owns, k its register slot */
        auto each = [&](auto f) {
            if constexpr (C > 0) {
#pragma unroll
                for (int k = 0; k < C; k++) {
                    const int64_t j = tid + k * tpr;
                    if (live && j < nchunk) f(k, j);
                }
            } else {
                for (int64_t j = tid; live && j < nchunk; j += tpr) f(0, j);
            }
        };
        /* h = x (+ residual), or scale * x for softmax */
        auto load_h = [&](int64_t j, float(&h)[V]) {
            load_chunk<DT, V>(a.x, ox, j, h);
            if (OP == OP_SOFTMAX) {
#pragma unroll
                for (int i = 0; i < V; i++) h[i] *= a.scale;
            } else if (a.res.ptr) {
                float t[V];
                load_chunk<DT, V>(a.res, ores, j, t);
#pragma unroll
                for (int i = 0; i < V; i++) h[i] += t[i];
            }
        };
        /* a later pass: the registers, or the row again when streaming */
        auto reload = [&](int k, int64_t j, float(&h)[K][V]) {
            if constexpr (C == 0) load_h(j, h[0]);
        };
        /* the norms' outputs: residual_out gets h rounded (the norm used it
         * unrounded), out gets (h - mean) * inv * weight + bias */
        auto store_norm = [&](int64_t j, const float(&h)[V], float mean, float inv) {
            if (a.res_out.ptr) store_chunk<DT, V>(a.res_out, oro, j, h);
            float w[V], b[V], y[V];
            if (a.weight.ptr) load_chunk<DT, V>(a.weight, 0, j, w);
            if (a.bias.ptr) load_chunk<DT, V>(a.bias, 0, j, b);
#pragma unroll
            for (int i = 0; i < V; i++) {
                y[i] = (h[i] - mean) * inv;
                if (a.weight.ptr) y[i] *= w[i];
                if (a.bias.ptr) y[i] += b[i];
            }
            store_chunk<DT, V>(a.out, oo, j, y);
        };

        float h[K][V];
        if constexpr (OP == OP_RMSNORM) {
            float sum_sq = 0.0f;
            each([&](int k, int64_t j) {
                load_h(j, h[k]);
#pragma unroll
                for (int i = 0; i < V; i++) sum_sq += h[k][i] * h[k][i];
            });
            const float inv = 1.0f / sqrtf(row_reduce<op_sum>(sum_sq, red) / n + a.eps);
            each([&](int k, int64_t j) {
                reload(k, j, h);
                store_norm(j, h[k], 0.0f, inv);
            });
        } else if constexpr (OP == OP_LAYERNORM) {
            /* two passes (mean, then squares about it), as the reference */
            float sum = 0.0f, sum_sq = 0.0f;
            each([&](int k, int64_t j) {
                load_h(j, h[k]);
#pragma unroll
                for (int i = 0; i < V; i++) sum += h[k][i];
            });
            const float mean = row_reduce<op_sum>(sum, red) / n;
            each([&](int k, int64_t j) {
                reload(k, j, h);
#pragma unroll
                for (int i = 0; i < V; i++) sum_sq += (h[k][i] - mean) * (h[k][i] - mean);
            });
            const float inv = 1.0f / sqrtf(row_reduce<op_sum>(sum_sq, red) / n + a.eps);
            each([&](int k, int64_t j) {
                reload(k, j, h);
                store_norm(j, h[k], mean, inv);
            });
        } else {
            /* The max keeps NaN, so a max of -inf means the whole row is
             * -inf: it gives zeros (exp(-inf - 0) sums to 0, never 0/0). */
            float m = -INFINITY, sum = 0.0f;
            each([&](int k, int64_t j) {
                load_h(j, h[k]);
#pragma unroll
                for (int i = 0; i < V; i++) m = max_nan(m, h[k][i]);
            });
            m = row_reduce<op_max>(m, red);
            const bool all_neg_inf = m == -INFINITY;
            if (all_neg_inf) m = 0.0f;
            each([&](int k, int64_t j) {
                reload(k, j, h);
#pragma unroll
                for (int i = 0; i < V; i++) {
                    h[k][i] = expf(h[k][i] - m);
                    sum += h[k][i];
                }
            });
            sum = row_reduce<op_sum>(sum, red);
            each([&](int k, int64_t j) {
                if constexpr (C == 0) {
                    load_h(j, h[0]);
#pragma unroll
                    for (int i = 0; i < V; i++) h[0][i] = expf(h[0][i] - m);
                }
                float y[V];
#pragma unroll
                for (int i = 0; i < V; i++) y[i] = all_neg_inf ? 0.0f : h[k][i] / sum;
                store_chunk<DT, V>(a.out, oo, j, y);
            });
        }
    }
}

enum { OP_GLU, OP_BIAS_ACT };

/* x is read before out is written: out may be exactly x (bias_act). */
template <int OP, int DT, int V> __device__ __forceinline__ void ew_kernel(const pk_ew_rows_args &a)
{
    const int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (j >= a.cols / V) return;
    float b[V];
    if (OP == OP_BIAS_ACT && a.bias.ptr) load_chunk<DT, V>(a.bias, 0, j, b);
    for (int64_t r = blockIdx.y * (int64_t)blockDim.y + threadIdx.y; r < a.rows;
         r += (int64_t)gridDim.y * blockDim.y) {
        const row_idx ri = split_row(r, a.rows, a.lead1, a.lead2);
        float x[V];
        load_chunk<DT, V>(a.x, row_off(a.x, ri), j, x);
        if constexpr (OP == OP_GLU) {
            float up[V];
            load_chunk<DT, V>(a.up, row_off(a.up, ri), j, up);
            act_all(a.act, x);
#pragma unroll
            for (int i = 0; i < V; i++) x[i] *= up[i];
        } else {
            if (a.bias.ptr) {
#pragma unroll
                for (int i = 0; i < V; i++) x[i] += b[i];
            }
            act_all(a.act, x);
        }
        store_chunk<DT, V>(a.out, row_off(a.out, ri), j, x);
    }
}

} // namespace pk_ew
