/* OpenCL GEMM host side: plan, build options, arguments, launch of
 * kernels_cl/gemm_skinny.cl (decode in the linear layout),
 * kernels_cl/gemm_mma.cl (tensor cores through inline PTX), kernels_cl/gemm_tma.cl
 * (the same with TMA copies, Hopper) or
 * kernels_cl/gemm_tiled.cl. */
#include <stdint.h>
#include <string.h>

#include "opencl_gemm_plan.h"
#include "opencl_internal.h"
#include "../../kernels_cl/cl_args.h"

/* Some drivers map work-group ids of dims 1 and 2 onto 16-bit grid sizes;
 * the kernel strides over m-tiles and batches beyond this many groups. */
#define PK_CL_GEMM_MAX_GROUPS_YZ 65535
/* Work-groups in dim 0 (n-tiles): CUDA's grid.x limit, which NVIDIA's
 * OpenCL inherits. */
#define PK_CL_GEMM_MAX_GROUPS_X INT32_MAX

/* Which direction of an operand adjacent work-items load (kfast: along k,
 * else along m of a or n of b) and whether that stride is 1: the smaller
 * stride, so that their loads coalesce. */
typedef struct gemm_layout {
    int kfast, unit;
} gemm_layout;

static gemm_layout layout_of(int64_t k_stride, int64_t other_stride)
{
    if (k_stride == 1) return (gemm_layout){1, 1};
    if (other_stride == 1) return (gemm_layout){0, 1};
    return (gemm_layout){k_stride <= other_stride, 0};
}

/* Whether gemm_tiled.cl may read an operand's unit-stride direction in
 * runs of 4 elements: its offset and the strides that reach a run (the
 * batch's, the other direction's) are multiples of 4; buffers are aligned.
 * other: the other direction's stride, extent: its length. */
static int runs_of_4(const pk_view *v, gemm_layout l, int64_t batch, int64_t other, int64_t extent)
{
    return l.unit && v->offset % 4 == 0 && (batch == 1 || v->stride[0] % 4 == 0) && (extent == 1 || other % 4 == 0);
}

static int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

/* The arguments every GEMM kernel takes (cl_args.h PK_GEMM_CL_PARAMS):
 * the buffers, the scalars packed, alpha and beta; then the split
 * tensor-core tile's counters. ks, splits: the skinny kernel's split. */
enum { GEMM_ARGS = 10 };
typedef struct gemm_args {
    cl_long sa[PK_SA_LONGS];
    cl_mem mem[7]; /* a, b, part, c, d, bias, res */
    cl_mem counters;
    cl_float2 ab;
    pk_cl_arg list[GEMM_ARGS + 1];
} gemm_args;

static void gemm_args_fill(gemm_args *g, const pk_gemm_problem *p, int64_t ks, int64_t splits, cl_mem part,
                           cl_mem counters)
{
    memset(g->sa, 0, sizeof g->sa);
    const cl_long head[] = {p->batch,       p->m,           p->n,          p->k,           ks,
                            splits,         p->a.offset,    p->a.stride[0], p->a.stride[1], p->a.stride[2],
                            p->b.offset,    p->b.stride[0], p->b.stride[1], p->b.stride[2]};
    memcpy(g->sa, head, sizeof head);
    const pk_view *ep[4] = {&p->c, &p->d, &p->bias, &p->residual};
    const int at[4] = {PK_SA_C, PK_SA_D, PK_SA_BIAS, PK_SA_RES}, strides[4] = {3, 3, 1, 3};
    for (int i = 0; i < 4; i++) {
        g->sa[at[i]] = ep[i]->offset;
        /* bias is [N]: its one stride is its n stride */
        for (int j = 0; j < strides[i]; j++) g->sa[at[i] + 1 + j] = ep[i]->stride[j];
    }
    const cl_mem mem[7] = {p->a.mem, p->b.mem, part, p->c.mem, p->d.mem, p->bias.mem, p->residual.mem};
    memcpy(g->mem, mem, sizeof mem);
    g->counters = counters;
    g->ab = (cl_float2){{p->alpha, p->beta}};
    for (int i = 0; i < 7; i++) g->list[i] = PK_CL_ARG(g->mem[i]);
    g->list[7] = (pk_cl_arg){16 * sizeof(cl_long), g->sa};
    g->list[8] = (pk_cl_arg){16 * sizeof(cl_long), g->sa + 16};
    g->list[9] = PK_CL_ARG(g->ab);
    g->list[10] = PK_CL_ARG(g->counters);
}

/* A register bound (regs > 0) added to build options (opencl_ptx_rebuild.c
 * makes NVIDIA's OpenCL keep it) */
static void add_regs(char *options, size_t size, int regs)
{
    if (regs <= 0) return;
    const size_t used = strlen(options);
    pk_cl_options(options + used, size - used, " -cl-nv-maxrregcount=%d", regs);
}

/* The epilogue's build defines, added to options: the contract of
 * common.cl's PK_GEMM_FINISH, which every GEMM kernel ends with */
static void add_epilogue(char *options, size_t size, const pk_gemm_problem *p)
{
    const size_t used = strlen(options);
    pk_cl_options(options + used, size - used, " -DDT_A=%d -DDT_D=%d -DACT=%d -DHAS_C=%d -DHAS_BIAS=%d -DHAS_RES=%d",
                  (int)p->a.dtype, (int)p->d.dtype, (int)p->act, p->c.mem != NULL, p->bias.mem != NULL,
                  p->residual.mem != NULL);
}

/* Work-groups along n for column blocks of bn (dim 0 of the grid) */
static pk_status column_groups(const pk_gemm_problem *p, int bn, int64_t *out, pk_msg *msg)
{
    *out = (p->n + bn - 1) / bn;
    if (*out > PK_CL_GEMM_MAX_GROUPS_X)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, "OpenCL gemm: N = %lld needs more than %d work-groups",
                       (long long)p->n, PK_CL_GEMM_MAX_GROUPS_X);
    return PK_SUCCESS;
}

static pk_status gemm_skinny(pk_cl_device *d, const pk_gemm_problem *p, const pk_cl_skinny_plan *sk, pk_msg *msg)
{
    char options[512];
    pk_cl_options(options, sizeof options,
                  "-DMR=%d -DVW=%d -DWG=%d -DKL=%d -DCPI=%d -DRC=%d -DU=%d -DACCV=%d -DMMA=%d -DPK_PTX=%d -DKW=%d "
                  "-DSTREAM=%d",
                  sk->mr, sk->vw, sk->wg, sk->kl, sk->cpi, sk->rc ? sk->rc : 1, sk->unroll, sk->vector_acc ? sk->vw : 1,
                  sk->mma, sk->mma, sk->kw > 0 ? sk->kw : 1, sk->stream);
    add_epilogue(options, sizeof options, p);
    pk_cl_kern *kernel, *merge = NULL;
    pk_status s = pk_cl_kernel(d, "gemm_skinny.cl", options, sk->mma ? "gemm_skinny_mma" : "gemm_skinny", &kernel, msg);
    if (s == PK_SUCCESS && sk->splits > 1) s = pk_cl_kernel(d, "gemm_skinny.cl", options, "gemm_skinny_merge", &merge, msg);
    if (s != PK_SUCCESS) return s;
    cl_mem part = NULL;
    if (sk->splits > 1) {
        s = pk_cl_scratch(d, sizeof(float) * (size_t)sk->splits * (size_t)(p->batch * p->m * p->n), &part, msg);
        if (s != PK_SUCCESS) return s;
    }

    gemm_args g;
    gemm_args_fill(&g, p, sk->ks, sk->splits, part, NULL);
    size_t groups = (size_t)min64(sk->groups, PK_CL_GEMM_MAX_GROUPS_X);
    size_t global[3] = {groups * (size_t)sk->wg, (size_t)sk->splits, (size_t)min64(p->batch, PK_CL_GEMM_MAX_GROUPS_YZ)};
    size_t local[3] = {(size_t)sk->wg, 1, 1};
    s = pk_cl_run(d, kernel, g.list, GEMM_ARGS, 3, global, local, msg);
    if (s != PK_SUCCESS || sk->splits == 1) return s;

    size_t mglobal[3] = {(size_t)p->n, (size_t)p->m, (size_t)min64(p->batch, PK_CL_GEMM_MAX_GROUPS_YZ)};
    size_t mlocal[3] = {64, 1, 1};
    return pk_cl_run(d, merge, g.list, GEMM_ARGS, 3, mglobal, mlocal, msg);
}

/* A split tensor-core launch's buffers (splits > 1): the pieces' sums in
 * scratch (rows of PK_GEMM_PART_PN(n) floats) and a counter a tile; both
 * NULL when unsplit. */
static pk_status split_buffers(pk_cl_device *d, const pk_gemm_problem *p, int splits, int64_t m_tiles,
                               int64_t n_tiles, cl_mem *part, cl_mem *counters, pk_msg *msg)
{
    *part = *counters = NULL;
    if (splits <= 1) return PK_SUCCESS;
    pk_status s = pk_cl_scratch(d, sizeof(float) * (size_t)splits * (size_t)(p->batch * p->m * PK_GEMM_PART_PN(p->n)),
                                part, msg);
    if (s == PK_SUCCESS) s = pk_cl_counters(d, sizeof(cl_uint) * (size_t)(p->batch * m_tiles * n_tiles), counters, msg);
    return s;
}

/* gemm_tma.cl (TMA tiles): gemm_mma's arguments, then the templates of
 * a's and b's maps by value, a slot of two maps for each work-group, and
 * the split's counters. Grid (n tiles x pieces, m tiles, batch): the plan
 * keeps the last two under 65535 (tma_takes). */
static pk_status gemm_tma(pk_cl_device *d, const pk_gemm_problem *p, const pk_cl_gemm_plan *plan, int64_t n_tiles,
                          pk_msg *msg)
{
    const pk_cl_mma_tile *t = &plan->mt;
    const int splits = plan->mma_splits > 1 ? plan->mma_splits : 1;
    char options[512];
    pk_cl_options(options, sizeof options, "-DPK_PTX=1 -DPK_WGMMA=1 -DBM=%d -DBN=%d -DSTAGES=%d -DSPLITS=%d", t->bm,
                  t->bn, t->stages, splits);
    add_epilogue(options, sizeof options, p);
    add_regs(options, sizeof options, t->regs);
    pk_cl_kern *kernel;
    pk_status s = pk_cl_kernel(d, "gemm_tma.cl", options, "gemm_tma", &kernel, msg);
    if (s != PK_SUCCESS) return s;
    const int64_t m_tiles = (p->m + t->bm - 1) / t->bm, groups = n_tiles * m_tiles * p->batch * splits;
    const unsigned char(*tpl)[128] = NULL;
    cl_mem part, counters, slots = NULL;
    s = pk_cl_tma_buffers(d, (size_t)groups * 2u * PK_TMA_MAP_LONGS * sizeof(cl_ulong), &tpl, &slots, msg);
    if (s == PK_SUCCESS) s = split_buffers(d, p, splits, m_tiles, n_tiles, &part, &counters, msg);
    if (s != PK_SUCCESS) return s;
    gemm_args g;
    gemm_args_fill(&g, p, 0, 1, part, counters);
    pk_cl_arg list[GEMM_ARGS + 4];
    memcpy(list, g.list, sizeof(pk_cl_arg) * GEMM_ARGS);
    list[GEMM_ARGS] = (pk_cl_arg){128, tpl[PK_TMA_TEMPLATE(p->a.dtype, t->bm)]};
    list[GEMM_ARGS + 1] = (pk_cl_arg){128, tpl[PK_TMA_TEMPLATE(p->a.dtype, t->bn)]};
    list[GEMM_ARGS + 2] = PK_CL_ARG(slots);
    list[GEMM_ARGS + 3] = PK_CL_ARG(g.counters);
    const size_t wg = (size_t)32 * (size_t)(t->warps_m + 1);
    size_t global[3] = {(size_t)(n_tiles * splits) * wg, (size_t)m_tiles, (size_t)p->batch};
    size_t local[3] = {wg, 1, 1};
    return pk_cl_run(d, kernel, list, GEMM_ARGS + 3 + (splits > 1), 3, global, local, msg);
}

/* The tensor-core kernels: gemm_mma.cl (tiles through local memory) or,
 * for kwarp tiles, gemm_mma_kwarp.cl (warps multiplying from registers, k
 * split among them); either split over `mma_splits` work-groups, their
 * sums in scratch and a counter a tile. */
static pk_status gemm_mma(pk_cl_device *d, const pk_gemm_problem *p, const pk_cl_gemm_plan *plan, pk_msg *msg)
{
    const pk_cl_mma_tile *t = &plan->mt;
    const int splits = plan->mma_splits > 1 ? plan->mma_splits : 1;
    int64_t n_tiles;
    pk_status s = column_groups(p, t->bn, &n_tiles, msg);
    if (s != PK_SUCCESS) return s;
    if (t->tma) return gemm_tma(d, p, plan, n_tiles, msg);
    char options[512];
    if (t->kwarp)
        pk_cl_options(options, sizeof options,
                      "-DPK_PTX=1 -DBM=%d -DBN=%d -DWM=%d -DWN=%d -DWK=%d -DDEPTH=%d -DRED_MT=%d -DSPLITS=%d", t->bm,
                      t->bn, t->warps_m, t->warps_n, t->kwarp, t->stages,
                      pk_cl_mma_red_mt(t, d->info.local_mem_bytes), splits);
    else
        pk_cl_options(options, sizeof options,
                      "-DPK_PTX=1 -DBM=%d -DBN=%d -DWARPS_M=%d -DWARPS_N=%d -DSTAGES=%d -DPENDING=%d -DB_KC=%d "
                      "-DB_REG=%d -DSPLITS=%d -DGROUP_M=%d%s",
                      t->bm, t->bn, t->warps_m, t->warps_n, t->stages, t->stages - 2, plan->b_kc, t->breg, splits,
                      t->group_m, t->wgmma ? " -DWGMMA=1 -DPK_WGMMA=1" : "");
    add_epilogue(options, sizeof options, p);
    add_regs(options, sizeof options, t->regs);
    pk_cl_kern *kernel;
    s = pk_cl_kernel(d, t->kwarp ? "gemm_mma_kwarp.cl" : "gemm_mma.cl", options,
                     t->kwarp ? "gemm_mma_kwarp" : "gemm_mma", &kernel, msg);
    if (s != PK_SUCCESS) return s;
    const int64_t m_tiles = (p->m + t->bm - 1) / t->bm;
    cl_mem part, counters;
    s = split_buffers(d, p, splits, m_tiles, n_tiles, &part, &counters, msg);
    if (s != PK_SUCCESS) return s;
    gemm_args g;
    gemm_args_fill(&g, p, 0, 1, part, counters);
    const size_t wg = (size_t)32 * (size_t)(t->warps_m * t->warps_n * (t->kwarp ? t->kwarp : 1));
    size_t global[3] = {(size_t)n_tiles * wg, (size_t)min64(m_tiles, PK_CL_GEMM_MAX_GROUPS_YZ),
                        (size_t)min64(p->batch * splits, PK_CL_GEMM_MAX_GROUPS_YZ)};
    size_t local[3] = {wg, 1, 1};
    return pk_cl_run(d, kernel, g.list, GEMM_ARGS + (splits > 1), 3, global, local, msg);
}

pk_status pk_cl_gemm(void *dev, const pk_gemm_problem *p, pk_msg *msg)
{
    pk_cl_device *d = dev;
    const size_t max_wg = d->max_wg;
    pk_cl_gemm_plan plan;
    if (pk_cl_gemm_plan_problem(&d->prm, &d->info, max_wg, p, &plan) != 0)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED,
                       "OpenCL gemm: no tile fits the device (%llu bytes of local memory, work-groups of %zu)",
                       (unsigned long long)d->info.local_mem_bytes, max_wg);
    if (plan.skinny) return gemm_skinny(d, p, &plan.sk, msg);
    if (plan.mma) return gemm_mma(d, p, &plan, msg);
    const pk_cl_gemm_tile *t = &plan.tile;

    int64_t n_tiles;
    pk_status s = column_groups(p, t->tn, &n_tiles, msg);
    if (s != PK_SUCCESS) return s;
    int64_t m_groups = min64((p->m + t->tm - 1) / t->tm, PK_CL_GEMM_MAX_GROUPS_YZ);
    int64_t z_groups = min64(p->batch, PK_CL_GEMM_MAX_GROUPS_YZ);

    gemm_layout la = layout_of(p->a.stride[2], p->a.stride[1]);
    gemm_layout lb = layout_of(p->b.stride[1], p->b.stride[2]);
    /* gemm_tiled.cl's pipeline (its header): GPUs prefetch into registers,
     * read runs of 4 where aligned and finish through local memory; CPUs
     * (PoCL) copy straight to local memory and finish in place (each
     * faster there). The k loop's unrolling and the register bound
     * are the tile's (opencl_gemm_plan.c says why) */
    const int gpu = plan.cls != PK_CL_VENDOR_CPU;
    const int a_vec = gpu && runs_of_4(&p->a, la, p->batch, la.kfast ? p->a.stride[1] : p->a.stride[2],
                                       la.kfast ? p->m : p->k);
    const int b_vec = gpu && runs_of_4(&p->b, lb, p->batch, lb.kfast ? p->b.stride[2] : p->b.stride[1],
                                       lb.kfast ? p->n : p->k);
    char options[512];
    pk_cl_options(options, sizeof options,
                  "-DTM=%d -DTN=%d -DTK=%d -DWM=%d -DWN=%d -DPAD=%d -DA_KFAST=%d -DA_UNIT=%d -DB_KFAST=%d "
                  "-DB_UNIT=%d -DA_VEC=%d -DB_VEC=%d -DPREFETCH=%d -DKUNROLL=%d -DEPI_LOCAL=%d -DLANES=%d",
                  t->tm, t->tn, t->tk, t->wm, t->wn, PK_CL_GEMM_PAD, la.kfast, la.unit, lb.kfast, lb.unit, a_vec,
                  b_vec, gpu, t->kunroll, gpu, t->lanes);
    add_epilogue(options, sizeof options, p);
    if (t->unpadded) {
        const size_t used = strlen(options);
        pk_cl_options(options + used, sizeof options - used, " -DVPAD=0");
    }
    if (plan.cls == PK_CL_VENDOR_NVIDIA) add_regs(options, sizeof options, t->regs);
    pk_cl_kern *kernel;
    s = pk_cl_kernel(d, "gemm_tiled.cl", options, "gemm_tiled", &kernel, msg);
    if (s != PK_SUCCESS) return s;

    gemm_args g;
    gemm_args_fill(&g, p, 0, 1, NULL, NULL);
    size_t global[3] = {(size_t)n_tiles * plan.local[0], (size_t)m_groups * plan.local[1], (size_t)z_groups};
    size_t local[3] = {plan.local[0], plan.local[1], 1};
    return pk_cl_run(d, kernel, g.list, GEMM_ARGS, 3, global, local, msg);
}
