/* Decode GEMM on the tensor cores: d = x[M,K] @ W[N,K]^T with M <= 16, k
 * contiguous in both (f16/bf16, rows 16-byte aligned; the host checks).
 * The skinny kernel (gemm_skinny.cuh) does M f32 FMAs per weight on the
 * CUDA cores and is compute-bound beyond a few rows; here one mma.sync
 * m16n8k16 does all 16 (zero-padded) rows, so the kernel is left with its
 * real job: streaming W once from HBM.
 *
 * Fragments straight from global memory. The sum over k does not care in
 * which order the mma sees the k indices, as long as A and B agree. Lane
 * (g = lane / 4, t = lane % 4) loads 16 bytes of W row n0 + g at
 * k0 + 8t .. 8t + 7 of a 32-wide k chunk, and 16 bytes of x rows g and
 * g + 8 at the same k. Those registers are, with no shuffle, the B and A
 * fragments of two m16n8k16 (PTX ISA layout: B element (kk, n) sits in
 * lane (n, kk % 8 / 2), A element (m, kk) in lane (m % 8, kk % 8 / 2)):
 *     mma 0: logical kk = 2t + e    <-> k0 + 8t + e       (e = 0, 1)
 *            logical kk = 2t + 8 + e <-> k0 + 8t + 2 + e
 *     mma 1: the same with k0 + 8t + 4 + e and k0 + 8t + 6 + e
 * a bijection of the chunk's 32 k onto the two mmas' 2 x 16 (checked
 * against a plain loop by a CPU model of the lanes, see the report).
 *
 * Work: a block owns a strip of NT n8 tiles (8 NT columns) and all M rows;
 * its warps split K, warp w taking the groups of U chunks w, w + warps, ...
 * Each lane keeps U * NT 16-byte W loads in flight (ld.global.nc, no L1
 * allocation, 256-byte L2 prefetch); x (at most 16 rows) is read through
 * L1, where every block of the SM finds it. The warps' accumulators meet in
 * shared memory and are summed in warp order by one thread per output,
 * which then runs the shared epilogue (pk_gemm_finish): deterministic, no
 * atomics, no split-K across blocks. Rows >= M are zeros that are never
 * loaded (for M <= 8 the g + 8 half is all zeros) and never stored.
 *
 * Edges: a strip's columns past n reread row n - 1 and are not stored; the
 * chunks after the last whole group (k / 32 % U of them, then k % 32
 * elements) go to the warp whose turn that group is, loaded element by
 * element with zeros past k. The grid covers strips (x, looping beyond) and
 * batches (y). Dynamic shared memory: warps * NT * 4 * 32 floats. */
#pragma once

#include "gemm_common.cuh"

extern __shared__ __align__(128) unsigned char pk_gemm_dsmem[];

/* 16 bytes of W: read once, so keep it out of L1 (x lives there) */
__device__ __forceinline__ uint4 pk_gemm_ld_stream16(const void *p)
{
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

/* 16 bytes of x through L1. volatile, like the W loads, so that they stay
 * in program order after them and the registers of a step's x are not all
 * live at once */
__device__ __forceinline__ uint4 pk_gemm_ld_l1_16(const void *p)
{
    uint4 v;
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}

/* the 8 elements at p, of which the first `valid` exist (0..8), as 16 bytes */
__device__ __forceinline__ uint4 pk_gemm_ld_part16(const void *p, long long valid)
{
    const unsigned short *e = static_cast<const unsigned short *>(p);
    unsigned w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int j = 0; j < 8; j++)
        if (j < valid) w[j >> 1] |= (unsigned)e[j] << (16 * (j & 1));
    return make_uint4(w[0], w[1], w[2], w[3]);
}

template <int DT>
__device__ __forceinline__ void pk_gemm_decode_mma(float (&acc)[4], unsigned a0, unsigned a1, unsigned a2,
                                                   unsigned a3, unsigned b0, unsigned b1)
{
    if (DT == 2)
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};\n"
            : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    else
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};\n"
            : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/* one 32-wide k chunk: x rows g and g + 8 (xa, xb) times the NT W chunks */
template <int DT, int NT>
__device__ __forceinline__ void pk_gemm_decode_chunk(float (&acc)[NT][4], const uint4 &xa, const uint4 &xb,
                                                     const uint4 (&wv)[NT])
{
#pragma unroll
    for (int t = 0; t < NT; t++) {
        pk_gemm_decode_mma<DT>(acc[t], xa.x, xb.x, xa.y, xb.y, wv[t].x, wv[t].y);
        pk_gemm_decode_mma<DT>(acc[t], xa.z, xb.z, xa.w, xb.w, wv[t].z, wv[t].w);
    }
}

template <int DT, int NT, int U> __device__ __forceinline__ void pk_gemm_decode(PK_GEMM_PARAMS)
{
    typedef PK_T(DT) T;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int g = lane >> 2, tg = lane & 3;
    const long long strips = (n + NT * 8 - 1) / (NT * 8);
    const long long kc = k / 32; /* whole chunks; the rest is the tail */
    const T *at = static_cast<const T *>(a), *bt = static_cast<const T *>(b);
    const bool x0_ok = g < m, x1_ok = g + 8 < m;
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);

    for (long long z = blockIdx.y; z < batch; z += gridDim.y) {
        /* rows past m are never loaded: their pointers stay on row 0 */
        const T *x0 = at + z * a_sb + (x0_ok ? g : 0) * a_sm + tg * 8;
        const T *x1 = at + z * a_sb + (x1_ok ? g + 8 : 0) * a_sm + tg * 8;
        for (long long s = blockIdx.x; s < strips; s += gridDim.x) {
            const long long n0 = s * (NT * 8);
            /* warp w takes the groups of U chunks w, w + warps, ...; its
             * pointers start at group w and advance a stride per step, so the
             * loads take constant offsets */
            const long long k0 = (long long)warp * U * 32, step = (long long)warps * U * 32;
            const T *wp[NT];
#pragma unroll
            for (int t = 0; t < NT; t++) {
                const long long col = n0 + t * 8 + g;
                wp[t] = bt + z * b_sb + (col < n ? col : n - 1) * b_sn + tg * 8 + k0;
            }
            const T *xp0 = x0 + k0, *xp1 = x1 + k0;
            float acc[NT][4];
#pragma unroll
            for (int t = 0; t < NT; t++)
#pragma unroll
                for (int e = 0; e < 4; e++) acc[t][e] = 0.0f;

            const long long groups = kc / U; /* whole groups; kc % U chunks and the tail are left */
            long long left = groups > warp ? (groups - 1 - warp) / warps + 1 : 0;
#pragma unroll 1
            for (; left > 0; left--) {
                uint4 wv[U][NT];
#pragma unroll
                for (int u = 0; u < U; u++)
#pragma unroll
                    for (int t = 0; t < NT; t++) wv[u][t] = pk_gemm_ld_stream16(wp[t] + u * 32);
#pragma unroll
                for (int u = 0; u < U; u++) {
                    const uint4 xa = x0_ok ? pk_gemm_ld_l1_16(xp0 + u * 32) : zero;
                    const uint4 xb = x1_ok ? pk_gemm_ld_l1_16(xp1 + u * 32) : zero;
                    pk_gemm_decode_chunk<DT, NT>(acc, xa, xb, wv[u]);
                }
#pragma unroll
                for (int t = 0; t < NT; t++) wp[t] += step;
                xp0 += step, xp1 += step;
            }
            /* what is left is group `groups`, which falls to this warp, whose
             * pointers now stand at it: kc % U whole chunks, then the tail
             * (k % 32 elements, loaded one by one with zeros past k) */
            if (groups % warps == warp) {
                const int rest = (int)(kc - groups * U);
#pragma unroll 1
                for (int c = 0; c <= rest; c++) {
                    /* this lane's elements of the chunk */
                    const long long valid = c < rest ? 8 : k - kc * 32 - tg * 8;
                    if (c == rest && kc * 32 == k) break;
                    /* a cold path: element loads for all of it */
                    uint4 wv[NT];
#pragma unroll
                    for (int t = 0; t < NT; t++) wv[t] = pk_gemm_ld_part16(wp[t] + c * 32, valid);
                    const uint4 xa = x0_ok ? pk_gemm_ld_part16(xp0 + c * 32, valid) : zero;
                    const uint4 xb = x1_ok ? pk_gemm_ld_part16(xp1 + c * 32, valid) : zero;
                    pk_gemm_decode_chunk<DT, NT>(acc, xa, xb, wv);
                }
            }

            /* [warp][NT * 4 accumulators][lane]: lanes side by side, no bank conflicts */
            float *red = reinterpret_cast<float *>(pk_gemm_dsmem);
#pragma unroll
            for (int t = 0; t < NT; t++)
#pragma unroll
                for (int e = 0; e < 4; e++) red[(warp * (NT * 4) + t * 4 + e) * 32 + lane] = acc[t][e];
            __syncthreads();
            /* output (lane l, accumulator j = 4t + e): row l / 4 + 8 (e / 2),
             * column n0 + 8t + 2 (l % 4) + e % 2 */
            for (int o = threadIdx.x; o < NT * 4 * 32; o += blockDim.x) {
                const int j = o >> 5, l = o & 31, t = j >> 2, e = j & 3;
                const long long row = (l >> 2) + 8 * (e >> 1), col = n0 + t * 8 + 2 * (l & 3) + (e & 1);
                if (row >= m || col >= n) continue;
                float sum = 0.0f;
                for (int v = 0; v < warps; v++) sum += red[(v * (NT * 4) + j) * 32 + l];
                pk_gemm_finish(PK_GEMM_OUT, z, row, col, sum);
            }
            /* the next strip's partials overwrite these */
            __syncthreads();
        }
    }
}
