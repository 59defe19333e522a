/* Argument checks shared by every op (the statuses are in ERRORS.md). */
#ifndef PK_CHECK_H
#define PK_CHECK_H

#include "pk_core.h"

/* ctx is non-NULL and usable. */
pk_status pk_check_ctx(pk_context *ctx, const char *fn);

/* t is a valid tensor of ctx with ndim in [min_ndim, max_ndim]: buffer,
 * dtype (a float type: i32 is for index tensors alone), sizes, strides,
 * alignment and extent within the buffer. */
pk_status pk_check_tensor(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t,
                          int min_ndim, int max_ndim);

/* pk_check_tensor's checks, any dtype i32 included */
pk_status pk_check_tensor_any(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t,
                              int min_ndim, int max_ndim);

/* t is an index tensor of ctx (device positions or lengths): i32, n
 * elements, contiguous. */
pk_status pk_check_index(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t, int64_t n);

/* An output may not map two elements to one byte: no 0 stride, and sorted
 * by stride each dim steps past what the smaller ones reach. */
pk_status pk_check_output(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t);

/* The output `out` shares no byte with `in` (either may be NULL), or, when
 * may_be_same, is exactly `in` (same buffer, offset, dtype, shape and
 * strides). Overlap that cannot be disproved by byte ranges or by a common
 * row period is refused. */
pk_status pk_check_disjoint(pk_context *ctx, const char *fn, const char *out_name, const pk_tensor *out,
                            const char *in_name, const pk_tensor *in, int may_be_same);

/* A reduction over `extent` values must read memory: refused when both
 * inputs that carry it broadcast it (stride 0), since nothing would bound
 * its work. */
pk_status pk_check_stored(pk_context *ctx, const char *fn, const char *what, int64_t extent, const char *name_a,
                          int64_t stride_a, const char *name_b, int64_t stride_b);

pk_status pk_check_dtype(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t,
                         pk_dtype want);

pk_status pk_check_act(pk_context *ctx, const char *fn, const char *name, pk_activation act);

/* Dimension `from_right` of t (0 = last) has size `want`; `what` names it
 * in the message. */
pk_status pk_check_dim(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t,
                       int from_right, int64_t want, const char *what);

int64_t pk_numel(const pk_tensor *t);

/* The backend view of t: element offset, dtype, strides padded at the
 * front (with 0) to PK_MAX_DIMS so that stride[PK_MAX_DIMS-1] is the last. */
pk_view pk_view_of(const pk_tensor *t);
/* An absent operand. */
pk_view pk_view_none(void);

/* "[2, 3, 4]" */
const char *pk_shape_str(const pk_tensor *t, char *buf, size_t n);

#endif
