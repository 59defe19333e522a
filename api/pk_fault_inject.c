/* The router's side of fault injection (pk_internal.h): it owns the one
 * plan and hands it to the context's backend, whose sites consult it. */
#include "pk_core.h"
#include "pk_fault.h"
#include "pk_internal.h"

static pk_fault_plan plan;

pk_status pk_internal_fault_inject(pk_context *ctx, pk_internal_fault_kind kind, int n)
{
    static const char FN[] = "pk_internal_fault_inject";
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "%s: 'ctx' is NULL", FN);
    if ((unsigned)kind > PK_INTERNAL_FAULT_LAUNCH)
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: 'kind' %d is not a fault", FN, (int)kind);
    if ((kind == PK_INTERNAL_FAULT_ALLOC || kind == PK_INTERNAL_FAULT_LAUNCH) && n < 0)
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "%s: 'n' = %d is negative", FN, n);
    if (!ctx->be->fault_inject)
        return pk_fail(ctx, PK_ERR_UNSUPPORTED, "%s: backend %s takes no fault injection", FN,
                       pk_backend_name(ctx->be->kind));
    if (ctx->lost && kind != PK_INTERNAL_FAULT_OFF)
        return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "%s: context lost earlier (%s)", FN,
                       pk_status_string(ctx->lost));
    plan = (pk_fault_plan){0};
    if (kind != PK_INTERNAL_FAULT_OFF) plan.dev = ctx->dev;
    /* -1 is a count no site reaches: only ALLOC fails an allocation */
    plan.countdown = kind == PK_INTERNAL_FAULT_ALLOC ? n : -1;
    plan.launch = kind == PK_INTERNAL_FAULT_LAUNCH ? n : -1;
    plan.device_fault = kind == PK_INTERNAL_FAULT_DEVICE;
    pk_fault_attach(&plan); /* ref lives in this image */
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, FN, ctx->be->fault_inject(ctx->dev, &plan, &msg), &msg);
}

pk_status pk_internal_fault_report(const pk_context *ctx, int *reached, int *fired)
{
    if (!ctx || !reached || !fired)
        return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_internal_fault_report: an argument is NULL");
    int armed = plan.dev && plan.dev == ctx->dev;
    *reached = armed ? plan.reached : 0;
    *fired = armed ? plan.fired : 0;
    return PK_SUCCESS;
}

void pk_fault_forget(const pk_context *ctx)
{
    if (plan.dev && plan.dev == ctx->dev) plan = (pk_fault_plan){0};
}
