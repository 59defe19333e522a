/* Row ops: rmsnorm, layernorm, softmax (a row per `tpr` work-items, as
 * many rows a work-group as its size allows) and glu, bias_act
 * (elementwise, in blocks of `per_item` vectors a work-item).
 * backends/opencl/opencl_rows_plan.c chooses the build options and those
 * launch parameters per device; this one source serves every device.
 *
 * Build options:
 *   DT            dtype code of every operand (the API gives one op one dtype)
 *   ACT           pk_activation code (glu, bias_act)
 *   HAS_RES, HAS_RES_OUT, HAS_WEIGHT, HAS_BIAS   optional operands present
 *   VEC           columns per access. 1: any strides, one element at a
 *                 time. 4, 8, 16: one wide load or store per VEC columns;
 *                 the host allows it only where every operand has column
 *                 stride 1 and its offset and leading strides are
 *                 multiples of VEC (so each access is aligned to its size),
 *                 and for the per-row kernels only where cols is a multiple
 *                 of VEC (the elementwise ones handle a partial last vector)
 *   NCH           per-row kernels: vectors each work-item holds in
 *                 registers across the row's reductions (global memory is
 *                 read once); 0: the row is streamed, re-read per pass
 *   PF            per-row kernels with NCH > 0: 1 issues the loads of the
 *                 group's next row before this row's reductions and
 *                 stores (they are in flight meanwhile); 0 loads each row
 *                 when its turn comes
 *   RED           per-row kernels: 1 when several work-items share a row
 *                 and reduce through local memory
 *   FAN           per-row kernels with RED: partials one work-item adds
 *                 per level of a reduction (a power of two); a reduction
 *                 over tpr work-items takes one barrier, plus one a level
 *                 while more than FAN partials remain
 *   EWU           elementwise kernels: vectors a work-item loads before it
 *                 stores (a divisor of per_item)
 *
 * Every kernel takes the same arguments (PK_ROWS_PARAMS), so the host sets
 * them with one function. A view is (pointer, element offset, strides
 * {lead0, lead1, lead2, col}); per-column operands use only the col
 * stride; absent operands are NULL and never touched. A work-item reads
 * every column it writes before writing it, and only it touches those
 * columns, so out (and residual_out) may be exactly x or residual (the
 * API allows an output only exactly equal to, or disjoint from, an input,
 * so the next row a work-group prefetches is never one it writes now).
 * A streamed row is written only in its last pass, so it re-reads x and
 * residual as they were; a held row may write residual_out as soon as h
 * is formed. Reductions run in a fixed order (lanes of a vector pairwise,
 * the vectors of a work-item in order, then FAN-way levels over the
 * work-items), so a plan gives the same bits on every run. red holds
 * 2 x the work-group size floats: consecutive reductions alternate
 * halves, so none needs a barrier after it. */

#ifndef PF
#define PF 0
#endif
#ifndef FAN
#define FAN 16
#endif

#define PK_T __global PK_TYPE(DT)
#define PK_VIEW_PARAMS(n) PK_T *n, long n##_off, long4 n##_st

/* The scalars come packed (cl_args.h: PK_RA_*, slots of pk_a) and are
 * unpacked under their names by PK_ROWS_UNPACK, every kernel's first line;
 * eps and scale are the float2. */
#define PK_ROWS_PARAMS                                                                \
    PK_T *x, PK_T *res, PK_T *res_out, PK_T *weight, PK_T *bias, PK_T *out, PK_T *up, \
        long16 pk_a0, long16 pk_a1, long16 pk_a2, float2 pk_f, __local float *red
#define PK_VIEW_UNPACK(n, v)                                                         \
    const long n##_off = pk_a[PK_RA_OFF + (v)];                                      \
    const long4 n##_st = vload4((v), pk_a + PK_RA_ST)
#define PK_ROWS_UNPACK                                                               \
    PK_ARGS_UNPACK3(pk_a, PK_RA_LONGS, pk_a0, pk_a1, pk_a2);                         \
    const long rows = pk_a[PK_RA_ROWS], lead1 = pk_a[PK_RA_LEAD1];                   \
    const long lead2 = pk_a[PK_RA_LEAD2], cols = pk_a[PK_RA_COLS];                   \
    const int tpr = (int)pk_a[PK_RA_TPR], per_item = (int)pk_a[PK_RA_PER_ITEM];      \
    const float eps = pk_f.s0, scale = pk_f.s1;                                      \
    PK_VIEW_UNPACK(x, PK_RV_X);                                                      \
    PK_VIEW_UNPACK(res, PK_RV_RES);                                                  \
    PK_VIEW_UNPACK(res_out, PK_RV_RES_OUT);                                          \
    PK_VIEW_UNPACK(weight, PK_RV_WEIGHT);                                            \
    PK_VIEW_UNPACK(bias, PK_RV_BIAS);                                                \
    PK_VIEW_UNPACK(out, PK_RV_OUT);                                                  \
    PK_VIEW_UNPACK(up, PK_RV_UP)

/* ---------------------------------------------------------------- vectors */

#if VEC == 1
#define PK_VF float
#else
#define PK_VF PK_CAT(float, VEC)
#define PK_VU PK_CAT(uint, VEC)
#define PK_VS PK_CAT(ushort, VEC)
#define PK_VI PK_CAT(int, VEC)
#define PK_VLOAD PK_CAT(vload, VEC)
#define PK_VSTORE PK_CAT(vstore, VEC)
#endif

/* A vector of VEC copies of f. */
#define PK_SPLAT(f) ((PK_VF)(f))

/* Sum and max of a vector's lanes, pairwise in a fixed order. */
#if VEC == 1
inline float pk_hsum(float v) { return v; }
#elif VEC == 4
inline float pk_hsum(float4 v) { float2 t = v.lo + v.hi; return t.x + t.y; }
#elif VEC == 8
inline float pk_hsum(float8 v) { float4 a = v.lo + v.hi; float2 t = a.lo + a.hi; return t.x + t.y; }
#elif VEC == 16
inline float pk_hsum(float16 v)
{
    float8 b = v.lo + v.hi;
    float4 a = b.lo + b.hi;
    float2 t = a.lo + a.hi;
    return t.x + t.y;
}
#endif

/* max/min that keep NaN, as the reference does (fmax would drop it). */
inline float pk_max_nan(float a, float b) { return isnan(a) ? a : isnan(b) ? b : (a > b ? a : b); }

inline float pk_hmax(PK_VF v)
{
#if VEC == 1
    return v;
#else
    float a[VEC];
    PK_VSTORE(v, 0, a);
    float m = a[0];
    for (int e = 1; e < VEC; e++) m = pk_max_nan(m, a[e]);
    return m;
#endif
}

/* Raw registers: a vector's bits as loaded, converted to floats only where
 * they are used (a conversion right after a load would wait for it). One
 * PK_RAW holds VEC elements: the element bits when VEC == 1, else 32-bit
 * words (a 16-byte access is 4 registers whatever the dtype). */
#if DT == 0
#define PK_EB uint
#else
#define PK_EB ushort
#endif
#if VEC == 1
#define PK_RAW PK_EB
#elif DT == 0
#define PK_RAW PK_CAT(uint, VEC)
#elif VEC == 4
#define PK_RAW uint2
#define PK_VH 2
#elif VEC == 8
#define PK_RAW uint4
#define PK_VH 4
#else
#define PK_RAW uint8
#define PK_VH 8
#endif

#if VEC > 1
/* Wide access at element i of p (aligned to the vector: see VEC). f16 goes
 * through registers: the global access stays one 16-bit vector, and
 * vload_half/vstore_half (core OpenCL, no cl_khr_fp16) convert there. */
inline PK_VF pk_ldv(PK_T *p, long i)
{
#if DT == 0
    return *(__global const PK_VF *)(p + i);
#elif DT == 1
    PK_VS raw = *(__global const PK_VS *)(p + i);
    return PK_CAT(vload_half, VEC)(0, (__private const half *)&raw);
#else
    return PK_CAT(as_float, VEC)(PK_CAT(convert_uint, VEC)(*(__global const PK_VS *)(p + i)) << 16);
#endif
}

inline void pk_stv(PK_T *p, long i, PK_VF y)
{
#if DT == 0
    *(__global PK_VF *)(p + i) = y;
#elif DT == 1
    PK_VS raw;
    PK_CAT(PK_CAT(vstore_half, VEC), _rte)(y, 0, (__private half *)&raw);
    *(__global PK_VS *)(p + i) = raw;
#else
    /* pk_store_2 on every lane: NaN stays a quiet NaN, else round to nearest even */
    PK_VU u = PK_CAT(as_uint, VEC)(y);
    PK_VU r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    r = select(r, (u >> 16) | 0x40u, PK_CAT(as_uint, VEC)((u & 0x7fffffffu) > 0x7f800000u));
    /* pairs packed into words (little-endian), one store of raw bits */
    *(__global PK_RAW *)(p + i) = r.even | (r.odd << 16);
#endif
}
#endif

/* One operand of one row: element c is p[base + c * st]. */
typedef struct pk_rowv {
    PK_T *p;
    long base;
    long st;
} pk_rowv;

/* Columns c0 .. c0 + VEC - 1 of a row (the caller keeps c0 < cols); lanes
 * past the row's end read as fill. */
inline PK_VF pk_ld(pk_rowv v, long c0, long cols, float fill)
{
#if VEC == 1
    return PK_LOAD(DT, v.p, v.base + c0 * v.st);
#else
    if (c0 + VEC <= cols) return pk_ldv(v.p, v.base + c0);
    float a[VEC];
    for (int e = 0; e < VEC; e++) a[e] = c0 + e < cols ? PK_LOAD(DT, v.p, v.base + c0 + e) : fill;
    return PK_VLOAD(0, a);
#endif
}

/* Writes the lanes of y that fall inside the row. */
inline void pk_st(pk_rowv v, long c0, long cols, PK_VF y)
{
#if VEC == 1
    PK_STORE(DT, v.p, v.base + c0 * v.st, y);
#else
    if (c0 + VEC <= cols) {
        pk_stv(v.p, v.base + c0, y);
        return;
    }
    float a[VEC];
    PK_VSTORE(y, 0, a);
    for (int e = 0; e < VEC && c0 + e < cols; e++) PK_STORE(DT, v.p, v.base + c0 + e, a[e]);
#endif
}

/* y with the lanes at columns >= cols set to fill. */
inline PK_VF pk_pad(PK_VF y, long c0, long cols, float fill)
{
    if (c0 + VEC <= cols) return y;
#if VEC == 1
    return fill;
#else
    float a[VEC];
    PK_VSTORE(y, 0, a);
    for (int e = 0; e < VEC; e++)
        if (c0 + e >= cols) a[e] = fill;
    return PK_VLOAD(0, a);
#endif
}

/* Columns c0 .. c0 + VEC - 1 of a row as bits (the caller keeps c0 <
 * cols); lanes past the row's end are 0 bits, +0.0 in every dtype. */
inline PK_RAW pk_ldraw(pk_rowv v, long c0, long cols)
{
    __global const PK_EB *p = (__global const PK_EB *)v.p;
#if VEC == 1
    return p[v.base + c0 * v.st];
#else
    if (c0 + VEC <= cols) return *(__global const PK_RAW *)(p + v.base + c0);
    PK_EB a[VEC];
    for (int e = 0; e < VEC; e++) a[e] = c0 + e < cols ? p[v.base + c0 + e] : (PK_EB)0;
    return PK_CAT(as_, PK_RAW)(PK_VLOAD(0, a));
#endif
}

/* The floats of raw bits (little-endian: a bf16 pair's first element is
 * the low half of its word). */
inline PK_VF pk_unraw(PK_RAW r)
{
#if DT == 0
    return PK_CAT(as_, PK_VF)(r);
#elif DT == 1
#if VEC == 1
    return vload_half(0, (__private const half *)&r);
#else
    return PK_CAT(vload_half, VEC)(0, (__private const half *)&r);
#endif
#elif VEC == 1
    return as_float((uint)r << 16);
#else
    PK_VF f;
    f.even = PK_CAT(as_float, PK_VH)(r << 16);
    f.odd = PK_CAT(as_float, PK_VH)(r & 0xffff0000u);
    return f;
#endif
}

/* ---------------------------------------------------------------- rows */

/* Every operand of row r (flat over the three leading dims). */
typedef struct pk_row {
    pk_rowv x, res, res_out, weight, bias, out, up;
} pk_row;

inline pk_rowv pk_rowv_at(PK_T *p, long off, long4 st, long i0, long i1, long i2)
{
    pk_rowv v = {p, off + i0 * st.s0 + i1 * st.s1 + i2 * st.s2, st.s3};
    return v;
}

#define PK_ROW_AT(r)                                                                  \
    pk_row_at((r), rows, lead1, lead2, x, x_off, x_st, res, res_off, res_st, res_out, \
              res_out_off, res_out_st, weight, weight_off, weight_st, bias, bias_off, \
              bias_st, out, out_off, out_st, up, up_off, up_st)

inline pk_row pk_row_at(long r, long rows, long lead1, long lead2, PK_VIEW_PARAMS(x), PK_VIEW_PARAMS(res),
                        PK_VIEW_PARAMS(res_out), PK_VIEW_PARAMS(weight), PK_VIEW_PARAMS(bias),
                        PK_VIEW_PARAMS(out), PK_VIEW_PARAMS(up))
{
    /* the host folds the leading dims into one where the strides allow
     * (lead2 == rows): then a row needs no division */
    long i0 = 0, i1 = 0, i2 = r;
    if (lead2 != rows) {
        i2 = r % lead2;
        const long t = r / lead2;
        i1 = t % lead1;
        i0 = t / lead1;
    }
    long4 col_only = (long4)(0, 0, 0, 0);
    pk_row w;
    w.x = pk_rowv_at(x, x_off, x_st, i0, i1, i2);
    w.res = pk_rowv_at(res, res_off, res_st, i0, i1, i2);
    w.res_out = pk_rowv_at(res_out, res_out_off, res_out_st, i0, i1, i2);
    col_only.s3 = weight_st.s3;
    w.weight = pk_rowv_at(weight, weight_off, col_only, 0, 0, 0);
    col_only.s3 = bias_st.s3;
    w.bias = pk_rowv_at(bias, bias_off, col_only, 0, 0, 0);
    w.out = pk_rowv_at(out, out_off, out_st, i0, i1, i2);
    w.up = pk_rowv_at(up, up_off, up_st, i0, i1, i2);
    return w;
}

/* Reductions over the tpr work-items of a row (lane = lid % tpr), the
 * group's rows side by side; every one of them gets the result. Each
 * work-item puts its partial in red[lid]; while more than FAN partials
 * remain, a level has the first n / FAN of them each add FAN (lanes
 * lane, lane + n / FAN, ...: adjacent work-items read adjacent floats);
 * then every work-item adds the last ones in order. The order depends
 * only on tpr and FAN. red is the half of the local buffer this reduction
 * takes (PK_RED_BUF): the next reduction writes the other half, and the
 * one after that writes this one only after the next one's first barrier,
 * which every work-item passes only once it has read this one's result,
 * so no barrier is needed after the reads. Without RED a work-item has
 * the row to itself. */
#define PK_ROW_REDUCE(name, OP)                                                      \
    inline float name(float v, __local float *red, int lid, int lane, int tpr)      \
    {                                                                                \
        if (RED) {                                                                   \
            red[lid] = v;                                                            \
            barrier(CLK_LOCAL_MEM_FENCE);                                            \
            int n = tpr;                                                             \
            for (; n > FAN; n /= FAN) {                                              \
                const int m = n / FAN;                                               \
                if (lane < m) {                                                      \
                    float s = red[lid];                                              \
                    _Pragma("unroll") for (int j = 1; j < FAN; j++) s = OP(s, red[lid + j * m]); \
                    red[lid] = s;                                                    \
                }                                                                    \
                barrier(CLK_LOCAL_MEM_FENCE);                                        \
            }                                                                        \
            const int base = lid - lane;                                             \
            v = red[base];                                                           \
            for (int j = 1; j < n; j++) v = OP(v, red[base + j]);                    \
        }                                                                            \
        return v;                                                                    \
    }
#define PK_ADD(a, b) ((a) + (b))
PK_ROW_REDUCE(pk_row_sum, PK_ADD)
PK_ROW_REDUCE(pk_row_max, pk_max_nan)

/* The half of the local buffer the kernel's next reduction takes. */
#define PK_RED_BUF() (red + ((nred++ & 1) ? (int)get_local_size(0) : 0))

/* h = x (+ residual) at columns c0.. */
inline PK_VF pk_h(const pk_row *w, long c0, long cols)
{
    PK_VF h = pk_ld(w->x, c0, cols, 0.0f);
#if HAS_RES
    h += pk_ld(w->res, c0, cols, 0.0f);
#endif
    return h;
}

/* A norm's outputs: residual_out receives h rounded (the norm itself used
 * the unrounded h), out receives y. */
inline void pk_norm_store(const pk_row *w, long c0, long cols, PK_VF h, PK_VF y)
{
#if HAS_RES_OUT
    pk_st(w->res_out, c0, cols, h);
#endif
    pk_st(w->out, c0, cols, y);
}

inline PK_VF pk_weight(const pk_row *w, long c0, long cols)
{
#if HAS_WEIGHT
    return pk_ld(w->weight, c0, cols, 0.0f);
#else
    return PK_SPLAT(1.0f);
#endif
}

inline PK_VF pk_bias(const pk_row *w, long c0, long cols)
{
#if HAS_BIAS
    return pk_ld(w->bias, c0, cols, 0.0f);
#else
    return PK_SPLAT(0.0f);
#endif
}

/* scale * x; lanes past the row are -inf (after scaling: scale may be
 * negative), so they add exp(-inf) = 0. */
inline PK_VF pk_scaled(const pk_row *w, long c0, long cols, float scale)
{
    return pk_pad(scale * pk_ld(w->x, c0, cols, 0.0f), c0, cols, -INFINITY);
}

/* The per-row kernels: work-item lane of a row owns vectors j = lane,
 * lane + tpr, ... (columns j * VEC ..). Row groups beyond the grid are
 * taken in a grid-stride loop (the loop's bounds are the same for the
 * whole work-group, so every work-item reaches every barrier); a slot past
 * the last row computes on what its registers hold (row 0 when streamed)
 * and writes nothing. */
#define PK_ROW_SETUP                                                                 \
    const int lid = get_local_id(0), lane = lid & (tpr - 1), slot = lid / tpr;     \
    const long rpg = get_local_size(0) / tpr, ng = get_num_groups(0);               \
    int nred = 0;
#define PK_ROW_LOOP_BEGIN                                                            \
    for (long g = get_group_id(0); g * rpg < rows; g += ng) {                        \
        const long r = g * rpg + slot;                                               \
        const int live = r < rows;                                                   \
        const pk_row w = PK_ROW_AT(live ? r : 0);
#define PK_ROW_LOOP_END }
#define PK_FOR_COLS(c0) for (long c0 = (long)lane * VEC; c0 < cols; c0 += (long)tpr * VEC)

#if NCH
/* The row in registers: the k-th vector a work-item holds is j = lane +
 * k * tpr. xr and rr hold the raw bits of x and residual (0 for vectors
 * past the row, which then add nothing), loaded by PK_FETCH. With PF the
 * group's next row is fetched (PK_HELD_NEXT) once this row's raw bits are
 * used, so its loads are in flight during this row's reductions and
 * stores; a slot whose next row is past the end keeps its old bits.
 *
 * The host gives the per-row kernels rows of whole vectors (cols is a
 * multiple of VEC): a partial last vector's code would keep values in
 * registers for the whole loop. A held row has at most 1024 x 16 vectors
 * of 16 elements: columns are ints from a pointer to the row's start. */
#define PK_OWN(k) ((lane + (k) * tpr) * VEC)
/* body for each held vector k inside the row, at column c0. Unrolled in
 * full, always: an array indexed by a loop variable would live in memory. */
#define PK_EACH_OWN(k, c0, body)                                                     \
    _Pragma("unroll") for (int k = 0; k < NCH; k++) {                                \
        const int c0 = PK_OWN(k);                                                    \
        if (c0 < icols) { body; }                                                    \
    }

/* y for held vector k, fill if that vector is past the row */
#define PK_HELD_PAD(y, k, fill) (PK_OWN(k) < icols ? (y) : PK_SPLAT(fill))

/* Start of row operand v; element c is at [c * v.st]. */
inline PK_T *pk_rowp(pk_rowv v) { return v.p + v.base; }

/* Raw bits of the vector at column c0 of a row, and the store of one. */
inline PK_RAW pk_ldw(PK_T *row, long st, int c0)
{
    __global const PK_EB *p = (__global const PK_EB *)row;
#if VEC == 1
    return p[c0 * st];
#else
    return *(__global const PK_RAW *)(p + c0);
#endif
}

inline void pk_stw(PK_T *row, long st, int c0, PK_VF y)
{
#if VEC == 1
    PK_STORE(DT, row, c0 * st, y);
#else
    pk_stv(row, c0, y);
#endif
}

/* Loads operand view v of the row into raw registers a. */
#define PK_HELD_LOAD(a, v)                                                           \
    {                                                                                \
        PK_T *p_ = pk_rowp(v);                                                       \
        PK_EACH_OWN(k, c0, a[k] = pk_ldw(p_, (v).st, c0))                            \
    }
/* Stores y (an expression of k) to operand view v of the row. */
#define PK_HELD_STORE(v, y)                                                          \
    {                                                                                \
        PK_T *p_ = pk_rowp(v);                                                       \
        PK_EACH_OWN(k, c0, pk_stw(p_, (v).st, c0, y))                                \
    }

/* loads the raw bits of row, and keeps its operands' views in wn for
 * its stores (one row lookup a row) */
#define PK_FETCH(row)                                                                \
    if ((row) < rows) {                                                              \
        wn = PK_ROW_AT(row);                                                         \
        PK_HELD_LOAD(xr, wn.x)                                                       \
        if (HAS_RES) PK_HELD_LOAD(rr, wn.res)                                        \
    }
#define PK_HELD_BEGIN                                                                \
    PK_ROW_SETUP                                                                     \
    const int icols = (int)cols;                                                     \
    PK_RAW xr[NCH], rr[NCH];                                                         \
    _Pragma("unroll") for (int k = 0; k < NCH; k++) xr[k] = rr[k] = (PK_RAW)0;        \
    const pk_row w0 = PK_ROW_AT(0);                                                  \
    PK_T *const pw = pk_rowp(w0.weight), *const pb = pk_rowp(w0.bias);               \
    pk_row wn = w0;                                                                  \
    const long step = ng * rpg; /* rows from one row group of this work-group to its next */ \
    if (PF) PK_FETCH(get_group_id(0) * rpg + slot)                                   \
    for (long r0 = get_group_id(0) * rpg; r0 < rows; r0 += step) {                   \
        const long r = r0 + slot;                                                    \
        const int live = r < rows;                                                   \
        if (!PF) PK_FETCH(r)                                                         \
        PK_VF h[NCH];                                                                \
        _Pragma("unroll") for (int k = 0; k < NCH; k++) h[k] = PK_PLUS_RES(pk_unraw(xr[k]), k); \
        const pk_row w = wn; /* row r's, if live */
/* With PF, the next row's loads: placed once the kernel has used this
 * row's raw bits for its first partial (and residual_out), so that they
 * need not stay in registers beside the next row's. */
#define PK_HELD_NEXT                                                                 \
    if (PF) PK_FETCH(r + step)
#define PK_HELD_END }
/* weight and bias at the held vector's column c0, read when used: they
 * are the same for every row (cache hits), and held in registers they
 * would cost more than the loads (a compiler hoists their conversion out
 * of the row loop: a float register per column) */
#define PK_WEIGHT_AT(c0) (HAS_WEIGHT ? pk_unraw(pk_ldw(pw, w0.weight.st, c0)) : PK_SPLAT(1.0f))
#define PK_BIAS_AT(c0) (HAS_BIAS ? pk_unraw(pk_ldw(pb, w0.bias.st, c0)) : PK_SPLAT(0.0f))

/* h[k]: x (+ residual) of the held vector k, as pk_h gives it */
#if HAS_RES
#define PK_PLUS_RES(v, k) ((v) + pk_unraw(rr[k]))
#else
#define PK_PLUS_RES(v, k) (v)
#endif

/* a norm's residual_out gets h now (no later pass re-reads the row), out
 * after the reductions */
#define PK_HELD_RES_OUT                                                              \
    if (HAS_RES_OUT && live) PK_HELD_STORE(w.res_out, h[k])
#endif

__kernel void pk_rmsnorm(PK_ROWS_PARAMS)
{
    PK_ROWS_UNPACK;
#if NCH
    PK_HELD_BEGIN
    PK_VF sum_sq = PK_SPLAT(0.0f);
    _Pragma("unroll") for (int k = 0; k < NCH; k++) sum_sq += h[k] * h[k];
    const float part = pk_hsum(sum_sq);
    PK_HELD_RES_OUT
    PK_HELD_NEXT
    const float inv_rms = 1.0f / sqrt(pk_row_sum(part, PK_RED_BUF(), lid, lane, tpr) / (float)cols + eps);
    if (live) PK_HELD_STORE(w.out, h[k] * inv_rms * PK_WEIGHT_AT(c0))
    PK_HELD_END
#else
    PK_ROW_SETUP
    PK_ROW_LOOP_BEGIN
    PK_VF sum_sq = PK_SPLAT(0.0f);
    PK_FOR_COLS(c0) {
        const PK_VF v = pk_h(&w, c0, cols);
        sum_sq += v * v;
    }
    const float inv_rms = 1.0f / sqrt(pk_row_sum(pk_hsum(sum_sq), PK_RED_BUF(), lid, lane, tpr) / (float)cols + eps);
    if (live) {
        PK_FOR_COLS(c0) {
            const PK_VF h = pk_h(&w, c0, cols);
            pk_norm_store(&w, c0, cols, h, h * inv_rms * pk_weight(&w, c0, cols));
        }
    }
    PK_ROW_LOOP_END
#endif
}

/* Two-pass variance (mean first, then squares about it), as the reference. */
__kernel void pk_layernorm(PK_ROWS_PARAMS)
{
    PK_ROWS_UNPACK;
#if NCH
    PK_HELD_BEGIN
    PK_VF sum = PK_SPLAT(0.0f), sum_sq = PK_SPLAT(0.0f);
    _Pragma("unroll") for (int k = 0; k < NCH; k++) sum += h[k];
    const float part = pk_hsum(sum);
    PK_HELD_RES_OUT
    PK_HELD_NEXT
    const float mean = pk_row_sum(part, PK_RED_BUF(), lid, lane, tpr) / (float)cols;
    _Pragma("unroll") for (int k = 0; k < NCH; k++) {
        const PK_VF d = PK_HELD_PAD(h[k] - mean, k, 0.0f);
        sum_sq += d * d;
    }
    const float inv_std = 1.0f / sqrt(pk_row_sum(pk_hsum(sum_sq), PK_RED_BUF(), lid, lane, tpr) / (float)cols + eps);
    if (live) PK_HELD_STORE(w.out, (h[k] - mean) * inv_std * PK_WEIGHT_AT(c0) + PK_BIAS_AT(c0))
    PK_HELD_END
#else
    PK_ROW_SETUP
    PK_ROW_LOOP_BEGIN
    PK_VF sum = PK_SPLAT(0.0f), sum_sq = PK_SPLAT(0.0f);
    PK_FOR_COLS(c0) sum += pk_h(&w, c0, cols);
    const float mean = pk_row_sum(pk_hsum(sum), PK_RED_BUF(), lid, lane, tpr) / (float)cols;
    PK_FOR_COLS(c0) {
        const PK_VF d = pk_pad(pk_h(&w, c0, cols) - mean, c0, cols, 0.0f);
        sum_sq += d * d;
    }
    const float inv_std = 1.0f / sqrt(pk_row_sum(pk_hsum(sum_sq), PK_RED_BUF(), lid, lane, tpr) / (float)cols + eps);
    if (live) {
        PK_FOR_COLS(c0) {
            const PK_VF h = pk_h(&w, c0, cols);
            pk_norm_store(&w, c0, cols, h, (h - mean) * inv_std * pk_weight(&w, c0, cols) + pk_bias(&w, c0, cols));
        }
    }
    PK_ROW_LOOP_END
#endif
}

/* The max keeps NaN, so a max of -inf means the whole row is -inf: it gives
 * zeros. That case runs the same code (no early return: every work-item
 * reaches every barrier, and PoCL has been seen to miscompile a return
 * between barriers). */
__kernel void pk_softmax(PK_ROWS_PARAMS)
{
    PK_ROWS_UNPACK;
#if NCH
    PK_HELD_BEGIN
    float row_max = -INFINITY;
    PK_VF sum = PK_SPLAT(0.0f), z[NCH];
    _Pragma("unroll") for (int k = 0; k < NCH; k++) {
        z[k] = PK_HELD_PAD(scale * h[k], k, -INFINITY);
        row_max = pk_max_nan(row_max, pk_hmax(z[k]));
    }
    PK_HELD_NEXT
    row_max = pk_row_max(row_max, PK_RED_BUF(), lid, lane, tpr);
    const int all_neg_inf = row_max == -INFINITY;
    if (all_neg_inf) row_max = 0.0f;
    _Pragma("unroll") for (int k = 0; k < NCH; k++) {
        z[k] = exp(z[k] - row_max);
        sum += z[k];
    }
    const float total = pk_row_sum(pk_hsum(sum), PK_RED_BUF(), lid, lane, tpr);
    if (live) PK_HELD_STORE(w.out, all_neg_inf ? PK_SPLAT(0.0f) : z[k] / total)
    PK_HELD_END
#else
    PK_ROW_SETUP
    PK_ROW_LOOP_BEGIN
    float row_max = -INFINITY;
    PK_VF sum = PK_SPLAT(0.0f);
    PK_FOR_COLS(c0) row_max = pk_max_nan(row_max, pk_hmax(pk_scaled(&w, c0, cols, scale)));
    row_max = pk_row_max(row_max, PK_RED_BUF(), lid, lane, tpr);
    const int all_neg_inf = row_max == -INFINITY;
    if (all_neg_inf) row_max = 0.0f;
    PK_FOR_COLS(c0) sum += exp(pk_scaled(&w, c0, cols, scale) - row_max);
    const float total = pk_row_sum(pk_hsum(sum), PK_RED_BUF(), lid, lane, tpr);
    if (live) {
        PK_FOR_COLS(c0) {
            const PK_VF e = exp(pk_scaled(&w, c0, cols, scale) - row_max);
            pk_st(w.out, c0, cols, all_neg_inf ? PK_SPLAT(0.0f) : e / total);
        }
    }
    PK_ROW_LOOP_END
#endif
}

/* ---------------------------------------------------------------- elementwise */

/* Activations on a vector: pk_act's formulas, lane by lane. */
inline PK_VF pk_actv(PK_VF x)
{
#if ACT == 1
    return select(PK_SPLAT(0.0f), x, x > 0.0f || isnan(x));
#elif ACT == 2
    return 0.5f * x * (1.0f + erf(x * 0.70710678118654752f));
#elif ACT == 3
    const PK_VF u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
    return x / (1.0f + exp(-2.0f * u));
#elif ACT == 4
    return x / (1.0f + exp(-x));
#else
    return x;
#endif
}

/* The rows x nv vectors in flat order are cut into blocks of per_item *
 * local-size vectors, a work-group to a block (grid-stride over blocks);
 * within a block adjacent work-items take adjacent vectors. (r, j) steps
 * by the local size without a division. A work-item loads EWU vectors
 * before it stores any (a store may alias a later load of another column
 * as far as the compiler knows, so it would not hoist them itself): more
 * bytes in flight. op(a, b) is the op on x and b (up or bias). */
#define PK_EW_BODY(B_VIEW, OP)                                                       \
    const long nv = (cols + VEC - 1) / VEC, total = rows * nv;                       \
    const long L = get_local_size(0), B = L * per_item, dr = L / nv, dj = L % nv;    \
    for (long blk = get_group_id(0); blk * B < total; blk += get_num_groups(0)) {    \
        const long f = blk * B + get_local_id(0);                                    \
        long r = f / nv, j = f - r * nv, at = -1;                                    \
        pk_row w;                                                                    \
        for (int k = 0; k < per_item && r < rows; k += EWU) {                        \
            PK_VF a[EWU], b[EWU];                                                    \
            pk_rowv o[EWU];                                                          \
            long cs[EWU];                                                            \
            int ok[EWU];                                                             \
            _Pragma("unroll") /* unrolled: the arrays stay in registers */         \
            for (int u = 0; u < EWU; u++) {                                          \
                ok[u] = k + u < per_item && r < rows;                                \
                cs[u] = j * VEC;                                                     \
                if (ok[u]) {                                                         \
                    if (r != at) {                                                   \
                        w = PK_ROW_AT(r);                                            \
                        at = r;                                                      \
                    }                                                                \
                    o[u] = w.out;                                                    \
                    a[u] = pk_ld(w.x, cs[u], cols, 0.0f);                            \
                    b[u] = B_VIEW;                                                   \
                }                                                                    \
                j += dj;                                                             \
                r += dr;                                                             \
                if (j >= nv) {                                                       \
                    j -= nv;                                                         \
                    r++;                                                             \
                }                                                                    \
            }                                                                        \
            _Pragma("unroll")                                                        \
            for (int u = 0; u < EWU; u++)                                            \
                if (ok[u]) pk_st(o[u], cs[u], cols, OP(a[u], b[u]));                 \
        }                                                                            \
    }

#define PK_GLU_OP(g, u) (pk_actv(g) * (u))
#define PK_BIAS_ACT_OP(x, b) pk_actv((x) + (b))

__kernel void pk_glu(PK_ROWS_PARAMS)
{
    PK_ROWS_UNPACK;
    PK_EW_BODY(pk_ld(w.up, cs[u], cols, 0.0f), PK_GLU_OP)
}

/* every x + bias is read before out is written: out may be exactly x */
__kernel void pk_bias_act(PK_ROWS_PARAMS)
{
    PK_ROWS_UNPACK;
    PK_EW_BODY(pk_bias(&w, cs[u], cols), PK_BIAS_ACT_OP)
}
