/* Status names, error messages, version, dtypes and host conversions. */
#include <stdio.h>
#include <string.h>

#include "pk_core.h"
#include "pk_half.h"

/* Per thread, so that a failure without a context never shows in another
 * thread's pk_last_error(NULL); a context's message lives in the context,
 * which one thread uses at a time (portkern.h, "Threads"). */
static _Thread_local char thread_error[PK_MSG_MAX];

int pk_version(void) { return PK_VERSION; }

const char *pk_version_string(void)
{
#define PK_STR2(x) #x
#define PK_STR(x) PK_STR2(x)
    return PK_STR(PK_VERSION_MAJOR) "." PK_STR(PK_VERSION_MINOR) "." PK_STR(PK_VERSION_PATCH);
}

const char *pk_status_string(pk_status s)
{
    static const char *const names[PK_STATUS_COUNT] = {
        [PK_SUCCESS] = "PK_SUCCESS",
        [PK_ERR_NULL_ARGUMENT] = "PK_ERR_NULL_ARGUMENT",
        [PK_ERR_INVALID_ARGUMENT] = "PK_ERR_INVALID_ARGUMENT",
        [PK_ERR_DTYPE_MISMATCH] = "PK_ERR_DTYPE_MISMATCH",
        [PK_ERR_SHAPE_MISMATCH] = "PK_ERR_SHAPE_MISMATCH",
        [PK_ERR_BAD_SIZE] = "PK_ERR_BAD_SIZE",
        [PK_ERR_OUT_OF_BOUNDS] = "PK_ERR_OUT_OF_BOUNDS",
        [PK_ERR_MISALIGNED] = "PK_ERR_MISALIGNED",
        [PK_ERR_WRONG_CONTEXT] = "PK_ERR_WRONG_CONTEXT",
        [PK_ERR_OUT_OF_MEMORY] = "PK_ERR_OUT_OF_MEMORY",
        [PK_ERR_UNSUPPORTED] = "PK_ERR_UNSUPPORTED",
        [PK_ERR_NO_DEVICE] = "PK_ERR_NO_DEVICE",
        [PK_ERR_BACKEND_UNAVAILABLE] = "PK_ERR_BACKEND_UNAVAILABLE",
        [PK_ERR_BUILD_FAILED] = "PK_ERR_BUILD_FAILED",
        [PK_ERR_DEVICE_FAILURE] = "PK_ERR_DEVICE_FAILURE",
        [PK_ERR_CONTEXT_LOST] = "PK_ERR_CONTEXT_LOST",
        [PK_ERR_INTERNAL] = "PK_ERR_INTERNAL",
    };
    if ((unsigned)s >= PK_STATUS_COUNT) return "PK_STATUS_UNKNOWN";
    return names[s];
}

const char *pk_last_error(const pk_context *ctx)
{
    return ctx ? ctx->last_error : thread_error;
}

pk_status pk_fail(pk_context *ctx, pk_status status, const char *fmt, ...)
{
    char *dst = ctx ? ctx->last_error : thread_error;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, PK_MSG_MAX, fmt, ap);
    va_end(ap);
    return status;
}

void pk_clear_error(pk_context *ctx)
{
    (ctx ? ctx->last_error : thread_error)[0] = '\0';
}

pk_status pk_backend_result(pk_context *ctx, const char *fn, pk_status s, const pk_msg *msg)
{
    if (s == PK_SUCCESS) {
        pk_clear_error(ctx);
        return s;
    }
    if (s == PK_ERR_DEVICE_FAILURE) ctx->lost = s;
    return pk_fail(ctx, s, "%s: %s", fn, msg->text[0] ? msg->text : pk_status_string(s));
}

const char *pk_dtype_name(pk_dtype t)
{
    switch (t) {
    case PK_F32: return "f32";
    case PK_F16: return "f16";
    case PK_BF16: return "bf16";
    case PK_I32: return "i32";
    default: return NULL;
    }
}

size_t pk_dtype_size(pk_dtype t)
{
    switch (t) {
    case PK_F32:
    case PK_I32: return 4;
    case PK_F16:
    case PK_BF16: return 2;
    default: return 0;
    }
}

pk_tensor pk_tensor_make(pk_buffer *buf, size_t offset, pk_dtype dtype, int ndim,
                         const int64_t *shape)
{
    pk_tensor t;
    memset(&t, 0, sizeof t);
    t.buf = buf;
    t.offset = offset;
    t.dtype = dtype;
    t.ndim = ndim;
    if (ndim < 1 || ndim > PK_MAX_DIMS || !shape) return t; /* pk_* calls report it */
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        t.shape[i] = shape[i];
        t.stride[i] = s;
        s *= shape[i] > 0 ? shape[i] : 1;
    }
    return t;
}

uint16_t pk_f32_to_f16(float f) { return pk__f32_to_f16(f); }
float pk_f16_to_f32(uint16_t h) { return pk__f16_to_f32(h); }
uint16_t pk_f32_to_bf16(float f) { return pk__f32_to_bf16(f); }
float pk_bf16_to_f32(uint16_t h) { return pk__bf16_to_f32(h); }
