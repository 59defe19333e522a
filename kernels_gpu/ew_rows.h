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
 * rows in a grid-stride loop of EW_U rows a step (grid.y is bounded to
 * 65535).
 *
 * The same sums in the same order per wave on every target; red is sized
 * for the most waves a 512-thread block can have. */
#ifndef PK_KERNELS_GPU_EW_ROWS_H
#define PK_KERNELS_GPU_EW_ROWS_H

#include "ew_common.h"

namespace pk_ew {

enum { OP_RMSNORM, OP_LAYERNORM, OP_SOFTMAX };

template <int OP, int DT, int V, int C> __device__ __forceinline__ void row_kernel(const pk_ew_rows_args &args)
{
    const pk_ew_rows_args &a = pk_fresh_args(args);
    __shared__ float red[512 / PK_WAVE_MIN];
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
            float m = -PK_INF, sum = 0.0f;
            each([&](int k, int64_t j) {
                load_h(j, h[k]);
#pragma unroll
                for (int i = 0; i < V; i++) m = max_nan(m, h[k][i]);
            });
            m = row_reduce<op_max>(m, red);
            const bool all_neg_inf = m == -PK_INF;
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

/* rmsnorm on the vector path with the row in registers (V values of 16
 * bytes per chunk, C > 0 chunks per thread), as row_kernel computes it
 * (same sums in the same order, same outputs) but pipelined for a grid of
 * about one wave of blocks that each walk many rows: the loads of x and
 * residual for the block's next rows are issued, as raw 16-byte
 * registers, before this row's reduction and stores, so every block
 * always has a row's worth of loads in flight. weight is read into
 * registers once per block. x and residual are read and the outputs
 * written with streaming accesses (each byte is touched once); a
 * thread reads a row's chunks before it writes the same chunks, and the
 * next rows it prefetches are other rows, so out == x and residual_out ==
 * residual stay correct. */
template <int DT, int V, int C> __device__ __forceinline__ void rmsnorm_vec_kernel(const pk_ew_rows_args &a)
{
    typedef PK_T(DT) T;
    static_assert(V * sizeof(T) == 16 && C > 0, "vector path, row in registers");
    __shared__ float red[512 / PK_WAVE_MIN];
    /* the row fits in tpr * C <= 512 * C chunks: 32-bit indices */
    const int nchunk = (int)(a.cols / V), tpr = blockDim.x, tid = threadIdx.x;
    const float n = (float)a.cols;
    const bool has_res = a.res.ptr != 0, has_w = a.weight.ptr != 0;

    uint4 w[C];
#pragma unroll
    for (int k = 0; k < C; k++) {
        const int j = tid + k * tpr;
        w[k] = has_w && j < nchunk ? __ldg(reinterpret_cast<const uint4 *>(a.weight.ptr) + j) : make_uint4(0, 0, 0, 0);
    }

    uint4 xr[C], rr[C];
    /* issues the loads of this thread's chunks of group g's row */
    auto fetch = [&](int64_t g) {
        const int64_t r = g * blockDim.y + threadIdx.y;
        if (r >= a.rows) return;
        const row_idx ri = split_row(r, a.rows, a.lead1, a.lead2);
        const T *px = reinterpret_cast<const T *>(a.x.ptr) + row_off(a.x, ri);
        const T *pr = reinterpret_cast<const T *>(a.res.ptr) + row_off(a.res, ri);
#pragma unroll
        for (int k = 0; k < C; k++) {
            const int j = tid + k * tpr;
            if (j < nchunk) {
                xr[k] = ld_stream(px + j * V);
                if (has_res) rr[k] = ld_stream(pr + j * V);
            }
        }
    };

    int64_t g = blockIdx.x;
    fetch(g);
    /* rows past the end still take part in the block's reductions */
    for (; g * blockDim.y < a.rows; g += gridDim.x) {
        const int64_t r = g * blockDim.y + threadIdx.y;
        const bool live = r < a.rows;
        float h[C][V];
        float sum_sq = 0.0f;
#pragma unroll
        for (int k = 0; k < C; k++) {
            const int j = tid + k * tpr;
            if (live && j < nchunk) {
                unpack16<T, V>(xr[k], h[k]);
                if (has_res) {
                    float t[V];
                    unpack16<T, V>(rr[k], t);
#pragma unroll
                    for (int i = 0; i < V; i++) h[k][i] += t[i];
                }
#pragma unroll
                for (int i = 0; i < V; i++) sum_sq += h[k][i] * h[k][i];
            }
        }
        fetch(g + gridDim.x);
        const float inv = 1.0f / sqrtf(row_reduce<op_sum>(sum_sq, red) / n + a.eps);
        if (!live) continue;
        const row_idx ri = split_row(r, a.rows, a.lead1, a.lead2);
        T *po = reinterpret_cast<T *>(a.out.ptr) + row_off(a.out, ri);
        T *pro = reinterpret_cast<T *>(a.res_out.ptr) + row_off(a.res_out, ri);
#pragma unroll
        for (int k = 0; k < C; k++) {
            const int j = tid + k * tpr;
            if (j < nchunk) {
                if (a.res_out.ptr) st_stream(pro + j * V, pack16<T, V>(h[k]));
                float y[V], wv[V], b[V];
                unpack16<T, V>(w[k], wv);
                if (a.bias.ptr) load_chunk<DT, V>(a.bias, 0, j, b);
#pragma unroll
                for (int i = 0; i < V; i++) {
                    y[i] = (h[k][i] - 0.0f) * inv;
                    if (has_w) y[i] *= wv[i];
                    if (a.bias.ptr) y[i] += b[i];
                }
                st_stream(po + j * V, pack16<T, V>(y));
            }
        }
    }
}

enum { OP_GLU, OP_BIAS_ACT };

/* silu for 16-bit outputs on NVIDIA: __expf and a one-ulp reciprocal
 * (rcp.approx, not ftz, so a sum near FLT_MAX still gives a tiny, not
 * zero, result) are within ~1e-6 relative of the exact form, far below a
 * 16-bit ulp. f32 outputs, every other activation, and AMD keep pk_act's
 * exact form. */
#if !PK_HIP_AMD
__device__ __forceinline__ float silu_fast(float x)
{
    float r;
    asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(1.0f + __expf(-x)));
    return x * r;
}
#endif

template <int DT, int N> __device__ __forceinline__ void act_out(int act, float (&v)[N])
{
#if !PK_HIP_AMD
    if (DT != 0 && act == 4) {
#pragma unroll
        for (int i = 0; i < N; i++) v[i] = silu_fast(v[i]);
        return;
    }
#endif
    act_all(act, v);
}

/* Each thread owns chunk j of EW_U rows per step: rows r, r + S, ..,
 * r + (EW_U - 1) S with S = gridDim.y * blockDim.y, then r += EW_U * S;
 * all their loads are issued before the first store, so a thread has
 * EW_U (glu: 2 EW_U) 16-byte loads in flight. The vector path reads and
 * writes with streaming accesses (each byte once). Each value
 * is read before the same thread writes it: out may be exactly x
 * (bias_act) or gate/up (glu). */
#define EW_U 4
template <int OP, int DT, int V> __device__ __forceinline__ void ew_kernel(const pk_ew_rows_args &a)
{
    typedef PK_T(DT) T;
    constexpr bool VEC = V > 1; /* then V values are 16 bytes */
    const int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (j >= a.cols / V) return;
    float b[V];
    if (OP == OP_BIAS_ACT && a.bias.ptr) load_chunk<DT, V>(a.bias, 0, j, b);
    const int64_t step = (int64_t)gridDim.y * blockDim.y;
    for (int64_t r0 = blockIdx.y * (int64_t)blockDim.y + threadIdx.y; r0 < a.rows; r0 += EW_U * step) {
        /* raw 16-byte registers on the vector path, values on the other */
        float x[EW_U][VEC ? 1 : V], up[EW_U][VEC ? 1 : V];
        uint4 xr[EW_U], ur[EW_U];
        int64_t oo[EW_U];
#pragma unroll
        for (int u = 0; u < EW_U; u++) {
            const int64_t r = r0 + u * step;
            if (r >= a.rows) break;
            const row_idx ri = split_row(r, a.rows, a.lead1, a.lead2);
            oo[u] = row_off(a.out, ri);
            if constexpr (VEC) {
                xr[u] = ld_stream(reinterpret_cast<const T *>(a.x.ptr) + row_off(a.x, ri) + j * V);
                if (OP == OP_GLU) ur[u] = ld_stream(reinterpret_cast<const T *>(a.up.ptr) + row_off(a.up, ri) + j * V);
            } else {
                load_chunk<DT, V>(a.x, row_off(a.x, ri), j, x[u]);
                if (OP == OP_GLU) load_chunk<DT, V>(a.up, row_off(a.up, ri), j, up[u]);
            }
        }
#pragma unroll
        for (int u = 0; u < EW_U; u++) {
            if (r0 + u * step >= a.rows) break;
            float xv[V], uv[V];
            if constexpr (VEC) {
                unpack16<T, V>(xr[u], xv);
                if (OP == OP_GLU) unpack16<T, V>(ur[u], uv);
            } else {
                xv[0] = x[u][0];
                uv[0] = up[u][0];
            }
            if constexpr (OP == OP_GLU) {
                act_out<DT>(a.act, xv);
#pragma unroll
                for (int i = 0; i < V; i++) xv[i] *= uv[i];
            } else {
                if (a.bias.ptr) {
#pragma unroll
                    for (int i = 0; i < V; i++) xv[i] += b[i];
                }
                act_all(a.act, xv);
            }
            if constexpr (VEC) st_stream(reinterpret_cast<T *>(a.out.ptr) + oo[u] + j * V, pack16<T, V>(xv));
            else store_chunk<DT, V>(a.out, oo[u], j, xv);
        }
    }
}

} // namespace pk_ew

#endif /* PK_KERNELS_GPU_EW_ROWS_H */
