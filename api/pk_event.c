/* Events on a context's queue. They live in the handle table beside the
 * buffers (pk_handles.h): a stale event is recognised, and pk_close frees
 * the events of its context. */
#include "pk_core.h"
#include "pk_handles.h"

static pk_status live_event(const char *fn, const char *name, const pk_event *e, pk_buf_rec *r)
{
    if (!e) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "%s: '%s' is NULL", fn, name);
    if (!pk_handle_get_kind(e, PK_REC_EVENT, r))
        return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT,
                       "%s: '%s' is not a live pk_event (freed, its context closed, or never recorded)", fn, name);
    return PK_SUCCESS;
}

pk_status pk_event_record(pk_context *ctx, pk_event **out)
{
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_event_record: 'ctx' is NULL");
    if (!out) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "pk_event_record: 'out' is NULL");
    *out = NULL;
    if (ctx->lost) return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "pk_event_record: context lost earlier");
    pk_status rs = pk_not_recording(ctx, "pk_event_record");
    if (rs != PK_SUCCESS) return rs;
    pk_buf_rec r = {ctx, NULL, 0, 0, NULL, NULL, PK_REC_EVENT, NULL};
    pk_msg msg = {{0}};
    pk_status s = ctx->be->event_record(ctx->dev, &r.object, &msg);
    if (s != PK_SUCCESS) return pk_backend_result(ctx, "pk_event_record", s, &msg);
    pk_event *e = (pk_event *)pk_handle_add(&r);
    if (!e) {
        ctx->be->event_free(ctx->dev, r.object);
        return pk_fail(ctx, PK_ERR_OUT_OF_MEMORY, "pk_event_record: out of host memory for the handle table");
    }
    *out = e;
    pk_clear_error(ctx);
    return PK_SUCCESS;
}

pk_status pk_event_wait(pk_context *ctx, const pk_event *event)
{
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_event_wait: 'ctx' is NULL");
    pk_buf_rec r;
    pk_status s = live_event("pk_event_wait", "event", event, &r);
    if (s != PK_SUCCESS) return pk_fail(ctx, s, "%s", pk_last_error(NULL));
    if (ctx->lost) return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "pk_event_wait: context lost earlier");
    if ((s = pk_not_recording(ctx, "pk_event_wait"))) return s;
    if (r.ctx->be != ctx->be)
        return pk_fail(ctx, PK_ERR_WRONG_CONTEXT, "pk_event_wait: 'event' is of a %s context; ctx is %s",
                       pk_backend_name(r.ctx->info.backend), pk_backend_name(ctx->info.backend));
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, "pk_event_wait", ctx->be->event_wait(ctx->dev, r.ctx->dev, r.object, &msg), &msg);
}

pk_status pk_event_synchronize(pk_event *event)
{
    pk_buf_rec r;
    pk_status s = live_event("pk_event_synchronize", "event", event, &r);
    if (s != PK_SUCCESS) return s;
    if (r.ctx->lost)
        return pk_fail(r.ctx, PK_ERR_CONTEXT_LOST, "pk_event_synchronize: the event's context was lost earlier");
    if ((s = pk_not_recording(r.ctx, "pk_event_synchronize"))) return s;
    pk_msg msg = {{0}};
    return pk_backend_result(r.ctx, "pk_event_synchronize", r.ctx->be->event_sync(r.ctx->dev, r.object, &msg), &msg);
}

pk_status pk_event_elapsed(const pk_event *start, const pk_event *end, float *ms)
{
    pk_buf_rec a, b;
    pk_status s = live_event("pk_event_elapsed", "start", start, &a);
    if (s == PK_SUCCESS) s = live_event("pk_event_elapsed", "end", end, &b);
    if (s != PK_SUCCESS) return s;
    if (!ms) return pk_fail(a.ctx, PK_ERR_NULL_ARGUMENT, "pk_event_elapsed: 'ms' is NULL");
    if (b.ctx != a.ctx)
        return pk_fail(a.ctx, PK_ERR_WRONG_CONTEXT, "pk_event_elapsed: 'end' is of another context than 'start'");
    if (a.ctx->lost)
        return pk_fail(a.ctx, PK_ERR_CONTEXT_LOST, "pk_event_elapsed: the events' context was lost earlier");
    if ((s = pk_not_recording(a.ctx, "pk_event_elapsed"))) return s;
    pk_msg msg = {{0}};
    return pk_backend_result(a.ctx, "pk_event_elapsed",
                             a.ctx->be->event_elapsed(a.ctx->dev, a.object, b.object, ms, &msg), &msg);
}

pk_status pk_event_free(pk_event *event)
{
    if (!event) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_event_free: 'event' is NULL");
    pk_buf_rec r;
    if (!pk_handle_remove_kind(event, PK_REC_EVENT, &r))
        return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT,
                       "pk_event_free: 'event' is not a live pk_event (freed already, its context closed, or never "
                       "recorded)");
    pk_release_record(&r);
    return PK_SUCCESS;
}
