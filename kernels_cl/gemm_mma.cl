/* GEMM on NVIDIA's tensor cores from OpenCL: d = act(alpha * a @ b + beta *
 * c + bias) + residual for 16-bit a and b, f32 sums. Built only with PK_PTX
 * = 1 (nv_ptx.cl), on devices whose inline PTX passed the probe.
 *
 * a is k-contiguous ([M, K] rows); b is k-contiguous ([N, K], the linear
 * layout; B_KC = 1) or n-contiguous ([K, N]; B_KC = 0). Rows start on 16
 * bytes (the host checks offsets and strides), so every copy is a 16-byte
 * cp.async; a copy that leaves the matrix reads only its part inside and
 * the rest are zeros (the zero-fill form), so the tile loop has no other
 * edge test.
 *
 * A work-group of WARPS_M x WARPS_N warps computes a BM x BN block of d in
 * steps of 32 k. STAGES steps are in flight in local memory: while a step
 * is multiplied, the copies of the next STAGES - 1 run (cp.async groups,
 * one barrier a step). Each warp owns a (BM / WARPS_M) x (BN / WARPS_N)
 * block: MT x NT tiles of m16n8, each k16 of a step one mma.m16n8k16 per
 * tile with fragments from ldmatrix (x4: an A tile, or two B tiles; .trans
 * for the n-contiguous b). Every output is summed by one lane in ascending
 * k by the tensor cores, deterministic; the epilogue (common.cl
 * PK_GEMM_FINISH) runs on the accumulators where they are.
 *
 * Local rows are 64 bytes (a k-contiguous tile: 32 k) or 2 BN bytes (b
 * n-contiguous: BN n), in 16-byte chunks placed at chunk ^ f(row), so that
 * the 8 rows one ldmatrix matrix reads sit in distinct banks.
 *
 * Split-K (SPLITS > 1, for too few tiles to fill the device): split sp of
 * batch z sums its own whole steps of 32 k (k from sp * per_split * 32;
 * the steps past the end zero-filled as at any edge) into part, f32;
 * gemm_mma_merge then adds the SPLITS partial sums of each output in split
 * order and runs the epilogue.
 *
 * Build defines: BM BN WARPS_M WARPS_N STAGES B_KC SPLITS, PENDING (STAGES - 2, as a
 * literal: cp.async.wait_group takes no expression), DT_A (1 f16, 2 bf16)
 * DT_D ACT HAS_C HAS_BIAS HAS_RES as gemm_tiled.cl; its arguments too
 * (cl_args.h PK_GEMM_TILED_PARAMS). */

#define BK 32
#ifndef SPLITS
#define SPLITS 1
#endif
#if SPLITS > 1
/* partial sums of split sp of batch z: part[((sp * batch + z) * m + row) * n + col] */
#define PK_MMA_PART , __global float *part
#else
#define PK_MMA_PART
#endif
#define NWARPS (WARPS_M * WARPS_N)
#define WG (32 * NWARPS)
#define WTM (BM / WARPS_M) /* a warp's rows */
#define WTN (BN / WARPS_N) /* and columns */
#define MT (WTM / 16)
#define NT (WTN / 8)
#define A_STAGE (BM * BK) /* elements of a step's a tile */
#define B_STAGE (BN * BK)

typedef ushort e_t; /* the 16-bit elements, as bits */
typedef PK_TYPE(DT_A) a_t;
typedef PK_TYPE(DT_D) d_t;

#if DT_A == 2
#define MMA pk_mma_bf16
#else
#define MMA pk_mma_f16
#endif

/* element offset of (row, 16-byte chunk) in a tile of 4-chunk rows (32 k) */
inline int kc_at(int row, int chunk) { return row * BK + ((chunk ^ ((row >> 1) & 3)) << 3); }
/* the same for rows of BN / 8 chunks (b n-contiguous: k rows) */
inline int nc_at(int row, int chunk) { return row * BN + ((chunk ^ (row & 7)) << 3); }

/* 16 bytes at element i of p, `valid` (clamped to 0..8) elements of which
 * exist; the rest zeros */
inline void copy16(__local e_t *dst, __global const e_t *p, long i, long valid)
{
    const uint bytes = (uint)(2 * clamp(valid, 0L, 8L));
    pk_cp_async16_zfill(dst, bytes ? p + i : p, bytes);
}

/* step t's copies (k from t * BK) into stage buffers as_, bs_ */
inline void load_step(__local e_t *as_, __local e_t *bs_, __global const e_t *a, long a_base, long a_sm,
                      __global const e_t *b, long b_base, long b_sk, long b_sn, long m_left, long n_left,
                      long k_left, int tid)
{
    for (int q = tid; q < BM * BK / 8; q += WG) {
        const int row = q / (BK / 8), ch = q % (BK / 8);
        copy16(as_ + kc_at(row, ch), a, a_base + row * a_sm + ch * 8, row < m_left ? k_left - ch * 8 : 0);
    }
#if B_KC
    for (int q = tid; q < BN * BK / 8; q += WG) {
        const int row = q / (BK / 8), ch = q % (BK / 8);
        copy16(bs_ + kc_at(row, ch), b, b_base + row * b_sn + ch * 8, row < n_left ? k_left - ch * 8 : 0);
    }
#else
    for (int q = tid; q < BK * BN / 8; q += WG) {
        const int row = q / (BN / 8), ch = q % (BN / 8);
        copy16(bs_ + nc_at(row, ch), b, b_base + row * b_sk + ch * 8, row < k_left ? n_left - ch * 8 : 0);
    }
#endif
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
gemm_mma(PK_GEMM_TILED_PARAMS(a_, b_) PK_MMA_PART)
{
    /* cp.async and ldmatrix move 16-byte pieces */
    __local e_t as[STAGES * A_STAGE] __attribute__((aligned(16)));
    __local e_t bs[STAGES * B_STAGE] __attribute__((aligned(16)));
    __global const e_t *a = (__global const e_t *)a_, *b = (__global const e_t *)b_;
    const int tid = (int)get_local_id(0), lane = tid % 32, warp = tid / 32;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    const long m_tiles = (m + BM - 1) / BM, per_split = ((k + BK - 1) / BK + SPLITS - 1) / SPLITS;
    (void)a_sk;

    for (long zs = get_group_id(2); zs < batch * SPLITS; zs += get_num_groups(2)) {
        const long z = zs / SPLITS, sp = zs % SPLITS;
        /* this split's k: [k0, k_end), whole steps from k0 */
        const long k0 = sp * per_split * BK, k_end = min(k, k0 + per_split * BK);
        const long steps = k_end > k0 ? (k_end - k0 + BK - 1) / BK : 0, k_len = k_end - k0;
        for (long mt_i = get_group_id(1); mt_i < m_tiles; mt_i += get_num_groups(1)) {
            const long m0 = mt_i * BM, n0 = (long)get_group_id(0) * BN;
            const long a_base = a_off + z * a_sb + m0 * a_sm + k0;
#if B_KC
            const long b_base = b_off + z * b_sb + n0 * b_sn + k0;
#else
            const long b_base = b_off + z * b_sb + n0 + k0 * b_sk;
#endif
            float acc[MT][NT][4];
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0f;

            /* the first STAGES - 1 steps in flight; a group for each,
             * empty past the end, so that the count of groups is uniform */
            for (int s = 0; s < STAGES - 1; s++) {
                if (s < steps)
#if B_KC
                    load_step(as + s * A_STAGE, bs + s * B_STAGE, a, a_base + s * BK, a_sm, b, b_base + s * BK, b_sk,
                              b_sn, m - m0, n - n0, k_len - s * BK, tid);
#else
                    load_step(as + s * A_STAGE, bs + s * B_STAGE, a, a_base + s * BK, a_sm, b,
                              b_base + s * BK * b_sk, b_sk, b_sn, m - m0, n - n0, k_len - s * BK, tid);
#endif
                pk_cp_async_commit();
            }
            for (long t = 0; t < steps; t++) {
                /* step t has landed (at most STAGES - 2 later groups
                 * pending), and every warp is done with step t - 1, whose
                 * buffers the next copies overwrite */
                pk_cp_async_wait(PENDING);
                barrier(CLK_LOCAL_MEM_FENCE);
                const long nx = t + STAGES - 1;
                if (nx < steps) {
                    const int st = (int)(nx % STAGES);
#if B_KC
                    load_step(as + st * A_STAGE, bs + st * B_STAGE, a, a_base + nx * BK, a_sm, b, b_base + nx * BK,
                              b_sk, b_sn, m - m0, n - n0, k_len - nx * BK, tid);
#else
                    load_step(as + st * A_STAGE, bs + st * B_STAGE, a, a_base + nx * BK, a_sm, b,
                              b_base + nx * BK * b_sk, b_sk, b_sn, m - m0, n - n0, k_len - nx * BK, tid);
#endif
                }
                pk_cp_async_commit();

                __local const e_t *at = as + (int)(t % STAGES) * A_STAGE, *bt = bs + (int)(t % STAGES) * B_STAGE;
                /* lane's matrix (l / 8) and row in it (l % 8) for ldmatrix */
                const int mi = lane / 8, mr = lane % 8;
#pragma unroll
                for (int kk = 0; kk < BK; kk += 16) {
                    uint fa[MT][4], fb[NT][2];
#pragma unroll
                    for (int i = 0; i < MT; i++)
                        pk_ldmatrix_x4(fa[i], at + kc_at(wm * WTM + i * 16 + (mi & 1) * 8 + mr, kk / 8 + (mi >> 1)));
#pragma unroll
                    for (int j = 0; j < NT; j += 2) {
                        uint r[4];
#if B_KC
                        pk_ldmatrix_x4(r, bt + kc_at(wn * WTN + j * 8 + (mi >> 1) * 8 + mr, kk / 8 + (mi & 1)));
#else
                        pk_ldmatrix_x4_trans(r, bt + nc_at(kk + (mi & 1) * 8 + mr, (wn * WTN + j * 8) / 8 + (mi >> 1)));
#endif
                        fb[j][0] = r[0], fb[j][1] = r[1], fb[j + 1][0] = r[2], fb[j + 1][1] = r[3];
                    }
#pragma unroll
                    for (int i = 0; i < MT; i++)
#pragma unroll
                        for (int j = 0; j < NT; j++)
                            MMA(acc[i][j], fa[i][0], fa[i][1], fa[i][2], fa[i][3], fb[j][0], fb[j][1]);
                }
            }
            /* no copy may still write a buffer the next tile reuses */
            pk_cp_async_wait(0);
            barrier(CLK_LOCAL_MEM_FENCE);

            /* lane (g, q) holds rows g and g + 8, columns 2q and 2q + 1 of
             * each m16n8 tile */
            const int g = lane / 4, q = lane % 4;
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        const long gm = m0 + wm * WTM + i * 16 + g + (e >= 2 ? 8 : 0);
                        const long gn = n0 + wn * WTN + j * 8 + 2 * q + (e & 1);
#if SPLITS > 1
                        if (gm < m && gn < n) part[((sp * batch + z) * m + gm) * n + gn] = acc[i][j][e];
#else
                        if (gm < m && gn < n) PK_GEMM_FINISH(acc[i][j][e]);
#endif
                    }
        }
    }
}

#if SPLITS > 1
/* d from the SPLITS partial sums of each output, added in split order (the
 * same bits on every run), through the common epilogue; an item a column,
 * groups over rows and batches */
__kernel void gemm_mma_merge(PK_GEMM_TILED_PARAMS(a_, b_) PK_MMA_PART)
{
    (void)a_, (void)b_;
    const long gn = get_global_id(0);
    if (gn >= n) return;
    for (long z = get_global_id(2); z < batch; z += get_global_size(2))
        for (long gm = get_global_id(1); gm < m; gm += get_global_size(1)) {
            float sum = 0.0f;
            for (int sp = 0; sp < SPLITS; sp++) sum += part[((sp * batch + z) * m + gm) * n + gn];
            PK_GEMM_FINISH(sum);
        }
}
#endif
