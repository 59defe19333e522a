/* Argument checks shared by every op (the statuses are in ERRORS.md). */
#ifndef PK_CHECK_H
#define PK_CHECK_H

#include "pk_core.h"

/* ctx is non-NULL and usable. */
pk_status pk_check_ctx(pk_context *ctx, const char *fn);

/* t is a valid tensor of ctx with ndim in [min_ndim, max_ndim]: buffer,
 * dtype, sizes, strides, alignment and extent within the buffer. */
pk_status pk_check_tensor(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t,
                          int min_ndim, int max_ndim);

/* An output may not map two elements to one address through a 0 stride. */
pk_status pk_check_output(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t);

pk_status pk_check_dtype(pk_context *ctx, const char *fn, const char *name, const pk_tensor *t,
                         pk_dtype want);

pk_status pk_check_act(pk_context *ctx, const char *fn, const char *name, pk_activation act);

/* Dimension `dim` of t (counted from the right: 0 = last) has size `want`. */
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
