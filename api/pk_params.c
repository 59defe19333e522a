/* The router's side of the named kernel parameters (pk_internal.h): checks
 * the arguments and hands the request to the context's backend. */
#include "pk_core.h"
#include "pk_internal.h"

pk_status pk_internal_params(pk_context *ctx, const char *request, char *reply, size_t n)
{
    static const char FN[] = "pk_internal_params";
    if (!ctx || !request || (!reply && n))
        return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "%s: an argument is NULL", FN);
    if (!ctx->be->params)
        return pk_fail(ctx, PK_ERR_UNSUPPORTED, "%s: backend %s has no named kernel parameters", FN,
                       pk_backend_name(ctx->be->kind));
    if (ctx->lost) return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "%s: context lost earlier (%s)", FN, pk_status_string(ctx->lost));
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, FN, ctx->be->params(ctx->dev, request, reply, n, &msg), &msg);
}
