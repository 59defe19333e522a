/* GEMM on NVIDIA's Hopper GPUs from OpenCL, operands copied by the tensor
 * memory accelerator (TMA) and multiplied by wgmma: d = act(alpha * a @ b
 * + beta * c + bias) + residual for 16-bit a [M, K] and b [N, K], both
 * k-contiguous (the linear layout), f32 sums. Built with PK_PTX = 1 and
 * PK_WGMMA = 1 for a device whose TMA probe passed (nv_ptx.cl says how a
 * work-group gets its tensor maps).
 *
 * Why a kernel of its own: gemm_mma.cl's wgmma form copies its operands
 * with cp.async from every work-item and paces its ring with barriers of
 * the whole work-group; where few tiles stream the weights (M of a few
 * hundred) that, not the products, bound it. Here one work-item issues a
 * stage's two copies and nobody else touches the data until it has
 * landed, so a work-group of 48 KiB keeps its whole ring in flight
 * (bench/RESULTS.md, 2026-12-07 10:16).
 *
 * A work-group: BM / 64 consumer warpgroups, each 64 rows by BN columns
 * (wgmma m64nBNk16, both operands from local memory in the 64-byte
 * swizzle, pk_wg_desc64), and a producer warp whose first lane issues
 * the copies of each step (BM rows x 32 k of a, BN rows x 32 k of b) into
 * a ring of STAGES, counted in bytes on the stage's `full` mbarrier; each
 * consumer warp releases a stage on its `empty` mbarrier once the
 * products that read it are done. Rows and k past the ends arrive as
 * zeros. The grid: (n tiles x SPLITS, m tiles, batch); k may be split
 * into SPLITS pieces over work-groups, each piece's sums kept in part,
 * and the piece that counts itself last on its tile's counter adds them
 * in piece order (deterministic) and finishes the tile. A tile's pieces
 * are neighbours in the launch order, so that they start, and the tile
 * ends, together (a grid of pieces slowest cost about a microsecond at M
 * = 128: bench/RESULTS.md, 2026-12-07 14:56).
 *
 * Build defines: BM (64, 128) BN (32, 64, 128) STAGES SPLITS, DT_A (1
 * f16, 2 bf16), DT_D ACT HAS_C HAS_BIAS HAS_RES as gemm_tiled.cl.
 * Arguments: cl_args.h PK_GEMM_CL_PARAMS; tpl_a and tpl_b, the templates
 * (PK_TMA_TEMPLATE) of a's and b's maps, which the host had the driver
 * encode; slots, 2 x PK_TMA_MAP_LONGS longs a
 * work-group (a's map, b's); with SPLITS > 1 counters as
 * gemm_mma_kwarp.cl's (part[((sp * batch + z) * m + row) * pn + col]). */

#define BK PK_TMA_BOX_K
#define CW (BM / 64)
#define WG (32 * (4 * CW + 1))
#define A_STAGE (BM * BK)
#define B_STAGE (BN * BK)
#if SPLITS > 1
#define TMA_PART , __global uint *counters
#else
#define TMA_PART
#endif
typedef ushort e_t;
typedef PK_TYPE(DT_A) a_t;
typedef PK_TYPE(DT_D) d_t;

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void gemm_tma(PK_GEMM_CL_PARAMS(a_, b_),
                                                                      ulong16 tpl_a, ulong16 tpl_b,
                                                                      __global ulong *slots TMA_PART)
{
    PK_GEMM_CL_UNPACK;
    __local e_t as[STAGES * A_STAGE] __attribute__((aligned(1024)));
    __local e_t bs[STAGES * B_STAGE] __attribute__((aligned(1024)));
    __local ulong full[STAGES], empty[STAGES];
    __local ulong sm[2 * PK_TMA_MAP_LONGS] __attribute__((aligned(128)));
    const int tid = (int)get_local_id(0), warp = tid / 32, lane = tid % 32;
    const long nt = get_group_id(0) / SPLITS, sp = get_group_id(0) % SPLITS, mt = get_group_id(1), z = get_group_id(2);
    const long n_tiles = get_num_groups(0) / SPLITS, m_tiles = get_num_groups(1);
    const int steps = (int)((k + BK - 1) / BK), per = (steps + SPLITS - 1) / SPLITS, s0 = (int)sp * per;
    const int mine = max(0, min(steps, s0 + per) - s0);

    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            pk_mbar_init(&full[s], 1);
            pk_mbar_init(&empty[s], 4 * CW);
        }
        pk_mbar_init_fence();
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float acc[BN / 8][4];
    for (int j = 0; j < BN / 8; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;
    if (warp == 4 * CW) {
        /* the producer: this work-group's maps, then the ring */
        __global ulong *amap = slots + 2 * PK_TMA_MAP_LONGS * (((z * m_tiles + mt) * n_tiles + nt) * SPLITS + sp);
        __global ulong *bmap = amap + PK_TMA_MAP_LONGS;
        /* (a single row's stride is never used, but a map's must be a
         * multiple of 16 bytes) */
        const ulong row_bytes = ((ulong)k * 2u + 15u) / 16u * 16u;
        const pk_tma_tensor at = {(ulong)((__global const e_t *)a_ + a_off + z * a_sb), m > 1 ? (ulong)a_sm * 2u : row_bytes,
                                  (uint)k, (uint)m};
        const pk_tma_tensor bt = {(ulong)((__global const e_t *)b_ + b_off + z * b_sb), n > 1 ? (ulong)b_sn * 2u : row_bytes,
                                  (uint)k, (uint)n};
        /* the templates, from the arguments */
        if (lane == 0) vstore16(tpl_a, 0, sm);
        if (lane == PK_TMA_MAP_LONGS) vstore16(tpl_b, 0, sm + PK_TMA_MAP_LONGS);
        pk_tma_maps_set(amap, 1, at, bt, sm);
        if (lane == 0)
            for (int i = 0; i < mine; i++) {
                const int s = i % STAGES;
                if (i >= STAGES) pk_mbar_wait(&empty[s], (uint)(i / STAGES - 1) & 1u);
                pk_mbar_expect(&full[s], (BM + BN) * BK * 2);
                pk_tma_load2d(as + s * A_STAGE, amap, (s0 + i) * BK, (int)(mt * BM), &full[s]);
                pk_tma_load2d(bs + s * B_STAGE, bmap, (s0 + i) * BK, (int)(nt * BN), &full[s]);
            }
        /* the warp whole again before any barrier of the work-group */
        pk_warp_sync();
    } else {
        /* a consumer warpgroup: its 64 rows of every a stage */
        const uint a0 = pk_shared_addr(as) + (uint)(warp / 4) * 64u * BK * 2u, b0 = pk_shared_addr(bs);
        for (int i = 0; i < mine; i++) {
            const int s = i % STAGES;
            pk_mbar_wait(&full[s], (uint)(i / STAGES) & 1u);
            const uint ao = a0 + (uint)(s * A_STAGE * 2), bo = b0 + (uint)(s * B_STAGE * 2);
            pk_wg_fence();
            pk_wgmma_of(BN, DT_A)(acc, pk_wg_desc64(ao), pk_wg_desc64(bo));
            pk_wgmma_of(BN, DT_A)(acc, pk_wg_desc64(ao + 32u), pk_wg_desc64(bo + 32u));
            pk_wg_commit();
            pk_wg_wait_of(BN, DT_A)(acc);
            pk_warp_sync();
            if (lane == 0) pk_mbar_arrive(&empty[s]);
        }
    }

    /* a consumer lane's outputs: rows r0 and r0 + 8, columns c0 + 8 j and
     * + 1 (wgmma's accumulator layout, mma.sync's by warp) */
    const int consumer = warp < 4 * CW;
    const long r0 = mt * BM + (warp / 4) * 64 + 16 * (warp % 4) + lane / 4, c0 = nt * BN + 2 * (lane % 4);
#if SPLITS > 1
    const long pn = PK_GEMM_PART_PN(n);
    if (consumer)
        for (int j = 0; j < BN / 8; j++)
            for (int h = 0; h < 2; h++) {
                const long row = r0 + 8 * h, col = c0 + 8 * j;
                if (row < m && col < n)
                    *(__global float2 *)(part + ((sp * batch + z) * m + row) * pn + col) =
                        (float2)(acc[j][2 * h], acc[j][2 * h + 1]);
            }
    /* the hand-over: the work-group's stores ordered before one work-item's
     * fence and count; the piece that counts last reads the others' sums */
    __global uint *done = counters + (z * m_tiles + mt) * n_tiles + nt;
    barrier(CLK_GLOBAL_MEM_FENCE);
    int last = 0;
    if (tid == 0) {
        pk_fence_gpu();
        last = pk_atom_add_gpu(done, 1u) == SPLITS - 1;
    }
    if (!pk_barrier_any(last)) return;
    if (tid == 0) *done = 0;
    pk_fence_gpu();
    if (!consumer) return;
    /* every other piece's sums loaded before any is added (their loads in
     * flight together), then added in piece order */
    float2 other[SPLITS - 1][BN / 8][2];
    for (int s = 0, u = 0; s < SPLITS; s++) {
        if (s == sp) continue;
        for (int j = 0; j < BN / 8; j++)
            for (int h = 0; h < 2; h++) {
                const long row = min(r0 + 8 * h, m - 1), col = min(c0 + 8 * j, pn - 2);
                other[u][j][h] = pk_ld_l2_x2(part + ((s * batch + z) * m + row) * pn + col);
            }
        u++;
    }
    for (int j = 0; j < BN / 8; j++)
        for (int h = 0; h < 2; h++) {
            float2 sum = (float2)(0.0f);
            for (int s = 0, u = 0; s < SPLITS; s++)
                sum += s == sp ? (float2)(acc[j][2 * h], acc[j][2 * h + 1]) : other[u++][j][h];
            acc[j][2 * h] = sum.x;
            acc[j][2 * h + 1] = sum.y;
        }
#endif
    if (!consumer) return;
    for (int j = 0; j < BN / 8; j++)
        for (int h = 0; h < 2; h++) {
            const long gm = r0 + 8 * h;
            if (gm < m) PK_GEMM_FINISH_PAIR(acc[j][2 * h], acc[j][2 * h + 1], gm, c0 + 8 * j);
        }
}
