/* The backend table of a CUDA-family backend, and its entries that are the
 * same on CUDA and HIP: waiting for the stream, device memory and copies,
 * events, close. Start, devices and open are the backend's own
 * (cuda_backend.c, hip_backend.c); faults and what open and close share
 * are gpu_device.c's. */
#include <stdio.h>
#include <stdlib.h>

#include "gpu_vendor.h"

#include "pk_fault.h"

pk_status pk_gpu_sticky(pk_status s, pk_msg *msg)
{
    if (s != PK_ERR_DEVICE_FAILURE) return s;
    char why[PK_MSG_MAX];
    snprintf(why, sizeof why, "%s", msg->text);
    return pk_msgf(msg, s, "%.300s (an earlier fault on this device is sticky: nothing more runs on it in this process)",
                   why);
}

/* After the stream: what the shared files keep, then what open made */
static void gpu_close(void *dev)
{
    pk_gpu_device *d = dev;
    pk_gpu_make_current(d);
    pk_gpu_stream_wait(d);
    PK_GPU_OP(reap)(d, 1);
    PK_GPU_OP(stage_free)(d);
    PK_GPU_OP(kept_free)(d);
    free(d->gpu.kernels);
    if (d->gpu.scratch) pk_gpu_mem_free(d->gpu.scratch);
    if (d->gpu.rope_tab) pk_gpu_mem_free(d->gpu.rope_tab);
    pk_gpu_rope_tables_free(&d->gpu.rope);
    PK_GPU_OP(release)(d);
}

static pk_status gpu_finish(void *dev, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_status s = pk_gpu_current(d, msg);
    if (s == PK_SUCCESS) s = pk_gpu_check(pk_gpu_stream_wait(d), PK_GPU_CALL(cuStreamSynchronize, hipStreamSynchronize), msg);
    if (s == PK_SUCCESS) {
        PK_GPU_OP(reap)(d, 1);
        PK_GPU_OP(stage_reap)(d, 1);
    }
    /* a device fault the backend could only simulate (HIP on AMD) */
    if (s == PK_SUCCESS && pk_fault_device(d))
        return pk_msgf(msg, PK_ERR_DEVICE_FAILURE, "%s: simulated device fault (injected)",
                       PK_GPU_CALL(cuStreamSynchronize, hipStreamSynchronize));
    return s;
}

static pk_status gpu_alloc(void *dev, size_t bytes, pk_mem *mem, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    /* a request larger than the whole device is answered here: the driver
     * would say the same, but as an API error that compute-sanitizer counts */
    if (bytes > d->info.global_mem_bytes)
        return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "%zu bytes asked, the device has %llu", bytes,
                       (unsigned long long)d->info.global_mem_bytes);
    pk_gpu_ptr p = (pk_gpu_ptr)0;
    pk_status s = pk_gpu_current(d, msg);
    if (s == PK_SUCCESS) s = pk_gpu_check(pk_gpu_mem_alloc(&p, bytes), PK_GPU_CALL(cuMemAlloc, hipMalloc), msg);
    if (s == PK_SUCCESS) *mem = pk_gpu_mem(p);
    return s;
}

static void gpu_free(void *dev, pk_mem mem)
{
    pk_gpu_make_current(dev);
    /* the free waits for the device; queued work may still read it */
    pk_gpu_mem_free(pk_gpu_at(mem, 0));
}

/* A copy or fill r just queued on the stream; `wait` makes it synchronous. */
static pk_status queued(pk_gpu_device *d, pk_gpu_result r, const char *what, int wait, pk_msg *msg)
{
    pk_status s = pk_gpu_check(r, what, msg);
    if (s == PK_SUCCESS && wait)
        s = pk_gpu_check(pk_gpu_stream_wait(d), PK_GPU_CALL(cuStreamSynchronize, hipStreamSynchronize), msg);
    return s;
}

static pk_status gpu_upload(void *dev, pk_mem dst, size_t off, const void *src, size_t n, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_status s = pk_gpu_current(d, msg);
    return s != PK_SUCCESS ? s
                           : queued(d, pk_gpu_copy_to_device(d, pk_gpu_at(dst, off), src, n),
                                    PK_GPU_CALL(cuMemcpyHtoDAsync, hipMemcpyHtoDAsync), 1, msg);
}

static pk_status gpu_download(void *dev, pk_mem src, size_t off, void *dst, size_t n, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_status s = pk_gpu_current(d, msg);
    return s != PK_SUCCESS ? s
                           : queued(d, pk_gpu_copy_to_host(d, dst, pk_gpu_at(src, off), n),
                                    PK_GPU_CALL(cuMemcpyDtoHAsync, hipMemcpyDtoHAsync), 1, msg);
}

static pk_status gpu_copy(void *dev, pk_mem dst, size_t doff, pk_mem src, size_t soff, size_t n, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_status s = pk_gpu_current(d, msg);
    return s != PK_SUCCESS ? s
                           : queued(d, pk_gpu_copy_on_device(d, pk_gpu_at(dst, doff), pk_gpu_at(src, soff), n),
                                    PK_GPU_CALL(cuMemcpyDtoDAsync, hipMemcpyDtoDAsync), 0, msg);
}

static pk_status gpu_fill(void *dev, pk_mem dst, size_t off, size_t n, const void *pattern, size_t psize,
                          pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_status s = pk_gpu_current(d, msg);
    if (s != PK_SUCCESS) return s;
    pk_gpu_ptr p = pk_gpu_at(dst, off);
    pk_gpu_result r;
    if (psize == 1) r = pk_gpu_set8(d, p, *(const unsigned char *)pattern, n);
    else if (psize == 2) r = pk_gpu_set16(d, p, *(const unsigned short *)pattern, n / 2);
    else r = pk_gpu_set32(d, p, *(const unsigned *)pattern, n / 4);
    return queued(d, r, PK_GPU_CALL(cuMemsetAsync, hipMemsetAsync), 0, msg);
}

static pk_status gpu_event_record(void *dev, void **event, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_gpu_event ev;
    pk_status s = pk_gpu_current(d, msg);
    if (s == PK_SUCCESS) s = pk_gpu_check(pk_gpu_timer_create(&ev), PK_GPU_CALL(cuEventCreate, hipEventCreate), msg);
    if (s != PK_SUCCESS) return s;
    s = pk_gpu_check(pk_gpu_event_record(d, ev), PK_GPU_CALL(cuEventRecord, hipEventRecord), msg);
    if (s != PK_SUCCESS) {
        pk_gpu_event_destroy(ev);
        return s;
    }
    *event = (void *)ev;
    return PK_SUCCESS;
}

static pk_status gpu_event_elapsed(void *dev, void *start, void *end, float *ms, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_status s = pk_gpu_current(d, msg);
    if (s == PK_SUCCESS)
        s = pk_gpu_check(pk_gpu_event_wait((pk_gpu_event)end), PK_GPU_CALL(cuEventSynchronize, hipEventSynchronize), msg);
    if (s == PK_SUCCESS)
        s = pk_gpu_check(pk_gpu_timer_elapsed(ms, (pk_gpu_event)start, (pk_gpu_event)end),
                         PK_GPU_CALL(cuEventElapsedTime, hipEventElapsedTime), msg);
    return s;
}

static void gpu_event_free(void *dev, void *event)
{
    pk_gpu_make_current(dev);
    pk_gpu_event_destroy((pk_gpu_event)event);
}

/* The caller's memory: an allocation of this device holding all of
 * [handle, handle + bytes), as the driver says */
static pk_status gpu_wrap(void *dev, uintptr_t handle, size_t bytes, pk_mem *mem, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    if (!handle) return pk_msgf(msg, PK_ERR_NULL_ARGUMENT, "'handle' is NULL");
    pk_status s = pk_gpu_current(d, msg);
    if (s != PK_SUCCESS) return s;
    int ordinal = -1;
    uint64_t base = 0, at = (uint64_t)handle;
    size_t size = 0;
    pk_gpu_result r = pk_gpu_ptr_range(at, &ordinal, &base, &size);
    if (r != PK_GPU_OK)
        return pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "'handle' 0x%llx is not device memory %s knows (%s: %s)",
                       (unsigned long long)at, PK_GPU_VENDOR,
                       PK_GPU_CALL(cuPointerGetAttribute, hipPointerGetAttribute), pk_gpu_error_name(r));
    if (ordinal != d->info.index)
        return pk_msgf(msg, PK_ERR_WRONG_CONTEXT, "'handle' 0x%llx is memory of device %d; the context is on device %d",
                       (unsigned long long)at, ordinal, d->info.index);
    if (!pk_gpu_ptr_in_context(d, at))
        return pk_msgf(msg, PK_ERR_WRONG_CONTEXT,
                       "'handle' 0x%llx is memory of another CUDA context than device %d's primary context (the one "
                       "portkern and the CUDA runtime use)",
                       (unsigned long long)at, d->info.index);
    /* a driver that gives no range (older ROCm) leaves the extent unchecked */
    if (size && (at < base || at - base > size || bytes > size - (at - base)))
        return pk_msgf(msg, PK_ERR_OUT_OF_BOUNDS,
                       "'bytes' %zu from 0x%llx reach past the allocation holding it (%zu bytes from 0x%llx)", bytes,
                       (unsigned long long)at, size, (unsigned long long)base);
    *mem = pk_gpu_mem(pk_gpu_ptr_of(at));
    return PK_SUCCESS;
}

/* the caller's memory stays the caller's */
static void gpu_unwrap(void *dev, pk_mem mem)
{
    (void)dev;
    (void)mem;
}

/* Events of any device of the backend: the driver orders streams across
 * devices and contexts itself */
static pk_status gpu_event_wait(void *dev, void *owner, void *event, pk_msg *msg)
{
    (void)owner;
    pk_gpu_device *d = dev;
    pk_status s = pk_gpu_current(d, msg);
    if (s == PK_SUCCESS)
        s = pk_gpu_check(pk_gpu_stream_wait_event(d, (pk_gpu_event)event),
                         PK_GPU_CALL(cuStreamWaitEvent, hipStreamWaitEvent), msg);
    return s;
}

static pk_status gpu_event_sync(void *dev, void *event, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_status s = pk_gpu_current(d, msg);
    if (s == PK_SUCCESS)
        s = pk_gpu_check(pk_gpu_event_wait((pk_gpu_event)event), PK_GPU_CALL(cuEventSynchronize, hipEventSynchronize),
                         msg);
    return s;
}

static void *gpu_native_queue(void *dev) { return (void *)((pk_gpu_device *)dev)->stream; }

static const pk_backend_iface gpu_iface = {
    .abi = PK_BACKEND_ABI,
    .kind = PK_GPU_BACKEND,
    .init = PK_GPU_OP(init),
    .device_count = PK_GPU_OP(device_count),
    .device_info = PK_GPU_OP(device_info),
    .open = PK_GPU_OP(open),
    .close = gpu_close,
    .finish = gpu_finish,
    .alloc = gpu_alloc,
    .free = gpu_free,
    .wrap = gpu_wrap,
    .unwrap = gpu_unwrap,
    .upload = gpu_upload,
    .download = gpu_download,
    .copy = gpu_copy,
    .fill = gpu_fill,
    .event_record = gpu_event_record,
    .event_elapsed = gpu_event_elapsed,
    .event_free = gpu_event_free,
    .event_wait = gpu_event_wait,
    .event_sync = gpu_event_sync,
    .native_queue = gpu_native_queue,
    .gemm = PK_GPU_OP(gemm),
    .attention = PK_GPU_OP(attention),
    .rows = PK_GPU_OP(rows),
    .rope = PK_GPU_OP(rope),
    .chain = PK_GPU_OP(chain),
    .index_rows = PK_GPU_OP(index_rows),
    .graph_begin = PK_GPU_OP(graph_begin),
    .graph_end = PK_GPU_OP(graph_end),
    .graph_launch = PK_GPU_OP(graph_launch),
    .graph_free = PK_GPU_OP(graph_free),
    .fault_inject = pk_gpu_fault_inject,
};

__attribute__((visibility("default"))) const pk_backend_iface *pk_backend_entry(void) { return &gpu_iface; }
