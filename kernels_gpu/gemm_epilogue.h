/* The fused GEMM epilogue of every CUDA and HIP GEMM kernel: its operands
 * gathered once (pk_gemm_out, from the parameters or from pk_gemm_kargs),
 * so that the kernels pass one value around instead of eighteen, and the
 * store of one output. */
#ifndef PK_KERNELS_GPU_GEMM_EPILOGUE_H
#define PK_KERNELS_GPU_GEMM_EPILOGUE_H

#include "gemm_abi.h"
#include "gpu_common.h"

struct pk_gemm_out {
    void *d;
    long long d_sb, d_sm, d_sn;
    const void *c;
    long long c_sb, c_sm, c_sn;
    const void *bias;
    long long bias_sn;
    const void *res;
    long long r_sb, r_sm, r_sn;
    float alpha, beta;
    int act, dt;
};

/* inside a kernel, from its parameters */
#define PK_GEMM_OUT                                                                                      \
    pk_gemm_out{d, d_sb, d_sm, d_sn, c, c_sb, c_sm, c_sn, bias, bias_sn, res, r_sb, r_sm, r_sn, alpha,  \
                beta, act, d_dt}

__device__ __forceinline__ pk_gemm_out pk_gemm_out_of(const pk_gemm_kargs &a)
{
    return pk_gemm_out{a.d,    a.d_sb, a.d_sm, a.d_sn, a.c,    a.c_sb, a.c_sm, a.c_sn, a.bias,
                       a.bias_sn, a.res, a.r_sb, a.r_sm, a.r_sn, a.alpha, a.beta, a.act, a.d_dt};
}

/* the value of d[z][i][j]: act(alpha * acc + beta * c + bias) + res */
__device__ __forceinline__ float pk_gemm_value(const pk_gemm_out &o, long long z, long long i, long long j, float acc)
{
    float x = o.alpha * acc;
    if (o.c) x += o.beta * pk_load_dt(o.c, z * o.c_sb + i * o.c_sm + j * o.c_sn, o.dt);
    if (o.bias) x += pk_load_dt(o.bias, j * o.bias_sn, o.dt);
    x = pk_act(o.act, x);
    if (o.res) x += pk_load_dt(o.res, z * o.r_sb + i * o.r_sm + j * o.r_sn, o.dt);
    return x;
}

/* d[z][i][j] stored. The thread reads c before it writes d, which makes
 * c == d safe. */
__device__ __forceinline__ void pk_gemm_finish(const pk_gemm_out &o, long long z, long long i, long long j,
                                               float acc)
{
    pk_store_dt(o.d, z * o.d_sb + i * o.d_sm + j * o.d_sn, o.dt, pk_gemm_value(o, z, i, j, acc));
}

#endif /* PK_KERNELS_GPU_GEMM_EPILOGUE_H */
