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
 *    few per multiply-add (4 x 4 measured 5x slower); TK = 32 amortises
 *    the barriers. Decode takes an 8-row tile: there M = 1 is bound by the
 *    wasted arithmetic of the empty rows.
 *  - GPU decode (M <= 16): a 16-row tile so that M = 1 wastes 16x, not
 *    128x, of the arithmetic, and TK = 32 so that adjacent work-items read
 *    32 adjacent elements of a weight row in the linear layout (x @ W^T). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "opencl_gemm_plan.h"

static const pk_cl_gemm_tile table[PK_CL_GEMM_CLASS_COUNT][PK_CL_GEMM_SHAPE_COUNT] = {
    /*                      large: TM, TN, TK, WM, WN  small               decode */
    [PK_CL_GEMM_NVIDIA] = {{128, 128, 16, 8, 8}, {64, 64, 16, 4, 4}, {16, 32, 32, 2, 2}},
    [PK_CL_GEMM_AMD]    = {{128, 128, 16, 8, 8}, {64, 64, 16, 4, 4}, {16, 64, 32, 2, 4}},
    [PK_CL_GEMM_INTEL]  = {{64, 64, 16, 4, 4},   {32, 32, 16, 2, 2}, {16, 32, 32, 2, 2}},
    [PK_CL_GEMM_CPU]    = {{128, 64, 32, 8, 8},  {64, 64, 32, 8, 8}, {8, 64, 32, 1, 8}},
    [PK_CL_GEMM_OTHER]  = {{64, 64, 16, 4, 4},   {32, 32, 16, 2, 2}, {16, 32, 32, 2, 2}},
};

/* 64 items and 1 KiB of local memory: within any OpenCL device's limits. */
static const pk_cl_gemm_tile fallback = {16, 16, 8, 2, 2};

static int contains_nocase(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] && tolower((unsigned char)s[i]) == tolower((unsigned char)word[i])) i++;
        if (i == n) return 1;
    }
    return 0;
}

pk_cl_gemm_class pk_cl_gemm_class_of(const pk_device_info *info)
{
    /* first: a CPU driver may report the CPU's vendor (Intel, AMD) */
    if (info->is_cpu) return PK_CL_GEMM_CPU;
    if (contains_nocase(info->vendor, "nvidia")) return PK_CL_GEMM_NVIDIA;
    if (contains_nocase(info->vendor, "advanced micro devices") || contains_nocase(info->vendor, "amd"))
        return PK_CL_GEMM_AMD;
    if (contains_nocase(info->vendor, "intel")) return PK_CL_GEMM_INTEL;
    return PK_CL_GEMM_OTHER;
}

const pk_cl_gemm_tile *pk_cl_gemm_table(pk_cl_gemm_class cls, pk_cl_gemm_shape shape)
{
    if ((unsigned)cls >= PK_CL_GEMM_CLASS_COUNT || (unsigned)shape >= PK_CL_GEMM_SHAPE_COUNT) return NULL;
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

int pk_cl_gemm_plan_pick(const pk_device_info *info, size_t max_work_group, int64_t batch, int64_t m,
                         int64_t n, pk_cl_gemm_plan *out)
{
    memset(out, 0, sizeof *out);
    out->cls = pk_cl_gemm_class_of(info);
    const pk_cl_gemm_tile *row = table[out->cls];
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

void pk_cl_gemm_plan_variant(const pk_cl_gemm_plan *plan, char *name, size_t n)
{
    static const char *const shapes[PK_CL_GEMM_SHAPE_COUNT] = {"large", "small", "decode"};
    const pk_cl_gemm_tile *t = &plan->tile;
    snprintf(name, n, "%s_%dx%dx%d_%dx%d%s", (unsigned)plan->shape < PK_CL_GEMM_SHAPE_COUNT ? shapes[plan->shape] : "?",
             t->tm, t->tn, t->tk, t->wm, t->wn, plan->fallback ? "_fallback" : "");
}

void pk_cl_gemm_plan_variants(const pk_device_info *info, size_t max_work_group,
                              void (*fn)(void *ctx, const char *name), void *ctx)
{
    pk_cl_gemm_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.cls = pk_cl_gemm_class_of(info);
    for (int s = 0; s < PK_CL_GEMM_SHAPE_COUNT; s++) {
        /* as pk_cl_gemm_plan_pick once it has the shape */
        plan.shape = (pk_cl_gemm_shape)s;
        plan.tile = table[plan.cls][s];
        plan.fallback = !pk_cl_gemm_tile_valid(&plan.tile, info->local_mem_bytes, max_work_group);
        if (plan.fallback) plan.tile = fallback;
        if (!pk_cl_gemm_tile_valid(&plan.tile, info->local_mem_bytes, max_work_group)) continue;
        char name[96];
        pk_cl_gemm_plan_variant(&plan, name, sizeof name);
        fn(ctx, name);
    }
}
