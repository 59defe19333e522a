/* Events on a context's queue, for the bench (pk_internal.h). */
#include <stdlib.h>

#include "pk_core.h"
#include "pk_handles.h"
#include "pk_internal.h"

struct pk_event {
    pk_context *ctx;
    void *handle;
};

pk_status pk_internal_event_record(pk_context *ctx, pk_event **out)
{
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_internal_event_record: 'ctx' is NULL");
    if (!out) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "pk_internal_event_record: 'out' is NULL");
    pk_event *e = calloc(1, sizeof *e);
    if (!e) return pk_fail(ctx, PK_ERR_OUT_OF_MEMORY, "pk_internal_event_record: out of host memory");
    pk_msg msg = {{0}};
    pk_status s = ctx->be->event_record(ctx->dev, &e->handle, &msg);
    if (s != PK_SUCCESS) {
        free(e);
        return pk_backend_result(ctx, "pk_internal_event_record", s, &msg);
    }
    e->ctx = ctx;
    *out = e;
    return PK_SUCCESS;
}

pk_status pk_internal_event_elapsed(pk_event *start, pk_event *end, float *ms)
{
    if (!start || !end || !ms)
        return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_internal_event_elapsed: NULL argument");
    pk_context *ctx = start->ctx;
    if (end->ctx != ctx)
        return pk_fail(ctx, PK_ERR_WRONG_CONTEXT, "pk_internal_event_elapsed: 'end' is of another context");
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, "pk_internal_event_elapsed",
                             ctx->be->event_elapsed(ctx->dev, start->handle, end->handle, ms, &msg), &msg);
}

void pk_internal_event_free(pk_event *e)
{
    if (!e) return;
    e->ctx->be->event_free(e->ctx->dev, e->handle);
    free(e);
}

uintptr_t pk_internal_buffer_handle(const pk_buffer *b)
{
    pk_buf_rec r;
    return pk_handle_get(b, &r) ? (uintptr_t)r.mem : 0;
}

void *pk_internal_native_queue(const pk_context *ctx)
{
    return ctx && ctx->be->native_queue ? ctx->be->native_queue(ctx->dev) : NULL;
}
