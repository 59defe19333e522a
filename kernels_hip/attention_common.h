/* What every HIP attention kernel shares: the argument block, the row
 * mapping and the per-row key windows. The same contract as the CUDA
 * backend's kernels (kernels_cuda/attention_common.cuh), device code of
 * our own.
 *
 * Rows. A block owns one kv head (b, kvh), one chunk of the key range
 * (split) and one tile of the rows that share that kv head: the sq queries
 * of each of the hq / hkv heads of the group, packed head-major (packed row
 * pr -> head g = pr / sq of the group, query i = pr % sq), so that decode
 * reads K and V once for a GQA group.
 * Grid: (b * hkv + kvh, split, row tile counted from the end, so that the
 * row tiles that see the most keys under a causal mask start first).
 *
 * Output. One pass (n_splits == 1) writes normalised O and the LSE. Split
 * KV writes, per packed row and chunk, an unnormalised accumulator and its
 * (m, l) in base 2 to part, which pk_attn_merge combines:
 *   slot = ((b * hq + h) * sq + i) * n_splits + split
 *   part[2 slot], part[2 slot + 1]          = m, l
 *   part[acc_off + slot * D + c]            = acc, acc_off = 2 * rows * n_splits
 * with rows = batch * hq * sq. */
#pragma once

#include "../kernels_gpu/gpu_common.h"

#include "../kernels_gpu/attn_abi.h" /* pk_attn_params */

namespace pk_attn {

#define PK_NEG_INF (-PK_INF)
constexpr float ln2 = 0.693147180559945309f;

/* NaN wins, as in the reference (fmaxf would drop it). */
__device__ __forceinline__ float nanmax(float a, float b) { return (a > b || a != a) ? a : b; }

/* The block's coordinates and the lengths of its batch. */
struct block_pos {
    int b, kvh, split, tile, group, rows, lq, lkv, c0, c1;
};

__device__ __forceinline__ block_pos block_coords(const pk_attn_params &p)
{
    block_pos s;
    s.b = blockIdx.x / p.hkv;
    s.kvh = blockIdx.x % p.hkv;
    s.split = blockIdx.y;
    s.tile = gridDim.z - 1 - blockIdx.z;
    s.group = p.hq / p.hkv;
    s.rows = s.group * p.sq;
    s.lq = p.lens ? p.lens[s.b] : p.sq;
    s.lkv = p.lens ? p.lens[p.batch + s.b] : p.skv;
    s.c0 = s.split * p.chunk;
    s.c1 = min(s.c0 + p.chunk, s.lkv);
    return s;
}

/* Keys [lo, hi] that packed row pr sees inside the block's chunk (the
 * mask is aligned bottom-right); lo > hi when none, or when pr is no query
 * row (past the group or past len_q). */
__device__ __forceinline__ void row_window(const pk_attn_params &p, const block_pos &s, int pr, int &lo, int &hi)
{
    const int i = pr % p.sq;
    const int64_t pos = (int64_t)i + s.lkv - s.lq;
    int64_t a = s.c0, z = (int64_t)s.c1 - 1;
    if (p.wl >= 0 && pos - p.wl > a) a = pos - p.wl;
    if (p.wr >= 0 && pos + p.wr < z) z = pos + p.wr;
    if (pr >= s.rows || i >= s.lq || a > z) {
        a = 1;
        z = 0;
    }
    lo = (int)a;
    hi = (int)z;
}

/* Element offset of packed row pr's query (or output) row. */
__device__ __forceinline__ int64_t row_offset(const pk_attn_params &p, const block_pos &s, const int64_t *st,
                                              int64_t off, int pr)
{
    const int g = pr / p.sq, i = pr % p.sq;
    return off + s.b * st[0] + (int64_t)i * st[1] + (int64_t)(s.kvh * s.group + g) * st[2];
}

/* Writes column c of packed row pr: acc is the unnormalised sum, m the
 * base-2 max and l the sum of weights. live is false for a row that sees
 * no key (or is no query row): zeros and -inf then. */
template <typename T, int D>
__device__ __forceinline__ void write_elem(const pk_attn_params &p, const block_pos &s, int pr, bool live, float m,
                                           float l, int c, float acc)
{
    const int g = pr / p.sq, i = pr % p.sq;
    const int h = s.kvh * s.group + g;
    if (p.n_splits == 1) {
        T *o = (T *)p.o;
        o[row_offset(p, s, p.os, p.off[3], pr) + c * p.os[3]] = pk_from_f32<T>(live ? acc / l : 0.0f);
        if (p.lse && c == 0)
            p.lse[p.off[4] + s.b * p.ls[0] + h * p.ls[1] + (int64_t)i * p.ls[2]] =
                live ? (m + log2f(l)) * ln2 : PK_NEG_INF;
    } else {
        const int64_t slot = ((int64_t)(s.b * p.hq + h) * p.sq + i) * p.n_splits + s.split;
        const int64_t acc_off = 2 * (int64_t)p.batch * p.hq * p.sq * p.n_splits;
        /* an empty chunk must contribute exactly 0, even beside a NaN V */
        p.part[acc_off + slot * D + c] = live ? acc : 0.0f;
        if (c == 0) {
            p.part[2 * slot] = live ? m : PK_NEG_INF;
            p.part[2 * slot + 1] = live ? l : 0.0f;
        }
    }
}

/* o = sum_s w_s acc_s / sum_s w_s l_s with w_s = exp2(m_s - max m), in
 * split order (no atomics: the same bits every run); lse in natural log.
 * A row whose chunks are all empty gets zeros and -inf. One thread per
 * output element; rows = (b * hq + h) * sq + i. */
template <int DT> __device__ __forceinline__ void merge(const pk_attn_params &p, int d)
{
    typedef PK_T(DT) T;
    const int64_t n_rows = (int64_t)p.batch * p.hq * p.sq;
    const int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= n_rows * d) return;
    const int64_t row = x / d;
    const int c = (int)(x % d);
    const float *ml = p.part + row * p.n_splits * 2;
    const float *acc = p.part + 2 * n_rows * p.n_splits + row * p.n_splits * d + c;

    float big = PK_NEG_INF;
    for (int s = 0; s < p.n_splits; s++) big = nanmax(big, ml[2 * s]);
    float sum = 0.0f, out = 0.0f;
    if (big != PK_NEG_INF) {
        for (int s = 0; s < p.n_splits; s++) {
            const float w = exp2f(ml[2 * s] - big);
            sum += w * ml[2 * s + 1];
            out += w * acc[(int64_t)s * d];
        }
        out /= sum;
    }
    const int i = (int)(row % p.sq), h = (int)(row / p.sq % p.hq);
    const int64_t b = row / p.sq / p.hq;
    T *o = (T *)p.o;
    o[p.off[3] + b * p.os[0] + i * p.os[1] + h * p.os[2] + c * p.os[3]] = pk_from_f32<T>(out);
    if (p.lse && c == 0)
        p.lse[p.off[4] + b * p.ls[0] + h * p.ls[1] + i * p.ls[2]] = big == PK_NEG_INF ? PK_NEG_INF : (big + log2f(sum)) * ln2;
}

} // namespace pk_attn
