/* Fused attention (FlashAttention-style).
 *
 * A work-group owns BM query rows; TPR work-items share each row. It keeps
 * the rows' Q (pre-multiplied by scale * log2 e, so that exp2 serves as
 * exp) in local memory and streams K and V tiles of BN keys through one
 * local buffer as f32, with an online softmax: a running max m, a running
 * sum l and an accumulator rescaled whenever m grows. The score matrix
 * never reaches global memory.
 *
 * Work-item (r, t) owns row r, keys t + TPR*u of each tile for the scores
 * and output columns t + TPR*k for P x V (interleaved, so that a warp reads
 * consecutive banks and writes consecutive addresses).
 *
 * Masks come as one key window [lo, hi] per row, so tiles outside every
 * row's window are never loaded (causal and sliding-window speed), and
 * tiles inside every window skip the per-key test in P x V. That test
 * exists because masked keys must not touch the output even when their V
 * holds NaN or Inf (0 * NaN is NaN).
 *
 * pk_attn_prefill writes normalised rows and LSE. Decode shapes take
 * pk_attn_decode (attention_decode.cl) instead, with the same offsets,
 * strides, lengths and windows.
 *
 * Build defines: DT (dtype), D (head dim), BM, BN, TPR.
 * Arguments: off = element offsets of q, k, v, o, lse; strides {B, S, H,
 * D} (lse {B, H, S}); lens = NULL when every batch has the full lengths,
 * else len_q[B] then len_kv[B], clamped to [0, S] where read (lengths the
 * caller gave on the device were never checked); windows < 0 are
 * unbounded. */

#define WG (BM * TPR)
#define KPT ((BN + TPR - 1) / TPR) /* keys per work-item in a tile */
#define DPT ((D + TPR - 1) / TPR)  /* output columns per work-item */
#define QLD (D + 1)                /* padded row stride of the Q and K/V tiles */
#define PLD (BN + 1)               /* padded row stride of the P tile */

typedef PK_TYPE(DT) pk_t;

/* Local memory of one work-group; the plan counts the same bytes. */
typedef struct pk_attn_smem {
    float q[BM * QLD];
    float kv[BN * QLD];
    float p[BM * PLD];
    float red[BM * TPR];
    long qrow[BM]; /* element offset of each row's q, or -1 */
    int lo[BM], hi[BM];
} pk_attn_smem;

/* NaN wins, as in the reference (fmax would drop it). */
inline float pk_attn_max(float a, float b) { return (a > b || isnan(a)) ? a : b; }

/* rows x BN tile of a K or V head into local f32; keys past n_keys read 0. */
inline void pk_attn_load_kv(__local float *dst, __global const pk_t *src, long base, long s_row, long s_col,
                            int n0, int n_keys, int lid)
{
    for (int x = lid; x < BN * D; x += WG) {
        int j = x / D, c = x % D;
        dst[j * QLD + c] = n0 + j < n_keys ? PK_LOAD(DT, src, base + (long)(n0 + j) * s_row + c * s_col) : 0.0f;
    }
}

/* The score tile: s[u] = q_r . k_(t + TPR u). This loop is the piece a
 * matrix-unit fragment replaces. */
inline void pk_attn_scores(__local const float *qt, __local const float *kt, int r, int t, float *s)
{
    for (int u = 0; u < KPT; u++) s[u] = 0.0f;
    for (int c = 0; c < D; c++) {
        float qv = qt[r * QLD + c];
        for (int u = 0; u < KPT; u++) {
            int j = t + TPR * u;
            if (j < BN) s[u] += qv * kt[j * QLD + c];
        }
    }
}

/* acc += P_r x V on this work-item's columns, l += row sum of P. The
 * second matrix-unit piece. guard: skip keys with p == 0 (masked). */
inline void pk_attn_pv(__local const float *pt, __local const float *vt, int r, int t, int guard, float *acc,
                       float *l)
{
    for (int j = 0; j < BN; j++) {
        float p = pt[r * PLD + j];
        if (guard && p == 0.0f) continue;
        *l += p;
        for (int k = 0; k < DPT; k++) {
            int c = t + TPR * k;
            if (c < D) acc[k] += p * vt[j * QLD + c];
        }
    }
}

/* After sm->qrow, lo and hi are set (and a barrier): loads the Q tile and
 * streams the keys of the rows' windows. Leaves this work-item's row
 * state in acc (unnormalised), m (base 2) and l. */
inline void pk_attn_core(__local pk_attn_smem *sm, __global const pk_t *q, long q_col, float qscale,
                         __global const pk_t *k, long k_base, long4 ks, __global const pk_t *v, long v_base,
                         long4 vs, int n_keys, float *acc, float *m_out, float *l_out)
{
    int lid = get_local_id(0), r = lid / TPR, t = lid % TPR;
    for (int x = lid; x < BM * D; x += WG) {
        int i = x / D, c = x % D;
        long base = sm->qrow[i];
        sm->q[i * QLD + c] = base >= 0 ? PK_LOAD(DT, q, base + c * q_col) * qscale : 0.0f;
    }
    /* The work-group's key range (union of the windows) and the range
     * every non-empty row sees (intersection). */
    int lo_min = INT_MAX, hi_max = -1, lo_max = 0, hi_min = INT_MAX;
    for (int i = 0; i < BM; i++) {
        int a = sm->lo[i], z = sm->hi[i];
        if (a > z) continue;
        lo_min = min(lo_min, a);
        hi_max = max(hi_max, z);
        lo_max = max(lo_max, a);
        hi_min = min(hi_min, z);
    }
    int my_lo = sm->lo[r], my_hi = sm->hi[r];
    float m = -INFINITY, l = 0.0f;
    for (int k2 = 0; k2 < DPT; k2++) acc[k2] = 0.0f;

    for (int n0 = lo_min / BN * BN; n0 <= hi_max; n0 += BN) {
        pk_attn_load_kv(sm->kv, k, k_base, ks.s1, ks.s3, n0, n_keys, lid);
        barrier(CLK_LOCAL_MEM_FENCE);

        float s[KPT];
        pk_attn_scores(sm->q, sm->kv, r, t, s);
        float mt = -INFINITY;
        for (int u = 0; u < KPT; u++) {
            int j = n0 + t + TPR * u;
            s[u] = t + TPR * u < BN && j >= my_lo && j <= my_hi ? s[u] : -INFINITY;
            mt = pk_attn_max(mt, s[u]);
        }
        sm->red[r * TPR + t] = mt;
        barrier(CLK_LOCAL_MEM_FENCE);

        float mn = m;
        for (int x = 0; x < TPR; x++) mn = pk_attn_max(mn, sm->red[r * TPR + x]);
        /* a row with no visible key yet keeps m = -inf; subtracting 0
         * instead keeps exp2(-inf - -inf) from making NaN */
        float base = mn == -INFINITY ? 0.0f : mn;
        float alpha = exp2(m - base);
        for (int u = 0; u < KPT; u++)
            if (t + TPR * u < BN) sm->p[r * PLD + t + TPR * u] = exp2(s[u] - base);
        m = mn;
        pk_attn_load_kv(sm->kv, v, v_base, vs.s1, vs.s3, n0, n_keys, lid);
        barrier(CLK_LOCAL_MEM_FENCE);

        l *= alpha;
        for (int k2 = 0; k2 < DPT; k2++) acc[k2] *= alpha;
        int inside = n0 >= lo_max && n0 + BN - 1 <= hi_min;
        pk_attn_pv(sm->p, sm->kv, r, t, !inside, acc, &l);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    *m_out = m;
    *l_out = l;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
pk_attn_prefill(__global const pk_t *q, __global const pk_t *k, __global const pk_t *v, __global pk_t *o,
                __global float *lse, long8 off, long4 qs, long4 ks, long4 vs, long4 os, long4 ls, int sq,
                int skv, int hq, int hkv, __global const int *lens, float qscale, long wl, long wr)
{
    __local pk_attn_smem sm;
    int lid = get_local_id(0), r = lid / TPR, t = lid % TPR;
    int h = get_group_id(1), b = get_group_id(2);
    /* causal: the last row tiles see the most keys, so start them first */
    int m0 = (get_num_groups(0) - 1 - get_group_id(0)) * BM;
    int lq = lens ? clamp(lens[b], 0, sq) : sq;
    int lkv = lens ? clamp(lens[get_num_groups(2) + b], 0, skv) : skv;
    int kvh = h / (hq / hkv);
    if (lid < BM) {
        int i = m0 + lid;
        pk_attn_window(i < lq, (long)i + lkv - lq, wl, wr, 0, lkv, &sm.lo[lid], &sm.hi[lid]);
        sm.qrow[lid] = i < lq ? off.s0 + b * qs.s0 + i * qs.s1 + h * qs.s2 : -1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float acc[DPT], m, l;
    pk_attn_core(&sm, q, qs.s3, qscale, k, off.s1 + b * ks.s0 + kvh * ks.s2, ks, v,
                 off.s2 + b * vs.s0 + kvh * vs.s2, vs, lkv, acc, &m, &l);

    int i = m0 + r;
    if (i >= sq) return;
    long ob = off.s3 + b * os.s0 + i * os.s1 + h * os.s2;
    for (int k2 = 0; k2 < DPT; k2++) {
        int c = t + TPR * k2;
        /* l == 0: no visible key; acc may hold 0 * NaN from shared tiles */
        if (c < D) PK_STORE(DT, o, ob + c * os.s3, l == 0.0f ? 0.0f : acc[k2] / l);
    }
    if (lse && t == 0)
        lse[off.s4 + b * ls.s0 + h * ls.s1 + i * ls.s2] = l == 0.0f ? -INFINITY : (m + log2(l)) * M_LN2_F;
}
