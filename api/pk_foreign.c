/* The caller's queue and memory: a context's native queue, buffers that
 * wrap memory portkern does not own, and native handles back. */
#include <stdint.h>

#include "pk_core.h"
#include "pk_foreign.h"
#include "pk_handles.h"

pk_status pk_context_queue(const pk_context *ctx, void **queue)
{
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_context_queue: 'ctx' is NULL");
    if (!queue) return pk_fail((pk_context *)ctx, PK_ERR_NULL_ARGUMENT, "pk_context_queue: 'queue' is NULL");
    *queue = ctx->be->native_queue ? ctx->be->native_queue(ctx->dev) : NULL;
    return PK_SUCCESS;
}

pk_status pk_wrap_memory(pk_context *ctx, const char *fn, uintptr_t handle, size_t bytes,
                         void (*on_release)(void *), void *release_arg, pk_buffer **out)
{
    if (ctx->lost) return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "%s: context lost earlier", fn);
    if (bytes == 0) return pk_fail(ctx, PK_ERR_BAD_SIZE, "%s: 'bytes' is 0", fn);
    if (bytes > (size_t)INT64_MAX || handle > UINTPTR_MAX - bytes)
        return pk_fail(ctx, PK_ERR_OUT_OF_BOUNDS, "%s: 'bytes' = %zu from 'handle' wraps around the address space",
                       fn, bytes);
    if (!ctx->be->wrap)
        return pk_fail(ctx, PK_ERR_UNSUPPORTED, "%s: backend %s cannot wrap the caller's memory", fn,
                       pk_backend_name(ctx->be->kind));
    pk_buf_rec r = {ctx, NULL, bytes, 1, on_release, release_arg, PK_REC_BUFFER, NULL};
    pk_msg msg = {{0}};
    pk_status s = ctx->be->wrap(ctx->dev, handle, bytes, &r.mem, &msg);
    if (s != PK_SUCCESS) return pk_fail(ctx, s, "%s: %s", fn, msg.text);
    pk_buffer *b = pk_handle_add(&r);
    if (!b) {
        ctx->be->unwrap(ctx->dev, r.mem);
        return pk_fail(ctx, PK_ERR_OUT_OF_MEMORY, "%s: out of host memory for the buffer table", fn);
    }
    *out = b;
    pk_clear_error(ctx);
    return PK_SUCCESS;
}

pk_status pk_buffer_wrap(pk_context *ctx, uintptr_t handle, size_t bytes, pk_buffer **out)
{
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_buffer_wrap: 'ctx' is NULL");
    if (!out) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "pk_buffer_wrap: 'out' is NULL");
    *out = NULL;
    if (!handle) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "pk_buffer_wrap: 'handle' is 0");
    return pk_wrap_memory(ctx, "pk_buffer_wrap", handle, bytes, NULL, NULL, out);
}

pk_status pk_buffer_handle(const pk_buffer *buf, uintptr_t *handle)
{
    pk_buf_rec r;
    pk_status s = pk_check_buffer("pk_buffer_handle", "buf", buf, &r);
    if (s != PK_SUCCESS) return s;
    if (!handle) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_buffer_handle: 'handle' is NULL");
    *handle = (uintptr_t)r.mem;
    return PK_SUCCESS;
}

int pk_buffer_is_wrapped(const pk_buffer *buf)
{
    pk_buf_rec r;
    return pk_handle_get(buf, &r) ? r.wrapped : -1;
}
