/* GEMM on NVIDIA's tensor cores from OpenCL for few rows of a (M up to a
 * tile of BM rows, or a few such tiles) with k-contiguous weights ([N, K],
 * the linear layout): d = act(alpha * a @ b + beta * c + bias) + residual
 * for 16-bit a and b, f32 sums. Built only with PK_PTX = 1 (nv_ptx.cl).
 *
 * Why a kernel of its own: at such M the weights are nearly all the
 * traffic, and a tile kernel that shares a through local memory reads all
 * of a from local memory once for every warp of a work-group, which on the
 * H200 cost more than the weights' stream; splitting k over work-groups to
 * fill the device then cost a hand-over and a sum at the end of every
 * launch (bench/RESULTS.md, 2026-12-04). Here the WARPS warps of a
 * work-group split k among themselves instead: warp w takes steps of 32 k
 * w, w + WARPS, ..., and each warp multiplies its steps' a (from L2, where
 * every work-group finds it) and weights (streamed) straight from
 * registers, DEPTH steps held at once (DEPTH - 1 in flight while one is
 * multiplied): no local memory, no barrier in the k loop. The warps' sums
 * of the BM x BN block meet once at the end in local memory, RED_MT m16
 * tiles at a time, and are added in warp order: deterministic, as every
 * kernel of portkern is.
 *
 * A step's k is permuted as nv_ptx.cl's pk_mma_k32_of says. Rows past m
 * and columns past n read the last row or column (their sums are not
 * stored); k past the end is zeros in both operands.
 *
 * Build defines: BM BN WARPS DEPTH RED_MT, DT_A (1 f16, 2 bf16), DT_D ACT
 * HAS_C HAS_BIAS HAS_RES as gemm_tiled.cl; its arguments too (cl_args.h
 * PK_GEMM_CL_PARAMS; part and the counters unused). */

#define BK 32
#define WG (32 * WARPS)
#define MT (BM / 16)
#define NT (BN / 8)
#define RS (BN + 8) /* floats a row of the sum buffer: rows 8 banks apart */

typedef ushort e_t;
typedef PK_TYPE(DT_A) a_t;
typedef PK_TYPE(DT_D) d_t;

/* 16 bytes of a row at p of which `valid` elements exist (the rest zeros);
 * whole: all 8 do. The weights are read once (streamed past L1); a's rows
 * are read by every work-group and come from L2. */
inline uint4 kw_weights(__global const e_t *p, long valid, const int whole)
{
    return whole ? pk_ld_stream16(p) : pk_ld16_part(p, valid);
}
inline uint4 kw_a(__global const e_t *p, long valid, const int whole)
{
    return whole ? *(__global const uint4 *)p : pk_ld16_part(p, valid);
}

/* step s's operands into one register set: xa[i][h] a's row g + 8h of
 * m16 tile i, xw[j] weight row g of block j (pointers at the lane's 8q of
 * step 0) */
inline __attribute__((always_inline)) void kw_load(uint4 xa[MT][2], uint4 xw[NT], __global const e_t *const pa[MT][2],
                                                    __global const e_t *const pw[NT], long s, long k, int q)
{
    const long k0 = s * BK, valid = k - k0 - 8 * q;
    const int whole = k0 + BK <= k;
#pragma unroll
    for (int j = 0; j < NT; j++) xw[j] = kw_weights(pw[j] + k0, valid, whole);
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) xa[i][h] = kw_a(pa[i][h] + k0, valid, whole);
}

inline __attribute__((always_inline)) void kw_mma(float acc[MT][NT][4], uint4 xa[MT][2], uint4 xw[NT])
{
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++) pk_mma_k32_of(DT_A)(acc[i][j], xa[i][0], xa[i][1], xw[j]);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void gemm_mma_kwarp(PK_GEMM_CL_PARAMS(a_, b_))
{
    PK_GEMM_CL_UNPACK;
    (void)part;
    __local float red[WARPS * 16 * RED_MT * RS] __attribute__((aligned(16)));
    __global const e_t *a = (__global const e_t *)a_, *b = (__global const e_t *)b_;
    const int tid = (int)get_local_id(0), lane = tid % 32, warp = tid / 32;
    const int g = lane / 4, q = lane % 4;
    const long m_tiles = (m + BM - 1) / BM;
    const long steps = (k + BK - 1) / BK;
    /* this warp's steps: warp, warp + WARPS, ... */
    const int mine = steps > warp ? (int)((steps - warp + WARPS - 1) / WARPS) : 0;
    const long n0 = (long)get_group_id(0) * BN;

    for (long z = get_group_id(2); z < batch; z += get_num_groups(2)) {
        for (long mt = get_group_id(1); mt < m_tiles; mt += get_num_groups(1)) {
            const long m0 = mt * BM;
            __global const e_t *pa[MT][2], *pw[NT];
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int h = 0; h < 2; h++)
                    pa[i][h] = a + a_off + z * a_sb + min(m0 + i * 16 + g + 8 * h, m - 1) * a_sm + 8 * q +
                               (long)warp * BK;
#pragma unroll
            for (int j = 0; j < NT; j++)
                pw[j] = b + b_off + z * b_sb + min(n0 + j * 8 + g, n - 1) * b_sn + 8 * q + (long)warp * BK;
            float acc[MT][NT][4];
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0f;

            /* register set t % DEPTH holds the warp's t-th step; the set's
             * index is a literal in each copy of the unrolled loop, as
             * registers need. Pointers sit at the warp's first step: its
             * t-th is t WARPS steps on, at k from (warp + t WARPS) BK. */
            const long kw = k - (long)warp * BK;
            uint4 xa[DEPTH][MT][2], xw[DEPTH][NT];
#pragma unroll
            for (int t = 0; t < DEPTH - 1; t++)
                if (t < mine) kw_load(xa[t], xw[t], pa, pw, (long)t * WARPS, kw, q);
            for (int t0 = 0; t0 < mine; t0 += DEPTH) {
#pragma unroll
                for (int s = 0; s < DEPTH; s++) {
                    const int t = t0 + s;
                    if (t >= mine) break;
                    const int nx = t + DEPTH - 1;
                    if (nx < mine)
                        kw_load(xa[(s + DEPTH - 1) % DEPTH], xw[(s + DEPTH - 1) % DEPTH], pa, pw, (long)nx * WARPS,
                                kw, q);
                    kw_mma(acc, xa[s], xw[s]);
                }
            }

            /* the warps' sums, RED_MT m16 tiles at a time: each warp's
             * into its own rows of red, then each work-item adds runs of 4
             * columns over the warps in order and finishes them */
#pragma unroll
            for (int c0 = 0; c0 < MT; c0 += RED_MT) {
                barrier(CLK_LOCAL_MEM_FENCE); /* the chunk before has been read */
#pragma unroll
                for (int ii = 0; ii < RED_MT; ii++)
#pragma unroll
                    for (int j = 0; j < NT; j++)
#pragma unroll
                        for (int h = 0; h < 2; h++)
                            *(__local float2 *)(red + (warp * 16 * RED_MT + ii * 16 + g + 8 * h) * RS + j * 8 + 2 * q) =
                                (float2)(acc[c0 + ii][j][2 * h], acc[c0 + ii][j][2 * h + 1]);
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int o = tid * 4; o < 16 * RED_MT * BN; o += WG * 4) {
                    const int row = o / BN, col = o % BN;
                    float4 sum = *(__local const float4 *)(red + row * RS + col);
                    for (int w = 1; w < WARPS; w++) sum += *(__local const float4 *)(red + (w * 16 * RED_MT + row) * RS + col);
                    const float v[4] = {sum.x, sum.y, sum.z, sum.w};
                    const long gm = m0 + c0 * 16 + row;
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        const long gn = n0 + col + e;
                        if (gm < m && gn < n) PK_GEMM_FINISH(v[e]);
                    }
                }
            }
        }
    }
}
