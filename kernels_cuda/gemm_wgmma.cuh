/* Hopper GEMM for f16/bf16 with both operands k-contiguous (the linear
 * layout x[M,K] @ W[N,K]^T): wgmma on sm_90a, fed by the tensor memory
 * accelerator (TMA). mma.sync tops out far below the H200's matrix rate
 * here (gemm_mma.cuh; bench/RESULTS.md, 2026-11-29 13:10 and 14:24); wgmma
 * issues a 64 x N x 16 product per warpgroup from shared memory with no
 * ldmatrix traffic through the registers. The tiles (BM x BN, the ring's
 * depth) are gemm_kernels.h's list.
 *
 * Block: three warpgroups. The first is the producer: one thread issues
 * the TMA copies of a BM x BK tile of A and a BN x BK tile of B into a
 * STAGES-deep ring and gives its registers to the others (setmaxnreg).
 * The other two are consumers, each owning 64 rows x BN columns of a
 * 128-row tile (or 64 rows x BN / 2 columns of a 64-row one) in f32
 * accumulators. Stage s has two mbarriers: full[s] completes when its
 * bytes have landed (TMA counts them), empty[s] when the 8 consumer warps
 * are done reading it, which they say one step late: a step's products
 * are still in flight while the next step's are issued.
 *
 * Split-K (gemm_kernels.h, pk_cu_gemm_split): where a problem has fewer
 * tiles than the device has multiprocessors, a tile's k steps may be cut
 * into ranges, each a unit of work; the warp whose range finishes last
 * adds the ranges in a fixed order (pk_gemm_split_reduce) and writes the
 * tile.
 *
 * Layout: TMA writes each 64-element (128-byte) k row with the 128-byte
 * swizzle (16-byte chunk c of row r at c ^ (r % 8)), which is the layout
 * the wgmma descriptor names; the tile bases are 1024-byte aligned, as the
 * swizzle pattern repeats every 8 rows. A k16 step is a 32-byte advance of
 * the descriptor's start address inside the swizzled row.
 *
 * Edges: TMA fills everything outside the matrix with zeros (rows past M
 * or N, k past K), so any M, N, K work and the mainloop has no guards; the
 * epilogue stores only inside the matrix. The grid is persistent: block b
 * takes units b, b + gridDim.x, ..., and the producer runs ahead into the
 * next unit while the consumers store the last one.
 *
 * Out (OUT = 1, a 16-bit output whose map the driver took, unsplit, both
 * consumers on one 128-row tile): each consumer writes its 64 x BN
 * outputs, times alpha (or through the fused epilogue, out of line) and
 * rounded as the registers' path rounds them, into its staging tile
 * in shared memory, as BN / 64 column blocks of 64 rows x 128 bytes with
 * the 128-byte swizzle (the quads of 8 rows then hit 32 distinct banks),
 * and one of its threads hands the blocks to TMA (the map of D, `td`),
 * which clips them to the matrix. The consumers go on to the next tile
 * while TMA writes; that thread waits for the reads of a staging tile
 * before its next use, and for the writes before the block leaves.
 *
 * Determinism: each output is one thread's accumulator, summed in k order
 * by the tensor core, and with split-K the ranges' sums added in range
 * order: the same bits every run (for a given plan). */
#pragma once

#include <cuda.h>

#include "gemm_common.cuh"
#include "gemm_kernels.h"
#include "sm90_common.cuh"

namespace pk_wgmma {

/* what every tile shares: gemm_kernels.h */
constexpr int BK = PK_CU_WGMMA_BK, THREADS = PK_CU_WGMMA_THREADS;

#ifdef PK_SM90_ENABLED
/* The fused epilogue (C, bias, activation, residual, or a store the
 * pair form cannot make) of a consumer thread's whole tile, out of line
 * and called once: the accumulators go to its stack only on this path.
 * Inlined at each pair, the fused epilogue made the tile's code too large
 * for the instruction cache (bench/RESULTS.md, 2026-12-02 17:20); called
 * at each pair, every call saved the live accumulators around it.
 * Accumulator v of n8 block j: row i0 (+ 8 for v & 2), column j0 + 8 j (+ 1
 * for v & 1). */
__device__ __noinline__ void finish_tile_fused(const pk_gemm_out &o, long long z, long long i0, long long j0,
                                               long long m, long long n, const float *acc, int blocks)
{
    for (int j = 0; j < blocks; j++)
        for (int v = 0; v < 4; v++) {
            const long long i = i0 + 8 * (v >> 1), jj = j0 + 8 * j + (v & 1);
            if (i < m && jj < n) pk_gemm_finish(o, z, i, jj, acc[4 * j + v]);
        }
}

/* Whether a tile's outputs are stored as they are, times alpha: no C,
 * bias, activation or residual, rows of d contiguous, every pair of
 * columns (j, j + 1) aligned for one store of two (j is even). */
__device__ __forceinline__ bool plain_pairs(const pk_gemm_out &o)
{
    const size_t size = o.dt == 0 ? 4 : 2;
    return o.d_sn == 1 && !o.c && !o.bias && !o.res && o.act == 0 && reinterpret_cast<size_t>(o.d) % (2 * size) == 0 &&
           o.d_sm % 2 == 0 && o.d_sb % 2 == 0;
}

/* (x0, x1) rounded to the output's 16-bit dtype (dt 2 bf16, else f16) in
 * one word: both the stores from registers and the staged tiles */
__device__ __forceinline__ uint32_t pack_pair(int dt, float x0, float x1)
{
    if (dt == 2) {
        const __nv_bfloat162 v = __floats2bfloat162_rn(x0, x1);
        return *reinterpret_cast<const uint32_t *>(&v);
    }
    const __half2 v = __floats2half2_rn(x0, x1);
    return *reinterpret_cast<const uint32_t *>(&v);
}

/* Where a consumer's output pair (row r, n8 block j, lane quad q) sits in
 * its staging tile: column block j / 8 of 64 rows x 128 bytes, its
 * 16-byte chunk j % 8 swizzled by the row as TMA's 128-byte swizzle
 * reads it (the quads of 8 rows then hit 32 distinct banks) */
__device__ __forceinline__ unsigned staged_at(int j, int r, int q)
{
    return (unsigned)((j / 8) * (64 * 128) + r * 128 + (((j % 8) ^ (r % 8)) << 4) + 4 * q);
}

/* The fused epilogue of a consumer thread's tile into its staging tile
 * (OUT), out of line for finish_tile_fused's reasons: each output's value
 * as pk_gemm_finish makes it, rounded in pairs as the plain staged path
 * rounds. Outputs past m or n are zeros, read from nowhere (TMA clips
 * them). c and the residual are read here, before the barrier after which
 * TMA writes the tile: c == d stays safe. */
__device__ __noinline__ void stage_tile_fused(const pk_gemm_out &o, long long z, long long i0, long long j0,
                                              long long m, long long n, const float *acc, int blocks, unsigned stg,
                                              int r0, int q)
{
    for (int j = 0; j < blocks; j++)
        for (int h = 0; h < 2; h++) {
            const long long i = i0 + 8 * h, jj = j0 + 8 * j;
            const float x0 = i < m && jj < n ? pk_gemm_value(o, z, i, jj, acc[4 * j + 2 * h]) : 0.0f;
            const float x1 = i < m && jj + 1 < n ? pk_gemm_value(o, z, i, jj + 1, acc[4 * j + 2 * h + 1]) : 0.0f;
            pk_sm90::st_shared(stg + staged_at(j, r0 + 8 * h, q), pack_pair(o.dt, x0, x1));
        }
}

/* alpha (x0, x1) at (i, j), (i, j + 1): both where j + 1 < n, else the first */
__device__ __forceinline__ void store_pair(const pk_gemm_out &o, long long z, long long i, long long j, long long n,
                                           float x0, float x1)
{
    const long long at = z * o.d_sb + i * o.d_sm + j;
    x0 *= o.alpha;
    x1 *= o.alpha;
    if (j + 1 < n) {
        if (o.dt == 0)
            *reinterpret_cast<float2 *>(static_cast<float *>(o.d) + at) = make_float2(x0, x1);
        else
            *reinterpret_cast<uint32_t *>(static_cast<uint16_t *>(o.d) + at) = pack_pair(o.dt, x0, x1);
    } else if (j < n) {
        pk_store_dt(o.d, at, o.dt, x0);
    }
}
#endif

/* FORM: how the consumers share the work (gemm_kernels.h).
 * PK_CU_WGMMA_PAIR: blocks in clusters of two along x (PK_GPU_LAUNCH_PAIRS).
 * A pair takes the tiles of two neighbouring rows of tiles in one column
 * (tile rows 2 g and 2 g + 1): each block loads its own A and half of the
 * shared B tile into both blocks (TMA multicast), so B crosses from L2
 * once for the two. PK_CU_WGMMA_PAIR_A the same along n: tile columns
 * 2 g and 2 g + 1 of one row, each block loading its own B and half of
 * the shared A. A stage of either block is then written by both
 * producers: it goes back when the consumers of both blocks are done
 * with it (each consumer warp arrives on the empty barrier of both). A
 * pair does not split k.
 * PK_CU_WGMMA_PINGPONG: consumer c takes the block's units c, c + 2, ...
 * whole (64 x BN each), skipping the other's stages in the ring; the
 * producer fills the ring in unit order, so the second consumer's
 * products start as the first one's end, and its epilogue runs under
 * them. */
template <int DT, int BM_, int BN, int STAGES, int FORM, bool SPLIT, int OUT>
__device__ __forceinline__ void gemm(const CUtensorMap *ta, const CUtensorMap *tb, const CUtensorMap *td, int store,
                                     const pk_cu_gemm_split &sp, PK_GEMM_PARAMS)
{
#ifdef PK_SM90_ENABLED
    using namespace pk_sm90;
    constexpr int CL = PK_CU_WGMMA_IS_PAIR(FORM) ? 2 : 1,
                  PP = FORM == PK_CU_WGMMA_PINGPONG;
    /* the tiles of a pair: rows (MG) or columns (NG) of tiles, the shared
     * operand's half-box rows (a 1024-byte multiple: whole swizzle atoms) */
    constexpr bool SHARE_A = FORM == PK_CU_WGMMA_PAIR_A;
    constexpr int MG = PK_CU_WGMMA_PAIR_ROWS(FORM), NG = PK_CU_WGMMA_PAIR_COLS(FORM);
    static_assert(CL == 1 || (SHARE_A ? BM_ : BN) % 16 == 0, "half boxes of whole 8-row swizzle atoms");
    static_assert(!PP || BM_ == 64, "a 64-row tile each");
    static_assert(!SPLIT || CL == 1, "a pair does not split k");
    static_assert(!OUT || (FORM == PK_CU_WGMMA_TOGETHER && BM_ == 128), "staged out: 64 rows x BN a consumer");
    /* a consumer's share of a tile: 64 rows x BN, or 64 x BN / 2 */
    constexpr int CN = BM_ == 128 || PP ? BN : BN / 2;
    /* the consumer warps that read a stage, in each block that reads it */
    constexpr unsigned READERS = PP ? 4 : 8;
    constexpr int A_BYTES = BM_ * BK * 2, B_BYTES = BN * BK * 2, STAGE_BYTES = A_BYTES + B_BYTES;
    extern __shared__ __align__(1024) unsigned char pk_wgmma_smem[];
    const unsigned raw = (unsigned)__cvta_generic_to_shared(pk_wgmma_smem);
    const unsigned ring = (raw + 1023u) & ~1023u;
    /* the consumers' staging tiles (OUT), then the barriers */
    const unsigned staging = ring + STAGES * STAGE_BYTES, full = staging + OUT * BM_ * BN * 2,
                   empty = full + STAGES * 8;
    const int wg = threadIdx.x / 128, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    /* the block's rank in its pair, the pair's index and count */
    const unsigned rank = CL == 2 ? cluster_rank() : 0;
    const long long first = CL == 2 ? cluster_id() : blockIdx.x, stride = CL == 2 ? cluster_count() : gridDim.x;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(full + 8 * s, 1);
            mbar_init(empty + 8 * s, READERS * CL);
        }
        mbar_init_fence();
    }
    __syncwarp();
    /* the other block's copies and arrivals land on barriers set up here */
    if (CL == 2) cluster_sync();
    else __syncthreads();

    const long long m_tiles = (m + BM_ - 1) / BM_, n_tiles = (n + BN - 1) / BN, k_tiles = (k + BK - 1) / BK;
    /* rows (or columns) of tiles in groups of a pair (gemm_kernels.h) */
    const long long m_groups = PK_CU_WGMMA_GROUPS(m_tiles, MG), n_groups = PK_CU_WGMMA_GROUPS(n_tiles, NG),
                    tiles = m_groups * n_groups;
    /* unit u's tile (this block's of the pair's two) */
    auto place = [&](long long t, long long &tm, long long &tn) {
        long long tg, tgn;
        pk_gemm_tile_of(t, m_groups, n_groups, tg, tgn);
        tm = tg * MG + (MG == 2 ? rank : 0);
        tn = tgn * NG + (NG == 2 ? rank : 0);
    };
    /* a unit of work: a tile's k steps [k0, k1), range q of its splits */
    const int splits = SPLIT ? sp.splits : 1;
    const long long steps = splits > 1 ? sp.steps : k_tiles, units = tiles * splits;

    if (wg == 0) {
        regs_dec<40>();
        if (threadIdx.x == 0) {
            unsigned long long it = 0;
            for (long long z = blockIdx.y; z < batch; z += gridDim.y) {
                /* a broadcast operand (batch stride 0) is one plane in its map */
                const int za = a_sb ? (int)z : 0, zb = b_sb ? (int)z : 0;
                for (long long u = first; u < units; u += stride) {
                    long long tm, tn;
                    place(u / splits, tm, tn);
                    const long long k0 = u % splits * steps, k1 = k0 + steps < k_tiles ? k0 + steps : k_tiles;
                    for (long long kt = k0; kt < k1; kt++, it++) {
                        const unsigned s = (unsigned)(it % STAGES);
                        if (it >= STAGES) {
                            mbar_wait(empty + 8 * s, (unsigned)((it / STAGES - 1) & 1));
                        }
                        const unsigned sa = ring + s * STAGE_BYTES;
                        mbar_arrive_expect_tx(full + 8 * s, STAGE_BYTES);
                        /* the shared operand's half for both blocks, the other whole */
                        if (SHARE_A)
                            tma_load_pair(sa + rank * (A_BYTES / 2), ta, (int)(kt * BK),
                                          (int)(tm * BM_ + rank * (BM_ / 2)), za, full + 8 * s);
                        else
                            tma_load(sa, ta, (int)(kt * BK), (int)(tm * BM_), za, full + 8 * s);
                        if (CL == 2 && !SHARE_A)
                            tma_load_pair(sa + A_BYTES + rank * (B_BYTES / 2), tb, (int)(kt * BK),
                                          (int)(tn * BN + rank * (BN / 2)), zb, full + 8 * s);
                        else
                            tma_load(sa + A_BYTES, tb, (int)(kt * BK), (int)(tn * BN), zb, full + 8 * s);
                    }
                }
            }
        }
    } else {
        regs_inc<232>();
        const int cw = wg - 1; /* consumer */
        const int row0 = BM_ == 128 ? cw * 64 : 0, col0 = BM_ == 128 || PP ? 0 : cw * CN;
        const pk_gemm_out out = PK_GEMM_OUT;
        float acc[CN / 2];
        unsigned long long it = 0, mine = 0;
        /* the units this block takes, over every batch (ping-pong's turns) */
        const unsigned long long block_units =
            (unsigned long long)(units > first ? (units - first - 1) / stride + 1 : 0) *
            (unsigned long long)(batch > blockIdx.y ? (batch - blockIdx.y - 1) / gridDim.y + 1 : 0);
        /* a stage goes back to the producers that write it */
        auto release = [&](unsigned long long at) {
            if (lane != 0) return;
            const unsigned bar = empty + 8 * (unsigned)(at % STAGES);
            mbar_arrive(bar);
            if (CL == 2) mbar_arrive_in(bar, rank ^ 1u);
        };
        for (long long z = blockIdx.y; z < batch; z += gridDim.y) {
            for (long long u = first; u < units; u += stride) {
                const long long t = u / splits;
                const int q = (int)(u % splits);
                long long tm, tn;
                place(t, tm, tn);
                const long long k0 = q * steps, k1 = k0 + steps < k_tiles ? k0 + steps : k_tiles;
                /* ping-pong: the other consumer's unit, its stages passed
                 * over; the consumers' k loops take turns (the named
                 * barrier of each, 256 threads: one consumer waits, the
                 * other arrives as its k loop ends), so that a consumer
                 * waits on a stage's full barrier only once the other has
                 * waited on that stage's previous fill: a parity wait may
                 * not run more than a phase ahead */
                const unsigned long long g = mine++;
                if (PP && g % 2 != (unsigned)cw) {
                    it += (unsigned long long)(k1 - k0);
                    continue;
                }
                if (PP && g > 0) bar_sync(1 + cw, 256);
#pragma unroll
                for (int i = 0; i < CN / 2; i++) acc[i] = 0.0f;
                fence_regs(acc);
                for (long long kt = k0; kt < k1; kt++, it++) {
                    const unsigned s = (unsigned)(it % STAGES);
                    mbar_wait(full + 8 * s, (unsigned)((it / STAGES) & 1));
                    const unsigned sa = ring + s * STAGE_BYTES + row0 * (BK * 2),
                                   sb = ring + s * STAGE_BYTES + A_BYTES + col0 * (BK * 2);
                    wgmma_fence();
#pragma unroll
                    for (int kk = 0; kk < BK / 16; kk++)
                        mma_ss<DT, CN>::run(acc, desc_sw128(sa + kk * 32, 16, 1024), desc_sw128(sb + kk * 32, 16, 1024), 1);
                    wgmma_commit();
                    /* one step's products stay in flight while the next is
                     * issued: waiting for all of them here would leave the
                     * tensor cores idle between steps, both consumers at
                     * once (they wait on the same barriers). What completed
                     * is the previous step, whose stage goes back. */
                    wgmma_wait<1>();
                    fence_regs(acc);
                    if (kt > k0) release(it - 1);
                }
                if (PP && g + 1 < block_units) bar_arrive(1 + (cw ^ 1), 256);
                wgmma_wait<0>();
                fence_regs(acc);
                if (k1 > k0) release(it - 1);
                /* split: only the warp that adds the ranges' sums goes on
                 * to the epilogue. A warp's flag is its tile's and place's
                 * (READERS a tile: ping-pong's ranges of one tile may fall
                 * to either consumer) */
                if (SPLIT &&
                    !pk_gemm_split_reduce<32>(acc, sp, (z * tiles + t) * READERS + (PP ? 0 : cw * 4) + warp, q, lane))
                    continue;
                /* accumulator v of n8 block j: row 16 warp + lane / 4 (+ 8
                 * for v & 2), column 8 j + 2 (lane % 4) (+ 1 for v & 1) */
                const long long i0 = tm * BM_ + row0 + warp * 16 + lane / 4, j0 = tn * BN + col0 + 2 * (lane % 4);
                if (OUT && !SPLIT && store && out.dt != 0) {
                    const unsigned stg = staging + cw * (64 * BN * 2);
                    const bool lead = threadIdx.x % 128 == 0;
                    /* the last store from this staging tile has read it */
                    if (lead) bulk_wait_read<0>();
                    bar_sync(1 + cw, 128);
                    const int r0 = warp * 16 + lane / 4;
                    if (plain_pairs(out)) {
#pragma unroll
                        for (int j = 0; j < CN / 8; j++)
#pragma unroll
                            for (int h = 0; h < 2; h++)
                                st_shared(stg + staged_at(j, r0 + 8 * h, lane % 4),
                                          pack_pair(out.dt, out.alpha * acc[4 * j + 2 * h],
                                                    out.alpha * acc[4 * j + 2 * h + 1]));
                    } else {
                        /* a copy, as for finish_tile_fused below */
                        float spilled[CN / 2];
#pragma unroll
                        for (int i = 0; i < CN / 2; i++) spilled[i] = acc[i];
                        stage_tile_fused(out, z, i0, j0, m, n, spilled, CN / 8, stg, r0, lane % 4);
                    }
                    /* the plain stores above, before TMA's (async proxy) reads */
                    fence_proxy_async();
                    bar_sync(1 + cw, 128);
                    if (lead) {
                        const int zd = out.d_sb ? (int)z : 0;
#pragma unroll
                        for (int cb = 0; cb < CN / 64; cb++)
                            tma_store(td, stg + cb * (64 * 128), (int)(tn * BN + col0 + cb * 64), (int)(tm * BM_ + row0),
                                      zd);
                        bulk_commit();
                    }
                } else if (plain_pairs(out)) {
#pragma unroll
                    for (int j = 0; j < CN / 8; j++)
#pragma unroll
                        for (int h = 0; h < 2; h++) {
                            const long long i = i0 + 8 * h;
                            if (i < m)
                                store_pair(out, z, i, j0 + 8 * j, n, acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
                        }
                } else {
                    /* a copy: with acc's own address taken, its registers
                     * would be memory to the compiler, and ptxas serialises
                     * every wgmma that writes them */
                    float spilled[CN / 2];
#pragma unroll
                    for (int i = 0; i < CN / 2; i++) spilled[i] = acc[i];
                    finish_tile_fused(out, z, i0, j0, m, n, spilled, CN / 8);
                }
            }
        }
        /* the staged tiles written before the block leaves */
        if (OUT && threadIdx.x % 128 == 0) bulk_wait<0>();
    }
    /* neither block of a pair leaves while the other may still arrive on
     * its barriers */
    if (CL == 2) {
        __syncwarp();
        cluster_sync();
    }
#else
    __trap(); /* the host picks this kernel only where sm_90a code was loaded */
#endif
}

} // namespace pk_wgmma
