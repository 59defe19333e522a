/* Kernel and tile choice for CUDA attention. The tiles are
 * kernels_cuda/attention_tiles.h's, which the kernel build reads too. */
#include <string.h>

#include "cuda_attention_plan.h"
#include "../../kernels_cuda/attention_tiles.h"
#include "pk_attn_layout.h"
#include "pk_attn_split.h"
#include "pk_gpu_args.h"

/* Blocks per multiprocessor a split of the CUDA-core kernel aims for; the
 * tensor-core kernels count their own from shared memory. */
#define PK_CU_ATTN_BLOCKS_PER_SM 4

int pk_cu_attn_mma_layout(const pk_attention_problem *p)
{
    /* the shared rule, and device pointers on 16 bytes */
    return pk_attn_mma_rows(p) && (uintptr_t)p->q.mem % 16 == 0 && (uintptr_t)p->k.mem % 16 == 0 &&
           (uintptr_t)p->v.mem % 16 == 0;
}

const char *const pk_cu_attn_kernel_names[] = {PK_CU_ATTN_KERNELS(PK_GPU_KERNEL_NAME)};

/* The list's kernels by dtype (16-bit ones from f16), head dim and kind */
enum {
    KIND_rows = PK_CU_ATTN_MMA_ROWS, KIND_rows128 = PK_CU_ATTN_MMA_ROWS128,
    KIND_rows128n32 = PK_CU_ATTN_MMA_ROWS128N32, KIND_rows128w8 = PK_CU_ATTN_MMA_ROWS128W8,
    KIND_keys = PK_CU_ATTN_MMA_KEYS
};
#define ID(kind, module, name, ...) ID_##kind(PK_CU_##name, __VA_ARGS__)
#define ID_MMA(id, DT, D, tiles) .mma[DT - 1][PK_ATTN_DIM_INDEX(D)][KIND_##tiles] = id,
#define ID_SIMT(id, DT, D) .simt[DT][PK_ATTN_DIM_INDEX(D)] = id,
#define ID_MERGE(id, DT) .merge[DT] = id,
/* wgmma[PP][dtype][dim][wide]: wide, the 176-key tiles (attention_tiles.h) */
#define ID_WGMMA(id, DT, D, PP, BN) .wgmma[PP][DT - 1][PK_ATTN_DIM_INDEX(D)][(BN) != PK_CU_ATTN_WG_BN(D)] = id,
static const struct {
    unsigned char mma[2][5][PK_CU_ATTN_SIMT], simt[3][5], merge[3], wgmma[2][2][5][2];
} ids = {PK_CU_ATTN_KERNELS(ID)};

/* A tensor-core tile at head dim D: rows a block, threads, shared memory */
typedef struct tile {
    int bm, threads;
    unsigned smem;
} tile;

static tile tile_of(int kind, int64_t D)
{
#define TILE(name, NWM, NWN, MT, BN, ST)                                                               \
    if (kind == KIND_##name)                                                                            \
        return (tile){16 * (MT) * (NWM), 32 * (NWM) * (NWN), (unsigned)PK_CU_ATTN_MMA_SMEM(D, NWM, NWN, MT, BN, ST)};
    PK_CU_ATTN_TILES(TILE)
#undef TILE
    return (tile){0, 0, 0};
}

static unsigned keys_smem(int64_t d) { return tile_of(KIND_keys, d).smem; }

/* Blocks of one kernel resident on a multiprocessor: by shared memory (a
 * multiprocessor has smem_optin plus the 1 KiB the runtime reserves per
 * block: 228 KiB on sm_90, 164 KiB on sm_80), at most cap, what the
 * kernel's registers allow (the decode kernel: 145 a thread, 3). */
static int64_t blocks_per_sm(unsigned smem, size_t smem_optin, int64_t cap)
{
    int64_t n = (int64_t)(smem_optin + 1024) / ((int64_t)smem + 1024);
    return n < 1 ? 1 : n > cap ? cap : n;
}

/* The prefill kernels (attention_tiles.h's rows tiles), built for head
 * dims up to max_d (attention_kernels.h); cap: blocks per SM their
 * registers allow (ptxas on sm_90: rows 174 a thread, rows128 255, n32
 * 235, w8 178 x 256 threads). */
typedef struct rows_variant {
    const char *name;
    int max_d, cap;
} rows_variant;

static const rows_variant rows_variants[] = {
    [PK_CU_ATTN_MMA_ROWS] = {"rows", 256, 2},
    [PK_CU_ATTN_MMA_ROWS128] = {"rows128", 128, 2},
    [PK_CU_ATTN_MMA_ROWS128N32] = {"rows128n32", 128, 2},
    [PK_CU_ATTN_MMA_ROWS128W8] = {"rows128w8", 128, 1},
};
#define N_ROWS_VARIANTS (int)(sizeof rows_variants / sizeof rows_variants[0])

static unsigned variant_smem(const rows_variant *v, int64_t d) { return tile_of((int)(v - rows_variants), d).smem; }

static int variant_fits(const rows_variant *v, int64_t d, size_t smem_optin)
{
    return d <= v->max_d && variant_smem(v, d) <= smem_optin;
}

int pk_cu_attn_knob_of(const char *value)
{
    for (int i = 0; value && i < N_ROWS_VARIANTS; i++)
        if (!strcmp(value, rows_variants[i].name)) return i;
    if (value && !strcmp(value, "wgmma")) return PK_CU_ATTN_WGMMA;
    if (value && !strcmp(value, "wgmma-pp")) return PK_CU_ATTN_KNOB_WGMMA_PP;
    if (value && !strcmp(value, "wgmma-pp176")) return PK_CU_ATTN_KNOB_WGMMA_PP176;
    if (value && !strcmp(value, "wgmma-pp-cpasync")) return PK_CU_ATTN_KNOB_WGMMA_PP_CPASYNC;
    if (value && !strcmp(value, "mma")) return PK_CU_ATTN_KNOB_MMA;
    return -1;
}

/* The Hopper kernel's head dims (attention_kernels.h) */
static int wgmma_dim(int64_t d) { return d == 64 || d == 128 || d == 256; }

/* Whether the Hopper kernel of head dim d and bn-key tiles runs here:
 * sm_90 with the module loaded (wgmma), and its shared memory fits */
static int wgmma_fits(int sm, int wgmma, int64_t d, int64_t bn, size_t smem_optin)
{
    return wgmma && sm == 90 && wgmma_dim(d) && (size_t)PK_CU_ATTN_WG_SMEM(d, bn) <= smem_optin;
}

/* Whether the ping-pong form takes p with 176-key tiles: under their
 * knob, at D = 128, without causal or window masks (whose edge tiles a
 * wider tile makes costlier; FlashAttention-3 draws the same line) */
static int wgmma_wide(const pk_attention_problem *p, int sm, int wgmma, size_t smem_optin, int knob)
{
    return knob == PK_CU_ATTN_KNOB_WGMMA_PP176 && p->d == 128 && p->window_left < 0 && p->window_right < 0 &&
           wgmma_fits(sm, wgmma, p->d, PK_CU_ATTN_WG_BN_WIDE, smem_optin);
}

/* One 128-row block per row tile, one resident per multiprocessor (its
 * 384 threads take the register file) */
static pk_attn_split wgmma_split(const pk_attention_problem *p, int64_t rows, int64_t sms)
{
    return pk_attn_split_gpu(p->skv, rows, p->batch * p->hkv * ((rows + 127) / 128), sms);
}

int pk_cu_attn_wgmma_takes(const pk_attention_problem *p, int sm, int sm_count, size_t smem_optin, int wgmma)
{
    const int64_t rows = p->sq * (p->hq / p->hkv);
    return wgmma_fits(sm, wgmma, p->d, PK_CU_ATTN_WG_BN(p->d), smem_optin) && pk_cu_attn_mma_layout(p) && rows > 16 &&
           wgmma_split(p, rows, sm_count > 0 ? sm_count : 1).n == 1;
}

void pk_cu_attn_plan_make_knob(const pk_attention_problem *p, int sm, int sm_count, size_t smem_optin, int wgmma,
                               int knob, pk_cu_attn_plan *plan)
{
    int64_t rows = p->sq * (p->hq / p->hkv);
    int64_t sms = sm_count > 0 ? sm_count : 1;
    int64_t per_sm = 1;
    *plan = (pk_cu_attn_plan){0};
    if (knob == -1) knob = PK_CU_ATTN_KNOB_WGMMA_PP; /* the Hopper kernel wherever it takes the problem */
    if (knob == PK_CU_ATTN_WGMMA || knob == PK_CU_ATTN_KNOB_WGMMA_PP || knob == PK_CU_ATTN_KNOB_WGMMA_PP176 ||
        knob == PK_CU_ATTN_KNOB_WGMMA_PP_CPASYNC) {
        if (pk_cu_attn_wgmma_takes(p, sm, sm_count, smem_optin, wgmma)) {
            const pk_attn_split sp = wgmma_split(p, rows, sms);
            const int pp = knob != PK_CU_ATTN_WGMMA, wide = pp && wgmma_wide(p, sm, wgmma, smem_optin, knob);
            plan->kind = PK_CU_ATTN_WGMMA;
            plan->bm = 128;
            plan->threads = PK_CU_ATTN_WG_THREADS;
            const int bn = wide ? PK_CU_ATTN_WG_BN_WIDE : PK_CU_ATTN_WG_BN(p->d);
            plan->tile_keys = knob == PK_CU_ATTN_KNOB_WGMMA_PP_CPASYNC ? 0 : bn;
            plan->smem = PK_CU_ATTN_WG_SMEM(p->d, bn);
            plan->kernel = ids.wgmma[pp][p->q.dtype - 1][PK_ATTN_DIM_INDEX(p->d)][wide];
            plan->merge = ids.merge[p->o.dtype];
            plan->row_tiles = (int)((rows + 127) / 128);
            plan->chunk = (int)sp.chunk;
            plan->n_splits = sp.n;
            return;
        }
        knob = -1; /* the plan's own choice where the Hopper kernel does not apply */
    }
    if (knob == PK_CU_ATTN_KNOB_MMA) knob = -1;
    plan->kind = PK_CU_ATTN_SIMT;
    if (sm >= 80 && pk_cu_attn_mma_layout(p)) {
        unsigned keys = keys_smem(p->d);
        const rows_variant *rows64 = &rows_variants[PK_CU_ATTN_MMA_ROWS], *v = NULL,
                           *rows128 = &rows_variants[PK_CU_ATTN_MMA_ROWS128];
        /* 128-row blocks when they still fill every multiprocessor twice */
        int64_t tiles128 = p->batch * p->hkv * ((rows + 127) / 128);
        if (rows <= 16 && keys <= smem_optin) {
            const tile t = tile_of(KIND_keys, p->d);
            plan->kind = PK_CU_ATTN_MMA_KEYS;
            plan->bm = t.bm;
            plan->threads = t.threads;
            plan->smem = keys;
            per_sm = blocks_per_sm(keys, smem_optin, 3);
        } else if (rows > 64 && tiles128 >= 2 * sms && variant_fits(rows128, p->d, smem_optin)) {
            v = rows128;
        } else if (variant_smem(rows64, p->d) <= smem_optin) {
            v = rows64;
        }
        if (v) {
            if (knob >= 0 && knob < N_ROWS_VARIANTS && variant_fits(&rows_variants[knob], p->d, smem_optin))
                v = &rows_variants[knob];
            const tile t = tile_of((int)(v - rows_variants), p->d);
            plan->kind = (pk_cu_attn_kind)(v - rows_variants);
            plan->bm = t.bm;
            plan->threads = t.threads;
            plan->smem = t.smem;
            per_sm = blocks_per_sm(plan->smem, smem_optin, v->cap);
        }
    }
    const int dt = p->q.dtype, di = PK_ATTN_DIM_INDEX(p->d);
    if (plan->kind == PK_CU_ATTN_SIMT) {
        plan->bm = PK_CU_ATTN_SIMT_BM(p->d);
        plan->threads = plan->bm * PK_CU_ATTN_SIMT_TPR(p->d);
        per_sm = PK_CU_ATTN_BLOCKS_PER_SM;
    }
    plan->kernel = plan->kind == PK_CU_ATTN_SIMT ? ids.simt[dt][di] : ids.mma[dt - 1][di][plan->kind];
    plan->merge = ids.merge[p->o.dtype];
    plan->row_tiles = (int)((rows + plan->bm - 1) / plan->bm);

    /* as many splits as fill one wave of resident blocks */
    const pk_attn_split sp = pk_attn_split_gpu(p->skv, rows, p->batch * p->hkv * plan->row_tiles, sms * per_sm);
    plan->chunk = (int)sp.chunk;
    plan->n_splits = sp.n;
}

/* The variants of one tensor-core kernel, as variants() below. keys: at
 * most 16 rows, split or not; rows: 17 to 64 rows split, more in one pass;
 * rows128 never splits (more than 64 rows). On sm_90 with the Hopper
 * module (wgmma), one pass at its head dims is the Hopper kernel's: there
 * the rows tiles' unsplit variants only a knob gives. */
static void mma_variants(int sm, size_t smem_optin, int wgmma, int knob_only, int kind, int d, const char *name,
                         void (*fn)(void *ctx, const char *name, int split), void *ctx)
{
    const rows_variant *v = kind == PK_CU_ATTN_MMA_KEYS ? NULL : &rows_variants[kind];
    if (sm < 80) return;
    if (v ? !variant_fits(v, d, smem_optin) : keys_smem(d) > smem_optin) return;
    const int knob_tile = kind == PK_CU_ATTN_MMA_ROWS128N32 || kind == PK_CU_ATTN_MMA_ROWS128W8;
    const int hopper = v && wgmma_fits(sm, wgmma, d, PK_CU_ATTN_WG_BN(d), smem_optin);
    if ((knob_tile || hopper) == knob_only) fn(ctx, name, 0);
    if (kind != PK_CU_ATTN_MMA_ROWS128 && knob_tile == knob_only) fn(ctx, name, 1);
}

/* Every variant of the list's kernels the plan can give (knob_only: those
 * only the knob gives). The CUDA cores take f32 and the 16-bit layouts the
 * tensor-core kernels cannot read, split for few rows and long keys. The
 * Hopper kernels where the module loads, in one pass: the ping-pong form
 * with the head dim's own tiles the plan's, the other form and the 176-key
 * tiles the knobs'. */
static void variants(int sm, size_t smem_optin, int knob_only, int wgmma,
                     void (*fn)(void *ctx, const char *name, int split), void *ctx)
{
#define CAN(kind, module, name, ...) CAN_##kind(pk_cu_attn_kernel_names[PK_CU_##name], __VA_ARGS__)
#define CAN_SIMT(name, DT, D) \
    if (!knob_only) fn(ctx, name, 0), fn(ctx, name, 1);
#define CAN_MMA(name, DT, D, tiles) mma_variants(sm, smem_optin, wgmma, knob_only, KIND_##tiles, D, name, fn, ctx);
#define CAN_MERGE(...)
#define CAN_WGMMA(name, DT, D, PP, BN) \
    if (knob_only == (!(PP) || (BN) != PK_CU_ATTN_WG_BN(D)) && wgmma_fits(sm, wgmma, D, BN, smem_optin)) fn(ctx, name, 0);
    PK_CU_ATTN_KERNELS(CAN)
}

void pk_cu_attn_plan_variants(int sm, size_t smem_optin, int wgmma,
                              void (*fn)(void *ctx, const char *name, int split), void *ctx)
{
    variants(sm, smem_optin, 0, wgmma, fn, ctx);
}

void pk_cu_attn_plan_knob_variants(int sm, size_t smem_optin, int wgmma,
                                   void (*fn)(void *ctx, const char *name, int split), void *ctx)
{
    variants(sm, smem_optin, 1, wgmma, fn, ctx);
}
