/* The OpenCL row-op table and the pick. VEC, NCH, PF, RED and FAN are
 * build defines of rows.cl (a separately compiled kernel each); the rest
 * are launch sizes.
 *
 * Why these numbers:
 *  - GPUs: 16-byte accesses (one load instruction per work-item: bf16 and
 *    f16 as 8 values, f32 as 4), adjacent work-items on adjacent vectors so
 *    that each access of a wavefront is one contiguous run.
 *  - NVIDIA, per-row (the entry portkern tune found on the H200, from the
 *    16-byte vectors this reasoning started at: 32-byte accesses, two
 *    16-byte loads a vector): a work-item holds up to 4 vectors of the row,
 *    so a 4096-wide bf16 row takes 64 work-items, and with prefetch the
 *    work-group's next row is loaded, as raw registers, while this row
 *    reduces and stores: a group always has a row (16 KiB for add+RMSNorm)
 *    of loads in flight. That kernel takes about 125 registers (clang's
 *    OpenCL to PTX, ptxas for sm_90; CUDA's kernel of that shape takes 135,
 *    128 under its launch bound), so an SM holds 4 such groups: 64 KiB in
 *    flight, about twice what Little's law asks at the H200's bandwidth.
 *    Reductions add 16 partials a level: 2 barriers a reduction up to 256
 *    work-items a row, 3 beyond (a binary tree took 9 at 128). 16 groups
 *    per SM: about 4 waves of the groups an SM holds, each group walking
 *    ~8 rows of a 16384-row problem, so the prefetch pipeline's fill is
 *    amortized and a partial last wave costs little. Rows longer than
 *    1024 x 4 vectors are streamed (read twice, the second time mostly
 *    from the cache).
 *  - AMD, Intel, others, per-row: 2 vectors a work-item, up to 256
 *    work-items (their usual work-group limit) before 4; prefetch where
 *    the register file is large (AMD), not on Intel and unknown devices.
 *  - Rows shorter than 128 work-items share a work-group so that groups
 *    stay large enough to fill a compute unit.
 *  - Elementwise: NVIDIA as the tuner found it on the H200 (SwiGLU:
 *    bench/RESULTS.md, 2026-12-01 14:18): 64 work-items a group, blocks of
 *    16 vectors a work-item, each
 *    stored before the next is loaded, 64 groups per SM. AMD and Intel
 *    take blocks of 4 vectors a work-item, 256 work-items a group, and load
 *    all 4 before storing (2 on Intel, fewer registers).
 *  - CPUs (PoCL): a work-group runs as a loop over its work-items, so one
 *    work-item takes a whole row (no barriers, no local memory) and streams
 *    it with 16-wide vectors (AVX-512 width in floats; 8-wide made SwiGLU
 *    slower on PoCL): a row of a norm is read a second time from the
 *    core's cache. Elementwise ops take a contiguous block of 1024 vectors
 *    per work-item, which the hardware prefetcher follows. The entry is
 *    what portkern tune found on two cores of a Xeon (PoCL 3.1), from
 *    there: elementwise in 32-byte vectors and up to 256 groups per core
 *    (max_tpr does not act without target_chunks).
 *  - Work-groups are capped at groups_per_cu per compute unit; the kernels
 *    loop over the rest (grid-stride), so no grid limit binds. */
#include <stdio.h>
#include <string.h>

#include "opencl_rows_plan.h"

static const pk_cl_rows_params table[PK_CL_VENDOR_COUNT] = {
    /*        per-row: vec_bytes max_tpr target max_ch min_group groups_per_cu prefetch red_fan
     *    elementwise: vec_bytes local per_item batch groups_per_cu */
    [PK_CL_VENDOR_NVIDIA] = {32, 1024, 4, 4, 128, 16, 1, 16, 16, 64, 16, 1, 64},
    [PK_CL_VENDOR_AMD]    = {16, 256, 2, 4, 128, 64, 1, 16, 16, 256, 4, 4, 64},
    [PK_CL_VENDOR_INTEL]  = {16, 256, 2, 4, 128, 64, 0, 16, 16, 256, 4, 2, 64},
    [PK_CL_VENDOR_CPU]    = {64, 512, 0, 0, 1, 64, 0, 16, 32, 1, 1024, 1, 256},
    [PK_CL_VENDOR_OTHER]  = {16, 256, 2, 4, 64, 16, 0, 16, 16, 64, 4, 1, 16},
};

/* OpenCL's widest vector type has 16 elements */
#define ROWS_MAX_VEC 16

const pk_cl_rows_params *pk_cl_rows_table(pk_cl_vendor cls)
{
    return (unsigned)cls < PK_CL_VENDOR_COUNT ? &table[cls] : NULL;
}

static const pk_view *row_view(const pk_rows_problem *p, int i)
{
    const pk_view *v[5] = {&p->x, &p->residual, &p->residual_out, &p->out, &p->up};
    return v[i];
}

/* Merges leading dim a into b (a outer) where every row operand allows it. */
static void merge(pk_rows_problem *p, int a, int b)
{
    if (p->lead[a] == 1) return;
    for (int i = 0; i < 5; i++) {
        const pk_view *v = row_view(p, i);
        if (v->mem && p->lead[b] > 1 && v->stride[a] != p->lead[b] * v->stride[b]) return;
    }
    for (int i = 0; i < 5; i++) {
        pk_view *v = (pk_view *)row_view(p, i);
        if (v->mem && p->lead[b] == 1) v->stride[b] = v->stride[a];
        v->stride[a] = 0;
    }
    p->lead[b] *= p->lead[a];
    p->lead[a] = 1;
}

void pk_cl_rows_collapse(pk_rows_problem *p)
{
    merge(p, 1, 2);
    if (p->lead[1] == 1) merge(p, 0, 2);
    else merge(p, 0, 1);
}

static int aligned(const pk_view *v, const int64_t lead[3], int64_t vec)
{
    if (!v->mem) return 1;
    if (v->stride[3] != 1 || v->offset % vec) return 0;
    for (int i = 0; i < 3; i++)
        if (lead[i] > 1 && v->stride[i] % vec) return 0;
    return 1;
}

int pk_cl_rows_vec(const pk_cl_rows_params *t, int per_row, const pk_rows_problem *p)
{
    int64_t vec = (per_row ? t->vec_bytes : t->ew_vec_bytes) / (p->x.dtype == PK_F32 ? 4 : 2);
    if (vec > ROWS_MAX_VEC) vec = ROWS_MAX_VEC;
    /* per-row kernels take whole vectors only (no partial last vector:
     * its code costs the held rows registers): the widest that divides
     * the row */
    while (per_row && vec >= 4 && p->cols % vec) vec /= 2;
    /* rows.cl has vectors of 4, 8 and 16 */
    if (vec < 4 || p->cols < vec) return 1;
    static const int64_t no_lead[3] = {1, 1, 1};
    for (int i = 0; i < 5; i++)
        if (!aligned(row_view(p, i), p->lead, vec)) return 1;
    if (!aligned(&p->weight, no_lead, vec) || !aligned(&p->bias, no_lead, vec)) return 1;
    return (int)vec;
}

static size_t pow2_floor(size_t n)
{
    size_t p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

static size_t cap_groups(const pk_device_info *info, int per_cu, int64_t want)
{
    int64_t cap = (int64_t)(info->compute_units > 0 ? info->compute_units : 1) * per_cu;
    if (want < 1) want = 1;
    return (size_t)(want < cap ? want : cap);
}

void pk_cl_rows_plan_pick(const pk_cl_params *prm, const pk_device_info *info, size_t max_work_group,
                          const pk_rows_problem *p, int per_row, pk_cl_rows_plan *out)
{
    memset(out, 0, sizeof *out);
    out->cls = pk_cl_vendor_of(info);
    out->per_row = per_row;
    const pk_cl_rows_params *t = &prm->rows;
    const size_t max_wg = pow2_floor(max_work_group ? max_work_group : 1);
    const int64_t rows = p->lead[0] * p->lead[1] * p->lead[2];
    out->vec = pk_cl_rows_vec(t, per_row, p);
    const int64_t nv = (p->cols + out->vec - 1) / out->vec;
    if (!per_row) {
        out->local = (size_t)t->ew_local < max_wg ? (size_t)t->ew_local : max_wg;
        out->per_item = t->ew_per_item;
        out->batch = t->ew_batch;
        int64_t block = (int64_t)out->local * out->per_item;
        out->groups = cap_groups(info, t->ew_groups_per_cu, (rows * nv + block - 1) / block);
        return;
    }
    size_t tpr = 1, chunks = 0;
    if (t->target_chunks > 0) {
        size_t max_tpr = (size_t)t->max_tpr < max_wg ? (size_t)t->max_tpr : max_wg;
        while (tpr < max_tpr && (int64_t)(tpr * (size_t)t->target_chunks) < nv) tpr *= 2;
        /* the target, which a row shared by work-items needs all of (else
         * tpr would be smaller), and a row of one work-item holds as well
         * (vectors past the row are never loaded): one kernel for every
         * short row, not one per row length */
        chunks = t->target_chunks < t->max_chunks ? (size_t)t->target_chunks : (size_t)t->max_chunks;
        while (chunks < (size_t)t->max_chunks && (int64_t)(tpr * chunks) < nv) chunks *= 2;
        if ((int64_t)(tpr * chunks) < nv) chunks = 0; /* too long for registers: stream */
    }
    size_t rpg = tpr < (size_t)t->min_group ? (size_t)t->min_group / tpr : 1;
    while (rpg > 1 && tpr * rpg > max_wg) rpg /= 2;
    out->chunks = (int)chunks;
    out->prefetch = chunks > 0 && t->prefetch;
    out->fan = t->red_fan;
    out->tpr = (int)tpr;
    out->rpg = (int)rpg;
    out->local = tpr * rpg;
    out->groups = cap_groups(info, t->groups_per_cu, (rows + (int64_t)rpg - 1) / (int64_t)rpg);
}

void pk_cl_rows_plan_variant(const pk_cl_rows_plan *plan, const char *op, char *name, size_t n)
{
    char path[16];
    if (plan->vec > 1) snprintf(path, sizeof path, "vec%d", plan->vec);
    else snprintf(path, sizeof path, "str");
    if (!plan->per_row) {
        if (plan->batch > 1) snprintf(name, n, "%s_%s_u%d", op, path, plan->batch);
        else snprintf(name, n, "%s_%s", op, path);
        return;
    }
    char chunks[16];
    if (plan->chunks) snprintf(chunks, sizeof chunks, "c%d", plan->chunks);
    else snprintf(chunks, sizeof chunks, "stream");
    snprintf(name, n, "%s_%s_%s_%s%s", op, path, chunks, plan->tpr > 1 ? "red" : "solo", plan->prefetch ? "_pf" : "");
}

void pk_cl_rows_plan_variants(const pk_cl_params *prm, const pk_device_info *info, size_t max_work_group,
                              const char *op, int per_row, void (*fn)(void *ctx, const char *name), void *ctx)
{
    /* The pick depends on the dtype, on whether the vector path is allowed
     * and with which vector (per-row: the widest that divides the row) and
     * on the vectors per row: one row of every length up to past the
     * longest row held in registers, on every path. */
    static const pk_dtype dts[3] = {PK_F32, PK_F16, PK_BF16};
    const pk_cl_rows_params *t = &prm->rows;
    const int64_t max_nv = (int64_t)t->max_tpr * (t->max_chunks > 0 ? t->max_chunks : 1) + 1;
    static char present; /* any non-NULL mem: the plan only asks whether a view is there */
    for (int d = 0; d < 3; d++)
        for (int strided = 0; strided < 2; strided++) {
            pk_rows_problem p;
            memset(&p, 0, sizeof p);
            p.lead[0] = p.lead[1] = p.lead[2] = 1;
            p.x.mem = p.out.mem = &present;
            p.x.dtype = p.out.dtype = dts[d];
            p.x.stride[3] = p.out.stride[3] = strided ? 2 : 1;
            p.cols = (int64_t)1 << 20;
            const int widest = pk_cl_rows_vec(t, per_row, &p);
            for (int vec = widest; vec >= 1; vec = vec > 4 && per_row ? vec / 2 : 0) {
                char last[96] = "";
                for (int64_t nv = 1; nv <= max_nv; nv++) {
                    /* nv vectors of the widest; of a narrower one, only
                     * odd counts (no wider vector divides those rows),
                     * up to twice as many */
                    p.cols = vec < widest ? (2 * nv - 1) * vec : nv * vec;
                    pk_cl_rows_plan plan;
                    char name[96];
                    pk_cl_rows_plan_pick(prm, info, max_work_group, &p, per_row, &plan);
                    pk_cl_rows_plan_variant(&plan, op, name, sizeof name);
                    if (strcmp(name, last)) fn(ctx, name);
                    snprintf(last, sizeof last, "%s", name);
                }
            }
        }
}
