/* The RDNA matrix-core instruction v_wmma_f32_16x16x16 (f16, bf16;
 * wave32) as the WMMA kernels use it (gemm_wmma.h, attention_wmma.h): a
 * lane's operand fragments, its share of the result, and the instruction
 * itself. GEN 11 is RDNA3 (gfx11), GEN 12 RDNA4 (gfx12), whose operand
 * layouts differ. The builtin is used where PK_HIP_WMMA == GEN; on NVIDIA
 * (HIP on NVIDIA) the warp's lanes do the instruction in the same layout,
 * so that the kernels' staging, fragments and epilogues run there.
 *
 * Operands and result of D += A B (A 16 x 16 k, B 16 k x 16), lane l,
 * r = l % 16, h = l / 16 (the ISA's layout):
 *   GEN 11: A: row r, k 0..15 (16 values; lanes 16..31 repeat 0..15);
 *           B: column r, the same; D: register v holds D[2 v + h][r]
 *   GEN 12: A: row r, k 8 h .. 8 h + 7; B: column r, the same;
 *           D: register v holds D[8 h + v][r]
 * Each output is one lane's sum over k: deterministic. */
#pragma once

#include "bits16.h"

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

/* Row of D that register v of lane l holds (its column is l % 16) */
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

#if !PK_HIP_AMD
/* NVIDIA: the 32 lanes do the instruction by the layout above, k
 * ascending; D[row][r] takes A's row from the lanes that hold it and B's
 * column r from lane r (and r + 16 for GEN 12's upper k). Not inlined: a
 * kernel's products are then calls to one body, not hundreds of unrolled
 * shuffles each (what made ptxas take minutes a kernel and spill); only
 * the emulation runs here, for correctness, so its speed does not matter. */
template <int GEN, int DT>
__device__ __noinline__ void pk_wmma_emulated(const pk_wmma_frag<GEN> &a, const pk_wmma_frag<GEN> &b, pk_wmma_acc &acc)
{
    const int lane = threadIdx.x % 32, r = lane % 16;
#pragma unroll
    for (int v = 0; v < 8; v++) {
        const int row = pk_wmma_row<GEN>(lane, v);
        float s = 0.0f;
#pragma unroll
        for (int half = 0; half < (GEN == 11 ? 1 : 2); half++)
#pragma unroll
            for (int w = 0; w < (GEN == 11 ? 8 : 4); w++) {
                const float2 x = pk_unpack2<DT>(__shfl(a.w[w], row + 16 * half));
                const float2 y = pk_unpack2<DT>(__shfl(b.w[w], r + 16 * half));
                s = fmaf(x.x, y.x, s);
                s = fmaf(x.y, y.y, s);
            }
        acc.v[v] += s;
    }
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
    pk_wmma_emulated<GEN, DT>(a, b, acc);
#endif
}

/* x, which the compiler cannot know before dep is computed (AMD). An
 * unrolled loop of fragment loads and products had every load hoisted
 * ahead of the products (on gfx11, 8 registers a fragment): with the
 * loads' offsets tied to the previous product they stay beside it, and
 * the attention kernels' registers fit without spills. */
__device__ __forceinline__ int pk_wmma_after(int x, float dep)
{
#if PK_HIP_AMD
    asm volatile("" : "+v"(x) : "v"(dep));
#else
    (void)dep;
#endif
    return x;
}
