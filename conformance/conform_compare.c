/* The numerics rule (README "Numerics") and the memory checks on an output.
 *
 * Over the logical output elements where the oracle (ref, float64
 * accumulation) is finite:
 *   err  = max |out - ref64| / max(max |ref64|, tiny)
 *   nmse = sum (out - ref64)^2 / max(sum ref64^2, tiny)
 * and the same two for the same-precision reference (inputs in the dtype,
 * f32 accumulation, output rounded to the dtype): err_sp, nmse_sp.
 * Pass iff err <= 2 err_sp + floor_err and nmse <= 2 nmse_sp + floor_nmse.
 *
 * Beyond that, every one of these fails:
 *  - the oracle is NaN and the output is not NaN; the oracle is +-inf and
 *    the output is not the same inf; the oracle is finite and the output
 *    is not (a NaN or an overflow);
 *  - an output element still holding the poison (never written);
 *  - any element of the buffer outside the logical tensor (before the
 *    offset, in the gaps between strided rows, after the end) that no
 *    longer holds what was uploaded (written out of range).
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"

/* Floors of the max-error rule, by the output's dtype.
 *
 * They cover what twice the same-precision error cannot: a small output
 * whose same-precision result happens to round exactly like float64
 * (err_sp = 0) while the target, which accumulates in another order or
 * uses other transcendental functions, lands one rounding step away. One
 * unit in the last place relative to the largest output is at most
 * 2^-10 = 9.8e-4 for f16 and 2^-7 = 7.8e-3 for bf16, so the floors are
 * 1e-3 and 8e-3: one ulp, never two. For f32 the output rounding is
 * negligible and the floor covers transcendental functions within a few
 * ulp of the correctly rounded value (OpenCL allows exp 3 ulp, tanh 5,
 * erf 16) on top of a different summation order: 2e-6, i.e. ~16 ulp.
 *
 * A real bug is orders of magnitude above these: inputs are drawn so that
 * outputs are O(1), so a missed bias, a wrong row, a wrong scale or an
 * off-by-one mask moves some element by 1e-2 .. 1 of the largest output.
 */
double cf_floor_err(pk_dtype dt)
{
    switch (dt) {
    case PK_F32: return 2e-6;
    case PK_F16: return 1e-3;
    default: return 8e-3;
    }
}

/* Floors of the nmse rule: floor_err squared, i.e. every element off by the
 * max floor relative to the output's scale. It matters for small outputs (a
 * single element one ulp away has nmse = ulp^2); any smaller floor would
 * fail a correct one-element result, any larger would let a systematic bias
 * that the max rule admits (every element half an ulp too far) pass twice. */
double cf_floor_nmse(pk_dtype dt)
{
    double f = cf_floor_err(dt);
    return f * f;
}

#define CF_TINY 1e-30

typedef struct acc {
    double max_err, max_ref, sum_err2, sum_ref2;
} acc;

static void acc_add(acc *a, double out, double ref)
{
    double e = fabs(out - ref);
    if (e > a->max_err) a->max_err = e;
    if (fabs(ref) > a->max_ref) a->max_ref = fabs(ref);
    a->sum_err2 += e * e;
    a->sum_ref2 += ref * ref;
}

static void idx_str(const cf_spec *s, int64_t flat, char *buf, size_t n)
{
    int64_t idx[PK_MAX_DIMS];
    for (int d = s->ndim - 1; d >= 0; d--) {
        idx[d] = s->shape[d] ? flat % s->shape[d] : 0;
        flat = s->shape[d] ? flat / s->shape[d] : 0;
    }
    size_t k = 0;
    k += (size_t)snprintf(buf + k, n - k, "[");
    for (int d = 0; d < s->ndim && k < n; d++)
        k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? "," : "", (long long)idx[d]);
    if (k < n) snprintf(buf + k, n - k, "]");
}

int cf_compare_output(const cf_arg *a, const void *init, const void *tgt, const void *ref64,
                      const void *ref32, cf_figures *fig, cf_result *res)
{
    const cf_spec *s = &a->spec;
    const pk_dtype dt = s->dtype;
    const uint32_t poison = cf_poison_bits(dt);
    const int64_t n = cf_spec_numel(s);
    const int64_t nbuf = cf_spec_buf_elems(s);
    int ok = 1;
    char where[96];

    acc t = {0, 0, 0, 0}, sp = {0, 0, 0, 0};
    int64_t n_unwritten = 0, n_nonfinite = 0, n_ref_unwritten = 0, first_unw = -1, first_nf = -1;
    double nf_out = 0, nf_ref = 0;

    unsigned char *covered = calloc((size_t)nbuf, 1);
    if (!covered) {
        cf_msg_append(res, "%s: out of host memory", a->name);
        return 0;
    }

    for (int64_t i = 0; i < n; i++) {
        int64_t pos = cf_spec_pos(s, i);
        covered[pos] = 1;
        uint32_t init_bits = cf_elem_bits(init, dt, pos);
        uint32_t out_bits = cf_elem_bits(tgt, dt, pos);
        if (init_bits == poison && out_bits == poison) {
            if (!n_unwritten++) first_unw = i;
            continue;
        }
        if (init_bits == poison && cf_elem_bits(ref64, dt, pos) == poison) {
            n_ref_unwritten++;
            continue;
        }
        double o = cf_elem_value(tgt, dt, pos);
        double r = cf_elem_value(ref64, dt, pos);
        double q = cf_elem_value(ref32, dt, pos);
        int bad;
        if (isnan(r)) bad = !isnan(o);
        else if (isinf(r)) bad = o != r;
        else bad = !isfinite(o);
        if (bad) {
            if (!n_nonfinite++) {
                first_nf = i;
                nf_out = o;
                nf_ref = r;
            }
            continue;
        }
        if (!isfinite(r)) continue;
        acc_add(&t, o, r);
        if (isfinite(q)) acc_add(&sp, q, r);
    }

    fig->have = 1;
    fig->err = t.max_err / fmax(t.max_ref, CF_TINY);
    fig->nmse = t.sum_err2 / fmax(t.sum_ref2, CF_TINY);
    fig->err_sp = sp.max_err / fmax(sp.max_ref, CF_TINY);
    fig->nmse_sp = sp.sum_err2 / fmax(sp.sum_ref2, CF_TINY);
    fig->floor_err = cf_floor_err(dt);
    fig->floor_nmse = cf_floor_nmse(dt);
    fig->thr_err = 2.0 * fig->err_sp + fig->floor_err;
    fig->thr_nmse = 2.0 * fig->nmse_sp + fig->floor_nmse;

    if (n_unwritten) {
        idx_str(s, first_unw, where, sizeof where);
        cf_msg_append(res, "'%s': %lld of %lld elements unwritten (first %s)", a->name,
                      (long long)n_unwritten, (long long)n, where);
        ok = 0;
    }
    if (n_ref_unwritten) {
        cf_msg_append(res, "'%s': the oracle (ref) left %lld elements unwritten", a->name,
                      (long long)n_ref_unwritten);
        ok = 0;
    }
    if (n_nonfinite) {
        idx_str(s, first_nf, where, sizeof where);
        cf_msg_append(res, "'%s': %lld non-finite mismatches (first %s: got %g, ref %g)", a->name,
                      (long long)n_nonfinite, where, nf_out, nf_ref);
        ok = 0;
    }
    if (!(fig->err <= fig->thr_err) || !(fig->nmse <= fig->thr_nmse)) {
        cf_msg_append(res, "'%s': err %.3g > %.3g or nmse %.3g > %.3g", a->name, fig->err,
                      fig->thr_err, fig->nmse, fig->thr_nmse);
        ok = 0;
    }

    /* Out of range: everything not covered must be as uploaded. */
    int64_t n_oob = 0, first_oob = -1;
    for (int64_t pos = 0; pos < nbuf; pos++) {
        if (covered[pos]) continue;
        if (cf_elem_bits(tgt, dt, pos) != cf_elem_bits(init, dt, pos)) {
            if (!n_oob++) first_oob = pos;
        }
    }
    if (n_oob) {
        cf_msg_append(res,
                      "'%s': %lld elements outside the tensor were written (first at buffer "
                      "element %lld; tensor offset %lld, extent %lld)",
                      a->name, (long long)n_oob, (long long)first_oob, (long long)s->offset,
                      (long long)cf_spec_extent(s));
        ok = 0;
    }
    free(covered);
    return ok;
}

void cf_msg_append(cf_result *r, const char *fmt, ...)
{
    size_t k = strlen(r->msg);
    if (k + 4 >= sizeof r->msg) return;
    if (k) {
        memcpy(r->msg + k, "; ", 3);
        k += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg + k, sizeof r->msg - k, fmt, ap);
    va_end(ap);
}
