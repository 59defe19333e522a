/* Tiled GEMM: d = act(alpha * a @ b + beta * c + bias) + residual, per batch.
 *
 * A work-group computes a TM x TN block of d. Per step of TK it copies the
 * TM x TK block of a and the TK x TN block of b into local memory as f32
 * (zero outside the matrix, so the product needs no guards), then each
 * work-item accumulates its WM x WN micro-tile in registers. Element
 * (ty + i * NTY, tx + j * NTX) of the block belongs to work-item (tx, ty):
 * adjacent work-items read adjacent local words and store adjacent columns.
 * Every output is summed by one work-item in ascending k: deterministic.
 *
 * Build defines (the host's plan picks them):
 *   TM TN TK WM WN PAD   tile, micro-tile, local row padding
 *   DT_A DT_D            dtype codes of a, b and of c, d, bias, residual
 *   ACT                  activation code (pk_act)
 *   HAS_C HAS_BIAS HAS_RES  0: the operand is absent and never touched
 *   A_KFAST B_KFAST      1: adjacent work-items load adjacent k (else
 *                        adjacent m of a, adjacent n of b): the direction
 *                        with the smaller stride, for coalescing
 *   A_UNIT B_UNIT        1: that direction's stride is 1 (a literal, so the
 *                        compiler sees contiguous loads)
 * Strides are {batch, row, col} in elements; 0 broadcasts. */

#define NTX (TN / WN)
#define NTY (TM / WM)
#define NT (NTX * NTY)
#define LDA (TM + PAD)
#define LDB (TN + PAD)

typedef PK_TYPE(DT_A) a_t;
typedef PK_TYPE(DT_D) d_t;

/* Copies the TM x TK block of a at (row0, k0) into as[kk][mm]. */
inline void gemm_load_a(__global const a_t *a, long base, long sm, long sk, long m, long k, long row0,
                        long k0, __local float *as, int tid)
{
    for (int r = 0; r < TM * TK / NT; r++) {
        int e = tid + r * NT;
#if A_KFAST
        int kk = e % TK, mm = e / TK;
#else
        int mm = e % TM, kk = e / TM;
#endif
        long gm = row0 + mm, gk = k0 + kk;
        as[kk * LDA + mm] = gm < m && gk < k ? PK_LOAD(DT_A, a, base + gm * sm + gk * sk) : 0.0f;
    }
}

/* Copies the TK x TN block of b at (k0, col0) into bs[kk][nn]. */
inline void gemm_load_b(__global const a_t *b, long base, long sk, long sn, long k, long n, long k0,
                        long col0, __local float *bs, int tid)
{
    for (int r = 0; r < TN * TK / NT; r++) {
        int e = tid + r * NT;
#if B_KFAST
        int kk = e % TK, nn = e / TK;
#else
        int nn = e % TN, kk = e / TN;
#endif
        long gk = k0 + kk, gn = col0 + nn;
        bs[kk * LDB + nn] = gk < k && gn < n ? PK_LOAD(DT_A, b, base + gk * sk + gn * sn) : 0.0f;
    }
}

/* acc += as^T bs over one pair of local tiles, kk ascending. This is the
 * one piece a matrix-unit variant (tensor-core fragments) replaces. */
inline void gemm_tile_product(__local const float *as, __local const float *bs, int tx, int ty,
                              float acc[WM][WN])
{
    for (int kk = 0; kk < TK; kk++) {
        float av[WM], bv[WN];
#pragma unroll
        for (int i = 0; i < WM; i++) av[i] = as[kk * LDA + ty + i * NTY];
#pragma unroll
        for (int j = 0; j < WN; j++) bv[j] = bs[kk * LDB + tx + j * NTX];
#pragma unroll
        for (int i = 0; i < WM; i++)
#pragma unroll
            for (int j = 0; j < WN; j++) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
    }
}

/* Groups stride over m-tiles (dim 1) and batches (dim 2), so the host may
 * launch fewer groups there than some drivers allow. */
__kernel __attribute__((reqd_work_group_size(NTX, NTY, 1))) void
gemm_tiled(long batch, long m, long n, long k,
           __global const a_t *a, long a_off, long a_sb, long a_sm, long a_sk,
           __global const a_t *b, long b_off, long b_sb, long b_sk, long b_sn,
           __global const d_t *c, long c_off, long c_sb, long c_sm, long c_sn,
           __global d_t *d, long d_off, long d_sb, long d_sm, long d_sn,
           __global const d_t *bias, long bias_off, long bias_sn,
           __global const d_t *res, long res_off, long res_sb, long res_sm, long res_sn,
           float alpha, float beta)
{
    __local float as[TK * LDA];
    __local float bs[TK * LDB];
    const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    const int tid = ty * NTX + tx;
    const long col0 = (long)get_group_id(0) * TN;
    const long m_tiles = (m + TM - 1) / TM;
    if (A_UNIT) {
        if (A_KFAST) a_sk = 1;
        else a_sm = 1;
    }
    if (B_UNIT) {
        if (B_KFAST) b_sk = 1;
        else b_sn = 1;
    }

    for (long z = get_group_id(2); z < batch; z += get_num_groups(2)) {
        for (long mt = get_group_id(1); mt < m_tiles; mt += get_num_groups(1)) {
            const long row0 = mt * TM;
            float acc[WM][WN];
            for (int i = 0; i < WM; i++)
                for (int j = 0; j < WN; j++) acc[i][j] = 0.0f;

            for (long k0 = 0; k0 < k; k0 += TK) {
                gemm_load_a(a, a_off + z * a_sb, a_sm, a_sk, m, k, row0, k0, as, tid);
                gemm_load_b(b, b_off + z * b_sb, b_sk, b_sn, k, n, k0, col0, bs, tid);
                barrier(CLK_LOCAL_MEM_FENCE);
                gemm_tile_product(as, bs, tx, ty, acc);
                barrier(CLK_LOCAL_MEM_FENCE);
            }

            /* c is read before d is written by the same work-item: c may be d */
            for (int i = 0; i < WM; i++) {
                const long gm = row0 + ty + i * NTY;
                if (gm >= m) break;
                for (int j = 0; j < WN; j++) {
                    const long gn = col0 + tx + j * NTX;
                    if (gn >= n) break;
                    float x = alpha * acc[i][j];
#if HAS_C
                    x += beta * PK_LOAD(DT_D, c, c_off + z * c_sb + gm * c_sm + gn * c_sn);
#endif
#if HAS_BIAS
                    x += PK_LOAD(DT_D, bias, bias_off + gn * bias_sn);
#endif
                    x = pk_act(ACT, x);
#if HAS_RES
                    x += PK_LOAD(DT_D, res, res_off + z * res_sb + gm * res_sm + gn * res_sn);
#endif
                    PK_STORE(DT_D, d, d_off + z * d_sb + gm * d_sm + gn * d_sn, x);
                }
            }
        }
    }
}
