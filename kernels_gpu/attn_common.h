/* What the attention kernels of CUDA and HIP share: the argument block, the
 * launch order, the row mapping, the per-row key windows, the outputs and
 * the merge of the split partials.
 *
 * Rows. A block owns one kv head (b, kvh), one chunk of the key range
 * (split) and one tile of the rows that share that kv head: the sq queries
 * of each of the hq / hkv heads of the group, packed head-major (packed row
 * pr -> head g = pr / sq of the group, query i = pr % sq), so that decode
 * packs the few queries of a GQA group into one matrix tile and reads K
 * and V once for the group; prefill takes the same path.
 * Grid: (b * hkv + kvh, split, row tile) in size; block_coords maps the
 * launch order onto them.
 *
 * Output. One pass (n_splits == 1) writes normalised O and the LSE. Split
 * KV writes, per packed row and chunk, an unnormalised accumulator and its
 * (m, l) in base 2 to part, which merge combines:
 *   slot = ((b * hq + h) * sq + i) * n_splits + split
 *   part[2 slot], part[2 slot + 1]          = m, l
 *   part[acc_off + slot * D + c]            = acc, acc_off = 2 * rows * n_splits
 * with rows = batch * hq * sq. */
#ifndef PK_KERNELS_GPU_ATTN_COMMON_H
#define PK_KERNELS_GPU_ATTN_COMMON_H

#include "attn_abi.h" /* one argument ABI for the kernels and both backends' host code */
#include "gpu_common.h"

namespace pk_attn {

/* NaN wins, as in the reference (fmaxf would drop it). */
__device__ __forceinline__ float nanmax(float a, float b) { return (a > b || a != a) ? a : b; }

/* The block's coordinates and the lengths of its batch. */
struct block_pos {
    int b, kvh, split, tile, group, rows, lq, lkv, c0, c1;
};

__device__ __forceinline__ block_pos block_coords(const pk_attn_params &p)
{
    /* Blocks start in launch order (x fastest, then y: the split, then z).
     * Over (x, z) the row tiles of a group of kv heads go together, about
     * as many blocks as a large GPU keeps in flight, so that those blocks
     * share the group's K and V through L2 instead of each streaming its
     * own from memory. Within the group the row tiles go from the last
     * (which sees the most keys under a causal mask) to the first, so that
     * short blocks fill the tail. One row tile (decode): launch order.
     * 32-bit arithmetic, as 64-bit division is a slow call; a grid too big
     * for it keeps the plain order. */
    constexpr unsigned GROUP_BLOCKS = 256;
    const unsigned heads = gridDim.x, tiles = gridDim.z;
    unsigned head = blockIdx.x, rank = blockIdx.z;
    if ((uint64_t)heads * tiles <= 0xffffffffu) {
        const unsigned r = blockIdx.x + heads * blockIdx.z;
        const unsigned fit = GROUP_BLOCKS / tiles, hg = fit > 1u ? fit : 1u;
        const unsigned group = r / (hg * tiles), in = r % (hg * tiles);
        const unsigned left = heads - group * hg, size = hg < left ? hg : left; /* the last group may be short */
        head = group * hg + in % size;
        rank = in / size;
    }
    block_pos s;
    s.b = (int)head / p.hkv;
    s.kvh = (int)head % p.hkv;
    s.split = blockIdx.y;
    s.tile = (int)(tiles - 1 - rank);
    s.group = p.hq / p.hkv;
    s.rows = s.group * p.sq;
    /* lengths given on the device were never checked: clamped to [0, S] */
    s.lq = p.lens ? min(max(p.lens[s.b], 0), p.sq) : p.sq;
    s.lkv = p.lens ? min(max(p.lens[p.batch + s.b], 0), p.skv) : p.skv;
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

/* Element offset of query row i of group member g (the head kvh * group
 * + g): that of packed row g * sq + i. */
__device__ __forceinline__ int64_t row_offset_at(const block_pos &s, const int64_t *st, int64_t off, int g, int i)
{
    return off + s.b * st[0] + (int64_t)i * st[1] + (int64_t)(s.kvh * s.group + g) * st[2];
}

/* Element offset of packed row pr's query (or output) row. */
__device__ __forceinline__ int64_t row_offset(const pk_attn_params &p, const block_pos &s, const int64_t *st,
                                              int64_t off, int pr)
{
    return row_offset_at(s, st, off, pr / p.sq, pr % p.sq);
}

/* Packed rows pr, pr + n, pr + 2n, .. as (group member g, query row i)
 * with one division at the start: a copy loop over a block's rows that
 * divided once a row spent a tenth of the Hopper kernel's time on it
 * (bench/RESULTS.md, 2026-12-06 08:20-08:40 UTC). */
struct row_walk {
    int g, i;
    __device__ __forceinline__ row_walk(int pr, int sq) : g(pr / sq), i(pr % sq) {}
    __device__ __forceinline__ void step(int n, int sq)
    {
        i += n;
        if (i >= sq) {
            g += i / sq;
            i %= sq;
        }
    }
};

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
        const int64_t ob = row_offset(p, s, p.os, p.off[3], pr);
        o[ob + c * p.os[3]] = pk_from_f32<T>(live ? acc / l : 0.0f);
        if (p.lse && c == 0)
            p.lse[p.off[4] + s.b * p.ls[0] + h * p.ls[1] + (int64_t)i * p.ls[2]] =
                live ? (m + log2f(l)) * PK_LN2 : -PK_INF;
    } else {
        const int64_t slot = ((int64_t)(s.b * p.hq + h) * p.sq + i) * p.n_splits + s.split;
        const int64_t acc_off = 2 * (int64_t)p.batch * p.hq * p.sq * p.n_splits;
        /* an empty chunk must contribute exactly 0, even beside a NaN V */
        p.part[acc_off + slot * D + c] = live ? acc : 0.0f;
        if (c == 0) {
            p.part[2 * slot] = live ? m : -PK_INF;
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

    float big = -PK_INF;
    for (int s = 0; s < p.n_splits; s++) big = nanmax(big, ml[2 * s]);
    float sum = 0.0f, out = 0.0f;
    if (big != -PK_INF) {
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
        p.lse[p.off[4] + b * p.ls[0] + h * p.ls[1] + i * p.ls[2]] =
            big == -PK_INF ? -PK_INF : (big + log2f(sum)) * PK_LN2;
}

} // namespace pk_attn

#endif /* PK_KERNELS_GPU_ATTN_COMMON_H */
