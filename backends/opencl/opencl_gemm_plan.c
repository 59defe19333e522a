/* The OpenCL GEMM tile table and the pick. The tile is a set of build
 * defines of gemm_tiled.cl, so each entry is a separately compiled kernel.
 *
 * Why these tiles:
 *  - NVIDIA and AMD GPUs: 128 x 128 with 8 x 8 per work-item (256 items) is
 *    the classic SGEMM shape: 64 accumulators in registers and 16 KiB of
 *    local tiles, so two work-groups share a multiprocessor. When that tile
 *    leaves the device's compute units idle, 64 x 64 with 4 x 4 makes four
 *    times as many work-groups.
 *  - Intel GPUs have fewer registers per work-item: 64 x 64 with 4 x 4.
 *  - CPUs (PoCL) run a work-group as a loop over its items, vectorised
 *    across them: modest work-groups (64..128 items) with 8 x 8
 *    micro-tiles, which keep the accumulators PoCL carries across barriers
 *    few per multiply-add (4 x 4 measured several times slower); TK = 32
 *    amortises the barriers. Decode takes an 8-row tile: there M = 1 is
 *    bound by the wasted arithmetic of the empty rows. The entry is what
 *    portkern tune found on two cores of a Xeon (PoCL 3.1) from there:
 *    128 x 128 x 16 large tiles, 128 x 64 small ones, and decode items
 *    8 x 4.
 *  - GPU decode (M <= 16): a 16-row tile so that M = 1 wastes 16x, not
 *    128x, of the arithmetic, and TK = 32 so that adjacent work-items read
 *    32 adjacent elements of a weight row in the linear layout (x @ W^T).
 *    That layout, with aligned rows, goes to the skinny kernel instead.
 *  - NVIDIA's large tile: its step's k loop whole, in warps of 4 x 8
 *    items (lanes, gemm_tiled.cl LANES: a warp's local-memory reads of a
 *    step 192 bytes rather than 576, the layout of our CUDA SIMT kernel,
 *    kernels_cuda/gemm_simt_vec.cuh), with the registers the driver picks
 *    (~200, one work-group a multiprocessor). Measured beside it: the same
 *    without lanes, or bounded to 128 registers for two work-groups a
 *    multiprocessor (opencl_ptx_rebuild.c), or rolled, are all slower.
 *    Unpadded local rows, so that steps are 16 deep (32 KiB, half the
 *    barriers) rather than 8: 2-way bank conflicts on the 4 transposing
 *    stores of a step cost less than a barrier.
 *  - lanes elsewhere is off until a device measures it; portkern tune
 *    searches it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "opencl_gemm_plan.h"

static const pk_cl_gemm_tile table[PK_CL_VENDOR_COUNT][PK_CL_GEMM_SHAPE_COUNT] = {
    /*                      large: TM, TN, TK, WM, WN, lanes, kunroll, regs, unpadded   small            decode */
    [PK_CL_VENDOR_NVIDIA] = {{128, 128, 16, 8, 8, 1, 64, 0, 1}, {64, 64, 16, 4, 4, 0, 1, 0, 0}, {16, 32, 32, 2, 2, 0, 1, 0, 0}},
    [PK_CL_VENDOR_AMD]    = {{128, 128, 16, 8, 8, 0, 1, 0, 0}, {64, 64, 16, 4, 4, 0, 1, 0, 0}, {16, 64, 32, 2, 4, 0, 1, 0, 0}},
    [PK_CL_VENDOR_INTEL]  = {{64, 64, 16, 4, 4, 0, 1, 0, 0},   {32, 32, 16, 2, 2, 0, 1, 0, 0}, {16, 32, 32, 2, 2, 0, 1, 0, 0}},
    [PK_CL_VENDOR_CPU]    = {{128, 128, 16, 8, 8, 0, 0, 0, 0}, {128, 64, 32, 8, 8, 0, 0, 0, 0}, {8, 64, 32, 8, 4, 0, 0, 0, 0}},
    [PK_CL_VENDOR_OTHER]  = {{64, 64, 16, 4, 4, 0, 1, 0, 0},   {32, 32, 16, 2, 2, 0, 1, 0, 0}, {16, 32, 32, 2, 2, 0, 1, 0, 0}},
};

/* The skinny kernel streams b once; per class:
 *  - NVIDIA: a warp (kl = 32) per column reads 512 contiguous bytes of a
 *    weight row per load; four teams of a warp make a 128-item group, and
 *    4 loads in flight per item keep ~60 KiB in flight per multiprocessor
 *    at half occupancy, more than HBM's latency needs. More rows share each
 *    weight vector among more columns per team (cpi), up to 4 x 16
 *    accumulators. No split while 4 groups per multiprocessor exist: at
 *    M = 1, N = 4096 that is 1024 groups, and a second launch would cost
 *    more than the last wave. The entry is what portkern tune found on the
 *    H200 from there: two warps a column (kl = 64), one load in flight a
 *    round; 16-bit problems from 2 rows on take the tensor cores
 *    (gemm_skinny_mma), 4 steps in flight. Its strips are laid out as the
 *    CUDA decode kernel's (kernels_cuda/gemm_decode.cuh): 2 blocks of 8
 *    columns, the group's 4 warps splitting k among them (so one launch
 *    fills the H200 at N = 14336, where a warp a strip needed split-K and
 *    a merge), weights loaded past L1 so that a stays there. Set by hand
 *    from that kernel, not yet searched by portkern tune.
 *  - AMD: the same with a 64-wide wavefront per column.
 *  - Intel and others: 16 items per column, fewer loads in flight (fewer
 *    registers per item).
 *  - CPUs (PoCL): each item streams whole rows of its own columns (kl = 1)
 *    past the prefetchers and accumulates in VW-lane vectors, one SIMD
 *    multiply-add per load; a has few rows and stays in L1. 4 columns per
 *    item share each load of a; 2 from 8 rows on, where 16 rows x 4
 *    columns of vector accumulators would spill (measured slower).
 *    Groups of 8 items: 1 to 32 measured alike (M = 1 close to PoCL's
 *    copy rate: bench/RESULTS.md, 2026-12-01 20:10). portkern tune on two
 *    cores of a Xeon (PoCL 3.1) found nothing faster. */
static const pk_cl_skinny_params skinny_table[PK_CL_VENDOR_COUNT] = {
    /*                    wg  kl  cpi for MR 1 2 4 8 16  loads vec fill splits min_k  mma: min_m wg nb loads kw stream */
    [PK_CL_VENDOR_NVIDIA] = {128, 64, {1, 1, 2, 4, 4},    1,    0,  4,   16,    1024,       2, 128, 2, 4, 4, 1},
    [PK_CL_VENDOR_AMD]    = {128, 64, {1, 1, 2, 4, 4},    4,    0,  4,   16,    1024,       0, 128, 2, 4, 1, 0},
    [PK_CL_VENDOR_INTEL]  = {128, 16, {1, 1, 2, 2, 4},    2,    0,  4,   16,    512,        0, 128, 2, 4, 1, 0},
    [PK_CL_VENDOR_CPU]    = {8,  1,  {4, 4, 2, 2, 2},    4,    1,  4,   4,     512,        0, 128, 2, 4, 1, 0},
    [PK_CL_VENDOR_OTHER]  = {64,  16, {1, 1, 2, 2, 4},    2,    0,  4,   8,     512,        0, 128, 2, 4, 1, 0},
};

/* 64 items and 1 KiB of local memory: within any OpenCL device's limits. */
static const pk_cl_gemm_tile fallback = {16, 16, 8, 2, 2, 0, 1, 0, 0};

const pk_cl_gemm_tile *pk_cl_gemm_table(pk_cl_vendor cls, pk_cl_gemm_shape shape)
{
    if ((unsigned)cls >= PK_CL_VENDOR_COUNT || (unsigned)shape >= PK_CL_GEMM_SHAPE_COUNT) return NULL;
    return &table[cls][shape];
}

const pk_cl_gemm_tile *pk_cl_gemm_fallback(void) { return &fallback; }

size_t pk_cl_gemm_tile_threads(const pk_cl_gemm_tile *t)
{
    return (size_t)(t->tn / t->wn) * (size_t)(t->tm / t->wm);
}

size_t pk_cl_gemm_tile_local_bytes(const pk_cl_gemm_tile *t)
{
    return sizeof(float) * (size_t)t->tk * (size_t)(t->tm + PK_CL_GEMM_PAD + t->tn + PK_CL_GEMM_PAD);
}

int pk_cl_gemm_tile_valid(const pk_cl_gemm_tile *t, uint64_t local_mem_bytes, size_t max_work_group)
{
    if (t->tm <= 0 || t->tn <= 0 || t->tk <= 0 || t->wm <= 0 || t->wn <= 0) return 0;
    if (t->tm % t->wm || t->tn % t->wn) return 0;
    /* warps of 4 x 8 items tile the item grid */
    if (t->lanes && ((t->tn / t->wn) % 4 || (t->tm / t->wm) % 8)) return 0;
    size_t threads = pk_cl_gemm_tile_threads(t);
    if (threads > PK_CL_GEMM_MAX_WORK_GROUP || threads > max_work_group) return 0;
    /* every work-item loads the same number of elements of each tile */
    if (((size_t)t->tm * (size_t)t->tk) % threads || ((size_t)t->tn * (size_t)t->tk) % threads) return 0;
    size_t bytes = pk_cl_gemm_tile_local_bytes(t);
    return bytes <= PK_CL_GEMM_MAX_LOCAL_BYTES && bytes <= local_mem_bytes;
}

static int64_t tiles(int64_t batch, int64_t m, int64_t n, const pk_cl_gemm_tile *t)
{
    return batch * ((m + t->tm - 1) / t->tm) * ((n + t->tn - 1) / t->tn);
}

int pk_cl_gemm_plan_pick(const pk_cl_params *prm, const pk_device_info *info, size_t max_work_group, int64_t batch,
                         int64_t m, int64_t n, pk_cl_gemm_plan *out)
{
    memset(out, 0, sizeof *out);
    out->cls = pk_cl_vendor_of(info);
    const pk_cl_gemm_tile *row = prm->gemm;
    int64_t units = info->compute_units > 0 ? info->compute_units : 1;
    if (m <= row[PK_CL_GEMM_DECODE].tm)
        out->shape = PK_CL_GEMM_DECODE;
    else if (tiles(batch, m, n, &row[PK_CL_GEMM_LARGE]) < 2 * units)
        out->shape = PK_CL_GEMM_SMALL; /* fewer than two work-groups per compute unit */
    else
        out->shape = PK_CL_GEMM_LARGE;
    out->tile = row[out->shape];
    if (!pk_cl_gemm_tile_valid(&out->tile, info->local_mem_bytes, max_work_group)) {
        out->fallback = 1;
        out->tile = fallback;
        if (!pk_cl_gemm_tile_valid(&out->tile, info->local_mem_bytes, max_work_group)) return -1;
    }
    out->local[0] = (size_t)(out->tile.tn / out->tile.wn);
    out->local[1] = (size_t)(out->tile.tm / out->tile.wm);
    return 0;
}

/* The tensor-core tiles (NVIDIA with inline PTX; opencl_ptx_probe.c).
 * NVIDIA: 4 warps as 2 x 2, each 64 x 64 outputs (4 x 8 mma tiles: 128 f32
 * accumulators a lane, so every fragment read from local memory feeds 4
 * or 8 mma), and 3 steps of 32 k in flight: 48 KiB of local memory, all
 * that NVIDIA's OpenCL gives a work-group, and few enough registers a
 * work-group that two share a multiprocessor (one waits at its barrier
 * while the other multiplies). On the H200 it ran ahead of 128 x 256
 * and 256 x 128 tiles of 8 such warps with 2 steps in flight, and of
 * 128 x 128 tiles of 8 warps of 64 x 32 or 32 x 64; launched in groups of
 * 16 tile rows, which kept the long-N shape's reuse of b in the L2 cache
 * (bench/RESULTS.md, 2026-12-02 and 2026-12-03). The small entry is
 * what portkern tune found on the H200 for M = 64 and 256 by 4096 x 4096:
 * 128 x 64 tiles of 8 warps of 32 x 32 (twice the work-groups of the
 * large tile, and 4 steps in flight to cover the memory latency of a
 * multiprocessor that holds few of them), k split in up to 2 pieces.
 * The narrow entry, for M up to 64 with k-contiguous weights: blocks of
 * 64 x 32 (gemm_mma_kwarp.cl), k over the 8 warps of a work-group, each
 * holding 2 steps: 128 work-groups at N = 4096, k split over up to 4
 * work-groups where there are fewer (N = 1024: 10.6 us a call against
 * 16.2 unsplit; bench/RESULTS.md, 2026-12-04 14:40, also for wider
 * blocks and deeper pipelines, which lost). At M = 32 and 64 by 4096 x
 * 4096 it ran ahead of gemm_mma.cl's
 * weights-in-registers tile (64 x 128 of 1 x 8 warps, rounds of 4 steps,
 * k in 4 pieces; still there for portkern tune, breg), whose warps each
 * read all of a from local memory and whose pieces met at the end of
 * every launch, and of its own blocks of 16 or 48 columns, 3 or 4 steps
 * held (which spill), 4 or 16 warps (bench/RESULTS.md, 2026-12-04 11:45).
 * Other classes never have matrix units today; their entries only need
 * to be valid. */
#define MMA_NV {{128, 128, 2, 2, 3, 16, 0, 1, 0, 0, 1}, {128, 64, 4, 2, 4, 8, 0, 2, 0, 0, 1}, {64, 32, 1, 1, 2, 8, 0, 4, 0, 8, 1}}
static const pk_cl_mma_tile mma_table[PK_CL_VENDOR_COUNT][PK_CL_MMA_SHAPE_COUNT] = {
    [PK_CL_VENDOR_NVIDIA] = MMA_NV, [PK_CL_VENDOR_AMD] = MMA_NV, [PK_CL_VENDOR_INTEL] = MMA_NV,
    [PK_CL_VENDOR_CPU] = MMA_NV,    [PK_CL_VENDOR_OTHER] = MMA_NV,
};

/* The wgmma tiles (NVIDIA's Hopper GPUs through their OpenCL, where the
 * probe of wgmma passed: opencl_ptx_rebuild.c), by shape; NULL keeps the class's
 * mma.sync tile. NVIDIA's OpenCL holds a work-group to 48 KiB of local
 * memory, where 128 x 128 tiles with 3 steps of 32 k in flight fit and
 * larger ones only with 2, and a step ends at a barrier of the whole
 * work-group: on wgmma the 4096^3 GEMM runs at the speed of mma.sync's
 * (about 340 TFLOP/s, 5 TB/s read from L2, where the CUDA kernel's
 * 128 x 256 tiles read 9), so the products were not what bound it
 * (bench/RESULTS.md, 2026-12-06 18:07). Large: 128 x 128 of two
 * warpgroups, held to 128 registers so that two work-groups share a
 * multiprocessor: 3-8% ahead of mma.sync's large tile on the H100 at
 * 4096^3, 4096 x 14336 x 4096 and 8192^3, one call (bench/RESULTS.md,
 * 2026-12-06 18:55). The small and narrow shapes stay
 * mma.sync's: split over work-groups, the wgmma tiles lost (M = 64 by
 * 4096^2 68 TFLOP/s at best against the kwarp tile's 103; M = 128 and 256
 * 104 and 164 against 118 and 173). */
static const pk_cl_mma_tile mma_wgmma_large = {128, 128, 8, 1, 3, 16, 128, 1, 0, 0, 1, 1, 0};

const pk_cl_mma_tile *pk_cl_mma_wgmma_table(pk_cl_mma_shape shape)
{
    return shape == PK_CL_MMA_LARGE ? &mma_wgmma_large : NULL;
}

/* The TMA tile (gemm_tma.cl; NVIDIA's Hopper GPUs through their OpenCL,
 * where the TMA probe passed): the small shape's, 64 x 64 of one consumer
 * warpgroup, 5 steps of 32 k in flight (40 KiB), k split in two while
 * the pieces number at most twice the compute units. Its copies are one
 * work-item's, so a work-group keeps its whole ring in flight where
 * gemm_mma.cl's cp.async ring was paced by barriers; it ran ahead of the
 * small mma.sync tile at M = 128, 256 and 512 by 4096^2 on an H100, and
 * ahead of 128-row TMA tiles at M = 128 (bench/RESULTS.md, 2026-12-07
 * 10:16 and 11:08). The large shape keeps its wgmma tile: 128-row TMA
 * tiles in its place ran 7-10% ahead at M = 1024, 4096^3 and 8192^3 but
 * 3% behind at 4096 x 14336 x 4096, whose reuse of b in L2 the wgmma
 * tile's grouped launch keeps and gemm_tma.cl's row order does not, and
 * their f16 cases have not run (2026-12-07 19:15). The narrow one keeps
 * its kwarp tile, which no TMA tile beat at M = 64, in 2 to 16 pieces
 * (the more pieces, the slower: the last reads every piece's sums back;
 * 2026-12-07 14:56 and 19:15). */
static const pk_cl_mma_tile mma_tma_small = {64, 64, 4, 1, 5, 1, 0, 2, 0, 0, 2, 1, 1};

const pk_cl_mma_tile *pk_cl_mma_tma_table(pk_cl_mma_shape shape)
{
    return shape == PK_CL_MMA_SMALL ? &mma_tma_small : NULL;
}

const pk_cl_mma_tile *pk_cl_mma_table(pk_cl_vendor cls, pk_cl_mma_shape shape)
{
    return (unsigned)cls < PK_CL_VENDOR_COUNT && (unsigned)shape < PK_CL_MMA_SHAPE_COUNT ? &mma_table[cls][shape]
                                                                                         : NULL;
}

size_t pk_cl_mma_local_bytes(const pk_cl_mma_tile *t)
{
    /* tma: the ring, its two mbarriers a stage and the two maps staged */
    if (t->tma) return 2u * 32u * (size_t)t->stages * (size_t)(t->bm + t->bn) + 16u * (size_t)t->stages + 256u;
    /* kwarp: the warps' sums of one m16 tile at least (pk_cl_mma_red_mt) */
    if (t->kwarp) return pk_cl_mma_red_bytes(t, 1);
    /* breg: two rounds of a alone */
    return 2u * 32u * (size_t)t->stages * (t->breg ? 2u * (size_t)t->bm : (size_t)(t->bm + t->bn));
}

size_t pk_cl_mma_red_bytes(const pk_cl_mma_tile *t, int red_mt)
{
    /* gemm_mma_kwarp.cl: each warp group's red_mt m16 tiles of every warp
     * row, in rows of bn + 8 floats */
    return sizeof(float) * (size_t)t->kwarp * (size_t)t->warps_m * 16u * (size_t)red_mt * (size_t)(t->bn + 8);
}

int pk_cl_mma_red_mt(const pk_cl_mma_tile *t, uint64_t local_mem_bytes)
{
    /* the most m16 tiles whose sums fit at once, dividing the tile's */
    int best = 0;
    const int mt = t->bm / t->warps_m / 16;
    for (int r = 1; r <= mt; r++)
        if (mt % r == 0 && pk_cl_mma_red_bytes(t, r) <= local_mem_bytes) best = r;
    return best;
}

int pk_cl_mma_tile_valid(const pk_cl_mma_tile *t, uint64_t local_mem_bytes, size_t max_work_group)
{
    if (t->warps_m < 1 || t->warps_n < 1 || t->bm < 1 || t->bn < 1 || t->stages < 2 || t->stages > 8 ||
        t->group_m < 1)
        return 0;
    /* a warp's block is whole m16 tiles by pairs of n8 tiles (ldmatrix x4
     * loads two); b's n-contiguous rows swizzle 16-byte chunks within
     * groups of 8, and a work-item's copies of such a row's chunks keep
     * one column (the chunks of a row divide the work-group) */
    const size_t items = (size_t)32 * t->warps_m * t->warps_n;
    /* wgmma: one or two warpgroups of 64 rows by all bn columns (an
     * instruction's n: 32, 64, 128 or 256), steps through local memory */
    /* tma: a producer warp besides; bn at most 128 (a split's last piece
     * holds the others' sums in registers) */
    if (t->tma)
        return t->wgmma && !t->breg && !t->kwarp && t->warps_n == 1 && (t->warps_m == 4 || t->warps_m == 8) &&
               t->bm == 16 * t->warps_m && (t->bn == 32 || t->bn == 64 || t->bn == 128) && items + 32 <= max_work_group &&
               pk_cl_mma_local_bytes(t) <= local_mem_bytes;
    if (t->wgmma)
        return !t->breg && !t->kwarp && t->warps_n == 1 && (t->warps_m == 4 || t->warps_m == 8) &&
               t->bm == 16 * t->warps_m && (t->bn == 32 || t->bn == 64 || t->bn == 128 || t->bn == 256) &&
               items <= max_work_group && pk_cl_mma_local_bytes(t) <= local_mem_bytes;
    /* kwarp: warp blocks of whole m16 tiles by n8 blocks, kwarp warps a
     * block, weights in registers of their own (no breg), 2..4 steps held
     * a warp */
    if (t->kwarp) {
        const size_t warps = (size_t)t->warps_m * t->warps_n * t->kwarp;
        if (t->kwarp < 1 || t->breg || t->bm % (16 * t->warps_m) || t->bn % (8 * t->warps_n) || t->stages > 4)
            return 0;
        const int acc = (t->bm / t->warps_m / 16) * (t->bn / t->warps_n / 8) * 4;
        return acc <= 128 && 32 * warps <= 1024 && 32 * warps <= max_work_group &&
               pk_cl_mma_local_bytes(t) <= local_mem_bytes;
    }
    /* breg: each warp owns whole columns (its weights are its own) */
    if (t->breg && (t->breg != 1 || t->warps_m != 1)) return 0;
    if (t->bm % (16 * t->warps_m) || t->bn % (16 * t->warps_n) || t->bn % 64 || items % (size_t)(t->bn / 8)) return 0;
    const int acc = (t->bm / t->warps_m / 16) * (t->bn / t->warps_n / 8) * 4;
    return acc <= 128 && items <= 1024 && items <= max_work_group && pk_cl_mma_local_bytes(t) <= local_mem_bytes;
}

static int mma_tile_fits(const pk_cl_params *prm, const pk_cl_mma_tile *t, const pk_device_info *info,
                         size_t max_work_group)
{
    return info->matrix_units && (!t->wgmma || prm->wgmma_units) && (!t->tma || prm->tma_units) &&
           pk_cl_mma_tile_valid(t, info->local_mem_bytes, max_work_group);
}

/* The table's narrow tile when one row of them covers M; else its large
 * tile when those number at least the compute units (or neither other
 * fits), else the small one (or the narrow one where only it fits); NULL
 * when none fits. */
/* prm's tile of shape s for b k-contiguous or not: wgmma takes b
 * k-contiguous alone, and in its place the class's mma.sync tile takes
 * the other layout; a TMA tile takes only problems whose maps it can set
 * up (tma_ok: tma_takes), and in its place the shape's wgmma tile, or the
 * class's, takes the others */
static const pk_cl_mma_tile *mma_tile_for(const pk_cl_params *prm, const pk_device_info *info, pk_cl_mma_shape s,
                                          int b_kc, int tma_ok)
{
    const pk_cl_mma_tile *t = &prm->mma[s];
    if (t->tma && b_kc && !tma_ok) {
        const pk_cl_mma_tile *w = prm->wgmma_units ? pk_cl_mma_wgmma_table(s) : NULL;
        return w ? w : pk_cl_mma_table(pk_cl_vendor_of(info), s);
    }
    return t->wgmma && !b_kc ? pk_cl_mma_table(pk_cl_vendor_of(info), s) : t;
}

/* Whether gemm_tma.cl takes p (b k-contiguous, as mma_takes found): rows
 * of a and b 16-byte aligned and ascending (the maps' row strides;
 * mma_takes checked their starts), extents in 31 bits, and a grid of at
 * most 2^31 - 1 n tiles x pieces (its tile's split at most max_splits),
 * 65535 m tiles and 65535 batches */
static int tma_takes(const pk_gemm_problem *p, const pk_cl_mma_tile *t)
{
    const int64_t lim = INT32_MAX;
    const pk_view *a = &p->a, *b = &p->b;
    if (p->m > lim || p->n > lim || p->k > lim) return 0;
    /* (one row: gemm_tma.cl gives its map a stride of its own) */
    const int64_t big = (int64_t)1 << 38;
    if (p->m > 1 && (a->stride[1] % 8 || a->stride[1] <= 0 || a->stride[1] > big)) return 0;
    if (p->n > 1 && (b->stride[2] % 8 || b->stride[2] <= 0 || b->stride[2] > big)) return 0;
    const int64_t bm = t->bm > 0 ? t->bm : 1, bn = t->bn > 0 ? t->bn : 1, pieces = t->max_splits > 1 ? t->max_splits : 1;
    return (p->n + bn - 1) / bn * pieces <= lim && (p->m + bm - 1) / bm <= 65535 && p->batch <= 65535;
}

static const pk_cl_mma_tile *mma_pick(const pk_cl_params *prm, const pk_device_info *info, size_t max_work_group,
                                      const pk_gemm_problem *p, int b_kc, pk_cl_mma_shape *shape)
{
#define TILE_FOR(s) mma_tile_for(prm, info, s, b_kc, tma_takes(p, &prm->mma[s]))
    const pk_cl_mma_tile *lg = TILE_FOR(PK_CL_MMA_LARGE), *sm = TILE_FOR(PK_CL_MMA_SMALL),
                         *nw = TILE_FOR(PK_CL_MMA_NARROW);
#undef TILE_FOR
    /* weights in registers of their own (breg, kwarp) and wgmma's b are k-contiguous */
#define MMA_OK(t) (mma_tile_fits(prm, t, info, max_work_group) && (b_kc || (!(t)->breg && !(t)->kwarp && !(t)->wgmma)))
    const int lg_ok = MMA_OK(lg), sm_ok = MMA_OK(sm), nw_ok = MMA_OK(nw);
#undef MMA_OK
    const int64_t units = info->compute_units > 0 ? info->compute_units : 1;
    const int64_t tiles = lg_ok ? p->batch * ((p->m + lg->bm - 1) / lg->bm) * ((p->n + lg->bn - 1) / lg->bn) : 0;
    if (nw_ok && p->m <= nw->bm) return *shape = PK_CL_MMA_NARROW, nw;
    if (lg_ok && (tiles >= units || (!sm_ok && !nw_ok))) return *shape = PK_CL_MMA_LARGE, lg;
    if (sm_ok) return *shape = PK_CL_MMA_SMALL, sm;
    if (nw_ok) return *shape = PK_CL_MMA_NARROW, nw;
    return NULL;
}

/* Pieces of k for tile t: the largest power of two (each count is a
 * program of its own) with which the pieces do not outnumber t->fill x
 * the compute units. With the table's fill of 1, more work-groups than
 * units would keep a multiprocessor busier, but a split cost more than
 * that gained: on the H200, M = 256 by 4096 x 4096 (128 small tiles) ran
 * faster unsplit than in 2 pieces, and M = 64 (32 tiles) faster in 2
 * pieces than in 4 (bench/RESULTS.md, 2026-12-04 01:25). A larger fill
 * is for portkern tune to weigh: NVIDIA's OpenCL gives a work-group 48
 * KiB of local memory, so one work-group a multiprocessor holds at most
 * that many bytes of copies in flight. Each piece at least
 * PK_CL_MMA_MIN_SPLIT_STEPS steps, at most t->max_splits. */
static int mma_splits(const pk_cl_mma_tile *t, const pk_device_info *info, const pk_gemm_problem *p)
{
    const int64_t units = info->compute_units > 0 ? info->compute_units : 1;
    const int64_t tiles = p->batch * ((p->m + t->bm - 1) / t->bm) * ((p->n + t->bn - 1) / t->bn);
    const int64_t steps = (p->k + 31) / 32;
    const int64_t most = steps / PK_CL_MMA_MIN_SPLIT_STEPS;
    int n = 1;
    const int64_t room = units * (t->fill > 1 ? t->fill : 1);
    while (2 * n * tiles <= room && 2 * n <= most && 2 * n <= t->max_splits) n *= 2;
    return n;
}

/* gemm_mma.cl's operands: 16-bit, a k-contiguous, b k- or n-contiguous,
 * every row start a multiple of 8 elements (16 bytes) */
static int mma_takes(const pk_gemm_problem *p, int *b_kc)
{
    const pk_view *a = &p->a, *b = &p->b;
    if (a->dtype != b->dtype || (a->dtype != PK_F16 && a->dtype != PK_BF16)) return 0;
    if (p->m < 1 || p->n < 1 || p->k < 1 || a->stride[2] != 1) return 0;
    if (a->offset % 8 || b->offset % 8 || (p->batch > 1 && (a->stride[0] % 8 || b->stride[0] % 8))) return 0;
    if (p->m > 1 && a->stride[1] % 8) return 0;
    if (b->stride[1] == 1 && (p->n == 1 || b->stride[2] % 8 == 0)) return *b_kc = 1, 1;
    if (b->stride[2] == 1 && (p->k == 1 || b->stride[1] % 8 == 0)) return *b_kc = 0, 1;
    return 0;
}

const pk_cl_skinny_params *pk_cl_skinny_table(pk_cl_vendor cls)
{
    return (unsigned)cls < PK_CL_VENDOR_COUNT ? &skinny_table[cls] : NULL;
}

size_t pk_cl_skinny_local_bytes(const pk_cl_skinny_plan *sk)
{
    /* the mma kernel's warps meet in local memory only when they split k:
     * CPI * 4 accumulators a lane */
    if (sk->mma) return sk->kw > 1 ? sizeof(float) * (size_t)(sk->wg / 32) * (size_t)sk->cpi * 4 * 32 : 0;
    return sizeof(float) * (size_t)(sk->wg / sk->kl) * (size_t)sk->cpi * (size_t)sk->rc * (size_t)(sk->kl + 1);
}

static int bucket_of(int64_t m)
{
    int b = 0;
    while ((1 << b) < m) b++;
    return b;
}

/* The skinny plan for mr = 1 << b rows, k unsplit (splits = 1), without
 * the problem: what pk_cl_gemm_plan_problem and the variant list share. */
static int skinny_fill(const pk_cl_params *prm, const pk_device_info *info, size_t max_work_group, int vw, int b,
                       pk_cl_skinny_plan *sk)
{
    const pk_cl_skinny_params *t = &prm->skinny;
    memset(sk, 0, sizeof *sk);
    sk->mr = 1 << b;
    sk->vw = vw;
    sk->wg = t->wg;
    sk->kl = t->kl;
    sk->cpi = t->cpi[b];
    /* sums of 4 rows at a time: local memory for all 16 would cost NVIDIA
     * occupancy */
    sk->rc = sk->mr < 4 ? sk->mr : 4;
    sk->unroll = t->loads / sk->cpi > 1 ? t->loads / sk->cpi : 1;
    sk->vector_acc = t->vector_acc;
    sk->splits = 1;
    size_t bytes = pk_cl_skinny_local_bytes(sk);
    return t->wg % t->kl == 0 && (size_t)t->wg <= max_work_group && bytes <= PK_CL_GEMM_MAX_LOCAL_BYTES &&
           bytes <= info->local_mem_bytes;
}

/* Rows start on 16-byte boundaries when every offset and stride that
 * reaches a row is a multiple of vw (buffers themselves are aligned). */
static int skinny_takes(const pk_gemm_problem *p, int vw)
{
    const pk_view *a = &p->a, *b = &p->b;
    if (p->m < 1 || p->m > PK_CL_SKINNY_MAX_M || p->n < 1) return 0;
    if (a->stride[2] != 1 || b->stride[1] != 1 || a->dtype != b->dtype) return 0;
    return a->offset % vw == 0 && b->offset % vw == 0 && (p->batch == 1 || (a->stride[0] % vw == 0 && b->stride[0] % vw == 0)) &&
           (p->m == 1 || a->stride[1] % vw == 0) && (p->n == 1 || b->stride[2] % vw == 0);
}

/* The tensor-core skinny plan (gemm_skinny_mma): 16-bit operands on a
 * device with matrix units, from mma_min_m rows on. */
static int mma_fill(const pk_cl_params *prm, const pk_device_info *info, size_t max_work_group, pk_cl_skinny_plan *sk)
{
    const pk_cl_skinny_params *t = &prm->skinny;
    memset(sk, 0, sizeof *sk);
    sk->mma = 1;
    sk->mr = 16;
    sk->vw = 8;
    sk->wg = t->mma_wg;
    sk->kl = 32;
    sk->cpi = t->mma_nb;
    sk->unroll = t->mma_loads;
    sk->kw = t->mma_kw;
    sk->stream = t->mma_stream;
    sk->splits = 1;
    const size_t bytes = pk_cl_skinny_local_bytes(sk);
    return info->matrix_units && t->mma_wg % 32 == 0 && t->mma_kw > 0 && t->mma_wg / 32 % t->mma_kw == 0 &&
           (size_t)t->mma_wg <= max_work_group && bytes <= PK_CL_GEMM_MAX_LOCAL_BYTES && bytes <= info->local_mem_bytes;
}

int pk_cl_gemm_plan_problem(const pk_cl_params *prm, const pk_device_info *info, size_t max_work_group,
                            const pk_gemm_problem *p, pk_cl_gemm_plan *out)
{
    const int vw = p->a.dtype == PK_F32 ? 4 : 8; /* 16 bytes */
    if (skinny_takes(p, vw)) {
        pk_cl_skinny_plan sk;
        const int use_mma = p->a.dtype != PK_F32 && prm->skinny.mma_min_m > 0 && p->m >= prm->skinny.mma_min_m &&
                            mma_fill(prm, info, max_work_group, &sk);
        if (use_mma || skinny_fill(prm, info, max_work_group, vw, bucket_of(p->m), &sk)) {
            const pk_cl_skinny_params *t = &prm->skinny;
            /* columns a work-group owns: teams of kl items, cpi columns
             * each; a warp's blocks of 8 on the mma path */
            int64_t nc = sk.mma ? (int64_t)(sk.wg / 32 / sk.kw) * sk.cpi * 8 : (int64_t)(sk.wg / sk.kl) * sk.cpi;
            sk.groups = (p->n + nc - 1) / nc;
            int64_t total = p->batch * sk.groups, units = info->compute_units > 0 ? info->compute_units : 1;
            int64_t want = (t->fill * units + total - 1) / total, cap = p->k / t->min_split_k;
            if (want > t->max_splits) want = t->max_splits;
            if (want > cap) want = cap;
            sk.ks = p->k;
            if (want > 1) {
                /* whole rounds of the team's vectors (mma: steps of 32 k) per
                 * split, and no empty split */
                int64_t step = sk.mma ? 32 : (int64_t)vw * sk.kl;
                sk.ks = ((p->k + want - 1) / want + step - 1) / step * step;
                sk.splits = (int)((p->k + sk.ks - 1) / sk.ks);
            }
            memset(out, 0, sizeof *out);
            out->skinny = 1;
            out->sk = sk;
            out->cls = pk_cl_vendor_of(info);
            return 0;
        }
    }
    int b_kc = 0;
    pk_cl_mma_shape shape;
    const pk_cl_mma_tile *mt = mma_takes(p, &b_kc) ? mma_pick(prm, info, max_work_group, p, b_kc, &shape) : NULL;
    if (mt) {
        memset(out, 0, sizeof *out);
        out->cls = pk_cl_vendor_of(info);
        out->mma = 1;
        out->mma_shape = shape;
        out->mt = *mt;
        out->mma_splits = shape != PK_CL_MMA_LARGE ? mma_splits(mt, info, p) : 1;
        out->b_kc = b_kc;
        return 0;
    }
    return pk_cl_gemm_plan_pick(prm, info, max_work_group, p->batch, p->m, p->n, out);
}

static void skinny_variant(const pk_cl_skinny_plan *sk, char *name, size_t n)
{
    if (sk->mma)
        snprintf(name, n, "skinny_mma_%dx%d_kw%d%s%s", sk->wg, sk->cpi, sk->kw, sk->stream ? "_stream" : "",
                 sk->splits > 1 ? "_split" : "");
    else
        snprintf(name, n, "skinny_m%d_%dx%dx%d%s", sk->mr, sk->wg, sk->kl, sk->cpi, sk->splits > 1 ? "_split" : "");
}

void pk_cl_gemm_plan_variant(const pk_cl_gemm_plan *plan, char *name, size_t n)
{
    if (plan->skinny) {
        skinny_variant(&plan->sk, name, n);
        return;
    }
    if (plan->mma) {
        const pk_cl_mma_tile *t = &plan->mt;
        if (t->tma)
            snprintf(name, n, "tma_%dx%d_s%d%s", t->bm, t->bn, t->stages, plan->mma_splits > 1 ? "_split" : "");
        else if (t->wgmma)
            snprintf(name, n, "wgmma_%dx%d_s%d%s", t->bm, t->bn, t->stages, plan->mma_splits > 1 ? "_split" : "");
        else if (t->kwarp)
            snprintf(name, n, "mma_%dx%d_w%dx%dx%d_s%d_kwarp%s", t->bm, t->bn, t->warps_m, t->warps_n, t->kwarp,
                     t->stages, plan->mma_splits > 1 ? "_split" : "");
        else
            snprintf(name, n, "mma_%dx%d_w%dx%d_s%d_%s%s", t->bm, t->bn, t->warps_m, t->warps_n, t->stages,
                     t->breg ? "breg" : plan->b_kc ? "bk" : "bn", plan->mma_splits > 1 ? "_split" : "");
        return;
    }
    static const char *const shapes[PK_CL_GEMM_SHAPE_COUNT] = {"large", "small", "decode"};
    const pk_cl_gemm_tile *t = &plan->tile;
    snprintf(name, n, "%s_%dx%dx%d_%dx%d%s%s", (unsigned)plan->shape < PK_CL_GEMM_SHAPE_COUNT ? shapes[plan->shape] : "?",
             t->tm, t->tn, t->tk, t->wm, t->wn, t->lanes ? "_lanes4x8" : "", plan->fallback ? "_fallback" : "");
}

void pk_cl_gemm_plan_variants(const pk_cl_params *prm, const pk_device_info *info, size_t max_work_group,
                              void (*fn)(void *ctx, const char *name), void *ctx)
{
    pk_cl_gemm_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.cls = pk_cl_vendor_of(info);
    for (int s = 0; s < PK_CL_GEMM_SHAPE_COUNT; s++) {
        /* as pk_cl_gemm_plan_pick once it has the shape */
        plan.shape = (pk_cl_gemm_shape)s;
        plan.tile = prm->gemm[s];
        plan.fallback = !pk_cl_gemm_tile_valid(&plan.tile, info->local_mem_bytes, max_work_group);
        if (plan.fallback) plan.tile = fallback;
        if (!pk_cl_gemm_tile_valid(&plan.tile, info->local_mem_bytes, max_work_group)) continue;
        char name[96];
        pk_cl_gemm_plan_variant(&plan, name, sizeof name);
        fn(ctx, name);
    }
    /* the tensor-core kernel: each tile that fits, both layouts of b, the
     * small and narrow ones split where they may be (a tile of the large
     * one's shape has only its split variants of its own; the names of
     * two equal tiles are one variant) */
    for (int s = 0; s < PK_CL_MMA_SHAPE_COUNT; s++)
        for (int v = 0; v < 3; v++) {
            /* b n-contiguous, b k-contiguous, and the latter where a TMA
             * tile does not take the problem (tma_takes: rows of b that
             * repeat, stride 0) */
            const int b_kc = v > 0, tma_ok = v < 2;
            if (!tma_ok && !(prm->mma[s].tma && mma_tile_fits(prm, &prm->mma[s], info, max_work_group))) continue;
            const pk_cl_mma_tile *t = mma_tile_for(prm, info, (pk_cl_mma_shape)s, b_kc, tma_ok);
            const pk_cl_mma_tile *lg = mma_tile_for(prm, info, PK_CL_MMA_LARGE, b_kc, tma_ok);
            if (!mma_tile_fits(prm, t, info, max_work_group) || (!b_kc && (t->breg || t->kwarp || t->wgmma)))
                continue;
            const int same = s > 0 && !memcmp(t, lg, offsetof(pk_cl_mma_tile, max_splits)) && t->breg == lg->breg &&
                             t->kwarp == lg->kwarp && t->wgmma == lg->wgmma && t->tma == lg->tma &&
                             mma_tile_fits(prm, lg, info, max_work_group);
            for (int split = same; split < (s != PK_CL_MMA_LARGE && t->max_splits > 1 ? 2 : 1); split++) {
                char name[96];
                memset(&plan, 0, sizeof plan);
                plan.mma = 1, plan.mt = *t, plan.b_kc = b_kc, plan.mma_splits = split ? 2 : 1;
                pk_cl_gemm_plan_variant(&plan, name, sizeof name);
                fn(ctx, name);
            }
        }
    /* the skinny kernel's names do not depend on the dtype's vw */
    const pk_cl_skinny_params *t = &prm->skinny;
    for (int b = -1; (1 << (b < 0 ? 0 : b)) <= PK_CL_SKINNY_MAX_M; b++) {
        pk_cl_skinny_plan sk;
        /* b = -1: the tensor-core kernel, where the device takes it */
        if (b < 0 ? !(prm->skinny.mma_min_m > 0 && mma_fill(prm, info, max_work_group, &sk))
                  : !skinny_fill(prm, info, max_work_group, 8, b, &sk))
            continue;
        /* (every scalar bucket stays reachable: f32 never takes the tensor cores) */
        for (int split = 0; split < 2 && split < t->max_splits; split++) {
            char name[96];
            sk.splits = split ? 2 : 1;
            skinny_variant(&sk, name, sizeof name);
            fn(ctx, name);
        }
    }
}
