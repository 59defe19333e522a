/* Decode attention, split-KV: pk_attn_decode writes per-chunk partials,
 * pk_attn_merge combines them in a fixed order (no atomics, so the result
 * is the same bit for bit on every run). With one chunk (a single split)
 * pk_attn_decode stores o and lse itself, as the merge would, and the
 * merge is not launched.
 *
 * Decode reads each K and V row once and does little arithmetic on it, so
 * the kernel is shaped for bandwidth: a work-group owns the query rows of
 * one kv head (all the GQA heads that share it, times sq) and one chunk of
 * keys, so that every K/V load serves every row; TPK work-items share a
 * key, each reading NV runs of 8 elements with one 16-byte load per run
 * (VEC; else element by element, for layouts with strided D). A team of
 * TPK work-items is a slot; each slot takes UNROLL keys a step and keeps
 * its own online softmax in base 2 (scores carry a factor log2 e, so exp2
 * serves as exp), so the only exchange a step is the sum of each key's TPK
 * partial dot products, and no work-item waits on a row maximum over the
 * whole step. The slots merge once, at the end, in local memory and in
 * slot order.
 *
 * The steps are software-pipelined so that loads are in flight all the
 * time, not only between a step's loads and their first use. Iteration it
 *   1. turns K of step it (loaded an iteration earlier) into partial dot
 *      products in local memory, then issues the loads of K of step it + 1
 *      into the same registers;
 *   2. meets the work-group at its one barrier;
 *   3. sums step it's partials over the TPK lanes of each key, in lane
 *      order;
 *   4. reads step it - 1's sums (complete since the barrier), updates the
 *      softmax, accumulates V of step it - 1, then issues the loads of V
 *      of step it into the same registers.
 * Each set of loads so has about an iteration to arrive, in the registers
 * of one step's K and V; partials and sums are double-buffered by the
 * step's parity (a buffer is rewritten two barriers after it was last
 * read), so a step costs one barrier. A last iteration drains V of the
 * last step.
 *
 * Masks: the sums of a step that some row of the tile does not wholly see
 * (a window edge or a length inside it) get -inf for each masked key and
 * row as they are made, and keys with -inf scores never touch the output
 * (their V may hold NaN or Inf, and 0 * NaN is NaN). Row maxima drop NaN
 * scores (fmax); a NaN score still makes its row's l and output NaN.
 *
 * Registers decide how many work-groups share a multiprocessor, and so
 * how many bytes are in flight: Q waits in local memory and is read into
 * registers for a step's partials only, so that at the softmax and V only
 * the accumulators, a step's weights and one step's K and V are held (on
 * NVIDIA the plan bounds the registers: -cl-nv-maxrregcount, max_regs).
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
 * attention_prefill.cl. Both kernels take the buffers, then the scalars
 * packed as cl_args.h says (PK_DA_*), unpacked under their names by
 * cl_args.h's PK_DECODE_UNPACK (what both read) and each kernel's first
 * lines. */

typedef PK_TYPE(DT) pk_t;


#ifdef SLOTS

#define WG (SLOTS * TPK)
#define STEP (SLOTS * UNROLL) /* keys a work-group takes a step */
#define SROWS (STEP * ROWS)   /* scores of a step, key-major: key (u * SLOTS + s) * ROWS + row */
/* Rows of a key move RV floats at a time through local memory (a 16-byte
 * access for 4 or more rows); a lane's partials are padded by RV floats,
 * so that the lanes of one access fall in different banks. */
#if ROWS >= 4
#define RV 4
#else
#define RV ROWS
#endif
#define LSTR (SROWS + RV)     /* one lane's partials of a step */
#define P_FLOATS (TPK * LSTR) /* a step's partials */
/* local memory: the tile's Q rows (ROWS * D floats), two steps' partials,
 * two steps' sums; after the loop (reused) the slots' merge
 * (opencl_attention_plan.c counts the same) */
#define RED_FLOATS (ROWS * D + 2 * P_FLOATS + 2 * SROWS)
#define MRG_FLOATS (SLOTS * D + 2 * SLOTS * ROWS)
#define LOCAL_FLOATS (RED_FLOATS > MRG_FLOATS ? RED_FLOATS : MRG_FLOATS)
/* A work-item sums RW scores at a time: as wide as keeps every work-item busy. */
#if RV >= 4 && SROWS >= 4 * WG
#define RW 4
typedef float4 pk_rw;
#elif RV >= 2 && SROWS >= 2 * WG
#define RW 2
typedef float2 pk_rw;
#else
#define RW 1
typedef float pk_rw;
#endif
#if RW == 1
#define pk_rw_store(y, e) ((e)[0] = (y))
#define pk_rw_load(e) ((e)[0])
#else
#define pk_rw_store(y, e) PK_CAT(vstore, RW)((y), 0, (e))
#define pk_rw_load(e) PK_CAT(vload, RW)(0, (e))
#endif

/* Elements of a run are this far apart: 1 for VEC (unit stride, known to
 * the compiler), else the view's stride over D. */
#if VEC
#define PK_COL(s3) 1L
#else
#define PK_COL(s3) (s3)
#endif

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

/* The run at p (stride col between elements when not VEC). */
inline pk_run pk_load_run(__global const pk_t *p, long col)
{
#if VEC && DT == 0
    return (float8)(*(__global const float4 *)p, *(__global const float4 *)(p + 4));
#elif VEC
    return *(__global const uint4 *)p;
#elif DT == 0
    float a[8];
    for (int e = 0; e < 8; e++) a[e] = p[e * col];
    return vload8(0, a);
#else
    ushort a[8];
    for (int e = 0; e < 8; e++) a[e] = ((__global const ushort *)p)[e * col];
    return as_uint4(vload8(0, a));
#endif
}

/* A work-item's runs of one step: keys j + u * SLOTS, u < UNROLL, the
 * first at p, each `step` elements after the one before; runs n * TPK
 * runs apart. Keys past last read as zeros; all: none is (the same for
 * the whole work-group), so the loads need no predicate. */
inline void pk_load_keys(pk_run r[UNROLL][NV], __global const pk_t *p, long step, long col, int j, int last,
                         int all)
{
    if (all) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++, p += step)
#pragma unroll
            for (int n = 0; n < NV; n++) r[u][n] = pk_load_run(p + n * TPK * 8 * col, col);
    } else {
#pragma unroll
        for (int u = 0; u < UNROLL; u++, p += step)
#pragma unroll
            for (int n = 0; n < NV; n++)
                r[u][n] = j + u * SLOTS <= last ? pk_load_run(p + n * TPK * 8 * col, col) : (pk_run)0;
    }
}

/* x + a . b, one fused multiply-add an element, in element order. */
inline float pk_dot8(float8 a, float8 b, float x)
{
    x = fma(a.s0, b.s0, x);
    x = fma(a.s1, b.s1, x);
    x = fma(a.s2, b.s2, x);
    x = fma(a.s3, b.s3, x);
    x = fma(a.s4, b.s4, x);
    x = fma(a.s5, b.s5, x);
    x = fma(a.s6, b.s6, x);
    return fma(a.s7, b.s7, x);
}

/* A key's ROWS floats to and from local memory (p a multiple of RV floats in). */
inline void pk_rows_store(__local float *p, const float *x)
{
#pragma unroll
    for (int r = 0; r < ROWS; r += RV) {
#if RV == 4
        *(__local float4 *)(p + r) = (float4)(x[r], x[r + 1], x[r + 2], x[r + 3]);
#elif RV == 2
        *(__local float2 *)(p + r) = (float2)(x[r], x[r + 1]);
#else
        p[r] = x[r];
#endif
    }
}

inline void pk_rows_load(__local const float *p, float *x)
{
#pragma unroll
    for (int r = 0; r < ROWS; r += RV) {
#if RV == 4
        float4 y = *(__local const float4 *)(p + r);
        x[r] = y.s0, x[r + 1] = y.s1, x[r + 2] = y.s2, x[r + 3] = y.s3;
#elif RV == 2
        float2 y = *(__local const float2 *)(p + r);
        x[r] = y.s0, x[r + 1] = y.s1;
#else
        x[r] = p[r];
#endif
    }
}

/* Row pr's visible keys [*lo, *hi] in the chunk [c0, c1) (bottom-right
 * aligned window, as pk_attn_window); lo > hi when none, or when pr is a
 * padding row of the tile or past the batch's query length. */
inline void pk_attn_rows_window(int pr, int rows, int sq, int lq, int lkv, int c0, int c1, long wl, long wr,
                                int *lo, int *hi)
{
    int i = pr % sq;
    long pos = (long)i + lkv - lq, a = c0, z = c1 - 1;
    if (wl >= 0 && pos - wl > a) a = pos - wl;
    if (wr >= 0 && pos + wr < z) z = pos + wr;
    if (pr >= rows || i >= lq || a > z) {
        a = 1;
        z = 0;
    }
    *lo = (int)a;
    *hi = (int)z;
}

/* A step's online-softmax update: p holds each key's score for each row
 * (-inf where masked) and gets its weight; m, l and the accumulators move
 * to the new row maxima. A -inf score gets the weight -0, which exp2
 * never gives, so that pk_attn_marked tells its key from one whose weight
 * is 0 without holding the scores. */
#define PK_MARK 0x80000000u
#define pk_attn_marked(w) (as_uint(w) == PK_MARK)

inline void pk_attn_step_softmax(float p[UNROLL][ROWS], float *m, float *l, float8 acc[ROWS][NV])
{
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        float mx = m[r];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) mx = fmax(mx, p[u][r]);
        /* a row with no visible key yet keeps m = -inf; subtracting 0
         * instead keeps exp2(-inf - -inf) from making NaN */
        float base = mx == -INFINITY ? 0.0f : mx, alpha = exp2(m[r] - base);
        m[r] = mx;
        l[r] *= alpha;
#pragma unroll
        for (int n = 0; n < NV; n++) acc[r][n] *= alpha;
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            p[u][r] = p[u][r] == -INFINITY ? as_float(PK_MARK) : exp2(p[u][r] - base);
            l[r] += p[u][r];
        }
    }
}

/* Grid: (split, b * hkv + kvh, row tile). Row pr of a tile is query i =
 * pr % sq of head kvh * (hq / hkv) + pr / sq. Work-item (slot s, lane t)
 * owns elements (n * TPK + t) * 8 + [0, 8) of each key, n < NV, and keys
 * n0 + u * SLOTS + s of the step at n0, u < UNROLL. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
pk_attn_decode(__global const pk_t *q, __global const pk_t *k, __global const pk_t *v, __global float *part,
               __global pk_t *o, __global float *lse, __global const int *lens, long16 pk_d0, long16 pk_d1,
               long16 pk_d2, float qscale)
{
    PK_DECODE_UNPACK;
    const long8 off = vload8(0, pk_d + PK_DA_OFF);
    const long4 qs = vload4(0, pk_d + PK_DA_QS), ks = vload4(0, pk_d + PK_DA_KS), vs = vload4(0, pk_d + PK_DA_VS);
    const long wl = pk_d[PK_DA_WL], wr = pk_d[PK_DA_WR];
    const int skv = (int)pk_d[PK_DA_SKV], hkv = (int)pk_d[PK_DA_HKV], chunk = (int)pk_d[PK_DA_CHUNK];
    __local float4 sm4[(LOCAL_FLOATS + 3) / 4];
    __local float *sm = (__local float *)sm4;
    int lid = get_local_id(0), s = lid / TPK, t = lid % TPK;
    int split = get_group_id(0), n_splits = get_num_groups(0);
    int b = get_group_id(1) / hkv, kvh = get_group_id(1) % hkv;
    int group = hq / hkv, rows = group * sq, r0 = get_group_id(2) * ROWS;
    int lq = lens ? clamp(lens[b], 0, sq) : sq;
    int lkv = lens ? clamp(lens[get_num_groups(1) / hkv + b], 0, skv) : skv;
    int c0 = split * chunk, c1 = min(c0 + chunk, lkv);

    /* The work-group walks the union [first, last] of its rows' visible
     * keys; a step inside [flo, fhi] is visible to every row of the tile
     * (padding rows aside: nothing of theirs is written). */
    int first = INT_MAX, last = -1, flo = INT_MIN, fhi = INT_MAX;
    float8 acc[ROWS][NV];
    float m[ROWS], l[ROWS];
    /* Q, scaled, in local memory: held in registers only while a step's
     * partials are made (not through the softmax and V, where K of the
     * next step, V, the accumulators and the weights are). Lane t's run n
     * of row r is two float4s at pk_q_at(r, n, t) and TPK float4s after
     * it, so that the lanes of a 16-byte read fall in different banks. */
    __local float *q_l = sm;
#define pk_q_at(r, n, t) ((((r) * NV + (n)) * TPK * 2 + (t)) * 4)
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        int pr = r0 + r, g = pr / sq, i = pr % sq, a, z;
        pk_attn_rows_window(pr, rows, sq, lq, lkv, c0, c1, wl, wr, &a, &z);
        if (a <= z) {
            first = min(first, a);
            last = max(last, z);
        }
        if (pr < rows) {
            flo = max(flo, a);
            fhi = min(fhi, z);
        }
        int valid = pr < rows && i < lq;
        long qb = off.s0 + b * qs.s0 + i * qs.s1 + (kvh * group + g) * qs.s2;
#pragma unroll
        for (int n = 0; n < NV; n++) {
            if (s == 0) {
                float x[8];
                for (int e = 0; e < 8; e++)
                    x[e] = valid ? PK_LOAD(DT, q, qb + (long)((n * TPK + t) * 8 + e) * qs.s3) * qscale : 0.0f;
                *(__local float4 *)(q_l + pk_q_at(r, n, t)) = vload4(0, x);
                *(__local float4 *)(q_l + pk_q_at(r, n, t) + TPK * 4) = vload4(1, x);
            }
            acc[r][n] = 0.0f;
        }
        m[r] = -INFINITY;
        l[r] = 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Each work-item's loads walk K and V with a pointer: its next key's
     * first run, UNROLL * kstep elements on a step. */
    int nsteps = first <= last ? (last - first) / STEP + 1 : 0;
    long kcol = PK_COL(ks.s3), vcol = PK_COL(vs.s3), kstep = SLOTS * ks.s1, vstep = SLOTS * vs.s1;
    long j0 = nsteps ? first + s : 0;
    __global const pk_t *kp = k + (off.s1 + b * ks.s0 + kvh * ks.s2 + j0 * ks.s1 + t * 8 * kcol);
    __global const pk_t *vp = v + (off.s2 + b * vs.s0 + kvh * vs.s2 + j0 * vs.s1 + t * 8 * vcol);
    pk_run kr[UNROLL][NV], vr[UNROLL][NV];
    if (nsteps) {
        pk_load_keys(kr, kp, kstep, kcol, first + s, last, first + STEP - 1 <= last);
        pk_load_keys(vr, vp, vstep, vcol, first + s, last, first + STEP - 1 <= last);
        kp += UNROLL * kstep;
        vp += UNROLL * vstep;
    }

    __local float *part_l = sm + ROWS * D, *sum_l = part_l + 2 * P_FLOATS;
    for (int it = 0; it <= nsteps; it++) {
        int cur = it & 1;
        if (it < nsteps) {
            /* step it's partials; then K of step it + 1 into kr */
            __local float *pw = part_l + cur * P_FLOATS + t * LSTR + s * ROWS;
            float8 qv[ROWS][NV];
#pragma unroll
            for (int r = 0; r < ROWS; r++)
#pragma unroll
                for (int n = 0; n < NV; n++)
                    qv[r][n] = (float8)(*(__local const float4 *)(q_l + pk_q_at(r, n, t)),
                                        *(__local const float4 *)(q_l + pk_q_at(r, n, t) + TPK * 4));
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                float x[ROWS];
#pragma unroll
                for (int r = 0; r < ROWS; r++) x[r] = 0.0f;
#pragma unroll
                for (int n = 0; n < NV; n++) {
                    float8 kf = pk_run_f32(kr[u][n]);
#pragma unroll
                    for (int r = 0; r < ROWS; r++) x[r] = pk_dot8(qv[r][n], kf, x[r]);
                }
                pk_rows_store(pw + u * SLOTS * ROWS, x);
            }
            if (it + 1 < nsteps) {
                int n1 = first + (it + 1) * STEP;
                pk_load_keys(kr, kp, kstep, kcol, n1 + s, last, n1 + STEP - 1 <= last);
                kp += UNROLL * kstep;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (it < nsteps) {
            /* step it's scores: sums over the TPK lanes of each key, in
             * lane order, spread over the whole work-group; -inf where
             * the key is masked for the row. This and the partials are
             * the piece a matrix-unit fragment would replace. */
            __local const float *pr = part_l + cur * P_FLOATS;
            int n = first + it * STEP, all = n >= flo && n + STEP - 1 <= fhi;
            for (int x = lid * RW; x < SROWS; x += WG * RW) {
                pk_rw y = 0.0f;
                for (int z = 0; z < TPK; z++) y += *(__local const pk_rw *)(pr + z * LSTR + x);
                if (!all) {
                    float e[RW];
                    pk_rw_store(y, e);
                    for (int c = 0; c < RW; c++) {
                        int lo, hi, j = n + x / ROWS;
                        pk_attn_rows_window(r0 + (x + c) % ROWS, rows, sq, lq, lkv, c0, c1, wl, wr, &lo, &hi);
                        if (j < lo || j > hi) e[c] = -INFINITY;
                    }
                    y = pk_rw_load(e);
                }
                *(__local pk_rw *)(sum_l + cur * SROWS + x) = y;
            }
        }
        if (it > 0) {
            /* step it - 1: softmax and V; then V of step it into vr */
            float p[UNROLL][ROWS];
#pragma unroll
            for (int u = 0; u < UNROLL; u++) pk_rows_load(sum_l + (cur ^ 1) * SROWS + (u * SLOTS + s) * ROWS, p[u]);
            pk_attn_step_softmax(p, m, l, acc);
            /* keys with -inf scores (masked) are skipped; one path for
             * every step (an unmasked copy for the steps every row sees
             * would cost registers, which set how many work-groups fit) */
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
#pragma unroll
                for (int n = 0; n < NV; n++) {
                    float8 vf = pk_run_f32(vr[u][n]);
#pragma unroll
                    for (int r = 0; r < ROWS; r++)
                        if (!pk_attn_marked(p[u][r])) acc[r][n] = fma((float8)p[u][r], vf, acc[r][n]);
                }
            if (it < nsteps) {
                int n1 = first + it * STEP;
                pk_load_keys(vr, vp, vstep, vcol, n1 + s, last, n1 + STEP - 1 <= last);
                vp += UNROLL * vstep;
            }
        }
    }

    /* The slots' merge: rescale each to the work-group's max, then sum the
     * slots in order, one row at a time through local memory (after a
     * barrier: the last step's sums may lie where it writes). */
    __local float *buf = sm, *ms = sm + SLOTS * D, *ls = ms + SLOTS * ROWS;
    barrier(CLK_LOCAL_MEM_FENCE);
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
            if (n_splits == 1) {
                /* the only split: what the merge would make of it (weight
                 * exp2(0) = 1), stored here and the merge not launched */
                const long4 o_st = vload4(0, pk_d + PK_DA_OS), l_st = vload4(0, pk_d + PK_DA_LS);
                float sum = 0.0f;
                for (int y = 0; y < SLOTS; y++) sum += ls[y * ROWS + r];
                for (int c = lid; c < D; c += WG) {
                    float x = 0.0f;
                    for (int y = 0; y < SLOTS; y++) x += buf[y * D + c];
                    PK_STORE(DT, o, off.s3 + b * o_st.s0 + i * o_st.s1 + h * o_st.s2 + c * o_st.s3,
                             big[r] == -INFINITY ? 0.0f : x / sum);
                }
                if (lse && lid == 0)
                    lse[off.s4 + b * l_st.s0 + h * l_st.s1 + i * l_st.s2] =
                        big[r] == -INFINITY ? -INFINITY : (big[r] + log2(sum)) * M_LN2_F;
            } else {
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
pk_attn_merge(__global const float *part, __global pk_t *o, __global float *lse, long16 pk_d0, long16 pk_d1,
              long16 pk_d2)
{
    PK_DECODE_UNPACK;
    const long o_off = pk_d[PK_DA_OFF + 3], lse_off = pk_d[PK_DA_OFF + 4];
    const long4 os = vload4(0, pk_d + PK_DA_OS), ls = vload4(0, pk_d + PK_DA_LS);
    const int n_splits = (int)pk_d[PK_DA_SPLITS];
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
