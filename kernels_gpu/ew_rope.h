/* Rotary embedding, in place on q and k in one launch. A thread owns one
 * rotation pair i of one token and walks a share of that token's heads (q
 * heads first, then k heads), so cos and sin are computed once per (token,
 * pair) and reused; neighbouring threads take neighbouring pairs, so their
 * accesses are contiguous. The inverse frequencies are the caller's
 * device table, or else come from the host, computed exactly as the f32
 * reference does. */
#ifndef PK_KERNELS_GPU_EW_ROPE_H
#define PK_KERNELS_GPU_EW_ROPE_H

#include "ew_common.h"

namespace pk_ew {

template <typename T>
__device__ __forceinline__ void rope_pair(T *p, int64_t c0, int64_t c1, float cs, float sn)
{
    const float x0 = pk_to_f32(p[c0]), x1 = pk_to_f32(p[c1]);
    p[c0] = pk_from_f32<T>(x0 * cs - x1 * sn);
    p[c1] = pk_from_f32<T>(x0 * sn + x1 * cs);
}

template <int DT> __device__ __forceinline__ void rope_kernel(const pk_ew_rope_args &a)
{
    typedef PK_T(DT) T;
    const int32_t *pos = reinterpret_cast<const int32_t *>(a.tab_pos);
    const float *inv_freq = reinterpret_cast<const float *>(a.tab_freq);
    const int64_t items = a.tokens * a.share * a.half, heads = a.hq + a.hk;
    for (int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; idx < items;
         idx += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = idx % a.half, t = idx / a.half;
        const int64_t first_head = t % a.share, token = t / a.share;
        const int64_t b = token / a.seq, s = token % a.seq;
        float sn, cs;
        sincosf((float)pos[token] * inv_freq[i * a.freq_stride], &sn, &cs);
        const int64_t c0 = a.interleaved ? 2 * i : i, c1 = a.interleaved ? 2 * i + 1 : i + a.half;
        for (int64_t h = first_head; h < heads; h += a.share) {
            const bool is_q = h < a.hq;
            const pk_ew_view &v = is_q ? a.q : a.k;
            T *p = reinterpret_cast<T *>(v.ptr) + b * v.stride[0] + s * v.stride[1] +
                   (is_q ? h : h - a.hq) * v.stride[2];
            rope_pair(p, c0 * v.stride[3], c1 * v.stride[3], cs, sn);
        }
    }
}

} // namespace pk_ew

#endif /* PK_KERNELS_GPU_EW_ROPE_H */
