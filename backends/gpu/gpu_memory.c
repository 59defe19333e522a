/* Device memory a CUDA-family backend keeps: buffers grown on demand
 * (scratch, RoPE's tables), the outgrown ones freed once the stream has
 * passed the work that may still read them, and small host arrays copied
 * into scratch through the staging ring. */
#include "gpu_vendor.h"
#include "pk_fault.h"

static int retire_record(void *dev, void **event)
{
    pk_gpu_event e;
    if (pk_gpu_event_create(&e) != PK_GPU_OK) return -1;
    if (pk_gpu_event_record(dev, e) != PK_GPU_OK) {
        pk_gpu_event_destroy(e);
        return -1;
    }
    *event = (void *)e;
    return 0;
}

static int retire_query(void *event)
{
    pk_gpu_result r = pk_gpu_event_query((pk_gpu_event)event);
    return r == PK_GPU_OK ? 1 : r == PK_GPU_NOT_READY ? 0 : -1;
}

static void retire_destroy(void *event) { pk_gpu_event_destroy((pk_gpu_event)event); }

static void retire_free(void *dev, uintptr_t mem)
{
    (void)dev;
    pk_gpu_mem_free((pk_gpu_ptr)mem);
}

static const pk_gpu_retire_fns retire_fns = {retire_record, retire_query, retire_destroy, retire_free};

void PK_GPU_OP(reap)(pk_gpu_device *d, int all) { pk_gpu_reap(&d->gpu.retired, &retire_fns, d, all); }

pk_status PK_GPU_OP(reserve)(pk_gpu_device *d, pk_gpu_ptr *buf, size_t *size, size_t bytes, size_t least,
                             const char *what, int *fresh, pk_msg *msg)
{
    if (fresh) *fresh = bytes > *size;
    if (bytes <= *size) return PK_SUCCESS;
    /* a graph being recorded must not be handed a buffer freed under it */
    if (d->gpu.capturing)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED,
                       "%s would grow to %zu bytes while a graph is recorded: run the same calls once before "
                       "pk_graph_begin, so that it has grown already",
                       what, bytes);
    pk_status s = pk_gpu_current(d, msg);
    if (s != PK_SUCCESS) return s;
    PK_GPU_OP(reap)(d, 0);
    const int kept = *buf ? PK_GPU_OP(keep)(d, *buf) : 0;
    if (kept < 0) /* a live graph may read it, and it could not be noted as kept */
        return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "%s: out of host memory to keep the outgrown buffer for a graph", what);
    if (kept) {
        /* a live graph may read it: freed with the last graph */
    } else if (*buf && pk_gpu_retire(&d->gpu.retired, &retire_fns, d, (uintptr_t)*buf) != 0) {
        /* no event: the old way, waiting */
        pk_gpu_stream_wait(d);
        pk_gpu_mem_free(*buf);
    }
    *buf = (pk_gpu_ptr)0;
    *size = 0;
    size_t want = bytes < least ? least : bytes;
    if (pk_fault_alloc(d)) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "%s: %s (injected)", what, PK_GPU_OUT_OF_MEMORY);
    s = pk_gpu_check(pk_gpu_mem_alloc(buf, want), what, msg);
    if (s == PK_SUCCESS) *size = want;
    return s;
}

pk_status PK_GPU_OP(scratch)(pk_gpu_device *d, size_t bytes, uint64_t *out, pk_msg *msg)
{
    pk_status s = PK_GPU_OP(reserve)(d, &d->gpu.scratch, &d->gpu.scratch_size, bytes, 1u << 20,
                                     PK_GPU_CALL(cuMemAlloc, hipMalloc) " (scratch)", NULL, msg);
    *out = pk_gpu_ptr_addr(d->gpu.scratch);
    return s;
}

pk_status PK_GPU_OP(upload_scratch)(pk_gpu_device *d, size_t offset, const void *src, size_t bytes, uint64_t *out,
                                    pk_msg *msg)
{
    uint64_t base;
    pk_status s = PK_GPU_OP(scratch)(d, offset + bytes, &base, msg);
    if (s != PK_SUCCESS) return s;
    s = PK_GPU_OP(stage_upload)(d, base + offset, src, bytes, msg);
    *out = base + offset;
    return s;
}
