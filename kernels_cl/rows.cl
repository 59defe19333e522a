/* Row ops: rmsnorm, layernorm, softmax (one work-group per row) and glu,
 * bias_act (elementwise over a 2-D grid: columns x rows).
 *
 * Build options:
 *   DT            dtype code of every operand (the API gives one op one dtype)
 *   ACT           pk_activation code (glu, bias_act)
 *   HAS_RES, HAS_RES_OUT, HAS_WEIGHT, HAS_BIAS   optional operands present
 *   VPT           values per work-item held in registers across the row's
 *                 reductions (global memory is read once); 0 = the row is
 *                 too wide, so each pass re-reads it
 *
 * Every kernel takes the same arguments (PK_ROWS_PARAMS), so the host sets
 * them with one function. A view is (pointer, element offset, strides
 * {lead0, lead1, lead2, col}); per-column operands use only the col stride;
 * absent operands are NULL and never touched. Work-item `lid` of a row owns
 * columns lid, lid + wg, ...: it reads each of them before it writes it, so
 * out (and residual_out) may be exactly x or residual. Outputs are written
 * only in the last pass over the row, so a streamed row re-reads x and
 * residual as they were. */

#define PK_T __global PK_TYPE(DT)
#define PK_VIEW_PARAMS(n) PK_T *n, long n##_off, long4 n##_st

#define PK_ROWS_PARAMS                                                               \
    long rows, long lead1, long lead2, long cols, float eps, float scale,           \
        PK_VIEW_PARAMS(x), PK_VIEW_PARAMS(res), PK_VIEW_PARAMS(res_out),            \
        PK_VIEW_PARAMS(weight), PK_VIEW_PARAMS(bias), PK_VIEW_PARAMS(out),          \
        PK_VIEW_PARAMS(up), __local float *red

/* One operand of one row: element c is p[base + c * st]. */
typedef struct pk_rowv {
    PK_T *p;
    long base;
    long st;
} pk_rowv;

inline pk_rowv pk_rowv_at(PK_T *p, long off, long4 st, long i0, long i1, long i2)
{
    pk_rowv v = {p, off + i0 * st.s0 + i1 * st.s1 + i2 * st.s2, st.s3};
    return v;
}

inline float pk_rowv_load(pk_rowv v, long c) { return PK_LOAD(DT, v.p, v.base + c * v.st); }
inline void pk_rowv_store(pk_rowv v, long c, float y) { PK_STORE(DT, v.p, v.base + c * v.st, y); }

/* Every operand of row r (flat over the three leading dims). */
typedef struct pk_row {
    pk_rowv x, res, res_out, weight, bias, out, up;
} pk_row;

#define PK_ROW_AT(r)                                                                  \
    pk_row_at((r), lead1, lead2, x, x_off, x_st, res, res_off, res_st, res_out,       \
              res_out_off, res_out_st, weight, weight_off, weight_st, bias, bias_off, \
              bias_st, out, out_off, out_st, up, up_off, up_st)

inline pk_row pk_row_at(long r, long lead1, long lead2, PK_VIEW_PARAMS(x), PK_VIEW_PARAMS(res),
                        PK_VIEW_PARAMS(res_out), PK_VIEW_PARAMS(weight), PK_VIEW_PARAMS(bias),
                        PK_VIEW_PARAMS(out), PK_VIEW_PARAMS(up))
{
    long i2 = r % lead2, t = r / lead2;
    long i1 = t % lead1, i0 = t / lead1;
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

/* max/min that keep NaN, as the reference does (fmax would drop it). */
inline float pk_max_nan(float a, float b) { return isnan(a) ? a : isnan(b) ? b : (a > b ? a : b); }

/* Deterministic tree reductions over a power-of-two work-group; every
 * work-item gets the result. The trailing barrier lets red be reused. */
inline float pk_wg_sum(float v, __local float *red)
{
    int lid = get_local_id(0);
    red[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s) red[lid] += red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float r = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

inline float pk_wg_max(float v, __local float *red)
{
    int lid = get_local_id(0);
    red[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s) red[lid] = pk_max_nan(red[lid], red[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float r = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

/* h = x (+ residual) at column c. */
inline float pk_h(const pk_row *w, long c)
{
    float h = pk_rowv_load(w->x, c);
#if HAS_RES
    h += pk_rowv_load(w->res, c);
#endif
    return h;
}

/* A norm's outputs at column c: residual_out receives h rounded (the norm
 * itself used the unrounded h), out receives y. */
inline void pk_norm_store(const pk_row *w, long c, float h, float y)
{
#if HAS_RES_OUT
    pk_rowv_store(w->res_out, c, h);
#endif
    pk_rowv_store(w->out, c, y);
}

inline float pk_weight(const pk_row *w, long c)
{
#if HAS_WEIGHT
    return pk_rowv_load(w->weight, c);
#else
    return 1.0f;
#endif
}

inline float pk_bias(const pk_row *w, long c)
{
#if HAS_BIAS
    return pk_rowv_load(w->bias, c);
#else
    return 0.0f;
#endif
}

/* Register path: value k of this work-item is column lid + k * wg (values
 * past the row's end are padding that adds nothing to a reduction). */
#define PK_OWN(k) (lid + (long)(k) * wg)
#define PK_FOR_OWN(k) for (int k = 0; k < VPT; k++) if (PK_OWN(k) < cols)
/* Streaming path: every column this work-item owns. */
#define PK_FOR_COLS(c) for (long c = lid; c < cols; c += wg)

#define PK_ROW_PROLOGUE                         \
    const pk_row w = PK_ROW_AT(get_group_id(0)); \
    const long lid = get_local_id(0);            \
    const long wg = get_local_size(0)

__kernel void pk_rmsnorm(PK_ROWS_PARAMS)
{
    PK_ROW_PROLOGUE;
    float sum_sq = 0.0f;
#if VPT
    float h[VPT];
    for (int k = 0; k < VPT; k++) h[k] = 0.0f;
    PK_FOR_OWN(k) h[k] = pk_h(&w, PK_OWN(k));
    for (int k = 0; k < VPT; k++) sum_sq += h[k] * h[k];
#else
    PK_FOR_COLS(c) {
        float v = pk_h(&w, c);
        sum_sq += v * v;
    }
#endif
    sum_sq = pk_wg_sum(sum_sq, red);
    float inv_rms = 1.0f / sqrt(sum_sq / (float)cols + eps);
#if VPT
    PK_FOR_OWN(k) pk_norm_store(&w, PK_OWN(k), h[k], h[k] * inv_rms * pk_weight(&w, PK_OWN(k)));
#else
    PK_FOR_COLS(c) {
        const float h = pk_h(&w, c);
        pk_norm_store(&w, c, h, h * inv_rms * pk_weight(&w, c));
    }
#endif
}

/* Two-pass variance (mean first, then squares about it), as the reference. */
__kernel void pk_layernorm(PK_ROWS_PARAMS)
{
    PK_ROW_PROLOGUE;
    float sum = 0.0f, sum_sq = 0.0f;
#if VPT
    float h[VPT];
    for (int k = 0; k < VPT; k++) h[k] = 0.0f;
    PK_FOR_OWN(k) h[k] = pk_h(&w, PK_OWN(k));
    for (int k = 0; k < VPT; k++) sum += h[k];
    float mean = pk_wg_sum(sum, red) / (float)cols;
    PK_FOR_OWN(k) sum_sq += (h[k] - mean) * (h[k] - mean);
#else
    PK_FOR_COLS(c) sum += pk_h(&w, c);
    float mean = pk_wg_sum(sum, red) / (float)cols;
    PK_FOR_COLS(c) {
        const float d = pk_h(&w, c) - mean;
        sum_sq += d * d;
    }
#endif
    float inv_std = 1.0f / sqrt(pk_wg_sum(sum_sq, red) / (float)cols + eps);
#if VPT
    PK_FOR_OWN(k) {
        const long c = PK_OWN(k);
        pk_norm_store(&w, c, h[k], (h[k] - mean) * inv_std * pk_weight(&w, c) + pk_bias(&w, c));
    }
#else
    PK_FOR_COLS(c) {
        const float h = pk_h(&w, c);
        pk_norm_store(&w, c, h, (h - mean) * inv_std * pk_weight(&w, c) + pk_bias(&w, c));
    }
#endif
}

/* The max keeps NaN, so a max of -inf means the whole row is -inf: it gives
 * zeros. That case runs the same code (no early return: every work-item
 * reaches every barrier, and PoCL has been seen to miscompile a return
 * between barriers). */
__kernel void pk_softmax(PK_ROWS_PARAMS)
{
    PK_ROW_PROLOGUE;
    float row_max = -INFINITY, sum = 0.0f;
#if VPT
    float z[VPT];
    for (int k = 0; k < VPT; k++) z[k] = -INFINITY;
    PK_FOR_OWN(k) z[k] = scale * pk_rowv_load(w.x, PK_OWN(k));
    for (int k = 0; k < VPT; k++) row_max = pk_max_nan(row_max, z[k]);
#else
    PK_FOR_COLS(c) row_max = pk_max_nan(row_max, scale * pk_rowv_load(w.x, c));
#endif
    row_max = pk_wg_max(row_max, red);
    const int all_neg_inf = row_max == -INFINITY;
    if (all_neg_inf) row_max = 0.0f;
#if VPT
    for (int k = 0; k < VPT; k++) {
        z[k] = exp(z[k] - row_max);
        sum += z[k];
    }
#else
    PK_FOR_COLS(c) sum += exp(scale * pk_rowv_load(w.x, c) - row_max);
#endif
    sum = pk_wg_sum(sum, red);
#if VPT
    PK_FOR_OWN(k) pk_rowv_store(w.out, PK_OWN(k), all_neg_inf ? 0.0f : z[k] / sum);
#else
    PK_FOR_COLS(c) pk_rowv_store(w.out, c, all_neg_inf ? 0.0f : exp(scale * pk_rowv_load(w.x, c) - row_max) / sum);
#endif
}

/* Elementwise ops: dimension 0 walks the columns, dimension 1 the rows in a
 * grid-stride loop (so the number of rows is not bounded by a grid limit). */
__kernel void pk_glu(PK_ROWS_PARAMS)
{
    const long c = get_global_id(0);
    if (c >= cols) return;
    for (long r = get_global_id(1); r < rows; r += get_global_size(1)) {
        const pk_row w = PK_ROW_AT(r);
        pk_rowv_store(w.out, c, pk_act(ACT, pk_rowv_load(w.x, c)) * pk_rowv_load(w.up, c));
    }
}

/* x + bias is read before out is written: out may be exactly x. */
__kernel void pk_bias_act(PK_ROWS_PARAMS)
{
    const long c = get_global_id(0);
    if (c >= cols) return;
    for (long r = get_global_id(1); r < rows; r += get_global_size(1)) {
        const pk_row w = PK_ROW_AT(r);
        pk_rowv_store(w.out, c, pk_act(ACT, pk_rowv_load(w.x, c) + pk_bias(&w, c)));
    }
}
