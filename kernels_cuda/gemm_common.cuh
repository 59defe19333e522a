/* What every GEMM kernel shares: the parameter list (one order for all
 * variants, which the host fills through pk_gpu_gemm_args in
 * backends/common/pk_gpu_args.c), the tile order, and the
 * fused epilogue.
 *
 * Pointers arrive already advanced by the view's offset; strides are
 * {batch, row, col} in elements, 0 broadcasts. c, bias and res are NULL
 * when absent. d_dt is the dtype code of c, d, bias and res: it is a
 * run-time value (a uniform branch in the store) so that each kernel is
 * built once per input dtype, not once per output dtype too. */
#pragma once

#include "../kernels_gpu/gpu_common.h"

#define PK_GEMM_PARAMS                                                                                   \
    long long batch, long long m, long long n, long long k, const void *a, long long a_sb,             \
        long long a_sm, long long a_sk, const void *b, long long b_sb, long long b_sk, long long b_sn,   \
        const void *c, long long c_sb, long long c_sm, long long c_sn, void *d, long long d_sb,          \
        long long d_sm, long long d_sn, const void *bias, long long bias_sn, const void *res,            \
        long long r_sb, long long r_sm, long long r_sn, float alpha, float beta, int act, int d_dt

#define PK_GEMM_ARGS                                                                                     \
    batch, m, n, k, a, a_sb, a_sm, a_sk, b, b_sb, b_sk, b_sn, c, c_sb, c_sm, c_sn, d, d_sb, d_sm, d_sn, \
        bias, bias_sn, res, r_sb, r_sm, r_sn, alpha, beta, act, d_dt

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

#define PK_GEMM_OUT                                                                                      \
    pk_gemm_out{d, d_sb, d_sm, d_sn, c, c_sb, c_sm, c_sn, bias, bias_sn, res, r_sb, r_sm, r_sn, alpha,  \
                beta, act, d_dt}

__device__ __forceinline__ float pk_gemm_load_dt(const void *p, long long i, int dt)
{
    if (dt == 1) return __half2float(static_cast<const __half *>(p)[i]);
    if (dt == 2) return __bfloat162float(static_cast<const __nv_bfloat16 *>(p)[i]);
    return static_cast<const float *>(p)[i];
}

__device__ __forceinline__ void pk_gemm_store_dt(void *p, long long i, int dt, float x)
{
    if (dt == 1) static_cast<__half *>(p)[i] = __float2half_rn(x);
    else if (dt == 2) static_cast<__nv_bfloat16 *>(p)[i] = __float2bfloat16_rn(x);
    else static_cast<float *>(p)[i] = x;
}

/* d[z][i][j] = act(alpha * acc + beta * c + bias) + res. c is read before
 * d is written by the same thread, which makes c == d safe. */
__device__ __forceinline__ void pk_gemm_finish(const pk_gemm_out &o, long long z, long long i, long long j,
                                               float acc)
{
    float x = o.alpha * acc;
    if (o.c) x += o.beta * pk_gemm_load_dt(o.c, z * o.c_sb + i * o.c_sm + j * o.c_sn, o.dt);
    if (o.bias) x += pk_gemm_load_dt(o.bias, j * o.bias_sn, o.dt);
    x = pk_act(o.act, x);
    if (o.res) x += pk_gemm_load_dt(o.res, z * o.r_sb + i * o.r_sm + j * o.r_sn, o.dt);
    pk_gemm_store_dt(o.d, z * o.d_sb + i * o.d_sm + j * o.d_sn, o.dt, x);
}

/* Tile t of an m_tiles x n_tiles grid, in groups of 8 m-tiles walked
 * m-first: the blocks running at once share a few B column panels, which
 * keeps B in L2 when it is larger than L2. */
__device__ __forceinline__ void pk_gemm_tile_of(long long t, long long m_tiles, long long n_tiles, long long &tm,
                                                long long &tn)
{
    const long long group = 8 * n_tiles;
    const long long first = t / group * 8;
    const long long size = m_tiles - first < 8 ? m_tiles - first : 8;
    const long long r = t % group;
    tm = first + r % size;
    tn = r / size;
}
