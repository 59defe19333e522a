/* The fused chain as an interpreter: the program arrives at run time in
 * the kernel argument (steps over physical register slots), while the
 * kernels are precompiled.
 *
 * Why this shape: a register array indexed by run-time values lives in
 * scratch (local) memory, so every slot access goes through a switch whose cases
 * name the slot as a constant; the array then stays in registers (no
 * private segment, no stack frame). The wave runs one program, so every switch is
 * a uniform branch, and its cost is spread over the E elements a thread
 * carries per step (E contiguous elements of the innermost dim, one
 * vector load per input where the layout allows). The host allocates the
 * program's values to as few slots as their lifetimes allow and picks the
 * smallest kernel that fits: SLOTS x E = 8 x 4, 16 x 2, or 40 x 1 (every
 * value of the longest program live at once). More values per thread would
 * cost occupancy. Steps are read from the kernel arguments with a run-time
 * index (constant memory on NVIDIA, scalar loads of the kernarg segment on
 * AMD, no local copy). */
#ifndef PK_KERNELS_GPU_EW_CHAIN_H
#define PK_KERNELS_GPU_EW_CHAIN_H

#include "ew_common.h"

namespace pk_ew {

template <int E> __device__ __forceinline__ void copy(const float (&s)[E], float (&d)[E])
{
#pragma unroll
    for (int e = 0; e < E; e++) d[e] = s[e];
}

#define PK_EW_SLOT_CASES(X)                                                                                  \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18) \
    X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31) X(32) X(33) X(34) X(35) \
    X(36) X(37) X(38) X(39)

template <int S, int E> __device__ __forceinline__ void get_slot(const float (&r)[S][E], int i, float (&v)[E])
{
    switch (i) {
#define PK_EW_GET(j)                               \
    case j:                                        \
        if constexpr (j < S) copy<E>(r[j < S ? j : 0], v); \
        break;
        PK_EW_SLOT_CASES(PK_EW_GET)
#undef PK_EW_GET
    }
}

template <int S, int E> __device__ __forceinline__ void put_slot(float (&r)[S][E], int i, const float (&v)[E])
{
    switch (i) {
#define PK_EW_PUT(j)                               \
    case j:                                        \
        if constexpr (j < S) copy<E>(v, r[j < S ? j : 0]); \
        break;
        PK_EW_SLOT_CASES(PK_EW_PUT)
#undef PK_EW_PUT
    }
}

/* x = x OP y (or OP x); op codes are pk_chain_op's values. */
template <int E> __device__ __forceinline__ void chain_op(int op, float (&x)[E], const float (&y)[E], float imm)
{
#define PK_EW_EACH(expr)                             \
    {                                                \
        _Pragma("unroll") for (int e = 0; e < E; e++) \
        {                                            \
            const float a = x[e], b = y[e];          \
            (void)b;                                 \
            x[e] = (expr);                           \
        }                                            \
    }                                                \
    break
    switch (op) {
    case 0: PK_EW_EACH(a + b);
    case 1: PK_EW_EACH(a - b);
    case 2: PK_EW_EACH(a * b);
    case 3: PK_EW_EACH(a / b);
    case 4: PK_EW_EACH(max_nan(a, b));
    case 5: PK_EW_EACH(min_nan(a, b));
    case 6: PK_EW_EACH(a + imm);
    case 7: PK_EW_EACH(a * imm);
    case 8: PK_EW_EACH(powf(a, imm));
    case 9: PK_EW_EACH(-a);
    case 10: PK_EW_EACH(fabsf(a));
    case 11: PK_EW_EACH(expf(a));
    case 12: PK_EW_EACH(logf(a));
    case 13: PK_EW_EACH(sqrtf(a));
    case 14: PK_EW_EACH(1.0f / sqrtf(a));
    case 15: PK_EW_EACH(tanhf(a));
    case 16: PK_EW_EACH(1.0f / (1.0f + expf(-a)));
    case 17: act_with<1>(x); break;
    case 18: act_with<2>(x); break;
    case 19: act_with<3>(x); break;
    case 20: act_with<4>(x); break;
    default: break;
    }
#undef PK_EW_EACH
}

/* E elements of view v from element index `at` (n of them inside the
 * shape); dtype is uniform, so the switch is a uniform branch. */
template <int E>
__device__ __forceinline__ void load_any(const pk_ew_view &v, int dtype, bool vec, int64_t at, int n, float (&out)[E])
{
    auto go = [&](auto tag) {
        typedef decltype(tag) T;
        const T *p = reinterpret_cast<const T *>(v.ptr) + at;
        if (vec) {
            load_vec<T, E>(p, out);
        } else {
#pragma unroll
            for (int e = 0; e < E; e++) out[e] = e < n ? pk_to_f32(p[e * v.stride[3]]) : 0.0f;
        }
    };
    switch (dtype) {
    case 0: go(float()); break;
    case 1: go(pk_f16()); break;
    default: go(pk_bf16()); break;
    }
}

template <int E>
__device__ __forceinline__ void store_any(const pk_ew_view &v, int dtype, bool vec, int64_t at, int n,
                                          const float (&val)[E])
{
    auto go = [&](auto tag) {
        typedef decltype(tag) T;
        T *p = reinterpret_cast<T *>(v.ptr) + at;
        if (vec) {
            store_vec<T, E>(p, val);
        } else {
#pragma unroll
            for (int e = 0; e < E; e++)
                if (e < n) p[e * v.stride[3]] = pk_from_f32<T>(val[e]);
        }
    };
    switch (dtype) {
    case 0: go(float()); break;
    case 1: go(pk_f16()); break;
    default: go(pk_bf16()); break;
    }
}

__device__ __forceinline__ int64_t chain_at(const pk_ew_view &v, int64_t o0, int64_t o1, int64_t o2, int64_t c)
{
    return o0 * v.stride[0] + o1 * v.stride[1] + o2 * v.stride[2] + c * v.stride[3];
}

/* grid.x walks groups of E elements of the innermost dim, grid.y the outer
 * index (n0, n1, n2 flattened) in a grid-stride loop. */
template <int S, int E> __device__ __forceinline__ void chain_kernel(const pk_ew_chain_args &a)
{
    static_assert(S >= PK_EW_CHAIN_INPUTS, "inputs sit in slots 0..7");
    const int64_t c = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) * E;
    if (c >= a.n3) return;
    const int n = a.n3 - c < E ? (int)(a.n3 - c) : E;
    for (int64_t o = blockIdx.y * (int64_t)blockDim.y + threadIdx.y; o < a.outer;
         o += (int64_t)gridDim.y * blockDim.y) {
        const row_idx oi = split_row(o, a.outer, a.n1, a.n2);
        float r[S][E];
#pragma unroll
        for (int s = 0; s < S; s++)
#pragma unroll
            for (int e = 0; e < E; e++) r[s][e] = 0.0f;
        /* AMD: not unrolled: input i's view is read from the arguments
         * when it is loaded, so that the eight views (80 scalar registers)
         * are not all kept live across the outer loop, which spills there.
         * NVIDIA reads them from the constant bank: unrolled, each input
         * lands in its slot by a constant index. */
#if PK_HIP_AMD
#pragma unroll 1
#else
#pragma unroll
#endif
        for (int i = 0; i < PK_EW_CHAIN_INPUTS; i++)
            if (a.used >> i & 1) {
                float v[E];
                load_any<E>(a.in[i], a.dtype[i], a.vec >> i & 1, chain_at(a.in[i], oi.i0, oi.i1, oi.i2, c), n, v);
                put_slot<S, E>(r, i, v);
            }
        for (int s = 0; s < a.n_steps; s++) {
            const pk_ew_chain_step st = a.steps[s];
            float x[E], y[E];
            get_slot<S, E>(r, st.a, x);
            get_slot<S, E>(r, st.b, y);
            chain_op<E>(st.op, x, y, st.imm);
            put_slot<S, E>(r, st.dst, x);
        }
        float y[E];
        get_slot<S, E>(r, a.result, y);
        store_any<E>(a.out, a.out_dtype, a.vec >> PK_EW_CHAIN_INPUTS & 1, chain_at(a.out, oi.i0, oi.i1, oi.i2, c), n,
                     y);
    }
}

} // namespace pk_ew

#endif /* PK_KERNELS_GPU_EW_CHAIN_H */
