/* f16/bf16 GEMM on RDNA matrix cores (WMMA, wave32): GEN 11 is RDNA3
 * (gfx11), GEN 12 RDNA4 (gfx12), whose operand layouts differ. Built
 * natively where PK_HIP_WMMA == GEN; HIP on NVIDIA builds both with the
 * instruction done by the warp's lanes (pk_wmma below), so that its
 * conformance runs the staging, the fragments and the epilogue of this
 * file (PORTKERN_HIP_WMMA picks them there); other AMD targets build the
 * tiled body under the same names (gemm.hip).
 *
 * 256 threads = 8 waves of 32 as 2 (m) x 4 (n) compute a TILE x TILE
 * block of d, each wave (TILE/2) x (TILE/4) as MB x NB blocks of 16 x 16,
 * one v_wmma_f32_16x16x16 per block and 16 k, in the block loop of
 * gemm_common.h (pk_gemm_matrix), as gemm_mfma.h.
 *
 * Operands and result, lane l, r = l % 16, h = l / 16 (the ISA's layout):
 *   GEN 11: A: row r, k 0..15 (16 values; lanes 16..31 repeat 0..15);
 *           B: column r, the same; D: register v holds D[2 v + h][r]
 *   GEN 12: A: row r, k 8 h .. 8 h + 7; B: column r, the same;
 *           D: register v holds D[8 h + v][r]
 * Every output is one lane's sum over k in steps of 16: deterministic. */
#pragma once

#include "gemm_common.h"

/* a lane's share of a 16 x 16 operand (words of two 16-bit values) and of
 * the f32 result */
template <int GEN> struct pk_wmma_frag {
    unsigned w[GEN == 11 ? 8 : 4];
};
struct pk_wmma_acc {
    float v[8];
};

/* The fragment of the 16-row operand whose row r starts at `row` (k from
 * the step's k0; 8-byte aligned) */
template <int GEN> __device__ __forceinline__ pk_wmma_frag<GEN> pk_wmma_load(const unsigned short *row, int lane)
{
    pk_wmma_frag<GEN> f;
    const uint2 *p = reinterpret_cast<const uint2 *>(row + (GEN == 12 ? 8 * (lane / 16) : 0));
#pragma unroll
    for (int i = 0; i < (GEN == 11 ? 4 : 2); i++) {
        const uint2 x = p[i];
        f.w[2 * i] = x.x, f.w[2 * i + 1] = x.y;
    }
    return f;
}

/* Row of d that register v of lane l holds (its column is l % 16) */
template <int GEN> __device__ __forceinline__ int pk_wmma_row(int lane, int v)
{
    return GEN == 11 ? 2 * v + lane / 16 : 8 * (lane / 16) + v;
}

#if PK_HIP_WMMA
typedef short pk_short16 __attribute__((ext_vector_type(16)));
typedef _Float16 pk_half16 __attribute__((ext_vector_type(16)));
typedef short pk_short8 __attribute__((ext_vector_type(8)));
typedef _Float16 pk_half8 __attribute__((ext_vector_type(8)));
typedef float pk_float8 __attribute__((ext_vector_type(8)));
template <typename V, typename F> __device__ __forceinline__ V pk_wmma_as(const F &x)
{
    V v;
    memcpy(&v, &x, sizeof v);
    return v;
}
#endif

/* acc += a b */
template <int GEN, int DT>
__device__ __forceinline__ void pk_wmma(const pk_wmma_frag<GEN> &a, const pk_wmma_frag<GEN> &b, pk_wmma_acc &acc)
{
#if PK_HIP_WMMA == 11
    static_assert(GEN == 11, "gfx11 code holds gfx11 WMMA only");
    pk_float8 c = pk_wmma_as<pk_float8>(acc);
    if (DT == 1)
        c = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(pk_wmma_as<pk_half16>(a), pk_wmma_as<pk_half16>(b), c);
    else
        c = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(pk_wmma_as<pk_short16>(a), pk_wmma_as<pk_short16>(b), c);
    acc = pk_wmma_as<pk_wmma_acc>(c);
#elif PK_HIP_WMMA == 12
    static_assert(GEN == 12, "gfx12 code holds gfx12 WMMA only");
    pk_float8 c = pk_wmma_as<pk_float8>(acc);
    if (DT == 1)
        c = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(pk_wmma_as<pk_half8>(a), pk_wmma_as<pk_half8>(b), c);
    else
        c = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(pk_wmma_as<pk_short8>(a), pk_wmma_as<pk_short8>(b), c);
    acc = pk_wmma_as<pk_wmma_acc>(c);
#elif !PK_HIP_AMD
    /* NVIDIA: the 32 lanes do the instruction by the layout above, k
     * ascending; D[row][r] takes A's row from the lanes that hold it and
     * B's column r from lane r (and r + 16 for GEN 12's upper k) */
    const int lane = threadIdx.x % 32, r = lane % 16;
#pragma unroll
    for (int v = 0; v < 8; v++) {
        const int row = pk_wmma_row<GEN>(lane, v);
        float s = 0.0f;
#pragma unroll
        for (int half = 0; half < (GEN == 11 ? 1 : 2); half++)
#pragma unroll
            for (int w = 0; w < (GEN == 11 ? 8 : 4); w++) {
                const float2 x = pk_gemm_unpack2<DT>(__shfl(a.w[w], row + 16 * half));
                const float2 y = pk_gemm_unpack2<DT>(__shfl(b.w[w], r + 16 * half));
                s = fmaf(x.x, y.x, s);
                s = fmaf(x.y, y.y, s);
            }
        acc.v[v] += s;
    }
#endif
}

/* A thread's share of a TILE x TILE block: 8 waves of 32 as 2 (m) x 4
 * (n), each (TILE/2) x (TILE/4) as MB x NB blocks of 16 x 16
 * (pk_gemm_matrix's Op) */
template <int GEN, int DT, int TILE> struct pk_wmma_op {
    static constexpr int WTM = TILE / 2, WTN = TILE / 4, MB = WTM / 16, NB = WTN / 16;
    pk_wmma_acc acc[MB][NB];

    __device__ __forceinline__ void zero()
    {
#pragma unroll
        for (int i = 0; i < MB; i++)
#pragma unroll
            for (int j = 0; j < NB; j++)
#pragma unroll
                for (int v = 0; v < 8; v++) acc[i][j].v[v] = 0.0f;
    }

    __device__ __forceinline__ void step(const unsigned short (*rows)[PK_GEMM_LDS_ROW])
    {
        const int lane = threadIdx.x % 32, wave = threadIdx.x / 32;
        const int wm = wave / 4 * WTM, wn = wave % 4 * WTN;
#pragma unroll
        for (int s = 0; s < 32 / 16; s++) {
            pk_wmma_frag<GEN> fa[MB], fb[NB];
#pragma unroll
            for (int i = 0; i < MB; i++) fa[i] = pk_wmma_load<GEN>(&rows[wm + 16 * i + lane % 16][16 * s], lane);
#pragma unroll
            for (int j = 0; j < NB; j++) fb[j] = pk_wmma_load<GEN>(&rows[TILE + wn + 16 * j + lane % 16][16 * s], lane);
#pragma unroll
            for (int i = 0; i < MB; i++)
#pragma unroll
                for (int j = 0; j < NB; j++) pk_wmma<GEN, DT>(fa[i], fb[j], acc[i][j]);
        }
    }

    __device__ __forceinline__ void finish(const pk_gemm_out &out, long long z, long long m0, long long n0, long long m,
                                           long long n) const
    {
        const int lane = threadIdx.x % 32, wave = threadIdx.x / 32;
        const int wm = wave / 4 * WTM, wn = wave % 4 * WTN;
#pragma unroll
        for (int i = 0; i < MB; i++)
#pragma unroll
            for (int j = 0; j < NB; j++)
#pragma unroll
                for (int v = 0; v < 8; v++) {
                    const long long gm = m0 + wm + 16 * i + pk_wmma_row<GEN>(lane, v);
                    const long long gn = n0 + wn + 16 * j + lane % 16;
                    if (gm < m && gn < n) pk_gemm_finish(out, z, gm, gn, acc[i][j].v[v]);
                }
    }
};

template <int GEN, int DT, int TILE> __device__ __forceinline__ void pk_gemm_wmma(const pk_gemm_kargs &ka)
{
    pk_gemm_matrix<pk_wmma_op<GEN, DT, TILE>, TILE>(ka);
}
