/* Contexts and buffers. */
#include <stdlib.h>
#include <string.h>

#include "pk_core.h"
#include "pk_handles.h"
#include "pk_internal.h"

pk_status pk_context_open(const pk_backend_iface *be, int index, void *queue, int foreign, pk_context **out)
{
    const char *fn = foreign ? "pk_open_on_queue" : "pk_open";
    pk_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return pk_fail(NULL, PK_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    ctx->be = be;
    pk_msg msg = {{0}};
    pk_status s = be->device_info(index, &ctx->info, &msg);
    if (s == PK_SUCCESS && foreign && be->kind == PK_BACKEND_REF && queue)
        s = pk_msgf(&msg, PK_ERR_INVALID_ARGUMENT, "'queue': ref has no queue (only NULL)");
    /* a NULL queue asks for the backend's default stream; a queue of the
     * context's own is the backend's when none is passed at all */
    if (s == PK_SUCCESS && foreign && !queue && be->kind == PK_BACKEND_OPENCL)
        s = pk_msgf(&msg, PK_ERR_NULL_ARGUMENT, "'queue' is NULL: OpenCL has no default queue");
    if (s == PK_SUCCESS) s = be->open(index, foreign ? (queue ? queue : PK_DEFAULT_QUEUE) : NULL, &ctx->dev, &msg);
    if (s != PK_SUCCESS) {
        free(ctx);
        return pk_fail(NULL, s, "%s: %s device %d: %s", fn, pk_backend_name(be->kind), index, msg.text);
    }
    ctx->info.backend = be->kind;
    ctx->info.index = index;
    *out = ctx;
    pk_clear_error(NULL);
    return PK_SUCCESS;
}

static pk_status open_explicit(pk_backend b, int index, void *queue, int foreign, pk_context **out)
{
    const char *fn = foreign ? "pk_open_on_queue" : "pk_open";
    const char *why = NULL;
    const pk_backend_iface *be = pk_registry_get(b, &why);
    if (!be)
        return pk_fail(NULL, PK_ERR_BACKEND_UNAVAILABLE, "%s: backend %s unavailable: %s", fn,
                       pk_backend_name(b), why);
    int n = be->device_count();
    if (index < 0 || index >= n)
        return pk_fail(NULL, PK_ERR_NO_DEVICE, "%s: 'index' %d: backend %s has %d device(s)", fn,
                       index, pk_backend_name(b), n);
    return pk_context_open(be, index, queue, foreign, out);
}

pk_status pk_open_on_queue(pk_backend b, int index, void *queue, pk_context **out)
{
    if (!out) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_open_on_queue: 'out' is NULL");
    *out = NULL;
    if ((unsigned)b >= PK_BACKEND_COUNT || b == PK_BACKEND_AUTO)
        return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT,
                       "pk_open_on_queue: 'b': not a backend (%d); a queue belongs to one backend, not auto",
                       (int)b);
    return open_explicit(b, index, queue, 1, out);
}

/* The automatic order: CUDA, HIP, an OpenCL GPU, an OpenCL CPU, ref. */
static pk_status open_auto(pk_context **out)
{
    static const pk_backend gpu_first[] = {PK_BACKEND_CUDA, PK_BACKEND_HIP};
    for (size_t i = 0; i < sizeof gpu_first / sizeof gpu_first[0]; i++) {
        const pk_backend_iface *be = pk_registry_get(gpu_first[i], NULL);
        if (be && pk_context_open(be, 0, NULL, 0, out) == PK_SUCCESS) return PK_SUCCESS;
    }
    const pk_backend_iface *cl = pk_registry_get(PK_BACKEND_OPENCL, NULL);
    if (cl) {
        int n = cl->device_count();
        for (int want_cpu = 0; want_cpu < 2; want_cpu++)
            for (int i = 0; i < n; i++) {
                pk_device_info info;
                pk_msg msg;
                if (cl->device_info(i, &info, &msg) != PK_SUCCESS || info.is_cpu != want_cpu)
                    continue;
                if (pk_context_open(cl, i, NULL, 0, out) == PK_SUCCESS) return PK_SUCCESS;
            }
    }
    return open_explicit(PK_BACKEND_REF, 0, NULL, 0, out);
}

pk_status pk_open(pk_backend b, int index, pk_context **out)
{
    if (!out) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_open: 'out' is NULL");
    *out = NULL;
    if ((unsigned)b >= PK_BACKEND_COUNT)
        return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT, "pk_open: 'b': not a backend (%d)", (int)b);
    if (b != PK_BACKEND_AUTO) return open_explicit(b, index, NULL, 0, out);
    const char *env = getenv("PORTKERN_BACKEND");
    if (env && *env && strcmp(env, "auto") != 0) {
        char name[32];
        size_t len = strcspn(env, ":");
        if (len >= sizeof name)
            return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT,
                           "pk_open: PORTKERN_BACKEND=\"%.64s\" is not a backend", env);
        memcpy(name, env, len);
        name[len] = '\0';
        pk_backend eb;
        if (pk_backend_from_name(name, &eb) != PK_SUCCESS || eb == PK_BACKEND_AUTO)
            return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT,
                           "pk_open: PORTKERN_BACKEND=\"%.64s\" is not a backend", env);
        char *end = NULL;
        long idx = env[len] == ':' ? strtol(env + len + 1, &end, 10) : 0;
        if (env[len] == ':' && (*end || end == env + len + 1 || idx < 0 || idx > 1 << 20))
            return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT,
                           "pk_open: PORTKERN_BACKEND=\"%.64s\": bad device index", env);
        return open_explicit(eb, (int)idx, NULL, 0, out);
    }
    return open_auto(out);
}

pk_status pk_internal_open_ref_f32(pk_context **out)
{
    if (!out) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_internal_open_ref_f32: 'out' is NULL");
    const pk_backend_iface *be = pk_registry_ref_f32();
    pk_msg msg = {{0}};
    if (be->init(&msg) != PK_SUCCESS)
        return pk_fail(NULL, PK_ERR_BACKEND_UNAVAILABLE, "pk_internal_open_ref_f32: %s", msg.text);
    return pk_context_open(be, 0, NULL, 0, out);
}

/* A buffer's memory back to its owner, or an event freed; then what the
 * handle was holding for its producer (a DLPack tensor's deleter) */
void pk_release_record(const pk_buf_rec *r)
{
    const pk_backend_iface *be = r->ctx->be;
    if (r->kind == PK_REC_EVENT) be->event_free(r->ctx->dev, r->object);
    else if (r->kind == PK_REC_GRAPH) be->graph_free(r->ctx->dev, r->object);
    else if (r->wrapped) be->unwrap(r->ctx->dev, r->mem);
    else be->free(r->ctx->dev, r->mem);
    if (r->on_release) r->on_release(r->release_arg);
}

pk_status pk_close(pk_context *ctx)
{
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_close: 'ctx' is NULL");
    pk_msg msg = {{0}};
    if (ctx->recording) { /* the recording is dropped */
        void *g = NULL;
        if (ctx->be->graph_end(ctx->dev, &g, &msg) == PK_SUCCESS && g) ctx->be->graph_free(ctx->dev, g);
        ctx->recording = 0;
        msg.text[0] = 0;
    }
    pk_status s = ctx->lost ? PK_SUCCESS : ctx->be->finish(ctx->dev, &msg);
    pk_handle_remove_all(ctx, pk_release_record);
    pk_fault_forget(ctx);
    ctx->be->close(ctx->dev);
    free(ctx);
    if (s != PK_SUCCESS) return pk_fail(NULL, s, "pk_close: pending work failed: %s", msg.text);
    pk_clear_error(NULL);
    return PK_SUCCESS;
}

pk_status pk_context_info(const pk_context *ctx, pk_device_info *info)
{
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_context_info: 'ctx' is NULL");
    if (!info)
        return pk_fail((pk_context *)ctx, PK_ERR_NULL_ARGUMENT, "pk_context_info: 'info' is NULL");
    *info = ctx->info;
    return PK_SUCCESS;
}

pk_status pk_finish(pk_context *ctx)
{
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_finish: 'ctx' is NULL");
    if (ctx->lost) return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "pk_finish: context lost earlier (%s)",
                                  pk_status_string(ctx->lost));
    pk_status rs = pk_not_recording(ctx, "pk_finish");
    if (rs != PK_SUCCESS) return rs;
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, "pk_finish", ctx->be->finish(ctx->dev, &msg), &msg);
}

/* ---- buffers */

pk_status pk_check_buffer(const char *fn, const char *name, const pk_buffer *b, pk_buf_rec *r)
{
    if (!b) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "%s: '%s' is NULL", fn, name);
    if (!pk_handle_get(b, r))
        return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT,
                       "%s: '%s' is not a live pk_buffer (freed, its context closed, or never allocated)",
                       fn, name);
    return PK_SUCCESS;
}

/* [off, off+n) inside a buffer of `size` bytes, without overflow. */
static pk_status check_range(pk_context *ctx, const char *fn, const char *name, size_t size,
                             size_t off, size_t n)
{
    if (off > size || n > size - off)
        return pk_fail(ctx, PK_ERR_OUT_OF_BOUNDS,
                       "%s: '%s': bytes [%zu, +%zu) reach past the buffer's %zu bytes", fn, name,
                       off, n, size);
    return PK_SUCCESS;
}

pk_status pk_alloc(pk_context *ctx, size_t bytes, pk_buffer **out)
{
    if (!ctx) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_alloc: 'ctx' is NULL");
    if (!out) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "pk_alloc: 'out' is NULL");
    *out = NULL;
    if (ctx->lost) return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "pk_alloc: context lost earlier");
    pk_status rs = pk_not_recording(ctx, "pk_alloc");
    if (rs != PK_SUCCESS) return rs;
    if (bytes == 0) return pk_fail(ctx, PK_ERR_BAD_SIZE, "pk_alloc: 'bytes' is 0");
    if (bytes > (size_t)INT64_MAX)
        return pk_fail(ctx, PK_ERR_OUT_OF_MEMORY, "pk_alloc: 'bytes' = %zu is more than any device has",
                       bytes);
    pk_buf_rec r = {ctx, NULL, bytes, 0, NULL, NULL, PK_REC_BUFFER, NULL};
    pk_msg msg = {{0}};
    pk_status s = ctx->be->alloc(ctx->dev, bytes, &r.mem, &msg);
    if (s != PK_SUCCESS) return pk_fail(ctx, s, "pk_alloc: 'bytes' = %zu: %s", bytes, msg.text);
    pk_buffer *b = pk_handle_add(&r);
    if (!b) {
        ctx->be->free(ctx->dev, r.mem);
        return pk_fail(ctx, PK_ERR_OUT_OF_MEMORY, "pk_alloc: out of host memory for the buffer table");
    }
    *out = b;
    pk_clear_error(ctx);
    return PK_SUCCESS;
}

pk_status pk_free(pk_buffer *b)
{
    if (!b) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_free: 'buf' is NULL");
    pk_buf_rec r;
    if (pk_handle_get(b, &r) && r.ctx->recording) return pk_not_recording(r.ctx, "pk_free");
    if (!pk_handle_remove(b, &r))
        return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT,
                       "pk_free: 'buf' is not a live pk_buffer (freed already, its context closed, or never "
                       "allocated)");
    /* the producer may reuse its memory once its deleter runs: not before
     * portkern's queued work on it is done */
    if (r.on_release && !r.ctx->lost) {
        pk_msg msg = {{0}};
        pk_status s = r.ctx->be->finish(r.ctx->dev, &msg);
        if (s != PK_SUCCESS) pk_backend_result(r.ctx, "pk_free", s, &msg);
    }
    pk_release_record(&r);
    return PK_SUCCESS;
}

size_t pk_buffer_size(const pk_buffer *b)
{
    pk_buf_rec r;
    return pk_handle_get(b, &r) ? r.size : 0;
}

pk_context *pk_buffer_context(const pk_buffer *b)
{
    pk_buf_rec r;
    return pk_handle_get(b, &r) ? r.ctx : NULL;
}

pk_status pk_upload(pk_buffer *dst, size_t off, const void *src, size_t bytes)
{
    pk_buf_rec D;
    pk_status s = pk_check_buffer("pk_upload", "dst", dst, &D);
    if (s != PK_SUCCESS) return s;
    pk_context *ctx = D.ctx;
    if (!src) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "pk_upload: 'src' is NULL");
    if ((s = check_range(ctx, "pk_upload", "dst_offset", D.size, off, bytes))) return s;
    if (ctx->lost) return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "pk_upload: context lost earlier");
    if ((s = pk_not_recording(ctx, "pk_upload"))) return s;
    if (bytes == 0) return PK_SUCCESS;
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, "pk_upload", ctx->be->upload(ctx->dev, D.mem, off, src, bytes, &msg),
                             &msg);
}

pk_status pk_download(pk_buffer *src, size_t off, void *dst, size_t bytes)
{
    pk_buf_rec S;
    pk_status s = pk_check_buffer("pk_download", "src", src, &S);
    if (s != PK_SUCCESS) return s;
    pk_context *ctx = S.ctx;
    if (!dst) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "pk_download: 'dst' is NULL");
    if ((s = check_range(ctx, "pk_download", "src_offset", S.size, off, bytes))) return s;
    if (ctx->lost) return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "pk_download: context lost earlier");
    if ((s = pk_not_recording(ctx, "pk_download"))) return s;
    if (bytes == 0) return PK_SUCCESS;
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, "pk_download",
                             ctx->be->download(ctx->dev, S.mem, off, dst, bytes, &msg), &msg);
}

pk_status pk_copy(pk_buffer *dst, size_t doff, pk_buffer *src, size_t soff, size_t bytes)
{
    pk_buf_rec D, S;
    pk_status s = pk_check_buffer("pk_copy", "dst", dst, &D);
    if (s == PK_SUCCESS) s = pk_check_buffer("pk_copy", "src", src, &S);
    if (s != PK_SUCCESS) return s;
    pk_context *ctx = D.ctx;
    if (S.ctx != ctx)
        return pk_fail(ctx, PK_ERR_WRONG_CONTEXT, "pk_copy: 'src' belongs to another context than 'dst'");
    if ((s = check_range(ctx, "pk_copy", "dst_offset", D.size, doff, bytes))) return s;
    if ((s = check_range(ctx, "pk_copy", "src_offset", S.size, soff, bytes))) return s;
    if (src == dst && doff != soff && (doff < soff ? soff - doff : doff - soff) < bytes)
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "pk_copy: 'src_offset': ranges overlap");
    if (ctx->lost) return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "pk_copy: context lost earlier");
    if (bytes == 0 || (src == dst && doff == soff)) return PK_SUCCESS;
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, "pk_copy",
                             ctx->be->copy(ctx->dev, D.mem, doff, S.mem, soff, bytes, &msg), &msg);
}

pk_status pk_fill(pk_buffer *dst, size_t off, size_t bytes, const void *pattern, size_t psize)
{
    pk_buf_rec D;
    pk_status s = pk_check_buffer("pk_fill", "dst", dst, &D);
    if (s != PK_SUCCESS) return s;
    pk_context *ctx = D.ctx;
    if (!pattern) return pk_fail(ctx, PK_ERR_NULL_ARGUMENT, "pk_fill: 'pattern' is NULL");
    if (psize != 1 && psize != 2 && psize != 4)
        return pk_fail(ctx, PK_ERR_INVALID_ARGUMENT, "pk_fill: 'pattern_size' %zu is not 1, 2 or 4",
                       psize);
    if (off % psize || bytes % psize)
        return pk_fail(ctx, PK_ERR_MISALIGNED,
                       "pk_fill: 'offset' %zu and 'bytes' %zu must be multiples of the pattern size %zu",
                       off, bytes, psize);
    if ((s = check_range(ctx, "pk_fill", "offset", D.size, off, bytes))) return s;
    if (ctx->lost) return pk_fail(ctx, PK_ERR_CONTEXT_LOST, "pk_fill: context lost earlier");
    if (bytes == 0) return PK_SUCCESS;
    pk_msg msg = {{0}};
    return pk_backend_result(ctx, "pk_fill",
                             ctx->be->fill(ctx->dev, D.mem, off, bytes, pattern, psize, &msg), &msg);
}
