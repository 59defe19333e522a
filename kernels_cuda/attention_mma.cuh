/* Tensor-core attention (FlashAttention-2 style) for f16/bf16 with D
 * contiguous and 16-byte aligned rows.
 *
 * A block of NWM x NWN warps owns BM = 16 * MT * NWM packed rows. Warp
 * (wm, wn) owns MT m16 tiles of rows and the KW = BN / NWN keys
 * [wn * KW, (wn + 1) * KW) of every BN-key tile, with its own online
 * softmax state; prefill uses NWN = 1 (warps split the rows), decode
 * NWN = 4 (one 16-row tile of GQA-packed queries, warps split the keys).
 * The NWN states are merged through shared memory at the end.
 *
 * Per key tile: S = Q K^T and O += P V with mma.sync m16n8k16 (f32
 * accumulators), operands by ldmatrix (V with .trans); P stays in
 * registers, rounded to the input dtype, as the A operand of the second
 * product (the S accumulator layout is the A fragment layout). K and V
 * tiles go through ST stages (cp.async 16-byte copies, keys past len_kv
 * zero-filled): K and V of tile it + ST - 1 load while tile it computes,
 * one barrier per tile. With MT = 2 every K and V fragment a warp reads
 * from shared memory feeds two mma (half the shared-memory bytes per
 * FLOP of MT = 1). Rows of every tile are padded by 16 bytes
 * (an odd number of 16-byte units), so the 8 rows one ldmatrix reads fall
 * in distinct banks for every head dim, 80 and 96 included.
 *
 * Masks: a tile inside every row's window skips the mask. Elsewhere
 * masked scores are -inf, so P is 0 there; but 0 * NaN is NaN, so when
 * such an edge tile's V holds a NaN or Inf, P V of that tile runs on the
 * CUDA cores over the visible keys only (rare: only non-finite V). */
#pragma once

#include "../kernels_gpu/attn_common.h"
#include "attention_tiles.h"

namespace pk_attn {

template <int DT> struct mma_type;
template <> struct mma_type<1> {
    static constexpr uint32_t exp_mask = 0x7c00u; /* all-ones exponent: Inf or NaN */
    static __device__ __forceinline__ uint32_t pack(float lo, float hi)
    {
        __half2 h = __floats2half2_rn(lo, hi);
        return *reinterpret_cast<uint32_t *>(&h);
    }
    static __device__ __forceinline__ void mma(float *c, const uint32_t *a, uint32_t b0, uint32_t b1)
    {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};
template <> struct mma_type<2> {
    static constexpr uint32_t exp_mask = 0x7f80u;
    static __device__ __forceinline__ uint32_t pack(float lo, float hi)
    {
        __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
        return *reinterpret_cast<uint32_t *>(&h);
    }
    static __device__ __forceinline__ void mma(float *c, const uint32_t *a, uint32_t b0, uint32_t b1)
    {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};

__device__ __forceinline__ uint32_t smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

/* Lane l gives the address of row l % 8 of matrix l / 8; register j
 * receives matrix j, lane l holding row l / 4, elements 2 (l % 4) and +1
 * (with .trans: column l / 4, rows 2 (l % 4) and +1). */
__device__ __forceinline__ void ldsm_x4(uint32_t *r, const void *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p))
                 : "memory");
}
__device__ __forceinline__ void ldsm_x4_trans(uint32_t *r, const void *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p))
                 : "memory");
}

/* 16 bytes global -> shared; n = 0 writes zeros and reads nothing. */
__device__ __forceinline__ void cp16(void *dst, const void *src, int n)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(dst)), "l"(src), "r"(n)
                 : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }

__device__ __forceinline__ float ex2(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/* The tile shapes of one instantiation (attention_tiles.h) and its shared
 * memory: q [BM][QS], k [ST][BN][QS], v [ST][BN][QS] (dtype), lo/hi [BM]
 * (int), m/l [NWN][BM] (f32), counted by PK_CU_ATTN_MMA_SMEM for the plan
 * too; the f32 output staging [NWN][BM][OS] reuses q, k and v after the
 * key loop. ST stages of K and V: tile it + ST - 1 loads while tile it
 * computes. */
template <int D_, int NWM_, int NWN_, int MT_, int BN_, int ST_> struct mma_cfg {
    static constexpr int D = D_, NWM = NWM_, NWN = NWN_, MT = MT_, BN = BN_, ST = ST_;
    static constexpr int NT = 32 * NWM * NWN;
    static constexpr int BM = 16 * MT * NWM;
    static constexpr int KW = BN / NWN;
    static constexpr int QS = D + 8;
    static constexpr int OS = D + 4;
    static constexpr int DCH = D / 8; /* 16-byte chunks per row */
    static constexpr int Q_BYTES = BM * QS * 2;
    static constexpr int TILE = BN * QS;               /* elements of one K or V stage */
    static constexpr int KV_BYTES = ST * TILE * 2;     /* all stages of K (or of V) */
    static constexpr int SMEM = PK_CU_ATTN_MMA_SMEM(D, NWM, NWN, MT, BN, ST);
    static_assert(SMEM == Q_BYTES + 2 * KV_BYTES + BM * 8 + NWN * BM * 8, "the layout below");
    static_assert(D % 16 == 0 && KW % 16 == 0, "tiles must be whole mma steps");
    static_assert(ST >= 2, "at least double buffering");
    static_assert(NWN * BM * OS * 4 <= Q_BYTES + 2 * KV_BYTES, "output staging must fit in the Q/K/V buffers");
};

/* rows x D tile of keys n0.. of one kv head into shared memory. When the
 * threads cover whole rows, each thread keeps one column of chunks and one
 * pointer that steps by RS rows (few registers: the tile loop would keep
 * one 64-bit address per chunk otherwise). */
template <class C, typename T>
__device__ __forceinline__ void load_kv(T *dst, const T *src, int64_t row_stride, int n0, int lkv)
{
    if constexpr (C::NT % C::DCH == 0) {
        constexpr int RS = C::NT / C::DCH; /* rows one pass covers */
        static_assert(C::BN % RS == 0, "whole passes");
        const int r0 = threadIdx.x / C::DCH, ch = threadIdx.x % C::DCH;
        const T *g = src + (int64_t)(n0 + r0) * row_stride + ch * 8;
        T *d = dst + r0 * C::QS + ch * 8;
#pragma unroll
        for (int r = 0; r < C::BN; r += RS) {
            bool in = n0 + r0 + r < lkv;
            cp16(d + r * C::QS, in ? g : src, in ? 16 : 0);
            g += RS * row_stride;
        }
    } else {
        for (int x = threadIdx.x; x < C::BN * C::DCH; x += C::NT) {
            int r = x / C::DCH, ch = x % C::DCH;
            bool in = n0 + r < lkv;
            cp16(dst + r * C::QS + ch * 8, in ? src + (int64_t)(n0 + r) * row_stride + ch * 8 : src, in ? 16 : 0);
        }
    }
}

/* Whether the chunks of the V tile this thread copied hold an Inf or NaN. */
template <class C, int DT, typename T> __device__ __forceinline__ bool nonfinite(const T *tile)
{
    constexpr uint32_t lo = mma_type<DT>::exp_mask, hi = lo << 16;
    bool bad = false;
    for (int x = threadIdx.x; x < C::BN * C::DCH; x += C::NT) {
        uint4 w = *reinterpret_cast<const uint4 *>(tile + (x / C::DCH) * C::QS + (x % C::DCH) * 8);
        uint32_t u[4] = {w.x, w.y, w.z, w.w};
        for (int j = 0; j < 4; j++) bad |= (u[j] & lo) == lo || (u[j] & hi) == hi;
    }
    return bad;
}

/* One pass, warps own whole rows (NWN = 1): each warp normalises its rows
 * in registers, rounds them into its own rows of the Q buffer (which only
 * it reads, so no block barrier) and stores each row in 16-byte pieces
 * when O allows, one row offset per piece instead of per element. */
template <int DT, class C>
__device__ __forceinline__ void store_rows(const pk_attn_params &p, const block_pos &s, int row0,
                                           const float (&acc)[C::MT][C::D / 8][4], const float (&m_run)[C::MT][2],
                                           const float (&l_run)[C::MT][2], PK_T(DT) * sq, const int *s_lo,
                                           const int *s_hi)
{
    typedef PK_T(DT) T;
    constexpr int MT = C::MT, QS = C::QS, DCH = C::DCH, RW = 16 * MT;
    const int lane = threadIdx.x & 31, wm = threadIdx.x >> 5, g = lane >> 2, t4 = lane & 3;
    __syncwarp(); /* the warp's last ldmatrix of its Q rows is done */
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int hf = 0; hf < 2; hf++) {
            float l = l_run[mt][hf];
            l += __shfl_xor_sync(0xffffffffu, l, 1);
            l += __shfl_xor_sync(0xffffffffu, l, 2);
            const int r = wm * RW + mt * 16 + g + 8 * hf, pr = row0 + r;
            /* a row that sees no key gets exact zeros, NaN V or not */
            const bool live = s_lo[r] <= s_hi[r] && l != 0.0f;
            const float inv = 1.0f / l;
            uint32_t *dst = reinterpret_cast<uint32_t *>(sq + r * QS + 2 * t4);
#pragma unroll
            for (int j = 0; j < C::D / 8; j++)
                dst[j * 4] = mma_type<DT>::pack(live ? acc[mt][j][2 * hf] * inv : 0.0f,
                                                live ? acc[mt][j][2 * hf + 1] * inv : 0.0f);
            if (p.lse && t4 == 0 && pr < s.rows) {
                int h = s.kvh * s.group + pr / p.sq, i = pr % p.sq;
                p.lse[p.off[4] + s.b * p.ls[0] + h * p.ls[1] + (int64_t)i * p.ls[2]] =
                    live ? (m_run[mt][hf] + log2f(l)) * PK_LN2 : -PK_INF;
            }
        }
    __syncwarp();
    const bool vec = (uintptr_t)p.o % 16 == 0 && p.os[3] == 1 && p.off[3] % 8 == 0 && p.os[0] % 8 == 0 &&
                     p.os[1] % 8 == 0 && p.os[2] % 8 == 0;
    /* rows walked with one division (row_walk), not one a row */
    row_walk w(row0 + wm * RW + lane / DCH, p.sq);
    for (int x = lane, at = lane / DCH; x < RW * DCH; x += 32) {
        const int r = wm * RW + x / DCH, ch = x % DCH, pr = row0 + r;
        if (pr >= s.rows) break; /* rows only grow with x */
        w.step(x / DCH - at, p.sq);
        at = x / DCH;
        T *o = (T *)p.o + row_offset_at(s, p.os, p.off[3], w.g, w.i);
        const T *src = sq + r * QS + ch * 8;
        if (vec) {
            *reinterpret_cast<uint4 *>(o + ch * 8) = *reinterpret_cast<const uint4 *>(src);
        } else {
#pragma unroll
            for (int c = 0; c < 8; c++) o[(ch * 8 + c) * p.os[3]] = src[c];
        }
    }
}

template <int DT, class C> __device__ __forceinline__ void mma_attention(const pk_attn_params &p)
{
    typedef PK_T(DT) T;
    typedef mma_type<DT> M;
    constexpr int D = C::D, MT = C::MT, BN = C::BN, KW = C::KW, BM = C::BM, QS = C::QS, NWN = C::NWN;
    constexpr int NKT = KW / 8, NDT = D / 8; /* n8 tiles of keys per warp, of output columns */

    extern __shared__ __align__(16) unsigned char smem[];
    T *sq = reinterpret_cast<T *>(smem);
    T *sk = reinterpret_cast<T *>(smem + C::Q_BYTES);
    T *sv = reinterpret_cast<T *>(smem + C::Q_BYTES + C::KV_BYTES);
    int *s_lo = reinterpret_cast<int *>(smem + C::Q_BYTES + 2 * C::KV_BYTES);
    int *s_hi = s_lo + BM;
    float *s_m = reinterpret_cast<float *>(s_hi + BM);
    float *s_l = s_m + NWN * BM;
    float *stage = reinterpret_cast<float *>(smem); /* q, k, v: dead after the key loop */

    {
        /* the host sized this; a mismatch would corrupt memory silently */
        uint32_t have;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(have));
        if (have < (uint32_t)C::SMEM) __trap();
    }

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = warp % C::NWM, wn = warp / C::NWM;
    const int g = lane >> 2, t4 = lane & 3;
    const block_pos s = block_coords(p);
    const int row0 = s.tile * BM;

    const T *q = (const T *)p.q;
    row_walk w(row0 + tid / C::DCH, p.sq);
    for (int x = tid, at = tid / C::DCH; x < BM * C::DCH; x += C::NT) {
        const int r = x / C::DCH, ch = x % C::DCH, pr = row0 + r;
        w.step(r - at, p.sq);
        at = r;
        const bool in = pr < s.rows && w.i < s.lq;
        cp16(sq + r * QS + ch * 8, in ? q + row_offset_at(s, p.qs, p.off[0], w.g, w.i) + ch * 8 : q, in ? 16 : 0);
    }
    for (int r = tid; r < BM; r += C::NT) row_window(p, s, row0 + r, s_lo[r], s_hi[r]);
    __syncthreads();

    /* The block's keys (union of the windows) and the keys every row with
     * a window sees (intersection): tiles inside the latter need no mask. */
    int lo_min = INT_MAX, hi_max = -1, lo_max = INT_MIN, hi_min = INT_MAX;
    for (int r = 0; r < BM; r++) {
        int a = s_lo[r], z = s_hi[r];
        if (a > z) continue;
        lo_min = min(lo_min, a);
        hi_max = max(hi_max, z);
        lo_max = max(lo_max, a);
        hi_min = min(hi_min, z);
    }
    /* This lane's rows of m16 tile mt: my_row(mt, 0) and my_row(mt, 1) = +8.
     * Their windows stay in shared memory (s_lo, s_hi), read on edge tiles
     * only, which keeps registers for the accumulators. */
    auto my_row = [&](int mt, int hf) { return (wm * MT + mt) * 16 + g + 8 * hf; };

    const T *kb = (const T *)p.k + p.off[1] + s.b * p.ks[0] + s.kvh * p.ks[2];
    const T *vb = (const T *)p.v + p.off[2] + s.b * p.vs[0] + s.kvh * p.vs[2];
    const int n_begin = hi_max < 0 ? 0 : lo_min / BN * BN;
    const int n_tiles = hi_max < 0 ? 0 : (hi_max - n_begin) / BN + 1;

    /* cp.async groups in order: [Q, K0, V0] [K1, V1] ... [K(ST-2), V(ST-2)],
     * then one group per iteration (the tile ST - 1 ahead, or empty past the
     * last tile, so that cp_wait<ST - 2> always means "this tile landed"). */
#pragma unroll
    for (int st = 0; st < C::ST - 1; st++) {
        if (st < n_tiles) {
            load_kv<C>(sk + st * C::TILE, kb, p.ks[1], n_begin + st * BN, s.lkv);
            load_kv<C>(sv + st * C::TILE, vb, p.vs[1], n_begin + st * BN, s.lkv);
        }
        cp_commit();
    }

    float acc[MT][NDT][4];
    float m_run[MT][2], l_run[MT][2];
#pragma unroll
    for (int mt = 0; mt < MT; mt++) {
#pragma unroll
        for (int j = 0; j < NDT; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[mt][j][e] = 0.0f;
#pragma unroll
        for (int hf = 0; hf < 2; hf++) {
            m_run[mt][hf] = -PK_INF;
            l_run[mt][hf] = 0.0f;
        }
    }

#pragma unroll 1
    for (int it = 0; it < n_tiles; it++) {
        const int n0 = n_begin + it * BN, buf = it % C::ST;
        const T *kt = sk + buf * C::TILE, *vt = sv + buf * C::TILE;
        const bool edge = !(n0 >= lo_max && n0 + BN - 1 <= hi_min);
        cp_wait<C::ST - 2>(); /* K and V of this tile (and Q) */
        /* The barrier publishes this tile and frees the stage tile it - 1
         * used, which the next load overwrites. */
        bool slow = false;
        if (edge) slow = __syncthreads_or(nonfinite<C, DT>(vt));
        else __syncthreads();
        {
            const int ahead = it + C::ST - 1, nb = ahead % C::ST;
            if (ahead < n_tiles) {
                load_kv<C>(sk + nb * C::TILE, kb, p.ks[1], n_begin + ahead * BN, s.lkv);
                load_kv<C>(sv + nb * C::TILE, vb, p.vs[1], n_begin + ahead * BN, s.lkv);
            }
            cp_commit();
        }

        float sc[MT][NKT][4];
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int j = 0; j < NKT; j++)
#pragma unroll
                for (int e = 0; e < 4; e++) sc[mt][j][e] = 0.0f;
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++) {
            uint32_t a[MT][4];
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
                ldsm_x4(a[mt], sq + ((wm * MT + mt) * 16 + (lane & 7) + 8 * ((lane >> 3) & 1)) * QS + kk * 16 +
                                   8 * (lane >> 4));
#pragma unroll
            for (int np = 0; np < KW / 16; np++) {
                uint32_t bk[4];
                ldsm_x4(bk, kt + (wn * KW + np * 16 + (lane & 7) + 8 * (lane >> 4)) * QS + kk * 16 +
                                8 * ((lane >> 3) & 1));
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    M::mma(sc[mt][2 * np], a[mt], bk[0], bk[1]);
                    M::mma(sc[mt][2 * np + 1], a[mt], bk[2], bk[3]);
                }
            }
        }

#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int j = 0; j < NKT; j++)
#pragma unroll
                for (int e = 0; e < 4; e++) sc[mt][j][e] *= p.qscale;
        if (edge) {
            /* Each row's window relative to this lane's first key, read
             * once per row, so that every score costs one compare with a
             * constant and a select. (Testing each score against the
             * shared-memory window compiled to two loads and a branch per
             * score, and causal attention ran slower: bench/RESULTS.md,
             * 2026-11-29 17:17.) */
            const int k0 = n0 + wn * KW + 2 * t4;
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
#pragma unroll
                for (int hf = 0; hf < 2; hf++) {
                    const int lo = s_lo[my_row(mt, hf)] - k0, hi = s_hi[my_row(mt, hf)] - k0;
#pragma unroll
                    for (int j = 0; j < NKT; j++)
#pragma unroll
                        for (int c = 0; c < 2; c++) {
                            const int k = j * 8 + c;
                            if ((k < lo) | (k > hi)) sc[mt][j][2 * hf + c] = -PK_INF;
                        }
                }
        }

        float alpha[MT][2];
#pragma unroll
        for (int mt = 0; mt < MT; mt++) {
#pragma unroll
            for (int hf = 0; hf < 2; hf++) {
                /* fmaxf drops a NaN score, but its weight ex2(NaN) still
                 * makes the row sum, and so the row, NaN */
                float mx = -PK_INF;
#pragma unroll
                for (int j = 0; j < NKT; j++) mx = fmaxf(mx, fmaxf(sc[mt][j][2 * hf], sc[mt][j][2 * hf + 1]));
                /* the 4 lanes of a quad hold one row */
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
                mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
                float mo = m_run[mt][hf], mn = fmaxf(mo, mx);
                /* no visible key yet: subtract 0, not -inf (-inf - -inf is NaN) */
                float base = mn == -PK_INF ? 0.0f : mn;
                alpha[mt][hf] = mo == mn ? 1.0f : ex2(mo - base);
                m_run[mt][hf] = mn;
                float sum = 0.0f;
#pragma unroll
                for (int j = 0; j < NKT; j++)
#pragma unroll
                    for (int e = 2 * hf; e < 2 * hf + 2; e++) {
                        sc[mt][j][e] = ex2(sc[mt][j][e] - base);
                        sum += sc[mt][j][e];
                    }
                l_run[mt][hf] = l_run[mt][hf] * alpha[mt][hf] + sum; /* this lane's part of the row sum */
            }
        }
        /* Once the row maxima settle most tiles change none of the warp's
         * rows; multiplying by 1 would change no bit, so skip it. */
        {
            bool moved = false;
#pragma unroll
            for (int mt = 0; mt < MT; mt++) moved |= alpha[mt][0] != 1.0f || alpha[mt][1] != 1.0f;
            if (__any_sync(0xffffffffu, moved))
#pragma unroll
                for (int mt = 0; mt < MT; mt++)
#pragma unroll
                    for (int j = 0; j < NDT; j++)
#pragma unroll
                        for (int e = 0; e < 4; e++) acc[mt][j][e] *= alpha[mt][e >> 1];
        }

        if (!slow) {
#pragma unroll
            for (int kk = 0; kk < KW / 16; kk++) {
                uint32_t a[MT][4];
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    a[mt][0] = M::pack(sc[mt][2 * kk][0], sc[mt][2 * kk][1]);
                    a[mt][1] = M::pack(sc[mt][2 * kk][2], sc[mt][2 * kk][3]);
                    a[mt][2] = M::pack(sc[mt][2 * kk + 1][0], sc[mt][2 * kk + 1][1]);
                    a[mt][3] = M::pack(sc[mt][2 * kk + 1][2], sc[mt][2 * kk + 1][3]);
                }
#pragma unroll
                for (int dp = 0; dp < D / 16; dp++) {
                    uint32_t bv[4];
                    ldsm_x4_trans(bv, vt + (wn * KW + kk * 16 + (lane & 7) + 8 * ((lane >> 3) & 1)) * QS +
                                          dp * 16 + 8 * (lane >> 4));
#pragma unroll
                    for (int mt = 0; mt < MT; mt++) {
                        M::mma(acc[mt][2 * dp], a[mt], bv[0], bv[1]);
                        M::mma(acc[mt][2 * dp + 1], a[mt], bv[2], bv[3]);
                    }
                }
            }
        } else {
            /* Non-finite V in a masked tile: each lane fetches its rows'
             * weights from the quad and adds only the keys its rows see. */
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
#pragma unroll
                for (int j = 0; j < NKT; j++)
#pragma unroll
                    for (int e = 0; e < 2; e++)
#pragma unroll 1
                        for (int qd = 0; qd < 4; qd++) {
                            int kr = wn * KW + j * 8 + 2 * qd + e, key = n0 + kr;
                            int src = (lane & ~3) | qd;
                            float p0 = __shfl_sync(0xffffffffu, sc[mt][j][e], src);
                            float p1 = __shfl_sync(0xffffffffu, sc[mt][j][2 + e], src);
                            bool s0 = key >= s_lo[my_row(mt, 0)] && key <= s_hi[my_row(mt, 0)];
                            bool s1 = key >= s_lo[my_row(mt, 1)] && key <= s_hi[my_row(mt, 1)];
                            const T *vr = vt + kr * QS + 2 * t4;
#pragma unroll
                            for (int dn = 0; dn < NDT; dn++)
#pragma unroll
                                for (int c = 0; c < 2; c++) {
                                    float x = pk_to_f32(vr[dn * 8 + c]);
                                    if (s0) acc[mt][dn][c] += p0 * x;
                                    if (s1) acc[mt][dn][2 + c] += p1 * x;
                                }
                        }
        }
    }

    if constexpr (NWN == 1) {
        if (p.n_splits == 1) {
            /* Q's copies (issued by every thread) land before its rows are
             * overwritten; only a block without tiles has not waited yet */
            cp_wait<0>();
            if (n_tiles == 0) __syncthreads();
            store_rows<DT, C>(p, s, row0, acc, m_run, l_run, sq, s_lo, s_hi);
            return;
        }
    }

    /* Merge the NWN warps' states of each row and write through shared
     * memory, so that the stores of a row are contiguous. */
    cp_wait<0>();
    __syncthreads();
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int hf = 0; hf < 2; hf++) {
            float l = l_run[mt][hf];
            l += __shfl_xor_sync(0xffffffffu, l, 1);
            l += __shfl_xor_sync(0xffffffffu, l, 2);
            int r = (wm * MT + mt) * 16 + g + 8 * hf;
            if (t4 == 0) {
                s_m[wn * BM + r] = m_run[mt][hf];
                s_l[wn * BM + r] = l;
            }
        }
    __syncthreads();
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int hf = 0; hf < 2; hf++) {
            int r = (wm * MT + mt) * 16 + g + 8 * hf;
            float big = -PK_INF;
#pragma unroll
            for (int w = 0; w < NWN; w++) big = nanmax(big, s_m[w * BM + r]);
            float m = m_run[mt][hf];
            /* a warp that saw no key of this row adds nothing, NaN V or not */
            bool none = m == -PK_INF;
            float f = none ? 0.0f : ex2(m - big);
            float *o = stage + (wn * BM + r) * C::OS + 2 * t4;
#pragma unroll
            for (int j = 0; j < NDT; j++) {
                float2 v2;
                v2.x = none ? 0.0f : f * acc[mt][j][2 * hf];
                v2.y = none ? 0.0f : f * acc[mt][j][2 * hf + 1];
                *reinterpret_cast<float2 *>(o + j * 8) = v2;
            }
        }
    __syncthreads();
    for (int x = tid; x < BM * D; x += C::NT) {
        int r = x / D, c = x % D, pr = row0 + r;
        if (pr >= s.rows) break;
        float big = -PK_INF, l = 0.0f, o = 0.0f;
#pragma unroll
        for (int w = 0; w < NWN; w++) big = nanmax(big, s_m[w * BM + r]);
#pragma unroll
        for (int w = 0; w < NWN; w++) {
            float m = s_m[w * BM + r];
            if (m != -PK_INF) l += ex2(m - big) * s_l[w * BM + r];
            o += stage[(w * BM + r) * C::OS + c];
        }
        write_elem<T, D>(p, s, pr, s_lo[r] <= s_hi[r] && l != 0.0f, big, l, c, o);
    }
}

} // namespace pk_attn
