/* OpenCL GEMM host side: plan, build options, arguments, launch of
 * kernels_cl/gemm_skinny.cl (decode in the linear layout),
 * kernels_cl/gemm_mma.cl (tensor cores through inline PTX) or
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

/* The epilogue's arguments, in the order gemm_tiled.cl takes them. */
#define GEMM_EPILOGUE_ARGS(p)                                                                              \
    cl_mem c = (p)->c.mem, dd = (p)->d.mem, bias = (p)->bias.mem, res = (p)->residual.mem;                 \
    cl_long c_off = (p)->c.offset, c_sb = (p)->c.stride[0], c_sm = (p)->c.stride[1], c_sn = (p)->c.stride[2]; \
    cl_long d_off = (p)->d.offset, d_sb = (p)->d.stride[0], d_sm = (p)->d.stride[1], d_sn = (p)->d.stride[2]; \
    cl_long bias_off = (p)->bias.offset, bias_sn = (p)->bias.stride[0];                                   \
    cl_long r_off = (p)->residual.offset, r_sb = (p)->residual.stride[0], r_sm = (p)->residual.stride[1],   \
            r_sn = (p)->residual.stride[2];                                                                \
    cl_float alpha = (p)->alpha, beta = (p)->beta
#define GEMM_EPILOGUE_LIST                                                                                 \
    PK_CL_ARG(c), PK_CL_ARG(c_off), PK_CL_ARG(c_sb), PK_CL_ARG(c_sm), PK_CL_ARG(c_sn), PK_CL_ARG(dd),      \
        PK_CL_ARG(d_off), PK_CL_ARG(d_sb), PK_CL_ARG(d_sm), PK_CL_ARG(d_sn), PK_CL_ARG(bias),              \
        PK_CL_ARG(bias_off), PK_CL_ARG(bias_sn), PK_CL_ARG(res), PK_CL_ARG(r_off), PK_CL_ARG(r_sb),        \
        PK_CL_ARG(r_sm), PK_CL_ARG(r_sn), PK_CL_ARG(alpha), PK_CL_ARG(beta)

static pk_status gemm_skinny(pk_cl_device *d, const pk_gemm_problem *p, const pk_cl_skinny_plan *sk, pk_msg *msg)
{
    char options[512];
    pk_cl_options(options, sizeof options,
                  "-DMR=%d -DVW=%d -DWG=%d -DKL=%d -DCPI=%d -DRC=%d -DU=%d -DACCV=%d -DMMA=%d -DPK_PTX=%d -DKW=%d -DSTREAM=%d "
                  "-DDT_A=%d -DDT_D=%d -DACT=%d -DHAS_C=%d -DHAS_BIAS=%d -DHAS_RES=%d",
                  sk->mr, sk->vw, sk->wg, sk->kl, sk->cpi, sk->rc ? sk->rc : 1, sk->unroll, sk->vector_acc ? sk->vw : 1,
                  sk->mma, sk->mma, sk->kw > 0 ? sk->kw : 1, sk->stream, (int)p->a.dtype, (int)p->d.dtype, (int)p->act, p->c.mem != NULL, p->bias.mem != NULL,
                  p->residual.mem != NULL);
    pk_cl_kern *kernel, *merge = NULL;
    pk_status s = pk_cl_kernel(d, "gemm_skinny.cl", options, sk->mma ? "gemm_skinny_mma" : "gemm_skinny", &kernel, msg);
    if (s == PK_SUCCESS && sk->splits > 1) s = pk_cl_kernel(d, "gemm_skinny.cl", options, "gemm_skinny_merge", &merge, msg);
    if (s != PK_SUCCESS) return s;
    cl_mem part = NULL;
    if (sk->splits > 1) {
        s = pk_cl_scratch(d, sizeof(float) * (size_t)sk->splits * (size_t)(p->batch * p->m * p->n), &part, msg);
        if (s != PK_SUCCESS) return s;
    }

    /* scalars packed as cl_args.h says; every skinny kernel takes these */
    cl_long sa[PK_SA_LONGS] = {
        [PK_SA_BATCH] = p->batch,      [PK_SA_M] = p->m,              [PK_SA_N] = p->n,
        [PK_SA_K] = p->k,              [PK_SA_KS] = sk->ks,           [PK_SA_SPLITS] = sk->splits,
        [PK_SA_A_OFF] = p->a.offset,   [PK_SA_A_SB] = p->a.stride[0], [PK_SA_A_SM] = p->a.stride[1],
        [PK_SA_B_OFF] = p->b.offset,   [PK_SA_B_SB] = p->b.stride[0], [PK_SA_B_SN] = p->b.stride[2],
    };
    const pk_view *ep[4] = {&p->c, &p->d, &p->bias, &p->residual};
    const int at[4] = {PK_SA_C, PK_SA_D, PK_SA_BIAS, PK_SA_RES}, strides[4] = {3, 3, 1, 3};
    for (int i = 0; i < 4; i++) {
        sa[at[i]] = ep[i]->offset;
        /* bias is [N]: its one stride is its n stride */
        for (int j = 0; j < strides[i]; j++) sa[at[i] + 1 + j] = ep[i]->stride[j];
    }
    cl_mem a = p->a.mem, b = p->b.mem, c = p->c.mem, dd = p->d.mem, bias = p->bias.mem, res = p->residual.mem;
    cl_float2 ab = {{p->alpha, p->beta}};
    const pk_cl_arg args[] = {
        PK_CL_ARG(a),    PK_CL_ARG(b),   PK_CL_ARG(part), PK_CL_ARG(c),
        PK_CL_ARG(dd),   PK_CL_ARG(bias), PK_CL_ARG(res),
        (pk_cl_arg){16 * sizeof(cl_long), sa}, (pk_cl_arg){16 * sizeof(cl_long), sa + 16}, PK_CL_ARG(ab),
    };
    size_t groups = (size_t)min64(sk->groups, PK_CL_GEMM_MAX_GROUPS_X);
    size_t global[3] = {groups * (size_t)sk->wg, (size_t)sk->splits, (size_t)min64(p->batch, PK_CL_GEMM_MAX_GROUPS_YZ)};
    size_t local[3] = {(size_t)sk->wg, 1, 1};
    s = pk_cl_run(d, kernel, args, (int)(sizeof args / sizeof args[0]), 3, global, local, msg);
    if (s != PK_SUCCESS || sk->splits == 1) return s;

    size_t mglobal[3] = {(size_t)p->n, (size_t)p->m, (size_t)min64(p->batch, PK_CL_GEMM_MAX_GROUPS_YZ)};
    size_t mlocal[3] = {64, 1, 1};
    return pk_cl_run(d, merge, args, (int)(sizeof args / sizeof args[0]), 3, mglobal, mlocal, msg);
}

/* The arguments gemm_tiled.cl and gemm_mma.cl take, in the order of
 * kernels_cl/cl_args.h PK_GEMM_TILED_PARAMS. */
#define GEMM_TILED_ARGS(p)                                                                                 \
    cl_long batch = (p)->batch, m = (p)->m, n = (p)->n, k = (p)->k;                                        \
    cl_mem a = (p)->a.mem, b = (p)->b.mem;                                                                 \
    cl_long a_off = (p)->a.offset, a_sb = (p)->a.stride[0], a_sm = (p)->a.stride[1], a_sk = (p)->a.stride[2]; \
    cl_long b_off = (p)->b.offset, b_sb = (p)->b.stride[0], b_sk = (p)->b.stride[1], b_sn = (p)->b.stride[2]; \
    GEMM_EPILOGUE_ARGS(p);                                                                                 \
    const pk_cl_arg args[] = {                                                                             \
        PK_CL_ARG(batch), PK_CL_ARG(m),     PK_CL_ARG(n),    PK_CL_ARG(k),                                  \
        PK_CL_ARG(a),     PK_CL_ARG(a_off), PK_CL_ARG(a_sb), PK_CL_ARG(a_sm),    PK_CL_ARG(a_sk),           \
        PK_CL_ARG(b),     PK_CL_ARG(b_off), PK_CL_ARG(b_sb), PK_CL_ARG(b_sk),    PK_CL_ARG(b_sn),           \
        GEMM_EPILOGUE_LIST,                                                                                \
    }

static pk_status gemm_mma(pk_cl_device *d, const pk_gemm_problem *p, const pk_cl_gemm_plan *plan, pk_msg *msg)
{
    const pk_cl_mma_tile *t = &plan->mt;
    int64_t n_tiles = (p->n + t->bn - 1) / t->bn;
    if (n_tiles > PK_CL_GEMM_MAX_GROUPS_X)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, "OpenCL gemm: N = %lld needs more than %d work-groups",
                       (long long)p->n, PK_CL_GEMM_MAX_GROUPS_X);
    const int splits = plan->mma_splits > 1 ? plan->mma_splits : 1;
    char options[512];
    pk_cl_options(options, sizeof options,
                  "-DPK_PTX=1 -DBM=%d -DBN=%d -DWARPS_M=%d -DWARPS_N=%d -DSTAGES=%d -DPENDING=%d -DB_KC=%d -DB_REG=%d -DSPLITS=%d "
                  "-DGROUP_M=%d -DDT_A=%d -DDT_D=%d -DACT=%d -DHAS_C=%d -DHAS_BIAS=%d -DHAS_RES=%d",
                  t->bm, t->bn, t->warps_m, t->warps_n, t->stages, t->stages - 2, plan->b_kc, t->breg, splits, t->group_m,
                  (int)p->a.dtype, (int)p->d.dtype, (int)p->act, p->c.mem != NULL, p->bias.mem != NULL,
                  p->residual.mem != NULL);
    if (t->regs > 0) {
        const size_t used = strlen(options);
        pk_cl_options(options + used, sizeof options - used, " -cl-nv-maxrregcount=%d", t->regs);
    }
    pk_cl_kern *kernel;
    pk_status s = pk_cl_kernel(d, "gemm_mma.cl", options, "gemm_mma", &kernel, msg);
    if (s != PK_SUCCESS) return s;
    GEMM_TILED_ARGS(p);
    const int64_t m_tiles = (p->m + t->bm - 1) / t->bm;
    /* split: the partial sums in scratch and a counter a tile, two more arguments */
    cl_mem part = NULL, counters = NULL;
    if (splits > 1) {
        /* rows of n rounded up to even (gemm_mma.cl PK_MMA_PART) */
        s = pk_cl_scratch(d, sizeof(float) * (size_t)splits * (size_t)(p->batch * p->m * ((p->n + 1) & ~(int64_t)1)), &part, msg);
        if (s == PK_SUCCESS)
            s = pk_cl_counters(d, sizeof(cl_uint) * (size_t)(p->batch * m_tiles * n_tiles), &counters, msg);
        if (s != PK_SUCCESS) return s;
    }
    enum { NARGS = sizeof args / sizeof args[0] };
    pk_cl_arg all[NARGS + 2];
    memcpy(all, args, sizeof args);
    all[NARGS] = PK_CL_ARG(part);
    all[NARGS + 1] = PK_CL_ARG(counters);
    const int nargs = NARGS + (splits > 1 ? 2 : 0);
    const size_t wg = (size_t)(32 * t->warps_m * t->warps_n);
    size_t global[3] = {(size_t)n_tiles * wg, (size_t)min64(m_tiles, PK_CL_GEMM_MAX_GROUPS_YZ),
                        (size_t)min64(p->batch * splits, PK_CL_GEMM_MAX_GROUPS_YZ)};
    size_t local[3] = {wg, 1, 1};
    return pk_cl_run(d, kernel, all, nargs, 3, global, local, msg);
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

    int64_t n_tiles = (p->n + t->tn - 1) / t->tn;
    if (n_tiles > PK_CL_GEMM_MAX_GROUPS_X)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, "OpenCL gemm: N = %lld needs more than %d work-groups",
                       (long long)p->n, PK_CL_GEMM_MAX_GROUPS_X);
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
                  "-DTM=%d -DTN=%d -DTK=%d -DWM=%d -DWN=%d -DPAD=%d -DDT_A=%d -DDT_D=%d -DACT=%d "
                  "-DHAS_C=%d -DHAS_BIAS=%d -DHAS_RES=%d -DA_KFAST=%d -DA_UNIT=%d -DB_KFAST=%d -DB_UNIT=%d "
                  "-DA_VEC=%d -DB_VEC=%d -DPREFETCH=%d -DKUNROLL=%d -DEPI_LOCAL=%d -DLANES=%d",
                  t->tm, t->tn, t->tk, t->wm, t->wn, PK_CL_GEMM_PAD, (int)p->a.dtype, (int)p->d.dtype,
                  (int)p->act, p->c.mem != NULL, p->bias.mem != NULL, p->residual.mem != NULL, la.kfast,
                  la.unit, lb.kfast, lb.unit, a_vec, b_vec, gpu, t->kunroll, gpu, t->lanes);
    if (t->unpadded) {
        const size_t used = strlen(options);
        pk_cl_options(options + used, sizeof options - used, " -DVPAD=0");
    }
    if (t->regs > 0 && plan.cls == PK_CL_VENDOR_NVIDIA) {
        const size_t used = strlen(options);
        pk_cl_options(options + used, sizeof options - used, " -cl-nv-maxrregcount=%d", t->regs);
    }
    pk_cl_kern *kernel;
    pk_status s = pk_cl_kernel(d, "gemm_tiled.cl", options, "gemm_tiled", &kernel, msg);
    if (s != PK_SUCCESS) return s;

    GEMM_TILED_ARGS(p);
    size_t global[3] = {(size_t)n_tiles * plan.local[0], (size_t)m_groups * plan.local[1], (size_t)z_groups};
    size_t local[3] = {plan.local[0], plan.local[1], 1};
    return pk_cl_run(d, kernel, args, (int)(sizeof args / sizeof args[0]), 3, global, local, msg);
}
