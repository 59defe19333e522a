/* Skinny GEMM for decode: d = act(alpha * a @ b + beta * c + bias) + residual
 * with m <= MR <= 16 and both a and b contiguous along k (the linear layout
 * x[M,K] @ W[N,K]^T), their rows VW-aligned (the host checks). Memory-bound
 * on b, so everything serves one goal: stream b once, in wide loads.
 *
 * A work-group owns NC = (WG / KL) * CPI columns of d. Its work-items form
 * WG / KL teams of KL; a team owns CPI columns, and its KL items split each
 * column's k range into VW-element vectors, item i taking vectors i, i + KL,
 * ...: adjacent items load adjacent 16 bytes of a weight row. a (at most 16
 * rows) is read again per vector through the cache; CPI columns share each
 * of its loads. Accumulators are ACCV lanes wide: 1 on GPUs (a dot product
 * per vector, few registers), VW on CPUs (one SIMD multiply-add per vector).
 *
 * The team's partial sums meet in local memory and one item per output adds
 * them in item order. Split k (grid dim 1 > 1): split s covers
 * [s * ks, s * ks + ks) and writes its sums to part[s][z][row][col]; then
 * gemm_skinny_merge adds the splits in order and runs the epilogue. Fixed
 * orders everywhere: the same bits on every run.
 *
 * Build defines: DT_A DT_D ACT HAS_C HAS_BIAS HAS_RES as gemm_tiled.cl, and
 *   MR   rows of a the accumulators hold (m <= MR)
 *   VW   elements per load: 16 bytes of the dtype
 *   WG KL CPI  work-group size, items per column, columns per team
 *   RC   rows whose sums meet in local memory at a time (divides MR)
 *   ACCV 1 or VW: accumulator lanes
 *   U    vectors each item loads before it uses them (MMA: steps of 32 k)
 *   MMA  1: gemm_skinny_mma (tensor cores; WG, CPI = blocks of 8 columns
 *        a warp, U, KW warps splitting a strip's k, STREAM), below;
 *        0: gemm_skinny
 * Strides are in elements; k strides are 1. */

#ifndef MMA
#define MMA 0
#endif

#define TEAMS (WG / KL)
#define NC (TEAMS * CPI)

typedef PK_TYPE(DT_A) a_t;
typedef PK_TYPE(DT_D) d_t;

/* 16 bytes of a row as VW floats: bf16 widened by shifting the vector,
 * f16 converted after a 16-byte load, f32 as is. */
#if DT_A == 2
typedef float8 vec_t;
inline vec_t skinny_load(__global const a_t *p, long i)
{
    uint4 u = *(__global const uint4 *)(p + i);
    uint8 w = (uint8)(u.s0, u.s0, u.s1, u.s1, u.s2, u.s2, u.s3, u.s3);
    w = (w << (uint8)(16, 0, 16, 0, 16, 0, 16, 0)) & (uint8)(0xffff0000u);
    return as_float8(w);
}
#elif DT_A == 1
typedef float8 vec_t;
inline vec_t skinny_load(__global const a_t *p, long i)
{
    /* one 16-byte load whatever the driver makes of vload_half8 on global
     * memory; the halves then convert in registers */
    uint4 u = *(__global const uint4 *)(p + i);
    return vload_half8(0, (const __private half *)&u);
}
#else
typedef float4 vec_t;
inline vec_t skinny_load(__global const a_t *p, long i) { return *(__global const float4 *)(p + i); }
#endif

/* The first `valid` elements at p, zeros after: the last vector of a row
 * whose k is no multiple of VW. */
inline vec_t skinny_load_part(__global const a_t *p, long i, long valid)
{
#define PART(j) ((j) < valid ? PK_LOAD(DT_A, p, i + (j)) : 0.0f)
#if VW == 8
    return (vec_t)(PART(0), PART(1), PART(2), PART(3), PART(4), PART(5), PART(6), PART(7));
#else
    return (vec_t)(PART(0), PART(1), PART(2), PART(3));
#endif
#undef PART
}

#if ACCV == 1
typedef float acc_t;
#if VW == 8
#define SKINNY_FMA(w, x, acc)                                                                              \
    fma((w).s7, (x).s7, fma((w).s6, (x).s6, fma((w).s5, (x).s5, fma((w).s4, (x).s4,                      \
        fma((w).s3, (x).s3, fma((w).s2, (x).s2, fma((w).s1, (x).s1, fma((w).s0, (x).s0, (acc)))))))))
#else
#define SKINNY_FMA(w, x, acc) fma((w).s3, (x).s3, fma((w).s2, (x).s2, fma((w).s1, (x).s1, fma((w).s0, (x).s0, (acc)))))
#endif
inline float skinny_lanes(acc_t v) { return v; }
#else
typedef vec_t acc_t;
#define SKINNY_FMA(w, x, acc) fma((w), (x), (acc))
inline float skinny_lanes(acc_t v)
{
#if VW == 8
    float4 h = v.lo + v.hi;
#else
    float4 h = v;
#endif
    return (h.s0 + h.s2) + (h.s1 + h.s3);
}
#endif

/* acc[j][r] += b row j's vector . a row r's vector, for the rows below m.
 * Always inlined: acc stays in registers only once its indices are
 * constants in the caller's unrolled loops. */
inline __attribute__((always_inline)) void skinny_step(const vec_t w[CPI], __global const a_t *a, long a_i, long a_sm, long m,
                        acc_t acc[CPI][MR])
{
#pragma unroll
    for (int r = 0; r < MR; r++) {
        if (r < m) {
            vec_t x = skinny_load(a, a_i + r * a_sm);
#pragma unroll
            for (int j = 0; j < CPI; j++) acc[j][r] = SKINNY_FMA(w[j], x, acc[j][r]);
        }
    }
}

/* The epilogue of output (z, row, col) with sum = a @ b there. c is read
 * before d is written by the same work-item: c may be d. */
inline void skinny_finish(long z, long row, long col, float sum, float alpha, float beta,
                          __global const d_t *c, long c_off, long c_sb, long c_sm, long c_sn,
                          __global d_t *d, long d_off, long d_sb, long d_sm, long d_sn,
                          __global const d_t *bias, long bias_off, long bias_sn,
                          __global const d_t *res, long res_off, long res_sb, long res_sm, long res_sn)
{
    float x = alpha * sum;
#if HAS_C
    x += beta * PK_LOAD(DT_D, c, c_off + z * c_sb + row * c_sm + col * c_sn);
#endif
#if HAS_BIAS
    x += PK_LOAD(DT_D, bias, bias_off + col * bias_sn);
#endif
    x = pk_act(ACT, x);
#if HAS_RES
    x += PK_LOAD(DT_D, res, res_off + z * res_sb + row * res_sm + col * res_sn);
#endif
    PK_STORE(DT_D, d, d_off + z * d_sb + row * d_sm + col * d_sn, x);
}

#define SKINNY_EPILOGUE                                                                                    \
    alpha, beta, c, c_off, c_sb, c_sm, c_sn, d, d_off, d_sb, d_sm, d_sn, bias, bias_off, bias_sn, res,     \
        res_off, res_sb, res_sm, res_sn

/* Rows r0 .. r0 + RC - 1: the team's sums meet in red ([column][row][item
 * of its team], padded against bank conflicts), one item per output adds
 * them in item order and stores the split's partial or the final value. */
inline __attribute__((always_inline)) void
skinny_reduce(acc_t acc[CPI][MR], int r0, __local float *red, int tid, int lane, int team, long z, long col0,
              long s, long splits, __global float *part, long batch, long m, long n, float alpha, float beta,
              __global const d_t *c, long c_off, long c_sb, long c_sm, long c_sn,
              __global d_t *d, long d_off, long d_sb, long d_sm, long d_sn,
              __global const d_t *bias, long bias_off, long bias_sn,
              __global const d_t *res, long res_off, long res_sb, long res_sm, long res_sn)
{
#pragma unroll
    for (int j = 0; j < CPI; j++)
#pragma unroll
        for (int rr = 0; rr < RC; rr++)
            red[((team * CPI + j) * RC + rr) * (KL + 1) + lane] = skinny_lanes(acc[j][r0 + rr]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int o = tid; o < NC * RC; o += WG) {
        const long col = col0 + o / RC, row = r0 + o % RC;
        if (row >= m || col >= n) continue;
        float sum = 0.0f;
        for (int i = 0; i < KL; i++) sum += red[o * (KL + 1) + i];
        if (splits > 1)
            part[((s * batch + z) * m + row) * n + col] = sum;
        else
            skinny_finish(z, row, col, sum, SKINNY_EPILOGUE);
    }
    /* the next rows' sums overwrite these */
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Groups stride over column groups (dim 0) and batches (dim 2); dim 1 is
 * the split. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
gemm_skinny(PK_GEMM_CL_PARAMS(a, b))
{
    PK_GEMM_CL_UNPACK;
    const long ks = pk_s[PK_SA_KS];
    __local float red[NC * RC * (KL + 1)];
    const int tid = (int)get_local_id(0), lane = tid % KL, team = tid / KL;
    const long s = get_group_id(1), splits = get_num_groups(1);
    const long k0 = s * ks, k1 = min(k, k0 + ks);
    const long groups = (n + NC - 1) / NC;

    for (long z = get_group_id(2); z < batch; z += get_num_groups(2)) {
        for (long g = get_group_id(0); g < groups; g += get_num_groups(0)) {
            const long col0 = g * NC;
            /* columns past n reread column n - 1 and are never stored */
            long brow[CPI];
#pragma unroll
            for (int j = 0; j < CPI; j++) brow[j] = b_off + z * b_sb + min(col0 + team * CPI + j, n - 1) * b_sn;
            const long arow = a_off + z * a_sb;

            acc_t acc[CPI][MR];
#pragma unroll
            for (int j = 0; j < CPI; j++)
#pragma unroll
                for (int r = 0; r < MR; r++) acc[j][r] = (acc_t)0.0f;

            /* whole rounds of U vectors per item, then single vectors, then
             * the part of a vector that ends the range */
            const long whole = k1 > k0 ? (k1 - k0) / VW : 0;
            const long round = (long)U * KL * VW;
            long kk = k0 + (long)lane * VW;
            for (long left = whole / ((long)U * KL); left > 0; left--, kk += round) {
                vec_t w[U][CPI];
#pragma unroll
                for (int u = 0; u < U; u++)
#pragma unroll
                    for (int j = 0; j < CPI; j++) w[u][j] = skinny_load(b, brow[j] + kk + (long)u * KL * VW);
#pragma unroll
                for (int u = 0; u < U; u++) skinny_step(w[u], a, arow + kk + (long)u * KL * VW, a_sm, m, acc);
            }
            for (; kk + VW <= k1; kk += (long)KL * VW) {
                vec_t w[CPI];
#pragma unroll
                for (int j = 0; j < CPI; j++) w[j] = skinny_load(b, brow[j] + kk);
                skinny_step(w, a, arow + kk, a_sm, m, acc);
            }
            if (kk < k1) {
                vec_t w[CPI];
#pragma unroll
                for (int j = 0; j < CPI; j++) w[j] = skinny_load_part(b, brow[j] + kk, k1 - kk);
#pragma unroll
                for (int r = 0; r < MR; r++) {
                    if (r < m) {
                        vec_t x = skinny_load_part(a, arow + kk + r * a_sm, k1 - kk);
#pragma unroll
                        for (int j = 0; j < CPI; j++) acc[j][r] = SKINNY_FMA(w[j], x, acc[j][r]);
                    }
                }
            }

            /* rounds unrolled by hand: no compiler unrolls a loop with a
             * barrier, and acc leaves registers when indexed at run time */
#define SKINNY_ROUND(i)                                                                                    \
    if ((i) * RC < MR && (i) * RC < m)                                                                     \
        skinny_reduce(acc, (i) * RC, red, tid, lane, team, z, col0, s, splits, part, batch, m, n, SKINNY_EPILOGUE)
            SKINNY_ROUND(0);
            SKINNY_ROUND(1);
            SKINNY_ROUND(2);
            SKINNY_ROUND(3);
            SKINNY_ROUND(4);
            SKINNY_ROUND(5);
            SKINNY_ROUND(6);
            SKINNY_ROUND(7);
            SKINNY_ROUND(8);
            SKINNY_ROUND(9);
            SKINNY_ROUND(10);
            SKINNY_ROUND(11);
            SKINNY_ROUND(12);
            SKINNY_ROUND(13);
            SKINNY_ROUND(14);
            SKINNY_ROUND(15);
#undef SKINNY_ROUND
        }
    }
}

/* d = epilogue(sum over s of part[s]), s ascending: one item per output. */
__kernel void gemm_skinny_merge(PK_GEMM_CL_PARAMS(a, b))
{
    PK_GEMM_CL_UNPACK;
    const long splits = pk_s[PK_SA_SPLITS];
    const long col = get_global_id(0);
    if (col >= n) return;
    for (long z = get_global_id(2); z < batch; z += get_global_size(2)) {
        for (long r = get_global_id(1); r < m; r += get_global_size(1)) {
            float sum = 0.0f;
            for (long s = 0; s < splits; s++) sum += part[((s * batch + z) * m + r) * n + col];
            skinny_finish(z, r, col, sum, SKINNY_EPILOGUE);
        }
    }
}

#if MMA
/* Tensor cores through inline PTX (nv_ptx.cl; the host builds this, with
 * PK_PTX = 1, only where pk_device_info.matrix_units says the probe passed):
 * gemm_skinny_mma, for 16-bit a and b with m <= 16.
 *
 * A strip of CPI blocks of 8 columns belongs to KW warps of the group,
 * which split its k range: warp kp takes the rounds of U steps kp, kp +
 * KW, ... (adjacent warps read adjacent pieces of each weight row), then
 * the single steps past the last whole round in the same turn. A step is
 * 32 k as two mma.m16n8k16: a is the 16 x 16 A operand (rows past m are
 * zeros), a block of 8 weight rows the 16 x 8 B operand. The k order
 * inside a step is permuted so that each lane's share is contiguous: lane
 * (g = lane / 4, q = lane % 4) loads 16 bytes (k = 8q .. 8q + 7 of the
 * step) of weight row g of each block and of a's rows g and g + 8, and its
 * four 32-bit words go to the fragments' k pairs {2q, 2q + 8} of the first
 * mma and the second. A and B are permuted alike, so each product meets
 * its partner; every element of k is used once. Lane (g, q) holds d at
 * rows g and g + 8, columns 2q and 2q + 1 of each block. With KW > 1 the
 * warps' sums meet in local memory and one item per output adds them in
 * warp order. The tensor cores add in a fixed order: the same bits on
 * every run.
 *
 * STREAM 1 loads the weights, which are read once, with ld.global.nc and
 * no L1 allocation, so that a (read by every warp) keeps L1. */
#ifndef KW
#define KW 1
#endif
#ifndef STREAM
#define STREAM 0
#endif
#define MMA_STRIPS (WG / 32 / KW)
#define MMA_NC (MMA_STRIPS * 8 * CPI)

/* 16 bytes of weights at p + i */
inline uint4 skinny_mma_weights(__global const a_t *p, long i)
{
#if STREAM
    return pk_ld_stream16(p + i);
#else
    return *(__global const uint4 *)(p + i);
#endif
}

/* 16 bytes of 16-bit elements at p + i, of which the first `valid` are
 * read and the rest are zeros. */
inline uint4 skinny_mma_load(__global const a_t *p, long i, long valid)
{
    if (valid >= 8) return *(__global const uint4 *)(p + i);
    return pk_ld16_part((__global const ushort *)p + i, valid);
}

inline __attribute__((always_inline)) void skinny_mma_step(float c[CPI][4], uint4 x0, uint4 x1, const uint4 w[CPI])
{
#pragma unroll
    for (int j = 0; j < CPI; j++) pk_mma_k32_of(DT_A)(c[j], x0, x1, w[j]);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
gemm_skinny_mma(PK_GEMM_CL_PARAMS(a, b))
{
    PK_GEMM_CL_UNPACK;
    const long ks = pk_s[PK_SA_KS];
    const int lane = (int)get_local_id(0) % 32, warp = (int)get_local_id(0) / 32;
    const int strip = warp / KW, kp = warp % KW;
    const int g = lane / 4, q = lane % 4;
    const long s = get_group_id(1), splits = get_num_groups(1);
    const long k0 = s * ks, k1 = min(k, k0 + ks);
    const long groups = (n + MMA_NC - 1) / MMA_NC;
#if KW > 1
    /* [warp][accumulator j * 4 + e][lane]: lanes side by side */
    __local float red[WG / 32 * CPI * 4 * 32];
#endif

    for (long z = get_group_id(2); z < batch; z += get_num_groups(2)) {
        for (long gi = get_group_id(0); gi < groups; gi += get_num_groups(0)) {
            const long colw = gi * MMA_NC + (long)strip * 8 * CPI;
            /* columns past n reread column n - 1 and are never stored */
            long brow[CPI];
#pragma unroll
            for (int j = 0; j < CPI; j++) brow[j] = b_off + z * b_sb + min(colw + j * 8 + g, n - 1) * b_sn;
            const long arow0 = a_off + z * a_sb + (long)g * a_sm, arow1 = arow0 + 8 * a_sm;
            const int has0 = g < m, has1 = g + 8 < m;
            float acc[CPI][4];
#pragma unroll
            for (int j = 0; j < CPI; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;

            const long span = 32L * U, rounds = k1 > k0 ? (k1 - k0) / span : 0;
            long t = k0 + kp * span;
            for (long r = kp; r < rounds; r += KW, t += KW * span) {
                uint4 w[U][CPI], x0[U], x1[U];
#pragma unroll
                for (int u = 0; u < U; u++) {
                    const long at = t + u * 32 + 8 * q;
#pragma unroll
                    for (int j = 0; j < CPI; j++) w[u][j] = skinny_mma_weights(b, brow[j] + at);
                    x0[u] = has0 ? *(__global const uint4 *)(a + arow0 + at) : (uint4)0;
                    x1[u] = has1 ? *(__global const uint4 *)(a + arow1 + at) : (uint4)0;
                }
#pragma unroll
                for (int u = 0; u < U; u++) skinny_mma_step(acc, x0[u], x1[u], w[u]);
            }
            /* single steps after the whole rounds, dealt in turn */
            for (t = k0 + rounds * span + kp * 32L; t < k1; t += 32L * KW) {
                const long at = t + 8 * q, valid = clamp(k1 - at, 0L, 8L);
                uint4 w[CPI];
#pragma unroll
                for (int j = 0; j < CPI; j++) w[j] = skinny_mma_load(b, brow[j] + at, valid);
                uint4 x0 = has0 ? skinny_mma_load(a, arow0 + at, valid) : (uint4)0;
                uint4 x1 = has1 ? skinny_mma_load(a, arow1 + at, valid) : (uint4)0;
                skinny_mma_step(acc, x0, x1, w);
            }

#if KW > 1
#pragma unroll
            for (int j = 0; j < CPI; j++)
#pragma unroll
                for (int e = 0; e < 4; e++) red[(warp * (CPI * 4) + j * 4 + e) * 32 + lane] = acc[j][e];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int o = (int)get_local_id(0); o < MMA_STRIPS * CPI * 4 * 32; o += WG) {
                const int l = o % 32, je = o / 32 % (CPI * 4), st = o / (32 * CPI * 4);
                const long row = l / 4 + (je % 4 >= 2 ? 8 : 0);
                const long col = gi * MMA_NC + (long)st * 8 * CPI + je / 4 * 8 + 2 * (l % 4) + (je & 1);
                if (row >= m || col >= n) continue;
                float sum = 0.0f;
                for (int v = 0; v < KW; v++) sum += red[((st * KW + v) * (CPI * 4) + je) * 32 + l];
                if (splits > 1)
                    part[((s * batch + z) * m + row) * n + col] = sum;
                else
                    skinny_finish(z, row, col, sum, SKINNY_EPILOGUE);
            }
            /* the next group's sums overwrite these */
            barrier(CLK_LOCAL_MEM_FENCE);
#else
#pragma unroll
            for (int j = 0; j < CPI; j++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const long row = g + (e >= 2 ? 8 : 0), col = colw + j * 8 + 2 * q + (e & 1);
                    if (row >= m || col >= n) continue;
                    if (splits > 1)
                        part[((s * batch + z) * m + row) * n + col] = acc[j][e];
                    else
                        skinny_finish(z, row, col, acc[j][e], SKINNY_EPILOGUE);
                }
#endif
        }
    }
}
#endif /* MMA */
