/* Decode attention, split-KV: pk_attn_decode writes per-chunk partials,
 * pk_attn_merge combines them in a fixed order (no atomics, so the result
 * is the same bit for bit on every run).
 *
 * Decode reads each K and V row once and does little arithmetic on it, so
 * the kernel is shaped for bandwidth: a work-group owns the query rows of
 * one kv head (all the GQA heads that share it, times sq) and one chunk of
 * keys, so that every K/V load serves every row; TPK work-items share a
 * key, each reading NV runs of 8 elements with one 16-byte load per run
 * (VEC; else element by element, for layouts with strided D). A team of
 * TPK work-items is a slot; each slot streams UNROLL keys a step (all of
 * K and V of the step are loaded before any is used, to keep bytes in
 * flight) and keeps its own online softmax in base 2 (scores carry a
 * factor log2 e, so exp2 serves as exp), so the only exchange a step is
 * the sum of each key's TPK partial dot products, and no work-item waits
 * on a row maximum over the whole step. The slots merge once, at the end,
 * in local memory and in slot order.
 *
 * Partials (part, f32): (m, l) pairs at ml_off and unnormalised
 * accumulators at acc_off, both indexed by ((b * hq + h) * sq + i) *
 * n_splits + split. With M = max m_s and w_s = exp2(m_s - M) the merge
 * gives o = sum w_s acc_s / sum w_s l_s, lse = (M + log2(sum w_s l_s)) ln 2;
 * a row whose chunks are all empty (M = -inf) gets zeros and lse -inf.
 *
 * Build defines: DT (dtype), D (head dim); for pk_attn_decode ROWS (rows
 * per work-group), TPK, NV, SLOTS, UNROLL, VEC (opencl_attention_plan.h,
 * pk_cl_attn_decode); for pk_attn_merge MG. Masks and lengths as in
 * attention_prefill.cl. */

typedef PK_TYPE(DT) pk_t;

/* NaN wins, as in the reference (fmax would drop it). */
inline float pk_attn_merge_max(float a, float b) { return (a > b || isnan(a)) ? a : b; }

#ifdef SLOTS

#define WG (SLOTS * TPK)
#define STEP (SLOTS * UNROLL)      /* keys a work-group takes a step */
#define PLD (STEP * ROWS + 1)      /* one lane's partials of a step; +1 spreads lanes over banks */
#define RED_FLOATS (TPK * PLD + STEP * ROWS)
#define MRG_FLOATS (SLOTS * D + 2 * SLOTS * ROWS)
#define LOCAL_FLOATS (RED_FLOATS > MRG_FLOATS ? RED_FLOATS : MRG_FLOATS)

/* A run of 8 elements as loaded: raw 16-bit pairs, or f32. */
#if DT == 0
typedef float8 pk_run;
#else
typedef uint4 pk_run;
#endif

inline float8 pk_run_f32(pk_run w)
{
#if DT == 0
    return w;
#elif DT == 1
    return vload_half8(0, (const __private half *)&w);
#else
    uint4 lo = w << 16, hi = w & (uint4)0xffff0000u;
    return as_float8((uint8)(lo.s0, hi.s0, lo.s1, hi.s1, lo.s2, hi.s2, lo.s3, hi.s3));
#endif
}

/* The run at element i (stride col between elements when not VEC). */
inline pk_run pk_load_run(__global const pk_t *p, long i, long col)
{
#if VEC && DT == 0
    return (float8)(*(__global const float4 *)(p + i), *(__global const float4 *)(p + i + 4));
#elif VEC
    return *(__global const uint4 *)(p + i);
#elif DT == 0
    float a[8];
    for (int e = 0; e < 8; e++) a[e] = p[i + e * col];
    return vload8(0, a);
#else
    ushort a[8];
    for (int e = 0; e < 8; e++) a[e] = ((__global const ushort *)p)[i + e * col];
    return as_uint4(vload8(0, a));
#endif
}

/* Grid: (split, b * hkv + kvh, row tile). Row pr of a tile is query i =
 * pr % sq of head kvh * (hq / hkv) + pr / sq. Work-item (slot s, lane t)
 * owns elements (n * TPK + t) * 8 + [0, 8) of each key, n < NV, and keys
 * n0 + u * SLOTS + s of the step at n0, u < UNROLL. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
pk_attn_decode(__global const pk_t *q, __global const pk_t *k, __global const pk_t *v, __global float *part,
               long ml_off, long acc_off, long8 off, long4 qs, long4 ks, long4 vs, int sq, int skv, int hq,
               int hkv, __global const int *lens, float qscale, long wl, long wr, int chunk)
{
    __local float sm[LOCAL_FLOATS];
    int lid = get_local_id(0), s = lid / TPK, t = lid % TPK;
    int split = get_group_id(0), n_splits = get_num_groups(0);
    int b = get_group_id(1) / hkv, kvh = get_group_id(1) % hkv;
    int group = hq / hkv, rows = group * sq, r0 = get_group_id(2) * ROWS;
    int lq = lens ? lens[b] : sq;
    int lkv = lens ? lens[get_num_groups(1) / hkv + b] : skv;
    int c0 = split * chunk, c1 = min(c0 + chunk, lkv);

    /* Each row's visible keys [lo, hi] in the chunk (bottom-right aligned
     * window, as pk_attn_window), lo > hi when none; the work-group walks
     * their union [first, last]. */
    int lo[ROWS], hi[ROWS], first = INT_MAX, last = -1;
    float8 qv[ROWS][NV], acc[ROWS][NV];
    float m[ROWS], l[ROWS];
    for (int r = 0; r < ROWS; r++) {
        int pr = r0 + r, g = pr / sq, i = pr % sq;
        int valid = pr < rows && i < lq;
        long pos = (long)i + lkv - lq, a = c0, z = c1 - 1;
        if (wl >= 0 && pos - wl > a) a = pos - wl;
        if (wr >= 0 && pos + wr < z) z = pos + wr;
        if (!valid || a > z) {
            a = 1;
            z = 0;
        } else {
            first = min(first, (int)a);
            last = max(last, (int)z);
        }
        lo[r] = (int)a;
        hi[r] = (int)z;
        long qb = off.s0 + b * qs.s0 + i * qs.s1 + (kvh * group + g) * qs.s2;
        for (int n = 0; n < NV; n++) {
            float x[8];
            for (int e = 0; e < 8; e++)
                x[e] = valid ? PK_LOAD(DT, q, qb + (long)((n * TPK + t) * 8 + e) * qs.s3) * qscale : 0.0f;
            qv[r][n] = vload8(0, x);
            acc[r][n] = 0.0f;
        }
        m[r] = -INFINITY;
        l[r] = 0.0f;
    }

    long kb = off.s1 + b * ks.s0 + kvh * ks.s2, vb = off.s2 + b * vs.s0 + kvh * vs.s2;
    for (int n0 = first; n0 <= last; n0 += STEP) {
        pk_run kr[UNROLL][NV], vr[UNROLL][NV];
        for (int u = 0; u < UNROLL; u++) {
            int j = n0 + u * SLOTS + s;
            for (int n = 0; n < NV; n++) {
                long col = (long)(n * TPK + t) * 8;
                kr[u][n] = j <= last ? pk_load_run(k, kb + j * ks.s1 + col * ks.s3, ks.s3) : (pk_run)0;
                vr[u][n] = j <= last ? pk_load_run(v, vb + j * vs.s1 + col * vs.s3, vs.s3) : (pk_run)0;
            }
        }
        /* Score partials, then their sums over the TPK lanes of each key
         * (spread over the whole work-group, in lane order), then each
         * slot reads back the scores of its keys. This loop is the piece
         * a matrix-unit fragment would replace. */
        __local float *sc_l = sm + TPK * PLD;
        for (int u = 0; u < UNROLL; u++)
            for (int r = 0; r < ROWS; r++) {
                float x = 0.0f;
                for (int n = 0; n < NV; n++) {
                    float8 kf = pk_run_f32(kr[u][n]);
                    x += dot(qv[r][n].lo, kf.lo) + dot(qv[r][n].hi, kf.hi);
                }
                sm[t * PLD + (u * SLOTS + s) * ROWS + r] = x;
            }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int x = lid; x < STEP * ROWS; x += WG) {
            float y = 0.0f;
            for (int z = 0; z < TPK; z++) y += sm[z * PLD + x];
            sc_l[x] = y;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        float sc[UNROLL][ROWS];
        for (int u = 0; u < UNROLL; u++) {
            int j = n0 + u * SLOTS + s;
            for (int r = 0; r < ROWS; r++) {
                float x = sc_l[(u * SLOTS + s) * ROWS + r];
                sc[u][r] = j >= lo[r] && j <= hi[r] ? x : -INFINITY;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        for (int r = 0; r < ROWS; r++) {
            float mn = m[r];
            for (int u = 0; u < UNROLL; u++) mn = pk_attn_merge_max(mn, sc[u][r]);
            /* a row with no visible key yet keeps m = -inf; subtracting 0
             * instead keeps exp2(-inf - -inf) from making NaN */
            float base = mn == -INFINITY ? 0.0f : mn, alpha = exp2(m[r] - base);
            m[r] = mn;
            l[r] *= alpha;
            for (int n = 0; n < NV; n++) acc[r][n] *= alpha;
            for (int u = 0; u < UNROLL; u++) {
                /* masked keys must not touch the output even when their V
                 * holds NaN or Inf (0 * NaN is NaN) */
                if (sc[u][r] == -INFINITY) continue;
                float p = exp2(sc[u][r] - base);
                l[r] += p;
                for (int n = 0; n < NV; n++) acc[r][n] += p * pk_run_f32(vr[u][n]);
            }
        }
    }

    /* The slots' merge: rescale each to the work-group's max, then sum the
     * slots in order, one row at a time through local memory. */
    __local float *buf = sm, *ms = sm + SLOTS * D, *ls = ms + SLOTS * ROWS;
    if (t == 0)
        for (int r = 0; r < ROWS; r++) ms[s * ROWS + r] = m[r];
    barrier(CLK_LOCAL_MEM_FENCE);
    float big[ROWS];
    for (int r = 0; r < ROWS; r++) {
        big[r] = -INFINITY;
        for (int y = 0; y < SLOTS; y++) big[r] = pk_attn_merge_max(big[r], ms[y * ROWS + r]);
        float w = exp2(m[r] - (big[r] == -INFINITY ? 0.0f : big[r]));
        l[r] *= w;
        for (int n = 0; n < NV; n++) acc[r][n] *= w;
        if (t == 0) ls[s * ROWS + r] = l[r];
    }
    for (int r = 0; r < ROWS; r++) {
        for (int n = 0; n < NV; n++) vstore8(acc[r][n], 0, buf + s * D + (n * TPK + t) * 8);
        barrier(CLK_LOCAL_MEM_FENCE);
        int pr = r0 + r;
        if (pr < rows) {
            int h = kvh * group + pr / sq, i = pr % sq;
            long slot = ((long)(b * hq + h) * sq + i) * n_splits + split;
            for (int c = lid; c < D; c += WG) {
                float x = 0.0f;
                for (int y = 0; y < SLOTS; y++) x += buf[y * D + c];
                part[acc_off + slot * D + c] = x;
            }
            if (lid == 0) {
                float sum = 0.0f;
                for (int y = 0; y < SLOTS; y++) sum += ls[y * ROWS + r];
                part[ml_off + 2 * slot] = big[r];
                part[ml_off + 2 * slot + 1] = sum;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

#endif /* SLOTS */

#ifdef MG

/* A work-group per row ((b * hq + h) * sq + i): MG groups of D work-items,
 * group g taking splits g, g + MG, ..., so that no work-item walks every
 * split in a chain of dependent loads; the groups' sums are then added in
 * group order. MG comes from the plan (pk_cl_attn_plan.merge_groups). */
__kernel __attribute__((reqd_work_group_size(MG * D, 1, 1))) void
pk_attn_merge(__global const float *part, long ml_off, long acc_off, int n_splits, __global pk_t *o,
              __global float *lse, long o_off, long lse_off, long4 os, long4 ls, int sq, int hq)
{
    __local float red[MG * D], gmax[MG], gsum[MG];
    long row = get_group_id(0);
    int lid = get_local_id(0), g = lid / D, c = lid % D;
    __global const float *ml = part + ml_off + row * n_splits * 2;
    __global const float *acc = part + acc_off + row * n_splits * D + c;

    float big = -INFINITY;
    for (int s = g; s < n_splits; s += MG) big = pk_attn_merge_max(big, ml[2 * s]);
    if (c == 0) gmax[g] = big;
    barrier(CLK_LOCAL_MEM_FENCE);
    big = -INFINITY;
    for (int y = 0; y < MG; y++) big = pk_attn_merge_max(big, gmax[y]);
    float sum = 0.0f, out = 0.0f;
    if (big != -INFINITY)
        for (int s = g; s < n_splits; s += MG) {
            float w = exp2(ml[2 * s] - big);
            sum += w * ml[2 * s + 1];
            out += w * acc[(long)s * D];
        }
    red[lid] = out;
    if (c == 0) gsum[g] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (g != 0) return;
    sum = 0.0f;
    for (int y = 0; y < MG; y++) sum += gsum[y];
    for (int y = 1; y < MG; y++) out += red[y * D + c];
    out = big == -INFINITY ? 0.0f : out / sum;

    int i = (int)(row % sq);
    int h = (int)(row / sq % hq);
    long b = row / sq / hq;
    PK_STORE(DT, o, o_off + b * os.s0 + i * os.s1 + h * os.s2 + c * os.s3, out);
    if (lse && c == 0)
        lse[lse_off + b * ls.s0 + h * ls.s1 + i * ls.s2] = big == -INFINITY ? -INFINITY : (big + log2(sum)) * M_LN2_F;
}

#endif /* MG */
