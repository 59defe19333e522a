/* What every HIP GEMM kernel shares: the parameter list (the order of
 * kernels_cuda/gemm_common.cuh, which the host marshals with
 * pk_gpu_gemm_args), the tile order, and the fused epilogue.
 *
 * Pointers arrive already advanced by the view's offset; strides are
 * {batch, row, col} in elements, 0 broadcasts. c, bias and res are NULL
 * when absent. d_dt is the dtype code of c, d, bias and res, a run-time
 * value, so that each kernel is built once per input dtype. */
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

/* The arguments as one struct, laid out as the kernel's parameter list
 * (natural alignment, in order: the kernarg segment's layout). */
struct pk_gemm_kargs {
    long long batch, m, n, k;
    const void *a;
    long long a_sb, a_sm, a_sk;
    const void *b;
    long long b_sb, b_sk, b_sn;
    const void *c;
    long long c_sb, c_sm, c_sn;
    void *d;
    long long d_sb, d_sm, d_sn;
    const void *bias;
    long long bias_sn;
    const void *res;
    long long r_sb, r_sm, r_sn;
    float alpha, beta;
    int act, d_dt;
};
static_assert(sizeof(pk_gemm_kargs) == 224, "pk_gemm_kargs must match PK_GEMM_PARAMS");

#define PK_GEMM_KARGS pk_gemm_kargs{PK_GEMM_ARGS}

/* The epilogue's operands, gathered once so that the kernels pass one
 * value around instead of eighteen. */
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

__device__ __forceinline__ pk_gemm_out pk_gemm_out_of(const pk_gemm_kargs &a)
{
    return pk_gemm_out{a.d,    a.d_sb, a.d_sm, a.d_sn, a.c,    a.c_sb, a.c_sm, a.c_sn, a.bias,
                       a.bias_sn, a.res, a.r_sb, a.r_sm, a.r_sn, a.alpha, a.beta, a.act, a.d_dt};
}

/* d[z][i][j] = act(alpha * acc + beta * c + bias) + res. The thread reads
 * c before it writes d, which makes c == d safe. */
__device__ __forceinline__ void pk_gemm_finish(const pk_gemm_out &o, long long z, long long i, long long j,
                                               float acc)
{
    float x = o.alpha * acc;
    if (o.c) x += o.beta * pk_load_dt(o.c, z * o.c_sb + i * o.c_sm + j * o.c_sn, o.dt);
    if (o.bias) x += pk_load_dt(o.bias, j * o.bias_sn, o.dt);
    x = pk_act(o.act, x);
    if (o.res) x += pk_load_dt(o.res, z * o.r_sb + i * o.r_sm + j * o.r_sn, o.dt);
    pk_store_dt(o.d, z * o.d_sb + i * o.d_sm + j * o.d_sn, o.dt, x);
}

/* Tile t of an m_tiles x n_tiles grid, in groups of 8 m-tiles walked
 * m-first: the blocks running at once share a few B column panels, which
 * keeps B in L2 when it is larger than L2. In 32 bits (fewer than 2^32
 * tiles, m n < 2^44 at 64 x 64): a 64-bit division is a long subroutine on
 * AMD, and its registers spill. */
__device__ __forceinline__ void pk_gemm_tile_of(unsigned t, unsigned m_tiles, unsigned n_tiles, long long &tm,
                                                long long &tn)
{
    const unsigned group = 8 * n_tiles;
    const unsigned first = t / group * 8;
    const unsigned size = m_tiles - first < 8 ? m_tiles - first : 8;
    const unsigned r = t % group;
    tm = first + r % size;
    tn = r / size;
}

/* Two 16-bit values packed in a word, low half first: the skinny and MFMA
 * kernels move 16-bit operands as whole words. */
template <int DT> __device__ __forceinline__ float2 pk_gemm_unpack2(unsigned w);
template <> __device__ __forceinline__ float2 pk_gemm_unpack2<1>(unsigned w)
{
    pk_f16 h[2];
    __builtin_memcpy(h, &w, 4);
    return make_float2(pk_to_f32(h[0]), pk_to_f32(h[1]));
}
template <> __device__ __forceinline__ float2 pk_gemm_unpack2<2>(unsigned w)
{
    return make_float2(__uint_as_float(w << 16), __uint_as_float(w & 0xffff0000u));
}

/* x, kept in a vector register on AMD. The compiler hoists every uniform
 * part of an address it can find into scalar registers, of which an AMD
 * wave has about 100; an element's row index passed through here stays a
 * per-lane value, so its address costs a few vector instructions instead
 * of a pair of scalar registers held across the loop. */
__device__ __forceinline__ int pk_vgpr(int x)
{
#if PK_HIP_AMD
    asm volatile("" : "+v"(x));
#endif
    return x;
}
