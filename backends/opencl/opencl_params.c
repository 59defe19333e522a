/* The named parameters over pk_cl_params. The choices are the tuner's
 * bounded space: a handful of values around each class's table entry,
 * powers of two where the kernels step in them. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_attention_plan.h"
#include "opencl_gemm_plan.h"
#include "opencl_launch.h"
#include "opencl_params.h"
#include "opencl_rows_plan.h"

static const pk_cl_family_info families[PK_CL_FAMILY_COUNT] = {
    [PK_CL_FAMILY_GEMM_LARGE] = {"gemm_large", "gemm_tiled.cl", "tiled GEMM tile when the tiles fill the device"},
    [PK_CL_FAMILY_GEMM_SMALL] = {"gemm_small", "gemm_tiled.cl", "tiled GEMM tile when large tiles would not"},
    [PK_CL_FAMILY_GEMM_DECODE] = {"gemm_decode", "gemm_tiled.cl", "tiled GEMM tile for M <= 16 outside the skinny kernel"},
    [PK_CL_FAMILY_SKINNY] = {"skinny", "gemm_skinny.cl", "decode GEMM (M <= 16, linear layout), split-K"},
    [PK_CL_FAMILY_ROWS] = {"rows", "rows.cl", "RMSNorm, LayerNorm, softmax: a row per work-group or work-item"},
    [PK_CL_FAMILY_ELEMENTWISE] = {"elementwise", "rows.cl", "GLU, bias + activation"},
    [PK_CL_FAMILY_DECODE] = {"attn_decode", "attention_decode.cl", "decode attention, split over the keys"},
    [PK_CL_FAMILY_PREFILL] = {"attn_prefill", "attention_prefill.cl", "fused prefill attention tile"},
    [PK_CL_FAMILY_ROPE] = {"rope", "rope.cl", "RoPE launch"},
    [PK_CL_FAMILY_CHAIN] = {"chain", "chain.cl", "fused elementwise chain launch"},
    [PK_CL_FAMILY_GEMM_MMA] = {"gemm_mma", "gemm_mma.cl", "tensor-core GEMM tile when the tiles fill the device", 1},
    [PK_CL_FAMILY_GEMM_MMA_SMALL] = {"gemm_mma_small", "gemm_mma.cl", "tensor-core GEMM tile when large tiles would not", 1},
    [PK_CL_FAMILY_GEMM_MMA_NARROW] = {"gemm_mma_narrow", "gemm_mma.cl", "tensor-core GEMM tile when one row of them covers M", 1},
};

/* the mma families index pk_cl_params.mma by their distance from the first */
_Static_assert(PK_CL_FAMILY_GEMM_MMA_SMALL - PK_CL_FAMILY_GEMM_MMA == PK_CL_MMA_SMALL &&
                   PK_CL_FAMILY_GEMM_MMA_NARROW - PK_CL_FAMILY_GEMM_MMA == PK_CL_MMA_NARROW &&
                   PK_CL_MMA_SHAPE_COUNT == 3,
               "one mma family per pk_cl_mma_shape, in its order");

#define OFF(field) offsetof(pk_cl_params, field)
/* the tuner's choices and their count (none: the parameter is not searched) */
#define CH(...) {__VA_ARGS__}, (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int))
#define NOT_SEARCHED {0}, 0
#define TILE(fam, s)                                                                              \
    {fam, "tm", OFF(gemm[s].tm), 1, 256, CH(16, 32, 64, 128)},                                    \
    {fam, "tn", OFF(gemm[s].tn), 1, 256, CH(16, 32, 64, 128)},                                    \
    {fam, "tk", OFF(gemm[s].tk), 1, 64, CH(8, 16, 32)},                                           \
    {fam, "wm", OFF(gemm[s].wm), 1, 16, CH(1, 2, 4, 8)},                                          \
    {fam, "wn", OFF(gemm[s].wn), 1, 16, CH(1, 2, 4, 8)},                                          \
    {fam, "lanes", OFF(gemm[s].lanes), 0, 1, CH(0, 1)},                                           \
    {fam, "kunroll", OFF(gemm[s].kunroll), 0, 64, CH(0, 1, 4, 64)},                               \
    {fam, "regs", OFF(gemm[s].regs), 0, 255, CH(0, 128, 168)},                                    \
    {fam, "unpadded", OFF(gemm[s].unpadded), 0, 1, CH(0, 1)}

/* (bm apart: the narrow tile searches only heights at or under its M) */
#define MMA_TILE(fam, s)                                                                          \
    {fam, "bn", OFF(mma[s].bn), 8, 512, CH(64, 128, 256)},                                       \
    {fam, "warps_m", OFF(mma[s].warps_m), 1, 16, CH(1, 2, 4)},                                    \
    {fam, "warps_n", OFF(mma[s].warps_n), 1, 16, CH(1, 2, 4)},                                    \
    {fam, "stages", OFF(mma[s].stages), 2, 8, CH(2, 3, 4, 6)},                                    \
    {fam, "group_m", OFF(mma[s].group_m), 1, 64, CH(1, 4, 8, 16)},                                \
    {fam, "regs", OFF(mma[s].regs), 0, 255, CH(0, 128, 168)},                                    \
    {fam, "wgmma", OFF(mma[s].wgmma), 0, 1, NOT_SEARCHED},                                       \
    {fam, "tma", OFF(mma[s].tma), 0, 1, NOT_SEARCHED}

static const pk_cl_param params[] = {
    TILE(PK_CL_FAMILY_GEMM_LARGE, PK_CL_GEMM_LARGE),
    TILE(PK_CL_FAMILY_GEMM_SMALL, PK_CL_GEMM_SMALL),
    TILE(PK_CL_FAMILY_GEMM_DECODE, PK_CL_GEMM_DECODE),
    {PK_CL_FAMILY_SKINNY, "wg", OFF(skinny.wg), 1, 1024, CH(8, 32, 64, 128, 256)},
    {PK_CL_FAMILY_SKINNY, "kl", OFF(skinny.kl), 1, 1024, CH(1, 8, 16, 32, 64, 128)},
    {PK_CL_FAMILY_SKINNY, "cpi1", OFF(skinny.cpi[0]), 1, 16, CH(1, 2, 4)},
    {PK_CL_FAMILY_SKINNY, "cpi2", OFF(skinny.cpi[1]), 1, 16, CH(1, 2, 4)},
    {PK_CL_FAMILY_SKINNY, "cpi4", OFF(skinny.cpi[2]), 1, 16, CH(1, 2, 4)},
    {PK_CL_FAMILY_SKINNY, "cpi8", OFF(skinny.cpi[3]), 1, 16, CH(1, 2, 4)},
    {PK_CL_FAMILY_SKINNY, "cpi16", OFF(skinny.cpi[4]), 1, 16, CH(1, 2, 4)},
    {PK_CL_FAMILY_SKINNY, "loads", OFF(skinny.loads), 1, 32, CH(1, 2, 4, 8, 16)},
    {PK_CL_FAMILY_SKINNY, "vector_acc", OFF(skinny.vector_acc), 0, 1, CH(0, 1)},
    {PK_CL_FAMILY_SKINNY, "fill", OFF(skinny.fill), 1, 64, CH(1, 2, 4, 8, 16)},
    {PK_CL_FAMILY_SKINNY, "max_splits", OFF(skinny.max_splits), 1, 256, CH(1, 4, 16, 32)},
    {PK_CL_FAMILY_SKINNY, "min_split_k", OFF(skinny.min_split_k), 1, 1 << 20, CH(256, 512, 1024, 2048)},
    {PK_CL_FAMILY_SKINNY, "mma_min_m", OFF(skinny.mma_min_m), 0, 17, CH(1, 2, 5, 9)},
    {PK_CL_FAMILY_SKINNY, "mma_wg", OFF(skinny.mma_wg), 32, 1024, CH(64, 128, 256)},
    {PK_CL_FAMILY_SKINNY, "mma_nb", OFF(skinny.mma_nb), 1, 8, CH(1, 2, 4)},
    {PK_CL_FAMILY_SKINNY, "mma_loads", OFF(skinny.mma_loads), 1, 16, CH(1, 2, 4, 8)},
    {PK_CL_FAMILY_SKINNY, "mma_kw", OFF(skinny.mma_kw), 1, 32, CH(1, 2, 4, 8)},
    {PK_CL_FAMILY_SKINNY, "mma_stream", OFF(skinny.mma_stream), 0, 1, CH(0, 1)},
    {PK_CL_FAMILY_ROWS, "vec_bytes", OFF(rows.vec_bytes), 2, 64, CH(8, 16, 32, 64)},
    {PK_CL_FAMILY_ROWS, "max_tpr", OFF(rows.max_tpr), 1, 1024, CH(1, 128, 256, 512, 1024)},
    {PK_CL_FAMILY_ROWS, "target_chunks", OFF(rows.target_chunks), 0, 16, CH(0, 1, 2, 4)},
    {PK_CL_FAMILY_ROWS, "max_chunks", OFF(rows.max_chunks), 0, 16, CH(1, 2, 4, 8)},
    {PK_CL_FAMILY_ROWS, "min_group", OFF(rows.min_group), 1, 1024, CH(1, 64, 128, 256)},
    {PK_CL_FAMILY_ROWS, "groups_per_cu", OFF(rows.groups_per_cu), 1, 1 << 16, CH(4, 8, 16, 32, 64, 256)},
    {PK_CL_FAMILY_ROWS, "prefetch", OFF(rows.prefetch), 0, 1, CH(0, 1)},
    {PK_CL_FAMILY_ROWS, "red_fan", OFF(rows.red_fan), 2, 64, CH(2, 4, 8, 16, 32)},
    {PK_CL_FAMILY_ELEMENTWISE, "vec_bytes", OFF(rows.ew_vec_bytes), 2, 64, CH(8, 16, 32, 64)},
    {PK_CL_FAMILY_ELEMENTWISE, "local", OFF(rows.ew_local), 1, 1024, CH(1, 64, 128, 256, 512)},
    {PK_CL_FAMILY_ELEMENTWISE, "per_item", OFF(rows.ew_per_item), 1, 1 << 16, CH(1, 2, 4, 8, 16, 1024)},
    {PK_CL_FAMILY_ELEMENTWISE, "batch", OFF(rows.ew_batch), 1, 64, CH(1, 2, 4, 8)},
    {PK_CL_FAMILY_ELEMENTWISE, "groups_per_cu", OFF(rows.ew_groups_per_cu), 1, 1 << 16, CH(4, 16, 64, 256)},
    {PK_CL_FAMILY_DECODE, "wg", OFF(decode.wg), 1, 1024, CH(64, 128, 256, 512)},
    {PK_CL_FAMILY_DECODE, "chunks", OFF(decode.chunks), 1, 16, CH(1, 2, 4, 8)},
    {PK_CL_FAMILY_DECODE, "q_floats", OFF(decode.q_floats), 8, 256, CH(16, 32, 64)},
    {PK_CL_FAMILY_DECODE, "max_rows", OFF(decode.max_rows), 1, 64, CH(1, 2, 4, 8, 16)},
    {PK_CL_FAMILY_DECODE, "wg_per_cu", OFF(decode.wg_per_cu), 1, 256, CH(2, 4, 8, 16, 32)},
    {PK_CL_FAMILY_DECODE, "min_chunk", OFF(decode.min_chunk), 1, 1 << 20, CH(64, 128, 256, 512, 1024)},
    {PK_CL_FAMILY_DECODE, "merge_wg", OFF(decode.merge_wg), 256, 1024, CH(256, 512, 1024)},
    {PK_CL_FAMILY_DECODE, "regs", OFF(decode.regs), 0, 255, CH(0, 96, 128, 168, 255)},
    {PK_CL_FAMILY_PREFILL, "bm64", OFF(prefill.bm[0]), 1, 256, NOT_SEARCHED},
    {PK_CL_FAMILY_PREFILL, "bn64", OFF(prefill.bn[0]), 1, 256, NOT_SEARCHED},
    {PK_CL_FAMILY_PREFILL, "tpr64", OFF(prefill.tpr[0]), 1, 64, NOT_SEARCHED},
    {PK_CL_FAMILY_PREFILL, "bm96", OFF(prefill.bm[1]), 1, 256, NOT_SEARCHED},
    {PK_CL_FAMILY_PREFILL, "bn96", OFF(prefill.bn[1]), 1, 256, NOT_SEARCHED},
    {PK_CL_FAMILY_PREFILL, "tpr96", OFF(prefill.tpr[1]), 1, 64, NOT_SEARCHED},
    {PK_CL_FAMILY_PREFILL, "bm128", OFF(prefill.bm[2]), 1, 256, CH(8, 16, 32, 64)},
    {PK_CL_FAMILY_PREFILL, "bn128", OFF(prefill.bn[2]), 1, 256, CH(8, 16, 32, 64)},
    {PK_CL_FAMILY_PREFILL, "tpr128", OFF(prefill.tpr[2]), 1, 64, CH(2, 4, 8, 16)},
    {PK_CL_FAMILY_PREFILL, "bm_wide", OFF(prefill.bm[3]), 1, 256, NOT_SEARCHED},
    {PK_CL_FAMILY_PREFILL, "bn_wide", OFF(prefill.bn[3]), 1, 256, NOT_SEARCHED},
    {PK_CL_FAMILY_PREFILL, "tpr_wide", OFF(prefill.tpr[3]), 1, 64, NOT_SEARCHED},
    {PK_CL_FAMILY_ROPE, "wg", OFF(misc.rope_wg), 1, 1024, CH(64, 128, 256, 512)},
    {PK_CL_FAMILY_ROPE, "items", OFF(misc.rope_items), 1, 1 << 24, CH(16384, 65536, 262144)},
    {PK_CL_FAMILY_ROPE, "max_groups", OFF(misc.rope_max_groups), 1, 65535, NOT_SEARCHED},
    {PK_CL_FAMILY_CHAIN, "wg", OFF(misc.chain_wg), 1, 1024, CH(64, 128, 256, 512, 1024)},
    {PK_CL_FAMILY_GEMM_MMA, "bm", OFF(mma[PK_CL_MMA_LARGE].bm), 16, 512, CH(64, 128, 256)},
    MMA_TILE(PK_CL_FAMILY_GEMM_MMA, PK_CL_MMA_LARGE),
    {PK_CL_FAMILY_GEMM_MMA_SMALL, "bm", OFF(mma[PK_CL_MMA_SMALL].bm), 16, 512, CH(64, 128, 256)},
    MMA_TILE(PK_CL_FAMILY_GEMM_MMA_SMALL, PK_CL_MMA_SMALL),
    {PK_CL_FAMILY_GEMM_MMA_SMALL, "max_splits", OFF(mma[PK_CL_MMA_SMALL].max_splits), 1, 64, CH(1, 2, 4, 8)},
    {PK_CL_FAMILY_GEMM_MMA_SMALL, "kwarp", OFF(mma[PK_CL_MMA_SMALL].kwarp), 0, 16, CH(0, 1, 2)},
    {PK_CL_FAMILY_GEMM_MMA_SMALL, "fill", OFF(mma[PK_CL_MMA_SMALL].fill), 1, 8, CH(1, 2, 4)},
    {PK_CL_FAMILY_GEMM_MMA_NARROW, "bm", OFF(mma[PK_CL_MMA_NARROW].bm), 16, 512, CH(32, 64)},
    MMA_TILE(PK_CL_FAMILY_GEMM_MMA_NARROW, PK_CL_MMA_NARROW),
    {PK_CL_FAMILY_GEMM_MMA_NARROW, "max_splits", OFF(mma[PK_CL_MMA_NARROW].max_splits), 1, 64, CH(1, 2, 4, 8)},
    {PK_CL_FAMILY_GEMM_MMA_NARROW, "breg", OFF(mma[PK_CL_MMA_NARROW].breg), 0, 1, CH(0, 1)},
    {PK_CL_FAMILY_GEMM_MMA_NARROW, "kwarp", OFF(mma[PK_CL_MMA_NARROW].kwarp), 0, 16, CH(0, 1, 2, 4, 8)},
    {PK_CL_FAMILY_GEMM_MMA_NARROW, "fill", OFF(mma[PK_CL_MMA_NARROW].fill), 1, 8, CH(1, 2, 4)},
};

/* RoPE: 128 work-items a group, and heads shared among fewer items until
 * about 65536 items run (enough for any GPU, cheap for a CPU); NVIDIA
 * bounds a dimension of the grid at 65535 groups. The chain: 256
 * work-items a group, as wide along the columns as they allow. CPUs: what
 * portkern tune found on two cores of a Xeon (PoCL 3.1), 16384 RoPE items
 * and chain groups of 512. */
#define MISC {128, 65536, 65535, 256}
static const pk_cl_misc_params misc[PK_CL_VENDOR_COUNT] = {
    [PK_CL_VENDOR_NVIDIA] = MISC, [PK_CL_VENDOR_AMD] = MISC, [PK_CL_VENDOR_INTEL] = MISC, [PK_CL_VENDOR_OTHER] = MISC,
    [PK_CL_VENDOR_CPU] = {128, 16384, 65535, 512},
};

const pk_cl_misc_params *pk_cl_misc_table(pk_cl_vendor cls)
{
    return (unsigned)cls < PK_CL_VENDOR_COUNT ? &misc[cls] : NULL;
}

const pk_cl_family_info *pk_cl_family_get(pk_cl_family f)
{
    return (unsigned)f < PK_CL_FAMILY_COUNT ? &families[f] : NULL;
}

int pk_cl_family_find(const char *name)
{
    for (int f = 0; f < PK_CL_FAMILY_COUNT; f++)
        if (!strcmp(families[f].name, name)) return f;
    return -1;
}

const pk_cl_param *pk_cl_param_list(int *count)
{
    *count = (int)(sizeof params / sizeof params[0]);
    return params;
}

void pk_cl_params_default(pk_cl_vendor cls, pk_cl_params *out)
{
    memset(out, 0, sizeof *out);
    for (int s = 0; s < PK_CL_GEMM_SHAPE_COUNT; s++) out->gemm[s] = *pk_cl_gemm_table(cls, (pk_cl_gemm_shape)s);
    for (int s = 0; s < PK_CL_MMA_SHAPE_COUNT; s++) out->mma[s] = *pk_cl_mma_table(cls, (pk_cl_mma_shape)s);
    out->skinny = *pk_cl_skinny_table(cls);
    out->rows = *pk_cl_rows_table(cls);
    out->decode = *pk_cl_attn_decode_table(cls);
    out->prefill = *pk_cl_attn_prefill_table(cls);
    out->misc = *pk_cl_misc_table(cls);
}

void pk_cl_params_wgmma(pk_cl_params *p)
{
    for (int s = 0; s < PK_CL_MMA_SHAPE_COUNT; s++) {
        const pk_cl_mma_tile *t = pk_cl_mma_wgmma_table((pk_cl_mma_shape)s);
        if (t) p->mma[s] = *t;
    }
    p->wgmma_units = 1;
}

void pk_cl_params_tma(pk_cl_params *p)
{
    for (int s = 0; s < PK_CL_MMA_SHAPE_COUNT; s++) {
        const pk_cl_mma_tile *t = pk_cl_mma_tma_table((pk_cl_mma_shape)s);
        if (t) p->mma[s] = *t;
    }
    p->tma_units = 1;
}

int pk_cl_params_wgmma_fits(const pk_cl_params *p)
{
    for (int s = 0; s < PK_CL_MMA_SHAPE_COUNT; s++)
        if ((p->mma[s].wgmma && !p->wgmma_units) || (p->mma[s].tma && !p->tma_units)) return 0;
    return 1;
}

static int is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

#define RULE(cond, ...)                                                                           \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            snprintf(why, n, __VA_ARGS__);                                                        \
            return -1;                                                                            \
        }                                                                                         \
    } while (0)

int pk_cl_family_regs(const pk_cl_params *p, pk_cl_family f, size_t *items)
{
    *items = 0;
    switch (f) {
    case PK_CL_FAMILY_GEMM_LARGE:
    case PK_CL_FAMILY_GEMM_SMALL:
    case PK_CL_FAMILY_GEMM_DECODE: {
        const pk_cl_gemm_tile *t = &p->gemm[f - PK_CL_FAMILY_GEMM_LARGE];
        if (t->wm > 0 && t->wn > 0) *items = pk_cl_gemm_tile_threads(t);
        return t->regs;
    }
    case PK_CL_FAMILY_GEMM_MMA:
    case PK_CL_FAMILY_GEMM_MMA_SMALL:
    case PK_CL_FAMILY_GEMM_MMA_NARROW: {
        const pk_cl_mma_tile *t = &p->mma[f - PK_CL_FAMILY_GEMM_MMA];
        *items = (size_t)32 * (size_t)t->warps_m * (size_t)t->warps_n * (size_t)(t->kwarp > 0 ? t->kwarp : 1);
        return t->regs;
    }
    case PK_CL_FAMILY_DECODE:
        /* the decode kernel's work-group: slots x tpk items, at most wg (or
         * one warp, where a row's runs outnumber wg) */
        *items = (size_t)(p->decode.wg > 32 ? p->decode.wg : 32);
        return p->decode.regs;
    default: return 0;
    }
}

int pk_cl_params_check_regs(const pk_cl_params *p, pk_cl_family f, uint64_t regs_per_block, char *why, size_t n)
{
    size_t items;
    const int regs = pk_cl_family_regs(p, f, &items);
    RULE(pk_cl_regs_fit(regs, items, regs_per_block),
         "regs (%d) x %zu work-items is over the %llu registers of a work-group (NVIDIA)", regs, items,
         (unsigned long long)regs_per_block);
    return 0;
}

/* the family's own rules (pk_cl_params_check: then its registers) */
static int check_rules(const pk_cl_params *p, pk_cl_family f, char *why, size_t n)
{
    switch (f) {
    case PK_CL_FAMILY_GEMM_LARGE:
    case PK_CL_FAMILY_GEMM_SMALL:
    case PK_CL_FAMILY_GEMM_DECODE: {
        const pk_cl_gemm_tile *t = &p->gemm[f - PK_CL_FAMILY_GEMM_LARGE];
        RULE(pk_cl_gemm_tile_valid(t, UINT64_MAX, (size_t)-1),
             "tile %dx%dx%d with %dx%d per work-item: tm %% wm, tn %% wn, tile loads per work-item, "
             "at most %u work-items or %u bytes of local memory", t->tm, t->tn, t->tk, t->wm, t->wn,
             PK_CL_GEMM_MAX_WORK_GROUP, PK_CL_GEMM_MAX_LOCAL_BYTES);
        RULE(t->kunroll == 0 || is_pow2(t->kunroll), "kunroll (%d) is not 0 or a power of two", t->kunroll);
        /* below 64 a 64-accumulator tile could not run at all */
        RULE(t->regs == 0 || t->regs >= 64, "regs (%d) is neither 0 nor at least 64", t->regs);
        return 0;
    }
    case PK_CL_FAMILY_SKINNY:
        RULE(p->skinny.wg % p->skinny.kl == 0, "wg (%d) is not a multiple of kl (%d)", p->skinny.wg, p->skinny.kl);
        RULE(p->skinny.mma_wg % 32 == 0, "mma_wg (%d) is not a multiple of a warp (32)", p->skinny.mma_wg);
        RULE(p->skinny.mma_wg / 32 % p->skinny.mma_kw == 0, "mma_wg (%d) is not a multiple of mma_kw (%d) warps",
             p->skinny.mma_wg, p->skinny.mma_kw);
        return 0;
    case PK_CL_FAMILY_ROWS:
        RULE(is_pow2(p->rows.vec_bytes), "vec_bytes (%d) is not a power of two", p->rows.vec_bytes);
        RULE(p->rows.max_chunks == 0 || is_pow2(p->rows.max_chunks), "max_chunks (%d) is not 0 or a power of two",
             p->rows.max_chunks);
        RULE(p->rows.target_chunks == 0 || p->rows.max_chunks > 0, "target_chunks without max_chunks");
        RULE(is_pow2(p->rows.red_fan), "red_fan (%d) is not a power of two", p->rows.red_fan);
        return 0;
    case PK_CL_FAMILY_ELEMENTWISE:
        RULE(is_pow2(p->rows.ew_vec_bytes), "vec_bytes (%d) is not a power of two", p->rows.ew_vec_bytes);
        RULE(p->rows.ew_per_item % p->rows.ew_batch == 0, "batch (%d) does not divide per_item (%d)",
             p->rows.ew_batch, p->rows.ew_per_item);
        return 0;
    case PK_CL_FAMILY_DECODE:
        RULE(is_pow2(p->decode.max_rows), "max_rows (%d) is not a power of two", p->decode.max_rows);
        RULE(p->decode.regs == 0 || p->decode.regs >= 32, "regs (%d) is neither 0 nor at least 32", p->decode.regs);
        return 0;
    case PK_CL_FAMILY_PREFILL:
        for (int c = 0; c < PK_CL_ATTN_DCLASSES; c++)
            RULE(p->prefill.bm[c] * p->prefill.tpr[c] <= 1024, "bm x tpr (%d x %d) is over 1024 work-items",
                 p->prefill.bm[c], p->prefill.tpr[c]);
        return 0;
    case PK_CL_FAMILY_GEMM_MMA:
    case PK_CL_FAMILY_GEMM_MMA_SMALL:
    case PK_CL_FAMILY_GEMM_MMA_NARROW: {
        const pk_cl_mma_tile *t = &p->mma[f - PK_CL_FAMILY_GEMM_MMA];
        RULE(pk_cl_mma_tile_valid(t, PK_CL_MMA_MAX_LOCAL_BYTES, (size_t)-1),
             "tile %dx%d of %dx%d warps, %d stages: bm %% (16 warps_m), bn %% (16 warps_n), bn %% 64, at most 128 "
             "accumulators a lane, 1024 work-items and %u bytes of local memory, 2 to 8 stages, group_m >= 1, a b row's "
             "chunks (bn / 8) dividing the work-items; breg: warps_m = 1; kwarp: no breg, bn %% (8 warps_n), 2 to 4 "
             "stages; wgmma: no breg or kwarp, warps_n 1, warps_m 4 or 8, bm = 16 warps_m, bn 32, 64, 128 or 256; tma: "
             "wgmma, bn 32, 64 or 128",
             t->bm, t->bn, t->warps_m, t->warps_n, t->stages, PK_CL_MMA_MAX_LOCAL_BYTES);
        RULE(is_pow2(t->max_splits), "max_splits (%d) is not a power of two", t->max_splits);
        RULE(t->regs == 0 || t->regs >= 32, "regs (%d) is neither 0 nor at least 32", t->regs);
        return 0;
    }
    case PK_CL_FAMILY_CHAIN:
        RULE(is_pow2(p->misc.chain_wg), "wg (%d) is not a power of two", p->misc.chain_wg);
        return 0;
    default: return 0;
    }
}

int pk_cl_params_check(const pk_cl_params *p, pk_cl_family f, char *why, size_t n)
{
    if (check_rules(p, f, why, n)) return -1;
    return pk_cl_params_check_regs(p, f, PK_CL_NV_REGS_PER_BLOCK, why, n);
}

static const pk_cl_param *find(const char *family, size_t flen, const char *name, size_t nlen)
{
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
        const char *fam = families[params[i].family].name;
        if (strlen(fam) == flen && !strncmp(fam, family, flen) && strlen(params[i].name) == nlen &&
            !strncmp(params[i].name, name, nlen))
            return &params[i];
    }
    return NULL;
}

int pk_cl_params_set(pk_cl_params *p, const char *spec, char *why, size_t n)
{
    pk_cl_params next = *p;
    int touched[PK_CL_FAMILY_COUNT] = {0};
    const char *s = spec ? spec : "";
    for (;;) {
        while (*s == ',' || isspace((unsigned char)*s)) s++;
        if (!*s) break;
        const char *dot = s;
        while (*dot && *dot != '.' && *dot != '=' && *dot != ',' && !isspace((unsigned char)*dot)) dot++;
        const char *eq = *dot == '.' ? dot + 1 : dot;
        while (*eq && *eq != '=' && *eq != ',' && !isspace((unsigned char)*eq)) eq++;
        if (*dot != '.' || *eq != '=') {
            snprintf(why, n, "'%.*s' is not family.name=value", (int)(eq - s), s);
            return -1;
        }
        const pk_cl_param *d = find(s, (size_t)(dot - s), dot + 1, (size_t)(eq - dot - 1));
        if (!d) {
            snprintf(why, n, "no parameter '%.*s'", (int)(eq - s), s);
            return -1;
        }
        char *end;
        errno = 0;
        long v = strtol(eq + 1, &end, 10);
        if (end == eq + 1 || errno || (*end && *end != ',' && !isspace((unsigned char)*end)) || v < d->lo ||
            v > d->hi) {
            snprintf(why, n, "%s.%s: '%.*s' is not an integer in [%d, %d]", families[d->family].name, d->name,
                     (int)strcspn(eq + 1, ", \t\n"), eq + 1, d->lo, d->hi);
            return -1;
        }
        *pk_cl_param_ptr(&next, d) = (int)v;
        touched[d->family] = 1;
        s = end;
    }
    for (int f = 0; f < PK_CL_FAMILY_COUNT; f++) {
        char rule[160];
        if (touched[f] && pk_cl_params_check(&next, (pk_cl_family)f, rule, sizeof rule)) {
            snprintf(why, n, "%s: %s", families[f].name, rule);
            return -1;
        }
    }
    *p = next;
    return 0;
}

int pk_cl_params_format(const pk_cl_params *p, pk_cl_family f, char *buf, size_t n)
{
    int len = 0;
    if (n) buf[0] = 0;
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
        if (params[i].family != f) continue;
        int w = snprintf(len < (int)n ? buf + len : NULL, len < (int)n ? n - (size_t)len : 0, "%s%s.%s=%d",
                         len ? "," : "", families[f].name, params[i].name, pk_cl_param_get(p, &params[i]));
        len += w;
    }
    return len;
}
