/* The CUDA GEMM plan. In order of preference:
 *  - decode (tensor cores) or skinny (CUDA cores): M <= 16 in the linear
 *    layout (x[M,K] @ W[N,K]^T, k contiguous in both), f16/bf16, 16-byte
 *    aligned rows. Decode is bound by reading W once; a tile kernel would
 *    pad M to its tile. The skinny kernel does M FMAs per weight and keeps
 *    up with HBM for a few rows only (on the H200 at M = 1, far from it at
 *    M = 16: bench/RESULTS.md, 2026-11-29 13:10); from DECODE_MIN_M rows
 *    on, the decode kernel does them all in
 *    one mma. PORTKERN_CUDA_GEMM=skinny or =decode sends every such problem
 *    to that one kernel, for A/B timing of the crossover (any other value,
 *    or none, leaves the choice to M).
 *  - mma: f16/bf16 where each operand has a contiguous direction (A: k or
 *    m, B: k or n) and 16-byte aligned offsets and strides, which cp.async
 *    needs. The largest tile that still gives the device two waves of
 *    blocks (1 block of 128 x 256 per SM), else the next smaller one.
 *  - simt: the rest, and every f32 problem (exact f32; TF32 is not used
 *    even when allowed). f32 with aligned rows of 128 rows and columns or
 *    more: the wide-thread kernel's 128 x 128 tile (f32w), ahead of the
 *    256-thread one (VEC) at 4096^3 and at M = 256 by 4096 x 4096
 *    (bench/RESULTS.md, 2026-12-08); fewer rows or columns: VEC, untimed
 *    against it there. PORTKERN_CUDA_GEMM=vec keeps every aligned f32
 *    problem on VEC, =f32w or =f32t on that wide tile.
 * A stride of a dimension of size 1 is never used, so it does not count
 * against contiguity or alignment. */
#include <stdlib.h>
#include <string.h>

#include "../../kernels_gpu/gemm_skinny_cols.h"
#include "cuda_gemm_plan.h"
#include "pk_gpu_args.h"
#include "pk_gpu_gemm_shape.h"

const char *const pk_cu_gemm_kernel_names[] = {PK_CU_GEMM_KERNELS(PK_GPU_KERNEL_NAME)};

/* The list's kernels by what the plan tells apart: dtype (16-bit ones
 * from f16), tile, rows; a layout index is 0 where the operand is
 * k-contiguous. */
#define ID(kind, module, name, ...) ID_##kind(PK_CU_##name, __VA_ARGS__)
#define ID_MMA(id, DT, tile, bm, bn, wm, wn, st, ak, bk) .mma[DT - 1][tile][!(ak)][!(bk)] = id,
#define ID_SIMT(id, DT, bm) .simt[DT][(bm) == 128] = id,
#define ID_VEC(id, bm, ak, bk) .vec[(bm) == 128][!(ak)][!(bk)] = id,
#define ID_WIDE(id, i, bm, bn, ak, bk) .wide[i][!(ak)][!(bk)] = id,
#define ID_SKINNY(id, DT, rows, ks) .skinny[DT - 1][PK_GPU_SKINNY_INDEX(rows)][(ks) - 1] = id,
#define ID_DECODE(id, DT) .decode[DT - 1] = id,
#define ID_WGMMA(id, DT, i, ...) .wgmma[DT - 1][i] = id,
static const struct {
    unsigned char mma[2][PK_CU_MMA_TILE_COUNT][2][2], simt[3][2], vec[2][2][2], skinny[2][5][2], decode[2], wgmma[2][PK_CU_WGMMA_TILE_COUNT];
    unsigned char wide[PK_CU_WIDE_TILE_COUNT][2][2];
} ids = {PK_CU_GEMM_KERNELS(ID)};

typedef struct mma_tile {
    int bm, bn, threads, stages;
} mma_tile;

#define MMA_TILE(a, b, c, i, name, bm, bn, wm, wn, st) {bm, bn, 32 * (wm) * (wn), st},
static const mma_tile mma_tiles[] = {PK_CU_MMA_TILES(MMA_TILE, 0, 0, 0)};
typedef struct wgmma_tile {
    int bm, bn, stages, cost, trial, form, out;
} wgmma_tile;

#define WGMMA_TILE(a, b, c, i, name, bm, bn, st, cost, trial, form, out) {bm, bn, st, cost, trial, form, out},
static const wgmma_tile wgmma_tiles[] = {PK_CU_WGMMA_TILES(WGMMA_TILE, 0, 0, 0)};
typedef struct wide_tile {
    int bm, bn;
} wide_tile;

#define WIDE_TILE(a, i, knob, bm, bn) {bm, bn},
static const wide_tile wide_tiles[] = {PK_CU_WIDE_TILES(WIDE_TILE, 0)};
#define MMA_SMEM(bm, bn, stages) ((size_t)(stages) * (size_t)((bm) + (bn)) * PK_CU_MMA_BK * 2)

#define DECODE_MIN_M 5
/* the k of one step of the 128 x 128 f32 tile (gemm_simt_vec.cuh: 1024 / BM) */
#define VEC128_BK 8
/* the one-row skinny kernel's warps that an SM holds */
#define SKINNY_WARPS_PER_SM (PK_CU_SKINNY_BLOCKS(1) * PK_CU_SKINNY_THREADS / 32)
/* the decode kernel's shape (gemm_tiles.h); its warps take at least two
 * steps of k each, counted in sm_90's steps */
#define DECODE_COLS (8 * PK_CU_DECODE_NT)
#define DECODE_GROUP_K (PK_CU_DECODE_U_SM90 * 32)
#define DECODE_WARPS_PER_SM (PK_CU_DECODE_BLOCKS * PK_CU_DECODE_MAX_THREADS / 32)
#define DECODE_MAX_WARPS (PK_CU_DECODE_MAX_THREADS / 32)

static int64_t cdiv(int64_t x, int64_t y) { return (x + y - 1) / y; }

static unsigned clamp_grid(int64_t x, unsigned limit) { return x > (int64_t)limit ? limit : (unsigned)x; }

/* Which direction of A (k: 'k', m: 'm') and B (k: 'k', n: 'n') the mma
 * kernel can copy in 16-byte chunks; 0 when none. */
static char mma_layout_a(const pk_gemm_problem *p)
{
    const pk_view *a = &p->a;
    if (a->offset % 8 || !pk_gpu_stride_aligned(a->stride[0], p->batch, 8)) return 0;
    if (pk_gpu_contiguous(a->stride[2], p->k) && pk_gpu_stride_aligned(a->stride[1], p->m, 8)) return 'k';
    if (pk_gpu_contiguous(a->stride[1], p->m) && pk_gpu_stride_aligned(a->stride[2], p->k, 8)) return 'm';
    return 0;
}

static char mma_layout_b(const pk_gemm_problem *p)
{
    const pk_view *b = &p->b;
    if (b->offset % 8 || !pk_gpu_stride_aligned(b->stride[0], p->batch, 8)) return 0;
    if (pk_gpu_contiguous(b->stride[1], p->k) && pk_gpu_stride_aligned(b->stride[2], p->n, 8)) return 'k';
    if (pk_gpu_contiguous(b->stride[2], p->n) && pk_gpu_stride_aligned(b->stride[1], p->k, 8)) return 'n';
    return 0;
}

static int64_t tiles_of(const pk_gemm_problem *p, int bm, int bn)
{
    return p->batch * cdiv(p->m, bm) * cdiv(p->n, bn);
}

static void set_grid(pk_cu_gemm_plan *out, int64_t blocks_x, int64_t batch, unsigned threads)
{
    out->grid[0] = clamp_grid(blocks_x < 1 ? 1 : blocks_x, PK_CU_GEMM_MAX_GRID_X);
    out->grid[1] = clamp_grid(batch, PK_CU_GEMM_MAX_GRID_YZ);
    out->grid[2] = 1;
    out->block[0] = threads;
    out->block[1] = out->block[2] = 1;
}

/* rows of `row_elems` elements `stride` apart, side by side (no overlap) and
 * whole 16-byte units apart: a TMA map's row */
static int tma_rows(int64_t stride, int64_t row_elems) { return stride >= row_elems && stride % 8 == 0; }

/* a number of 1 to most at *at (digits only), ending at '\0' or `stop`;
 * 0 if none; *at moves past it */
static long knob_number(const char **at, char stop, long most)
{
    const char *p = *at;
    if (*p < '0' || *p > '9') return 0;
    char *end;
    const long v = strtol(p, &end, 10);
    if ((*end && *end != stop) || v < 1 || v > most) return 0;
    *at = end;
    return v;
}

pk_cu_gemm_knob pk_cu_gemm_knob_of(const char *value)
{
    pk_cu_gemm_knob knob = {PK_CU_GEMM_KNOB_NONE, 0, 0, 0};
    if (!value) return knob;
    static const char *const names[] = {"skinny", "decode", "mma", "trial", "vec"};
    static const pk_cu_gemm_knob_kind kinds[] = {PK_CU_GEMM_KNOB_SKINNY, PK_CU_GEMM_KNOB_DECODE, PK_CU_GEMM_KNOB_MMA,
                                                PK_CU_GEMM_KNOB_TRIAL, PK_CU_GEMM_KNOB_VEC};
    for (int i = 0; i < 5; i++)
        if (!strcmp(value, names[i])) return (knob.kind = kinds[i], knob);
#define TILE_NAME(a, b, c, i, name, ...) #name,
    static const char *const tiles[] = {PK_CU_WGMMA_TILES(TILE_NAME, 0, 0, 0)};
#undef TILE_NAME
#define WIDE_NAME(a, i, knob, ...) #knob,
    static const char *const wides[] = {PK_CU_WIDE_TILES(WIDE_NAME, 0)};
#undef WIDE_NAME
    for (int i = 0; i < PK_CU_WIDE_TILE_COUNT; i++) {
        const size_t len = strlen(wides[i]);
        if (strncmp(value, wides[i], len)) continue;
        /* "<tile>[:<splits>]" */
        const char *at = value + len;
        long splits = 0;
        if (*at == ':' && !(++at, splits = knob_number(&at, 0, PK_CU_GEMM_MAX_SPLITS))) continue;
        if (*at) continue;
        knob.kind = PK_CU_GEMM_KNOB_WIDE;
        knob.tile = i;
        knob.splits = (int)splits;
        return knob;
    }
    for (int i = 0; i < PK_CU_WGMMA_TILE_COUNT; i++) {
        const size_t len = strlen(tiles[i]);
        if (strncmp(value, tiles[i], len)) continue;
        /* "<tile>[:<splits>][@<blocks>]" */
        const char *at = value + len;
        long splits = 0, blocks = 0;
        if (*at == ':' && !(++at, splits = knob_number(&at, '@', PK_CU_GEMM_MAX_SPLITS))) continue;
        if (*at == '@' && !(++at, blocks = knob_number(&at, 0, PK_CU_GEMM_MAX_GRID_X))) continue;
        if (*at) continue;
        knob.kind = PK_CU_GEMM_KNOB_TILE;
        knob.tile = i;
        knob.splits = (int)splits;
        knob.blocks = (unsigned)blocks;
        return knob;
    }
    return knob;
}

/* The Hopper plan's model of a unit's time, in k steps of its tile: the
 * steps, a fixed part (the ring filling, the epilogue) and with split-K the
 * partial sums each range writes and the last one reads back, counted as
 * the steps that move as many bytes. Trial figures, to be set from the
 * bench (gemm_kernels.h's trial tiles). */
#define WGMMA_FIXED_STEPS 3.0
/* ping-pong: the epilogue runs under the other consumer's products */
#define WGMMA_PINGPONG_FIXED_STEPS 1.0

static double split_steps(const wgmma_tile *t, int splits)
{
    if (splits == 1) return 0.0;
    const double part = 4.0 * t->bm * t->bn, step = 2.0 * (t->bm + t->bn) * PK_CU_WGMMA_BK;
    return splits * part / step;
}

/* The least costly tile and split of the tiles the knob allows, with at
 * most `most_splits` ranges of k where not forced (the model below);
 * tile -1 where none. */
typedef struct pick {
    int tile, splits;
    int64_t steps, tiles; /* tiles: unsplit */
} pick;

int pk_cu_gemm_staged_fits(const pk_gemm_problem *p)
{
    return (p->d.dtype == PK_BF16 || p->d.dtype == PK_F16) && p->d.stride[2] == 1 && p->d.stride[1] % 8 == 0 &&
           p->d.stride[0] % 8 == 0 && p->d.offset % 8 == 0;
}

static int is_pair(const wgmma_tile *t) { return PK_CU_WGMMA_IS_PAIR(t->form); }

/* a batch's tiles of t over p, a pair's empty one past an odd count
 * included (gemm_kernels.h) */
static int64_t batch_tiles(const pk_gemm_problem *p, const wgmma_tile *t)
{
    const int64_t mg = PK_CU_WGMMA_PAIR_ROWS(t->form), ng = PK_CU_WGMMA_PAIR_COLS(t->form);
    return mg * PK_CU_WGMMA_GROUPS(cdiv(p->m, t->bm), mg) * ng * PK_CU_WGMMA_GROUPS(cdiv(p->n, t->bn), ng);
}

static pick pick_wgmma(const pk_gemm_problem *p, int sm_count, pk_cu_gemm_knob knob, int most_splits)
{
    const int trial = knob.kind == PK_CU_GEMM_KNOB_TRIAL;
    const int forced = knob.kind == PK_CU_GEMM_KNOB_TILE ? knob.tile : -1;
    /* fewer rows than 64 leave a 128-row tile more than half empty: from
     * 17 rows (the decode kernel takes 16 and fewer) the 64-row tiles
     * alone, which at 32 rows ran 1.4-3x the mma.sync tiles' speed
     * (bench/RESULTS.md, 2026-12-05) */
    const int rows_64 = p->m < 64;
    const int64_t k_tiles = cdiv(p->k, PK_CU_WGMMA_BK);
    pick best = {-1, 1, k_tiles, 0};
    double best_cost = 0.0;
    for (int i = 0; i < PK_CU_WGMMA_TILE_COUNT; i++) {
        const wgmma_tile *t = &wgmma_tiles[i];
        if (forced >= 0 ? i != forced : t->trial == 1 && !trial) continue;
        if (rows_64 && t->bm != 64) continue; /* a forced one too: then none */
        /* a tile that writes through TMA only where it can: elsewhere its
         * fewer stages would cost for nothing */
        if (forced < 0 && t->out && !pk_cu_gemm_staged_fits(p)) continue;
        const int pair = is_pair(t);
        const int64_t tiles = p->batch * batch_tiles(p, t);
        const int whole = pair || (t->trial == PK_CU_WGMMA_WHOLE && !trial);
        const int most = forced >= 0 ? (pair ? 1 : knob.splits > 0 ? knob.splits : 1) : whole ? 1 : most_splits;
        const int sms = pair ? sm_count - sm_count % 2 : sm_count;
        const double fixed = t->form == PK_CU_WGMMA_PINGPONG ? WGMMA_PINGPONG_FIXED_STEPS : WGMMA_FIXED_STEPS;
        /* ping-pong overlaps a block's units: with fewer than two a
         * block, one consumer would sit idle */
        if (forced < 0 && t->form == PK_CU_WGMMA_PINGPONG && tiles < 2 * (int64_t)sm_count) continue;
        for (int ask = forced >= 0 ? most : 1; ask <= most; ask++) {
            /* as many ranges as `ask` gives steps for: none left empty */
            const int64_t steps = k_tiles > ask ? cdiv(k_tiles, ask) : 1;
            /* (a flag per consumer warp of each tile: more tiles than the
             * device's flags run unsplit, which is where there are enough
             * of them anyway) */
            const int splits = k_tiles > 1 && tiles * 8 <= PK_CU_GEMM_FLAGS ? (int)cdiv(k_tiles, steps) : 1;
            if (forced < 0 && t->out && splits > 1) continue; /* split ranges write partial sums, not D */
            const double cost = (double)cdiv(tiles * splits, sms) * t->bm * t->bn * t->cost *
                                ((double)(splits > 1 ? steps : k_tiles) + fixed + split_steps(t, splits));
            if (best.tile < 0 || cost < best_cost) {
                best.tile = i, best.splits = splits, best.steps = splits > 1 ? steps : k_tiles, best.tiles = tiles;
                best_cost = cost;
            }
        }
    }
    return best;
}

int pk_cu_gemm_plan_wgmma(const pk_gemm_problem *p, int sm_count, pk_cu_gemm_knob knob, pk_cu_gemm_plan *out)
{
    if (knob.kind == PK_CU_GEMM_KNOB_MMA) return 0;
    if (p->a.dtype == PK_F32 || mma_layout_a(p) != 'k' || mma_layout_b(p) != 'k') return 0;
    if (p->a.stride[2] != 1 || p->b.stride[1] != 1) return 0; /* k really contiguous, not just size 1 */
    if (p->m < 2 || p->n < 2 || !tma_rows(p->a.stride[1], p->k) || !tma_rows(p->b.stride[2], p->k)) return 0;
    /* a batch plane is a map's third dimension: after the whole matrix, or
     * the same plane for every batch (stride 0) */
    if (p->batch > 1 && p->a.stride[0] && p->a.stride[0] < p->m * p->a.stride[1]) return 0;
    if (p->batch > 1 && p->b.stride[0] && p->b.stride[0] < p->n * p->b.stride[2]) return 0;
    if (p->k > 0x7fffffff || p->m > 0x7fffffff || p->n > 0x7fffffff || p->batch > 0x7fffffff) return 0;
    const int trial = knob.kind == PK_CU_GEMM_KNOB_TRIAL;
    const int forced = knob.kind == PK_CU_GEMM_KNOB_TILE ? knob.tile : -1;
    if (p->m < 17) return 0; /* the decode kernel's */
    if (sm_count < 1) sm_count = 1;

    /* The tile and split whose waves cost least (a wave: every
     * multiprocessor one unit, a persistent block each), each output
     * weighed by the tile's cost and each unit by its steps. Even a
     * fraction of a wave of these tiles ran ahead of the mma.sync tiles'
     * many blocks (M = 64 by 4096 x 4096, 32 tiles of 128 x 128: 27 us
     * against 49; bench/RESULTS.md, 2026-12-04 19:17). Split-K, ranges of
     * k filling the multiprocessors that the tiles leave idle, only where
     * the best unsplit plan fills a quarter of them or less: on the H200
     * at 8, 16 and 32 tiles of 64 x 128 it ran 1.05-1.7x faster, at 48
     * and more (64 x 256 or 128 x 256 split in its stead) 1.1-1.3x
     * slower (bench/RESULTS.md, 2026-12-05 18:27-18:52 UTC), which this model does
     * not tell apart. Every split under the trial knob. */
    pick best = pick_wgmma(p, sm_count, knob, trial ? PK_CU_GEMM_MAX_SPLITS : 1);
    if (!trial && forced < 0 && best.tile >= 0 && best.tiles * 4 <= sm_count)
        best = pick_wgmma(p, sm_count, knob, PK_CU_GEMM_MAX_SPLITS);
    if (best.tile < 0) return 0;
    const wgmma_tile *t = &wgmma_tiles[best.tile];

    memset(out, 0, sizeof *out);
    out->kind = PK_CU_GEMM_WGMMA;
    out->kernel = ids.wgmma[p->a.dtype - 1][best.tile];
    out->tile_m = (unsigned)t->bm;
    out->tile_n = (unsigned)t->bn;
    out->splits = best.splits;
    out->steps = (int)best.steps;
    out->part_bytes = best.splits > 1 ? (size_t)tiles_of(p, t->bm, t->bn) * (size_t)best.splits * (size_t)t->bm *
                                            (size_t)t->bn * sizeof(float)
                                      : 0;
    out->pair = is_pair(t);
    out->pair_a = t->form == PK_CU_WGMMA_PAIR_A;
    out->out = t->out;
    /* persistent: one block per multiprocessor walks the units (a pair of
     * blocks, pairs of units) */
    const int64_t sms = out->pair ? (sm_count < 2 ? 2 : sm_count - sm_count % 2) : sm_count;
    int64_t units = batch_tiles(p, t) * best.splits;
    int64_t per_batch = units < sms ? units : sms;
    set_grid(out, per_batch, p->batch, PK_CU_WGMMA_THREADS);
    if ((int64_t)out->grid[0] * out->grid[1] > sms) /* several batches: fill the device, not more */
        out->grid[1] = (unsigned)(sms / out->grid[0] > 0 ? sms / out->grid[0] : 1);
    if (knob.blocks) { /* a grid of fewer blocks, each taking several units (tests) */
        const unsigned most = out->pair ? (knob.blocks + 1) / 2 * 2 : knob.blocks;
        if (out->grid[0] > most) out->grid[0] = most;
        out->grid[1] = 1;
    }
    out->smem = (unsigned)PK_CU_WGMMA_SMEM(t->bm, t->bn, t->stages, t->out);
    return 1;
}

/* Which direction of A (k: 'k', m: 'm') and B (k: 'k', n: 'n') the f32
 * SIMT kernel of the aligned layouts reads in float4s: contiguous, with
 * rows and batches whole 16-byte units apart from a 16-byte aligned
 * start; 0 when none. */
static char simt_layout_a(const pk_gemm_problem *p)
{
    const pk_view *a = &p->a;
    if (a->dtype != PK_F32 || a->offset % 4 || !pk_gpu_stride_aligned(a->stride[0], p->batch, 4)) return 0;
    if (pk_gpu_contiguous(a->stride[2], p->k) && pk_gpu_stride_aligned(a->stride[1], p->m, 4)) return 'k';
    if (pk_gpu_contiguous(a->stride[1], p->m) && pk_gpu_stride_aligned(a->stride[2], p->k, 4)) return 'm';
    return 0;
}

static char simt_layout_b(const pk_gemm_problem *p)
{
    const pk_view *b = &p->b;
    if (b->dtype != PK_F32 || b->offset % 4 || !pk_gpu_stride_aligned(b->stride[0], p->batch, 4)) return 0;
    if (pk_gpu_contiguous(b->stride[1], p->k) && pk_gpu_stride_aligned(b->stride[2], p->n, 4)) return 'k';
    if (pk_gpu_contiguous(b->stride[2], p->n) && pk_gpu_stride_aligned(b->stride[1], p->k, 4)) return 'n';
    return 0;
}

/* The wide-thread f32 kernel's tile (the plan's f32w, or the one
 * PORTKERN_CUDA_GEMM names), its blocks PK_CU_WIDE_BLOCKS a multiprocessor. Unforced, where its tiles
 * leave some of a wave's blocks idle, k in as many ranges as keep every
 * unit in that one wave (a second, part-filled wave would cost a whole
 * unit's time), each of 16 steps at least; forced, the ranges asked for,
 * fewer where K has fewer steps. */
static void plan_wide(const pk_gemm_problem *p, int sm_count, pk_cu_gemm_knob knob, char sa, char sb,
                      pk_cu_gemm_plan *out)
{
    const wide_tile *t = &wide_tiles[knob.tile];
    const int64_t tiles = tiles_of(p, t->bm, t->bn), k_steps = cdiv(p->k, PK_CU_WIDE_BK);
    const int64_t wave = (int64_t)PK_CU_WIDE_BLOCKS * sm_count;
    int64_t splits = knob.splits;
    if (!splits) {
        splits = tiles > 0 && tiles < wave ? wave / tiles : 1;
        if (splits > PK_CU_GEMM_MAX_SPLITS) splits = PK_CU_GEMM_MAX_SPLITS;
        if (splits > k_steps / 16) splits = k_steps / 16;
    }
    out->kind = PK_CU_GEMM_VEC;
    out->kernel = ids.wide[knob.tile][sa == 'm'][sb == 'n'];
    if (splits > 1 && k_steps > 1 && tiles <= PK_CU_GEMM_FLAGS) {
        out->steps = (int)cdiv(k_steps, splits);
        splits = cdiv(k_steps, out->steps);
        out->splits = (int)splits;
        out->part_bytes = (size_t)tiles * (size_t)splits * (size_t)t->bm * (size_t)t->bn * sizeof(float);
    } else {
        splits = 1;
    }
    set_grid(out, cdiv(p->m, t->bm) * cdiv(p->n, t->bn) * splits, p->batch, PK_CU_WIDE_THREADS);
}

void pk_cu_gemm_plan_pick_knob(const pk_gemm_problem *p, int sm_count, size_t smem_optin, pk_cu_gemm_knob knob,
                               pk_cu_gemm_plan *out)
{
    memset(out, 0, sizeof *out);
    const int dt = p->a.dtype;
    if (sm_count < 1) sm_count = 1;
    const int force_skinny = knob.kind == PK_CU_GEMM_KNOB_SKINNY, force_decode = knob.kind == PK_CU_GEMM_KNOB_DECODE;

    if (pk_gpu_gemm_decode_fits(p) && !force_skinny && (p->m >= DECODE_MIN_M || force_decode)) {
        /* a block per strip of columns, its warps splitting K: as many warps
         * as still fit every block in one wave and still find a group of k
         * each (4 at least) */
        const int64_t blocks = cdiv(p->n, DECODE_COLS) * p->batch;
        unsigned warps = 4;
        while (warps < DECODE_MAX_WARPS && blocks * 2 * warps <= (int64_t)DECODE_WARPS_PER_SM * sm_count &&
               p->k / DECODE_GROUP_K >= 2 * (int64_t)warps)
            warps *= 2;
        out->kind = PK_CU_GEMM_DECODE;
        out->kernel = ids.decode[dt - 1];
        set_grid(out, cdiv(p->n, DECODE_COLS), p->batch, 32 * warps);
        out->smem = warps * (DECODE_COLS / 8) * 4 * 32 * 4; /* the warps' accumulators */
        return;
    }

    if (pk_gpu_gemm_decode_fits(p)) {
        const int mi = PK_GPU_SKINNY_INDEX(p->m), nc = PK_GPU_SKINNY_COLS(1 << mi);
        /* One row: two warps per column where that still fits one wave
         * (W of few columns: more loads in flight), or where one wave of a
         * warp per column would leave each warp a long chain of rounds
         * (8 or more of 32 lanes x 4 chunks: on the H200 down_proj's 14,
         * 4096 x 14336, ran faster split, q_proj's 4 slower; bench/RESULTS.md,
         * 2026-11-29 19:50). */
        const int64_t warps = p->n * p->batch, slots = (int64_t)SKINNY_WARPS_PER_SM * sm_count;
        const int64_t rounds = cdiv(p->k / 8, 32 * 4);
        int ks = mi == 0 && p->k / 8 >= 2 * 32 && (2 * warps <= slots || (warps <= slots && rounds >= 8)) ? 2 : 1;
        out->kind = PK_CU_GEMM_SKINNY;
        out->kernel = ids.skinny[dt - 1][mi][ks - 1];
        set_grid(out, cdiv(cdiv(p->n, nc), PK_CU_SKINNY_THREADS / 32 / ks), p->batch, PK_CU_SKINNY_THREADS);
        out->early = 1;
        return;
    }

    char la = p->a.dtype == PK_F32 ? 0 : mma_layout_a(p);
    char lb = p->a.dtype == PK_F32 ? 0 : mma_layout_b(p);
    if (la && lb) {
        const int count = (int)(sizeof mma_tiles / sizeof mma_tiles[0]);
        int ti = -1;
        for (int i = 0; i < count; i++) {
            const mma_tile *c = &mma_tiles[i];
            if (MMA_SMEM(c->bm, c->bn, c->stages) > smem_optin) continue;
            ti = i;
            if (tiles_of(p, c->bm, c->bn) >= 2 * (int64_t)sm_count) break;
        }
        if (ti >= 0) {
            const mma_tile *t = &mma_tiles[ti];
            out->kind = PK_CU_GEMM_MMA;
            out->kernel = ids.mma[dt - 1][ti][la == 'm'][lb == 'n'];
            out->smem = (unsigned)MMA_SMEM(t->bm, t->bn, t->stages);
            set_grid(out, cdiv(p->m, t->bm) * cdiv(p->n, t->bn), p->batch, (unsigned)t->threads);
            return;
        }
    }

    /* two blocks of 128 x 128 per SM: 128 when that fills the device once */
    int bm = tiles_of(p, 128, 128) >= 2 * (int64_t)sm_count ? 128 : 64;
    char sa = simt_layout_a(p), sb = simt_layout_b(p);
    /* the wide kernel: its knob's tile, or f32w (ranges where its tiles
     * are few) from 128 rows and columns on; the trial knob keeps VEC's
     * trial split below */
    const int wide = knob.kind == PK_CU_GEMM_KNOB_WIDE || (p->m >= 128 && p->n >= 128 &&
                                                           knob.kind != PK_CU_GEMM_KNOB_VEC &&
                                                           knob.kind != PK_CU_GEMM_KNOB_TRIAL);
    if (sa && sb && wide) {
        const pk_cu_gemm_knob f32w = {PK_CU_GEMM_KNOB_WIDE, 0, 0, 0};
        plan_wide(p, sm_count, knob.kind == PK_CU_GEMM_KNOB_WIDE ? knob : f32w, sa, sb, out);
        return;
    }
    out->kind = sa && sb ? PK_CU_GEMM_VEC : PK_CU_GEMM_SIMT;
    int64_t splits = 1;
    if (out->kind == PK_CU_GEMM_VEC && bm == 64 && knob.kind == PK_CU_GEMM_KNOB_TRIAL) {
        /* Trial, until timed: too few 128 x 128 tiles for two waves keep
         * that tile (its 8 x 8 outputs a thread) with k cut in ranges that
         * fill them, each of 16 steps at least */
        const int64_t tiles = tiles_of(p, 128, 128), k_steps = cdiv(p->k, VEC128_BK);
        splits = cdiv(2 * (int64_t)sm_count, tiles);
        if (splits > PK_CU_GEMM_MAX_SPLITS) splits = PK_CU_GEMM_MAX_SPLITS;
        if (splits > k_steps / 16) splits = k_steps / 16;
        if (splits > 1 && tiles <= PK_CU_GEMM_FLAGS) {
            out->steps = (int)cdiv(k_steps, splits);
            splits = cdiv(k_steps, out->steps);
            out->splits = (int)splits;
            out->part_bytes = (size_t)tiles * (size_t)splits * 128 * 128 * sizeof(float);
            bm = 128;
        } else {
            splits = 1;
        }
    }
    out->kernel = sa && sb ? ids.vec[bm == 128][sa == 'm'][sb == 'n'] : ids.simt[dt][bm == 128];
    set_grid(out, cdiv(p->m, bm) * cdiv(p->n, bm) * splits, p->batch, 256);
}

/* The list's kernels the plan can pick (knob_only: those only a knob
 * picks), and whether split */
static void kernels(int has_wgmma, size_t smem_optin, int knob_only, void (*fn)(void *ctx, const char *name, int split),
                    void *ctx)
{
#define CAN(kind, module, name, ...) CAN_##kind(pk_cu_gemm_kernel_names[PK_CU_##name], __VA_ARGS__)
/* every tile that fits (the last one that fits takes what the others
 * leave), every layout: wgmma refuses k-major operands that a TMA map
 * cannot describe (overlapping rows or batches) */
#define CAN_MMA(name, DT, tile, bm, bn, wm, wn, st, ak, bk) \
    if (!knob_only && MMA_SMEM(bm, bn, st) <= smem_optin) fn(ctx, name, 0);
/* SIMT: f32, and 16-bit operands that no 16-byte copy can read */
#define CAN_SIMT(name, ...) if (!knob_only) fn(ctx, name, 0);
/* the 64 x 64 one for fewer than 128 rows or columns; the 128 x 128 one
 * (two waves of its tiles: from 128 rows and columns on, f32w's) by the
 * vec knob, split only under the trial knob */
#define CAN_VEC(name, bm, ak, bk)                  \
    if (!knob_only && (bm) == 64) fn(ctx, name, 0); \
    if (knob_only && (bm) == 128) fn(ctx, name, 0), fn(ctx, name, 1);
/* f32w the plan's (split where its tiles are few), f32t by its knob */
#define CAN_WIDE(name, i, ...) \
    if (knob_only == ((i) != 0)) fn(ctx, name, 0), fn(ctx, name, 1);
/* from DECODE_MIN_M rows on, only by the knob */
#define CAN_SKINNY(name, DT, rows, ks) if (((rows) >= DECODE_MIN_M) == knob_only) fn(ctx, name, 0);
#define CAN_DECODE(name, DT) if (!knob_only) fn(ctx, name, 0);
/* the plan's tiles, split-K where the tiles fill a quarter of the
 * device or less; a knob: the trial tiles, split too, and the split form
 * of a tile the plan takes whole; the pairs never split */
#define CAN_WGMMA(name, DT, i, bm, bn, st, cost, trial, form, out)                       \
    if (has_wgmma && ((trial) == 1) == knob_only) fn(ctx, name, 0);                     \
    if (has_wgmma && ((trial) != 0) == knob_only && !PK_CU_WGMMA_IS_PAIR(form)) fn(ctx, name, 1);
    PK_CU_GEMM_KERNELS(CAN)
}

void pk_cu_gemm_plan_kernels(int has_wgmma, size_t smem_optin, void (*fn)(void *ctx, const char *name, int split),
                             void *ctx)
{
    kernels(has_wgmma, smem_optin, 0, fn, ctx);
}

void pk_cu_gemm_plan_knob_kernels(int has_wgmma, void (*fn)(void *ctx, const char *name, int split), void *ctx)
{
    kernels(has_wgmma, 0, 1, fn, ctx);
}
