/* GEMM on NVIDIA's tensor cores from OpenCL for few rows of a (M up to a
 * tile of BM rows, or a few such tiles) with k-contiguous weights ([N, K],
 * the linear layout): d = act(alpha * a @ b + beta * c + bias) + residual
 * for 16-bit a and b, f32 sums. Built only with PK_PTX = 1 (nv_ptx.cl).
 *
 * Why a kernel of its own: at such M the weights are nearly all the
 * traffic, and a tile kernel that shares a through local memory reads all
 * of a from local memory once for every warp of a work-group, which on the
 * H200 cost more than the weights' stream (bench/RESULTS.md, 2026-12-04).
 * Here every warp multiplies straight from registers, its operands loaded
 * from memory DEPTH steps at a time (DEPTH - 1 in flight while one is
 * multiplied): no local memory and no barrier in the k loop. The
 * WM x WN x WK warps of a work-group take a BM x BN block as WM x WN warp
 * blocks of WTM x WTN, and the WK warps of one warp block split its k:
 * warp group wk takes steps wk, wk + WK, ... Warps of one wk and one row
 * load the same rows of a at about the same time, through L1, which may
 * serve the repeats; the weights stream past L1, so warp rows that share
 * columns each read them from L2. Wider blocks (BN) read a from L2 fewer
 * times. The k of a launch may be split further into SPLITS pieces over
 * work-groups (too few blocks to fill the device): the piece that finds
 * the others done adds them.
 *
 * Sums meet deterministically, as in every kernel of portkern: the WK
 * warps' in local memory, RED_MT m16 tiles of every warp row at a time,
 * added in wk order; the pieces' (f32 in part) added in piece order by
 * whichever piece counts itself last, its own read back as the others.
 *
 * A step's k is permuted as nv_ptx.cl's pk_mma_k32_of says. Rows past m
 * and columns past n read the last row or column (their sums are not
 * stored); k past the end is zeros in both operands.
 *
 * Build defines: BM BN WM WN WK DEPTH RED_MT SPLITS, DT_A (1 f16, 2 bf16),
 * DT_D ACT HAS_C HAS_BIAS HAS_RES as gemm_tiled.cl; its arguments too
 * (cl_args.h PK_GEMM_CL_PARAMS), and with SPLITS > 1 the pieces' sums in
 * part (part[((sp * batch + z) * m + row) * pn + col], pn: n rounded up to
 * a multiple of 4) and a counter a block
 * (counters[(z * m_tiles + mt) * n_tiles + nt], zeros between launches). */

#define BK 32
#define WARPS (WM * WN * WK)
#define WG (32 * WARPS)
#define WTM (BM / WM)
#define WTN (BN / WN)
#define MT (WTM / 16)
#define NT (WTN / 8)
#define RS (BN + 8)              /* floats a row of the sum buffer: rows 8 banks apart */
#define RROWS (WM * 16 * RED_MT) /* rows of one warp group's sums in the buffer */
#if SPLITS > 1
#define KW_PART , __global uint *counters
#else
#define KW_PART
#endif
typedef ushort e_t;
typedef PK_TYPE(DT_A) a_t;
typedef PK_TYPE(DT_D) d_t;

/* step s's operands into one register set: xa[i][h] a's row g + 8h of
 * m16 tile i, xw[j] weight row g of block j (pointers at the lane's 8q of
 * the warp's first step). The weights are read once (streamed past L1);
 * a's rows are read by every work-group and come from L2. kw_load_whole:
 * a step inside k; kw_load: the last, of which k - s BK elements exist
 * (the rest zeros). */
inline __attribute__((always_inline)) void kw_load_whole(uint4 xa[MT][2], uint4 xw[NT],
                                                          __global const e_t *const pa[MT][2],
                                                          __global const e_t *const pw[NT], long s)
{
#pragma unroll
    for (int j = 0; j < NT; j++) xw[j] = pk_ld_stream16(pw[j] + s * BK);
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) xa[i][h] = *(__global const uint4 *)(pa[i][h] + s * BK);
}
inline __attribute__((always_inline)) void kw_load(uint4 xa[MT][2], uint4 xw[NT], __global const e_t *const pa[MT][2],
                                                    __global const e_t *const pw[NT], long s, long k, int q)
{
    const long valid = k - s * BK - 8 * q;
#pragma unroll
    for (int j = 0; j < NT; j++) xw[j] = pk_ld16_part(pw[j] + s * BK, valid);
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) xa[i][h] = pk_ld16_part(pa[i][h] + s * BK, valid);
}

inline __attribute__((always_inline)) void kw_mma(float acc[MT][NT][4], uint4 xa[MT][2], uint4 xw[NT])
{
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++) pk_mma_k32_of(DT_A)(acc[i][j], xa[i][0], xa[i][1], xw[j]);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void gemm_mma_kwarp(PK_GEMM_CL_PARAMS(a_, b_) KW_PART)
{
    PK_GEMM_CL_UNPACK;
    __local float red[WK * RROWS * RS] __attribute__((aligned(16)));
    __global const e_t *a = (__global const e_t *)a_, *b = (__global const e_t *)b_;
    const int tid = (int)get_local_id(0), lane = tid % 32, warp = tid / 32;
    const int wn = warp % WN, wm = warp / WN % WM, wk = warp / (WN * WM);
    const int g = lane / 4, q = lane % 4;
    const long m_tiles = (m + BM - 1) / BM;
    const long steps = (k + BK - 1) / BK;
    const long per_split = (steps + SPLITS - 1) / SPLITS;
    const long n_tiles = (n + BN - 1) / BN, nt = get_group_id(0), n0 = nt * BN;

    for (long zs = get_group_id(2); zs < batch * SPLITS; zs += get_num_groups(2)) {
        const long z = zs / SPLITS, sp = zs % SPLITS;
        /* this warp's steps: the piece's from its first, s0 + wk, every WK */
        const long s0 = sp * per_split + wk, s_end = min(steps, (sp + 1) * per_split);
        const int mine = s_end > s0 ? (int)((s_end - s0 + WK - 1) / WK) : 0;
        for (long mt = get_group_id(1); mt < m_tiles; mt += get_num_groups(1)) {
            const long m0 = mt * BM;
            __global const e_t *pa[MT][2], *pw[NT];
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int h = 0; h < 2; h++)
                    pa[i][h] = a + a_off + z * a_sb + min(m0 + wm * WTM + i * 16 + g + 8 * h, m - 1) * a_sm + 8 * q +
                               s0 * BK;
#pragma unroll
            for (int j = 0; j < NT; j++)
                pw[j] = b + b_off + z * b_sb + min(n0 + wn * WTN + j * 8 + g, n - 1) * b_sn + 8 * q + s0 * BK;
            float acc[MT][NT][4];
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0f;

            /* register set t % DEPTH holds the warp's t-th step; the set's
             * index is a literal in each copy of the unrolled loop, as
             * registers need. Pointers sit at the warp's first step: its
             * t-th is t WK steps on, at k from (s0 + t WK) BK. All its steps
             * but the last of k are whole (kw_load_whole); that one, if it
             * is the warp's, comes after the loop. */
            const long kw = k - s0 * BK;
            const int whole = kw >= BK ? min(mine, (int)((kw - BK) / (WK * BK)) + 1) : 0;
            uint4 xa[DEPTH][MT][2], xw[DEPTH][NT];
#pragma unroll
            for (int t = 0; t < DEPTH - 1; t++)
                if (t < whole) kw_load_whole(xa[t], xw[t], pa, pw, (long)t * WK);
            for (int t0 = 0; t0 < whole; t0 += DEPTH) {
#pragma unroll
                for (int s = 0; s < DEPTH; s++) {
                    const int t = t0 + s;
                    if (t >= whole) break;
                    const int nx = t + DEPTH - 1;
                    if (nx < whole)
                        kw_load_whole(xa[(s + DEPTH - 1) % DEPTH], xw[(s + DEPTH - 1) % DEPTH], pa, pw, (long)nx * WK);
                    kw_mma(acc, xa[s], xw[s]);
                }
            }
            if (whole < mine) {
                kw_load(xa[0], xw[0], pa, pw, (long)whole * WK, kw, q);
                kw_mma(acc, xa[0], xw[0]);
            }

            /* the warp groups' sums, RED_MT m16 tiles of each warp row at a
             * time: each warp's into its rows of red, then each work-item
             * adds runs of 4 columns over the groups in order and finishes
             * them, or keeps them in part for the last piece */
#if SPLITS > 1
            const long pn = PK_GEMM_PART_PN(n);
            __global float *mine_part = part + (sp * batch + z) * m * pn;
#endif
#pragma unroll
            for (int c0 = 0; c0 < MT; c0 += RED_MT) {
                barrier(CLK_LOCAL_MEM_FENCE); /* the chunk before has been read */
#pragma unroll
                for (int ii = 0; ii < RED_MT; ii++)
#pragma unroll
                    for (int j = 0; j < NT; j++)
#pragma unroll
                        for (int h = 0; h < 2; h++)
                            *(__local float2 *)(red + (wk * RROWS + wm * 16 * RED_MT + ii * 16 + g + 8 * h) * RS +
                                                wn * WTN + j * 8 + 2 * q) =
                                (float2)(acc[c0 + ii][j][2 * h], acc[c0 + ii][j][2 * h + 1]);
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int o = tid * 4; o < RROWS * BN; o += WG * 4) {
                    const int row = o / BN, col = o % BN;
                    float4 sum = *(__local const float4 *)(red + row * RS + col);
                    for (int w = 1; w < WK; w++) sum += *(__local const float4 *)(red + (w * RROWS + row) * RS + col);
                    const long gm = m0 + row / (16 * RED_MT) * WTM + c0 * 16 + row % (16 * RED_MT);
#if SPLITS > 1
                    if (gm < m && n0 + col < n) *(__global float4 *)(mine_part + gm * pn + n0 + col) = sum;
#else
                    const float v[4] = {sum.x, sum.y, sum.z, sum.w};
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        const long gn = n0 + col + e;
                        if (gm < m && gn < n) PK_GEMM_FINISH(v[e]);
                    }
#endif
                }
            }
#if SPLITS > 1
            /* the hand-over: once all of this piece is stored and fenced, one
             * work-item counts it; the piece that counts last adds them all */
            pk_fence_gpu();
            __global uint *done = counters + (z * m_tiles + mt) * n_tiles + nt;
            barrier(CLK_GLOBAL_MEM_FENCE);
            if (!pk_barrier_any(tid == 0 && pk_atom_add_gpu(done, 1u) == SPLITS - 1)) continue;
            if (tid == 0) *done = 0;
            pk_fence_gpu();
            for (int o = tid * 4; o < BM * BN; o += WG * 4) {
                const int row = o / BN, col = o % BN;
                const long gm = m0 + row;
                if (gm >= m || n0 + col >= n) continue;
                float4 p[SPLITS];
#pragma unroll
                for (int s = 0; s < SPLITS; s++) p[s] = pk_ld_l2_x4(part + ((s * batch + z) * m + gm) * pn + n0 + col);
                float4 sum = p[0];
#pragma unroll
                for (int s = 1; s < SPLITS; s++) sum += p[s];
                const float v[4] = {sum.x, sum.y, sum.z, sum.w};
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const long gn = n0 + col + e;
                    if (gn < n) PK_GEMM_FINISH(v[e]);
                }
            }
#endif
        }
    }
}
