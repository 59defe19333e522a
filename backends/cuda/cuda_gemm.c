/* CUDA GEMM host side: plan, arguments and launch of kernels_cuda/gemm.cu.
 * Every entry point takes the same parameters (PK_GEMM_PARAMS in
 * kernels_cuda/gemm_common.cuh), in the order of `args` below. */
#include "cuda_gemm_plan.h"
#include "cuda_internal.h"

static size_t esize(pk_dtype t) { return t == PK_F32 ? 4 : 2; }

/* the view's element (0, 0, 0); 0 when the operand is absent */
static CUdeviceptr origin(const pk_view *v)
{
    return v->mem ? pk_cu_ptr(v->mem) + (CUdeviceptr)(v->offset * (int64_t)esize(v->dtype)) : 0;
}

pk_status pk_cu_gemm(void *dev, const pk_gemm_problem *p, pk_msg *msg)
{
    pk_cu_device *d = dev;
    if (p->batch == 0 || p->m == 0 || p->n == 0) return PK_SUCCESS;
    pk_cu_gemm_plan plan;
    pk_cu_gemm_plan_pick(p, d->sm_count, d->smem_optin, &plan);
    CUfunction f;
    pk_status s = pk_cu_function(d, plan.kernel, &f, msg);
    if (s != PK_SUCCESS) return s;

    long long batch = p->batch, m = p->m, n = p->n, k = p->k;
    CUdeviceptr a = origin(&p->a), b = origin(&p->b), c = origin(&p->c), dd = origin(&p->d),
                bias = origin(&p->bias), res = origin(&p->residual);
    long long a_sb = p->a.stride[0], a_sm = p->a.stride[1], a_sk = p->a.stride[2];
    long long b_sb = p->b.stride[0], b_sk = p->b.stride[1], b_sn = p->b.stride[2];
    long long c_sb = p->c.stride[0], c_sm = p->c.stride[1], c_sn = p->c.stride[2];
    long long d_sb = p->d.stride[0], d_sm = p->d.stride[1], d_sn = p->d.stride[2];
    long long bias_sn = p->bias.stride[0];
    long long r_sb = p->residual.stride[0], r_sm = p->residual.stride[1], r_sn = p->residual.stride[2];
    float alpha = p->alpha, beta = p->beta;
    int act = (int)p->act, d_dt = (int)p->d.dtype;
    void *args[] = {&batch, &m,    &n,    &k,    &a,    &a_sb, &a_sm,    &a_sk, &b,    &b_sb,
                    &b_sk,  &b_sn, &c,    &c_sb, &c_sm, &c_sn, &dd,      &d_sb, &d_sm, &d_sn,
                    &bias,  &bias_sn, &res, &r_sb, &r_sm, &r_sn, &alpha, &beta, &act,  &d_dt};
    return pk_cu_launch(d, f, plan.grid, plan.block, plan.smem, args, msg);
}
