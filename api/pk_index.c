/* pk_gather_rows, pk_scatter_rows: checks, then the backend's index_rows. */
#include "pk_check.h"

static pk_status index_rows(pk_context *ctx, const char *fn, int scatter, const char *src_name, const pk_tensor *src,
                            const pk_tensor *index, const pk_tensor *out)
{
    pk_status s;
    if ((s = pk_check_ctx(ctx, fn))) return s;
    if ((s = pk_check_tensor(ctx, fn, src_name, src, 2, 2)) || (s = pk_check_tensor(ctx, fn, "out", out, 2, 2)) ||
        (s = pk_check_output(ctx, fn, "out", out)) || (s = pk_check_dtype(ctx, fn, "out", out, src->dtype)) ||
        (s = pk_check_dim(ctx, fn, "out", out, 0, src->shape[1], "columns")))
        return s;
    /* the indexed side's rows bound the indices; the other side has n */
    const pk_tensor *listed = scatter ? src : out;
    const int64_t n = listed->shape[0], rows = scatter ? out->shape[0] : src->shape[0];
    if (!index) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: 'index' is NULL", fn);
    if ((s = pk_check_index(ctx, fn, "index", index, n))) return s;
    if (n > INT32_MAX || rows > INT32_MAX || src->shape[1] > INT32_MAX)
        return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: %lld rows of %lld, %lld columns: above 2^31 - 1 is not supported", fn,
                       (long long)n, (long long)rows, (long long)src->shape[1]);
    if ((s = pk_check_disjoint(ctx, fn, "out", out, src_name, src, 0)) ||
        (s = pk_check_disjoint(ctx, fn, "out", out, "index", index, 0)))
        return s;
    if (n == 0 || src->shape[1] == 0) {
        pk_clear_error(ctx);
        return PK_SUCCESS;
    }
    if (!ctx->be->index_rows)
        return pk_fail(ctx, PK_ERR_UNSUPPORTED, "%s: backend %s has no rows by index", fn,
                       pk_backend_name(ctx->be->kind));
    pk_index_problem p = {scatter, n, rows, src->shape[1], pk_view_of(src), pk_view_of(out), pk_view_of(index)};
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, fn, ctx->be->index_rows(ctx->dev, &p, &msg), &msg);
}

pk_status pk_gather_rows(pk_context *ctx, const pk_tensor *table, const pk_tensor *index, const pk_tensor *out)
{
    return index_rows(ctx, "pk_gather_rows", 0, "table", table, index, out);
}

pk_status pk_scatter_rows(pk_context *ctx, const pk_tensor *src, const pk_tensor *index, const pk_tensor *out)
{
    return index_rows(ctx, "pk_scatter_rows", 1, "src", src, index, out);
}
