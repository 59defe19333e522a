/* Hopper prefill attention (FlashAttention-3 style), sm_90a only: both
 * products on wgmma, a producer warpgroup streaming K and V, two consumer
 * warpgroups of 64 rows each. f16/bf16, head dims 64, 128 and 256, every
 * option of attention_mma.cuh (which stays the path of every other GPU):
 * causal (bottom-right), windows, GQA packing, per-batch lengths, LSE,
 * any 16-byte aligned strides; one pass only (no split-KV: the plan gives
 * this kernel no split).
 *
 * Block: 384 threads, 128 packed rows of one (batch, kv head), the rows
 * of the GQA group packed head-major exactly as attn_common.h does for
 * the other kernels (block_coords, row_window, row_offset), so that the
 * group's query heads share each K and V tile a block loads.
 *   warpgroup 0  producer: gives its registers away (setmaxnreg) and
 *                fills an ST-stage ring of K and V tiles of BN keys. A
 *                tile whose keys all exist comes by TMA where the host
 *                gave maps (`tma`: backends/cuda/cuda_tma.c):
 *                one thread issues a box a 64-column block and arrives
 *                with the tile's bytes expected, the rest arrive plainly.
 *                A sequence's last tile (and every tile without maps)
 *                comes by cp.async, each thread's arrival on the stage's
 *                full barrier firing when its own copies have landed
 *                (cp.async.mbarrier.arrive.noinc), zero-filling keys at
 *                and past len_kv: a cache's unwritten rows are never
 *                read, NaN or not, where a box would read them. Either
 *                way full[s] counts the producer's 128 arrivals and
 *                completes when the whole tile is there; K and V have a
 *                full barrier each, so Q K^T starts before V lands.
 *   warpgroups 1, 2  consumers of rows 64 (wg - 1) .. + 63: each loads
 *                its own Q rows, then per key tile j issues S_j = Q K_j^T
 *                (wgmma, both operands in shared memory) and, behind it,
 *                O += P_{j-1} V_{j-1} (wgmma, P from registers), waits for
 *                S_j alone, releases K_j's stage, runs the online softmax
 *                of S_j in registers (base 2, qscale) while P V runs, then
 *                waits for P V, releases V_{j-1}'s stage and rescales O:
 *                FlashAttention-3's pipeline inside a warpgroup, the
 *                tensor cores busy through most of the softmax. K and V
 *                have empty barriers of their own, so that K's stage
 *                refills a softmax before V's. The empty barriers count
 *                256 arrivals: a warp's 32 come from one lane where only
 *                wgmma read the stage, from each thread where its own
 *                loads read V too (an edge tile's scan, the slow P V), so
 *                that each thread's reads are released by its own arrival
 *                (one arrival a warp after __syncwarp is a chain that
 *                compute-sanitizer's racecheck does not follow).
 * PP = 1 (the _pp kernels) adds FlashAttention-3's ping-pong: the two
 * consumers issue Q K^T in turns, one's products under the other's softmax.
 * TMA takes the copies off the producer's four warps (about 240
 * instructions a warp a tile by cp.async, each warp sharing its
 * scheduler with two consumer warps); cp.async stays for the tiles a box
 * would read past len_kv and for layouts no map expresses, so that any
 * 16-byte aligned strides still work.
 *
 * Shared-memory layout (all tiles 1024-byte aligned). Every tile is
 * stored as D / 64 column blocks of 128-byte rows, rows packed, with the
 * 128-byte swizzle: 16-byte chunk c (elements 8c .. 8c + 7 of the block)
 * of row r sits at chunk c ^ (r % 8). Q (per consumer) is [D/64][64][64],
 * K and V stages [D/64][BN][64]: K and V are stored identically, key rows
 * of head-dim elements.
 *
 * S = Q K^T: m64nBNk16, A = Q (M = rows, K = head dim), B = K (N = keys,
 * K = head dim): both K-major, the GEMM's descriptor (gemm_wgmma.cuh): an
 * 8-row group every 1024 bytes (SBO), leading offset unused; k step kk
 * starts at column block kk / 4 (64 rows x 128 bytes of Q, BN x 128 of K
 * further) plus 32 (kk % 4) bytes inside the swizzled row.
 *
 * O += P V: m64nDk16, A = P (M = rows, K = keys) from registers, B = V
 * with K = keys and N = head dim. V's rows are keys, its contiguous
 * dimension is N: B is N-major (MN-major), so the instruction's trans-b
 * flag is 1. The PTX ISA's MN-major 128-byte swizzle atom is 64 elements
 * of N (128 bytes, contiguous) by 8 of K (8 rows 128 bytes apart), the
 * same swizzle on the same address bits: physically exactly our key-row
 * layout, key k of the atom at row k. For MN-major operands the two
 * descriptor offsets mean (PTX ISA, matrix descriptor; CUTLASS's
 * canonical form ((8,n),(8,k)):((1,LBO),(8,SBO)) in 16-byte units):
 *   LBO = bytes from one 64-element block of N to the next: our next
 *         column block, BN x 128 bytes further;
 *   SBO = bytes from one 8-row group of K to the next: 1024.
 * Step kk (keys 16 kk .. + 15) starts 16 kk rows in: 2048 kk bytes, a
 * multiple of 1024, so the swizzle phase (base offset 0) is kept. N = D
 * spans D / 64 blocks of LBO each.
 *
 * P as the A fragment: the S accumulator of m64nN holds, in warp w of the
 * warpgroup, rows 16 w + lane / 4 (+ 8) and for each 8-column block j
 * columns 8 j + 2 (lane % 4) (+ 1), registers 4 j .. 4 j + 3 as (row,
 * col) (r, c) (r, c + 1) (r + 8, c) (r + 8, c + 1). The register A
 * fragment of m64nNk16 is, per warp, the m16n8k16 A fragment: a0 = (r,
 * k 2 (lane % 4) ..), a1 = (r + 8, same k), a2 = (r, k + 8), a3 = (r + 8,
 * k + 8). So k step kk of P is S's blocks 2 kk and 2 kk + 1 rounded to
 * the dtype in that order: no data moves between threads.
 *
 * Masks: the block's tiles span the union of its rows' key windows
 * (causal and window blocks outside it are never loaded); a tile inside
 * every live row of a consumer's windows skips the mask; elsewhere masked
 * scores are -inf, so P is 0 there, but 0 * NaN is NaN: on such an edge
 * tile, when its V holds an Inf or NaN, the consumer adds P V on the CUDA
 * cores over the keys each row sees (rare: only non-finite V).
 *
 * Without PP the two consumers run over the same tiles each at its own
 * pace, their products queued on the tensor cores as they come. */
#pragma once

#include <cuda.h> /* CUtensorMap */

#include "../kernels_gpu/attn_common.h"
#include "attention_mma.cuh" /* mma_type (pack, exp_mask), ex2 */
#include "attention_tiles.h"
#include "sm90_common.cuh"

namespace pk_attn_wg {

template <int D_, int BN_> struct cfg {
    static constexpr int D = D_;
    static constexpr int BM = 128, WG_ROWS = 64;
    static constexpr int BN = BN_;
    static constexpr int ST = PK_CU_ATTN_WG_ST;
    static constexpr int THREADS = PK_CU_ATTN_WG_THREADS;
    static constexpr int READERS = BM / WG_ROWS * 128; /* consumer threads, the empty barriers' count */
    /* named barriers: 0 the block's, 1 and 2 each consumer's own, TURN and
     * TURN + 1 the ping-pong's turns */
    static constexpr int TURN = 3;
    static constexpr int DCH = D / 8;               /* 16-byte chunks of a row */
    static constexpr int Q_WG = WG_ROWS * D * 2;    /* one consumer's Q rows */
    static constexpr int KV = BN * D * 2;           /* one stage of K (or V) */
    static constexpr int OFF_K = 2 * Q_WG;
    static constexpr int OFF_V = OFF_K + ST * KV;
    static constexpr int OFF_BAR = OFF_V + ST * KV; /* full K, full V, empty K, empty V: [ST] each */
    static constexpr int OFF_WIN = OFF_BAR + 4 * ST * 8;
    static constexpr int OFF_RED = OFF_WIN + 2 * BM * 4;
    static constexpr int SMEM = 1024 + OFF_RED + 16 * 4;
    static_assert(SMEM == PK_CU_ATTN_WG_SMEM(D, BN), "the plan's count (attention_tiles.h)");
    static_assert(D % 64 == 0 && BN % 16 == 0 && 128 % DCH == 0, "whole swizzle blocks and copy passes");
    static_assert(ST >= 2, "a ring");
    static_assert(THREADS == 128 + READERS, "one producer warpgroup, the rest consumers");
};

#ifdef PK_SM90_ENABLED

/* Byte offset of 16-byte chunk c of row r in a swizzled tile of `rows`
 * rows (the layout above). */
template <int ROWS> __device__ __forceinline__ uint32_t swz(int r, int c)
{
    return (uint32_t)((c >> 3) * (ROWS * 128) + r * 128 + (((c & 7) ^ (r & 7)) << 4));
}

/* Keys n0 .. n0 + BN - 1 of one kv head into a stage, by the producer's
 * thread t (0..127): each thread keeps one chunk column and one pointer
 * stepping by RS rows. */
template <class C, typename T>
__device__ __forceinline__ void load_tile(uint32_t dst, const T *src, int64_t row_stride, int n0, int lkv, int t)
{
    constexpr int RS = 128 / C::DCH;
    static_assert(RS % 4 == 0, "a row step that keeps the swizzle's phase or flips its bit 2");
    const int c = t % C::DCH, r0 = t / C::DCH;
    const T *g = src + (int64_t)(n0 + r0) * row_stride + c * 8;
    if (n0 + C::BN <= lkv) {
        /* every key of the tile exists (all tiles but a sequence's last):
         * no bound a copy, and the destination a constant step from the
         * first (row r0 + i RS: the swizzle's r % 8 is r0's, bit 2 flipped
         * for odd i where RS is 4), which the copies take as immediates */
        const uint32_t d0 = dst + (uint32_t)((c >> 3) * (C::BN * 128) + r0 * 128);
        const uint32_t x0 = (uint32_t)((c & 7) ^ (r0 & 7));
#pragma unroll 4
        for (int i = 0; i < C::BN / RS; i++) {
            pk_sm90::cp16_full(d0 + (uint32_t)(i * RS * 128) + ((x0 ^ (uint32_t)((i * RS) & 7)) << 4), g);
            g += RS * row_stride;
        }
        return;
    }
    /* unrolled whole, the copies' addresses outgrew the producer's 40
     * registers and spilled */
#pragma unroll 4
    for (int i = 0; i < C::BN / RS; i++) {
        const int r = r0 + i * RS;
        const bool in = n0 + r < lkv;
        pk_sm90::cp16(dst + swz<C::BN>(r, c), in ? (const void *)g : (const void *)src, in ? 16 : 0);
        g += RS * row_stride;
    }
}

/* The same tile by TMA: thread 0 arrives with the tile's bytes expected
 * and issues one box a 64-column block (the map's 128-byte swizzle is the
 * layout above); the other producer threads arrive plainly, so that the
 * full barrier keeps one count (128) whichever way a tile came */
template <class C>
__device__ __forceinline__ void tile_box(uint32_t dst, const CUtensorMap *map, int n0, const pk_attn::block_pos &s,
                                         uint32_t full, int t)
{
    if (t == 0) {
        pk_sm90::mbar_arrive_expect_tx(full, C::KV);
#pragma unroll
        for (int c = 0; c < C::D / 64; c++) pk_sm90::tma_load4(dst + c * (C::BN * 128), map, c * 64, n0, s.kvh, s.b, full);
    } else {
        pk_sm90::mbar_arrive(full);
    }
}

/* Whether the V stage holds an Inf or NaN (the warpgroup's 128 threads
 * each look at every 128th chunk; the order does not matter). With the
 * sign cleared, a 16-bit float's bits order as its magnitude, Inf and NaN
 * (all-ones exponent) above every finite value: the largest of each half
 * over the chunks, then one compare a half against that exponent. */
template <int DT, class C> __device__ __forceinline__ bool nonfinite(const unsigned char *tile, int t)
{
    constexpr uint32_t e = pk_attn::mma_type<DT>::exp_mask;
    uint32_t mx = 0;
#pragma unroll 4
    for (int x = t; x < C::KV / 16; x += 128) {
        const uint4 w = *reinterpret_cast<const uint4 *>(tile + x * 16);
        mx = __vmaxu2(mx, __vmaxu2(w.x & 0x7fff7fffu, w.y & 0x7fff7fffu));
        mx = __vmaxu2(mx, __vmaxu2(w.z & 0x7fff7fffu, w.w & 0x7fff7fffu));
    }
    return (mx & 0xffffu) >= e || (mx >> 16) >= e;
}

/* v[0] = the largest of v[0 .. N - 1], pairwise: levels W = 1, 2, 4, ..
 * (each loop's step a constant, so that it unrolls and v stays in
 * registers) */
template <int N, int W = 1> __device__ __forceinline__ void max_tree(float (&v)[N])
{
#pragma unroll
    for (int j = 0; j + W < N; j += 2 * W) v[j] = fmaxf(v[j], v[j + W]);
    if constexpr (2 * W < N) max_tree<N, 2 * W>(v);
}

/* A consumer warp's release of a stage it read: the warp's 32 arrivals
 * from one lane where only its wgmma read the stage (the one arrival a
 * thread made before cost as much as FlashAttention-3 reports: its
 * pipeline arrives once a warpgroup), each thread for itself where its
 * own loads read it too (generic), so that racecheck sees each thread's
 * reads released by its own arrival. The wgmma reads (async proxy) come
 * before the producer's cp.async writes (generic). `own` is warp-uniform. */
__device__ __forceinline__ void release(uint32_t bar, bool own, int lane)
{
    if (own) {
        pk_sm90::fence_proxy_async();
        pk_sm90::mbar_arrive(bar);
    } else if (lane == 0) {
        pk_sm90::fence_proxy_async();
        pk_sm90::mbar_arrive_n(bar, 32);
    }
}

/* Issues O += P V over one stage of V (vt), P from registers (after the
 * caller's wgmma fence) */
template <int DT, class C>
__device__ __forceinline__ void pv_products(float (&o)[C::D / 2], const uint32_t (&pa)[C::BN / 16][4], uint32_t vt)
{
    const pk_sm90::desc128 dv(vt, C::BN * 128, 1024);
#pragma unroll
    for (int kk = 0; kk < C::BN / 16; kk++) pk_sm90::mma_rs<DT, C::D>::run(o, pa[kk], dv.at(kk * 16 * 128));
}

#endif /* PK_SM90_ENABLED */

template <int DT, int D, int PP, int BN_>
__device__ __forceinline__ void attention(const pk_attn_params &p, const CUtensorMap *km, const CUtensorMap *vm, int tma)
{
#ifdef PK_SM90_ENABLED
    using namespace pk_sm90;
    using pk_attn::block_pos;
    typedef cfg<D, BN_> C;
    typedef PK_T(DT) T;
    typedef pk_attn::mma_type<DT> M;
    constexpr int BN = C::BN, ST = C::ST;

    extern __shared__ __align__(1024) unsigned char pk_attn_wg_smem[];
    {
        /* the host sized this; a mismatch would corrupt memory silently */
        uint32_t have;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(have));
        if (have < (uint32_t)C::SMEM || p.n_splits != 1) __trap();
    }
    const uint32_t raw = smem_u32(pk_attn_wg_smem);
    const uint32_t base = (raw + 1023u) & ~1023u;
    unsigned char *const gen = pk_attn_wg_smem + (base - raw); /* the same bytes, generic address */
    const uint32_t s_q = base, s_k = base + C::OFF_K, s_v = base + C::OFF_V;
    const uint32_t full_k = base + C::OFF_BAR, full_v = full_k + 8 * ST, empty_k = full_v + 8 * ST,
                   empty_v = empty_k + 8 * ST;
    int *const s_lo = reinterpret_cast<int *>(gen + C::OFF_WIN);
    int *const s_hi = s_lo + C::BM;
    int *const red = reinterpret_cast<int *>(gen + C::OFF_RED); /* [quarter][lo min, hi max, lo max, hi min] */

    const int tid = threadIdx.x, wg = tid / 128, t = tid % 128, warp = t / 32, lane = tid % 32;
    const block_pos s = pk_attn::block_coords(p);
    const int row0 = s.tile * C::BM;
    constexpr int RS = 128 / C::DCH; /* rows a warpgroup's 16-byte copies cover in one pass */

    if (wg > 0) {
        /* A consumer's Q rows (rows past the group or len_q are zeros),
         * issued first so that their latency runs under the row windows
         * and the barriers' set-up; waited for after the block's barrier. */
        const T *q = (const T *)p.q;
        const int c = t % C::DCH, r0 = t / C::DCH;
        const uint32_t q_wg = s_q + (wg - 1) * C::Q_WG;
        pk_attn::row_walk w(row0 + (wg - 1) * C::WG_ROWS + r0, p.sq);
#pragma unroll
        for (int r = r0; r < C::WG_ROWS; r += RS) {
            const bool in = row0 + (wg - 1) * C::WG_ROWS + r < s.rows && w.i < s.lq;
            cp16(q_wg + swz<C::WG_ROWS>(r, c),
                 in ? (const void *)(q + pk_attn::row_offset_at(s, p.qs, p.off[0], w.g, w.i) + c * 8)
                    : (const void *)q,
                 in ? 16 : 0);
            w.step(RS, p.sq);
        }
    }

    /* Row windows, one row a thread of the first warpgroup, and their
     * bounds over each quarter (32 rows) of the block: the block's key
     * range is their union, a consumer's unmasked tiles the intersection
     * over its two quarters' live rows. */
    if (tid < C::BM) {
        int lo, hi;
        pk_attn::row_window(p, s, row0 + tid, lo, hi);
        s_lo[tid] = lo;
        s_hi[tid] = hi;
        const bool live = lo <= hi;
        int a = live ? lo : INT_MAX, z = live ? hi : -1, a2 = live ? lo : INT_MIN, z2 = live ? hi : INT_MAX;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
            a = min(a, __shfl_xor_sync(0xffffffffu, a, o));
            z = max(z, __shfl_xor_sync(0xffffffffu, z, o));
            a2 = max(a2, __shfl_xor_sync(0xffffffffu, a2, o));
            z2 = min(z2, __shfl_xor_sync(0xffffffffu, z2, o));
        }
        if (lane == 0) {
            red[4 * warp] = a;
            red[4 * warp + 1] = z;
            red[4 * warp + 2] = a2;
            red[4 * warp + 3] = z2;
        }
    }
    if (tid == 0) {
        for (int i = 0; i < ST; i++) {
            mbar_init(full_k + 8 * i, 128);
            mbar_init(full_v + 8 * i, 128);
            mbar_init(empty_k + 8 * i, C::READERS);
            mbar_init(empty_v + 8 * i, C::READERS);
        }
        mbar_init_fence();
    }
    __syncthreads();
    const int lo_min = min(min(red[0], red[4]), min(red[8], red[12]));
    const int hi_max = max(max(red[1], red[5]), max(red[9], red[13]));
    const int n_begin = hi_max < 0 ? 0 : lo_min / BN * BN;
    const int n_tiles = hi_max < 0 ? 0 : (hi_max - n_begin) / BN + 1;

    if (wg == 0) {
        /* The producer. Past this point the warpgroups meet only at the
         * mbarriers and their own named barriers, never the block's. */
        regs_dec<40>();
        const T *kb = (const T *)p.k + p.off[1] + s.b * p.ks[0] + s.kvh * p.ks[2];
        const T *vb = (const T *)p.v + p.off[2] + s.b * p.vs[0] + s.kvh * p.vs[2];
#pragma unroll 1
        for (int it = 0; it < n_tiles; it++) {
            const int st = it % ST, n0 = n_begin + it * BN;
            /* the consumers' use of this stage ST tiles ago: K's ends
             * with their Q K^T, V's a softmax later */
            const uint32_t was = (uint32_t)(it / ST - 1) & 1u;
            /* a tile whose keys all exist by TMA (one thread's D / 64
             * boxes, the others' arrivals making up the count); a
             * sequence's last tile by cp.async, which zero-fills past
             * len_kv where a box would read the rows there */
            const bool box = tma && n0 + BN <= s.lkv;
            if (it >= ST) mbar_wait(empty_k + 8 * st, was);
            if (box) {
                tile_box<C>(s_k + st * C::KV, km, n0, s, full_k + 8 * st, t);
            } else {
                load_tile<C>(s_k + st * C::KV, kb, p.ks[1], n0, s.lkv, t);
                mbar_arrive_cp_async(full_k + 8 * st);
            }
            if (it >= ST) mbar_wait(empty_v + 8 * st, was);
            if (box) {
                tile_box<C>(s_v + st * C::KV, vm, n0, s, full_v + 8 * st, t);
            } else {
                load_tile<C>(s_v + st * C::KV, vb, p.vs[1], n0, s.lkv, t);
                mbar_arrive_cp_async(full_v + 8 * st);
            }
        }
        cp_async_wait_all();
        return;
    }

    regs_inc<232>();
    const int cw = wg - 1, g = lane >> 2, t4 = lane & 3;
    const int bar_id = 1 + cw; /* this consumer's named barrier (0 is the block's) */
    const uint32_t q_wg = s_q + cw * C::Q_WG;
    const desc128 dq(q_wg, 16, 1024);
    const int rw = cw * C::WG_ROWS + warp * 16 + g; /* this thread's first row in the block; the second is + 8 */

    /* this consumer's Q rows, copied before the block's barrier */
    cp_async_wait_all();
    fence_proxy_async();
    bar_sync(bar_id, 128);
    const int lo_max = max(red[8 * cw + 2], red[8 * cw + 6]), hi_min = min(red[8 * cw + 3], red[8 * cw + 7]);
    /* PP (ping-pong, FlashAttention-3's warpgroup scheduling): the two
     * consumers take turns to issue S = Q K^T, so that one's products run
     * under the other's softmax. A consumer waits for its turn on its own
     * named barrier (C::TURN + cw) and hands the turn over once its
     * products are issued; consumer 0 goes first. Each barrier sees one
     * wait and one hand-over a tile: consumer 1 hands over at the start
     * and not after its last tile. */
    if (PP && cw == 1 && n_tiles > 0) bar_arrive(C::TURN, C::READERS);

    float o[D / 2];
#pragma unroll
    for (int i = 0; i < D / 2; i++) o[i] = 0.0f;
    float m_run[2] = {-PK_INF, -PK_INF}, l_run[2] = {0.0f, 0.0f};
    /* Scores are scaled inside the exponent's FFMA (x qscale - max): a
     * positive scale keeps the order, so the row maximum of the raw
     * scores, scaled once, is that of the scaled ones. A negative scale
     * (allowed, if odd) scales the scores first, as before. */
    const float mul = p.qscale > 0.0f ? p.qscale : 1.0f;
    /* P of the tile whose O += P V is still to issue (in the next
     * iteration, after its Q K^T), its stage and phase */
    uint32_t pa[BN / 16][4] = {};
    bool pend = false, pscan = false; /* pscan: its V was scanned (an edge tile) */
    int pst = 0;
    uint32_t pphase = 0;

    /* One key tile, in two forms: with the last tile's O += P V issued
     * behind this tile's Q K^T (PV), and without (the first tile, and the
     * one after a tile whose P V ran on the CUDA cores). Two straight
     * bodies, not one with a branch around P V: ptxas closed the empty
     * group of that branch with a wgmma of its own after the join, and
     * its wait for S then waited for P V too (bench/RESULTS.md,
     * 2026-12-06 05:19-05:47 UTC). */
    auto step = [&](auto with_pv, const int it) {
        constexpr bool PV = decltype(with_pv)::value;
        const int st = it % ST, n0 = n_begin + it * BN;
        const uint32_t phase = (uint32_t)(it / ST) & 1u;
        const uint32_t kt = s_k + st * C::KV;
        const bool edge = __any_sync(0xffffffffu, !(n0 >= lo_max && n0 + BN - 1 <= hi_min));

        /* S = Q K^T of this tile, then O += P V of the last one: the
         * product of P V runs under this tile's softmax */
        float sc[BN / 2];
        mbar_wait(full_k + 8 * st, phase);
        if constexpr (PV) mbar_wait(full_v + 8 * pst, pphase);
        fence_proxy_async();
        if (PP) bar_sync(C::TURN + cw, C::READERS);
        fence_regs(sc);
        fence_regs(o);
        /* P's registers written before the fence that the wgmma reading
         * them as A must follow */
        fence_regs(pa);
        wgmma_fence();
        const desc128 dk(kt, 16, 1024);
#pragma unroll
        for (int kk = 0; kk < D / 16; kk++)
            mma_ss<DT, BN>::run(sc, dq.at((kk >> 2) * (C::WG_ROWS * 128) + (kk & 3) * 32),
                                dk.at((kk >> 2) * (BN * 128) + (kk & 3) * 32), kk > 0);
        wgmma_commit();
        /* (the branches around products and barriers here test votes:
         * ptxas serialises every wgmma of the kernel, C7520, where one
         * sits on a path it cannot prove warp-uniform) */
        if constexpr (PV) {
            wgmma_fence();
            pv_products<DT, C>(o, pa, s_v + pst * C::KV);
            wgmma_commit();
        }
        if (PP && __all_sync(0xffffffffu, cw == 0 || it + 1 < n_tiles)) bar_arrive(C::TURN + (cw ^ 1), C::READERS);
        /* S alone: P V stays in flight under the softmax */
        wgmma_wait<PV ? 1 : 0>();
        fence_regs(sc);
        /* K's stage goes back to the producer (only wgmma read it) */
        release(empty_k + 8 * st, false, lane);

        if (mul != p.qscale)
#pragma unroll
            for (int i = 0; i < BN / 2; i++) sc[i] *= p.qscale;
        if (edge) {
            /* each row's window relative to this lane's first key, read
             * once per row: one compare with a constant per score */
            const int k0 = n0 + 2 * t4;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int lo = s_lo[rw + 8 * h] - k0, hi = s_hi[rw + 8 * h] - k0;
#pragma unroll
                for (int j = 0; j < BN / 8; j++)
#pragma unroll
                    for (int c = 0; c < 2; c++) {
                        const int k = j * 8 + c;
                        if ((k < lo) | (k > hi)) sc[4 * j + 2 * h + c] = -PK_INF;
                    }
            }
        }

        float alpha[2];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            /* fmaxf drops a NaN score, but its weight ex2(NaN) still makes
             * the row sum, and so the row, NaN */
            /* as a tree, and the sum below in 4 chains: one dependent
             * chain a row, 16 or 32 deep, kept the warp waiting on each
             * result (ncu: stalls on fixed-latency dependencies first) */
            float mt[BN / 8];
#pragma unroll
            for (int j = 0; j < BN / 8; j++) mt[j] = fmaxf(sc[4 * j + 2 * h], sc[4 * j + 2 * h + 1]);
            max_tree<BN / 8>(mt);
            float mx = mt[0];
            /* the 4 lanes of a quad hold one row */
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            const float mo = m_run[h], mn = fmaxf(mo, mx * mul);
            /* no visible key yet: subtract 0, not -inf (-inf - -inf is NaN) */
            const float bias = mn == -PK_INF ? 0.0f : mn;
            alpha[h] = mo == mn ? 1.0f : pk_attn::ex2(mo - bias);
            m_run[h] = mn;
            float sum[4];
#pragma unroll
            for (int j = 0; j < BN / 8; j++)
#pragma unroll
                for (int c = 0; c < 2; c++) {
                    float &x = sc[4 * j + 2 * h + c];
                    x = pk_attn::ex2(fmaf(x, mul, -bias));
                    sum[(2 * j + c) % 4] = j < 2 ? x : sum[(2 * j + c) % 4] + x;
                }
            /* this lane's part of the row sum */
            l_run[h] = l_run[h] * alpha[h] + ((sum[0] + sum[1]) + (sum[2] + sum[3]));
        }

        /* an edge tile's V, checked for Inf and NaN (this branch also
         * ends the block that ptxas would otherwise start with the wait
         * below, the softmax queued behind it) */
        bool slow = false;
        if (edge) {
            mbar_wait(full_v + 8 * st, phase);
            slow = bar_sync_or(bar_id, 128, nonfinite<DT, C>(gen + C::OFF_V + st * C::KV, t));
        }
        /* the last tile's P V is done: O is whole to rescale, and V's
         * stage goes back to the producer */
        if constexpr (PV) {
            wgmma_wait<0>();
            fence_regs(o);
            fence_regs(pa);
            release(empty_v + 8 * pst, pscan, lane);
            pend = false;
        }
        /* once the row maxima settle most tiles move none of the warp's
         * rows; multiplying by 1 would change no bit */
        if (__any_sync(0xffffffffu, alpha[0] != 1.0f || alpha[1] != 1.0f))
#pragma unroll
            for (int i = 0; i < D / 2; i++) o[i] *= alpha[(i >> 1) & 1];

        if (!slow) {
#pragma unroll
            for (int kk = 0; kk < BN / 16; kk++) {
                pa[kk][0] = M::pack(sc[8 * kk + 0], sc[8 * kk + 1]);
                pa[kk][1] = M::pack(sc[8 * kk + 2], sc[8 * kk + 3]);
                pa[kk][2] = M::pack(sc[8 * kk + 4], sc[8 * kk + 5]);
                pa[kk][3] = M::pack(sc[8 * kk + 6], sc[8 * kk + 7]);
            }
            pend = true;
            pst = st;
            pphase = phase;
            pscan = edge;
        } else {
            /* Non-finite V in a masked tile: each lane takes its rows'
             * weights from the quad and adds only the keys its rows see.
             * Key kr = 8 j + 2 qd + e: weights in lane (g, qd), registers
             * 4 j + e (row g) and 4 j + 2 + e (row g + 8). */
            const unsigned char *vs = gen + C::OFF_V + st * C::KV;
#pragma unroll
            for (int j = 0; j < BN / 8; j++)
#pragma unroll 1
                for (int x = 0; x < 8; x++) {
                    const int qd = x >> 1, e = x & 1, kr = 8 * j + x, key = n0 + kr;
                    const int src = (lane & ~3) | qd;
                    const float p0 = __shfl_sync(0xffffffffu, e ? sc[4 * j + 1] : sc[4 * j], src);
                    const float p1 = __shfl_sync(0xffffffffu, e ? sc[4 * j + 3] : sc[4 * j + 2], src);
                    const bool s0 = key >= s_lo[rw] && key <= s_hi[rw];
                    const bool s1 = key >= s_lo[rw + 8] && key <= s_hi[rw + 8];
#pragma unroll
                    for (int dn = 0; dn < D / 8; dn++) {
                        /* columns 8 dn + 2 t4, + 1 of key row kr */
                        const T *v2 = reinterpret_cast<const T *>(vs + swz<BN>(kr, dn) + 4 * t4);
                        const float x0 = pk_to_f32(v2[0]), x1 = pk_to_f32(v2[1]);
                        if (s0) {
                            o[4 * dn] += p0 * x0;
                            o[4 * dn + 1] += p0 * x1;
                        }
                        if (s1) {
                            o[4 * dn + 2] += p1 * x0;
                            o[4 * dn + 3] += p1 * x1;
                        }
                    }
                }
            /* this thread's CUDA-core reads of V are done */
            mbar_arrive(empty_v + 8 * st);
        }
    };
#pragma unroll 1
    for (int it = 0; it < n_tiles; it++) {
        if (__all_sync(0xffffffffu, pend)) step(pk_sm90::flag<true>(), it);
        else step(pk_sm90::flag<false>(), it);
    }
    if (__all_sync(0xffffffffu, pend)) {
        /* the last tile's O += P V */
        mbar_wait(full_v + 8 * pst, pphase);
        fence_proxy_async();
        fence_regs(o);
        fence_regs(pa);
        wgmma_fence();
        pv_products<DT, C>(o, pa, s_v + pst * C::KV);
        wgmma_commit();
        wgmma_wait<0>();
        fence_regs(o);
        fence_regs(pa);
    }

    /* Normalise into this consumer's Q rows (every warp's last product
     * that reads them is done once all four pass the barrier), swizzled
     * as Q so that a quad's 4-byte stores of 8 rows hit distinct banks,
     * then store whole 16-byte row pieces where O allows. */
    bar_sync(bar_id, 128);
    unsigned char *const stage = gen + cw * C::Q_WG;
    /* the wgmma reads of Q (async proxy) before the plain stores below */
    fence_proxy_async();
#pragma unroll
    for (int h = 0; h < 2; h++) {
        float l = l_run[h];
        l += __shfl_xor_sync(0xffffffffu, l, 1);
        l += __shfl_xor_sync(0xffffffffu, l, 2);
        const int r = warp * 16 + g + 8 * h, pr = row0 + cw * C::WG_ROWS + r;
        /* a row that sees no key gets exact zeros, NaN V or not */
        const bool live = s_lo[rw + 8 * h] <= s_hi[rw + 8 * h] && l != 0.0f;
        const float inv = 1.0f / l;
#pragma unroll
        for (int j = 0; j < D / 8; j++)
            *reinterpret_cast<uint32_t *>(stage + swz<C::WG_ROWS>(r, j) + 4 * t4) =
                M::pack(live ? o[4 * j + 2 * h] * inv : 0.0f, live ? o[4 * j + 2 * h + 1] * inv : 0.0f);
        if (p.lse && t4 == 0 && pr < s.rows) {
            const int hd = s.kvh * s.group + pr / p.sq, i = pr % p.sq;
            p.lse[p.off[4] + s.b * p.ls[0] + hd * p.ls[1] + (int64_t)i * p.ls[2]] =
                live ? (m_run[h] + log2f(l)) * PK_LN2 : -PK_INF;
        }
    }
    bar_sync(bar_id, 128);
    const bool vec = (uintptr_t)p.o % 16 == 0 && p.os[3] == 1 && p.off[3] % 8 == 0 && p.os[0] % 8 == 0 &&
                     p.os[1] % 8 == 0 && p.os[2] % 8 == 0;
    const int c = t % C::DCH, r0 = t / C::DCH;
    pk_attn::row_walk w(row0 + cw * C::WG_ROWS + r0, p.sq);
#pragma unroll 1
    for (int r = r0; r < C::WG_ROWS; r += RS, w.step(RS, p.sq)) {
        if (row0 + cw * C::WG_ROWS + r >= s.rows) break; /* rows only grow with r */
        T *og = (T *)p.o + pk_attn::row_offset_at(s, p.os, p.off[3], w.g, w.i);
        const unsigned char *src = stage + swz<C::WG_ROWS>(r, c);
        if (vec) {
            *reinterpret_cast<uint4 *>(og + c * 8) = *reinterpret_cast<const uint4 *>(src);
        } else {
#pragma unroll
            for (int e = 0; e < 8; e++) og[(c * 8 + e) * p.os[3]] = reinterpret_cast<const T *>(src)[e];
        }
    }
#else
    (void)p;
    __trap(); /* the host picks this kernel only where sm_90a code was loaded */
#endif
}

} // namespace pk_attn_wg
