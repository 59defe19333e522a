/* Graphs: a context's calls recorded once and replayed (portkern.h). */
#include "pk_core.h"
#include "pk_handles.h"

pk_status pk_not_recording(pk_context *ctx, const char *fn)
{
    if (!ctx->recording) return PK_SUCCESS;
    return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT,
                   "%s: not while the context records a graph (pk_graph_begin): it would copy from the host or "
                   "wait, which a replay cannot",
                   fn);
}

pk_status pk_graph_begin(pk_context *ctx)
{
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_graph_begin: 'ctx' is NULL");
    if (ctx->lost) return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "pk_graph_begin: context lost earlier");
    if (ctx->recording) return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "pk_graph_begin: the context records already");
    if (!ctx->be->graph_begin)
        return pk_fail(ctx, PK_ERR_UNSUPPORTED, "pk_graph_begin: backend %s records no graphs",
                       pk_backend_name(ctx->be->kind));
    pk_msg msg = {{0}};
    pk_status s = ctx->be->graph_begin(ctx->dev, &msg);
    if (s != PK_SUCCESS) return pk_backend_result(ctx, "pk_graph_begin", s, &msg);
    ctx->recording = 1;
    pk_clear_error(ctx);
    return PK_SUCCESS;
}

pk_status pk_graph_end(pk_context *ctx, pk_graph **out)
{
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_graph_end: 'ctx' is NULL");
    if (!out) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "pk_graph_end: 'out' is NULL");
    *out = NULL;
    if (!ctx->recording) return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "pk_graph_end: the context records no graph");
    pk_buf_rec r = {ctx, NULL, 0, 0, NULL, NULL, PK_REC_GRAPH, NULL};
    pk_msg msg = {{0}};
    pk_status s = ctx->be->graph_end(ctx->dev, &r.object, &msg);
    ctx->recording = 0;
    if (s != PK_SUCCESS) return pk_backend_result(ctx, "pk_graph_end", s, &msg);
    pk_graph *g = (pk_graph *)pk_handle_add(&r);
    if (!g) {
        ctx->be->graph_free(ctx->dev, r.object);
        return pk_fail(ctx, PK_ERR_OUT_OF_MEMORY, "pk_graph_end: out of host memory for the handle table");
    }
    *out = g;
    pk_clear_error(ctx);
    return PK_SUCCESS;
}

pk_status pk_graph_launch(pk_graph *graph)
{
    if (!graph) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_graph_launch: 'graph' is NULL");
    pk_buf_rec r;
    if (!pk_handle_get_kind(graph, PK_REC_GRAPH, &r))
        return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT,
                       "pk_graph_launch: 'graph' is not a live pk_graph (freed, its context closed, or never made)");
    pk_context *ctx = r.ctx;
    if (ctx->lost) return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "pk_graph_launch: context lost earlier");
    if (ctx->recording)
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "pk_graph_launch: not while the context records a graph");
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, "pk_graph_launch", ctx->be->graph_launch(ctx->dev, r.object, &msg), &msg);
}

pk_status pk_graph_free(pk_graph *graph)
{
    if (!graph) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_graph_free: 'graph' is NULL");
    pk_buf_rec r;
    /* freeing the last graph frees the buffers kept for it, which waits:
     * not while the context records */
    if (pk_handle_get_kind(graph, PK_REC_GRAPH, &r) && r.ctx->recording) return pk_not_recording(r.ctx, "pk_graph_free");
    if (!pk_handle_remove_kind(graph, PK_REC_GRAPH, &r))
        return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT,
                       "pk_graph_free: 'graph' is not a live pk_graph (freed already, its context closed, or never made)");
    pk_release_record(&r);
    return PK_SUCCESS;
}
