/* The pinned staging ring (pk_gpu_stage) of a CUDA-family backend: host
 * arrays an op needs on the device are copied from page-locked memory, so
 * the copy is queued without the host waiting for the stream. */
#include "gpu_vendor.h"

static pk_status stage_alloc(void *dev, size_t bytes, void **host, pk_msg *msg)
{
    (void)dev;
    return pk_gpu_check(pk_gpu_host_alloc(host, bytes), PK_GPU_CALL(cuMemHostAlloc, hipHostMalloc) " (pinned staging)",
                        msg);
}

static void stage_free_host(void *dev, void *host)
{
    (void)dev;
    pk_gpu_host_free(host);
}

static pk_status stage_copy(void *dev, uint64_t dst, const void *src, size_t bytes, pk_msg *msg)
{
    return pk_gpu_check(pk_gpu_copy_to_device(dev, pk_gpu_ptr_of(dst), src, bytes),
                        PK_GPU_CALL(cuMemcpyHtoDAsync, hipMemcpyHtoDAsync), msg);
}

static pk_status stage_event_create(void *dev, void **event, pk_msg *msg)
{
    (void)dev;
    pk_gpu_event e;
    pk_status s = pk_gpu_check(pk_gpu_event_create(&e), PK_GPU_CALL(cuEventCreate, hipEventCreateWithFlags), msg);
    if (s == PK_SUCCESS) *event = (void *)e;
    return s;
}

static pk_status stage_event_record(void *dev, void *event, pk_msg *msg)
{
    return pk_gpu_check(pk_gpu_event_record(dev, (pk_gpu_event)event), PK_GPU_CALL(cuEventRecord, hipEventRecord), msg);
}

static int stage_event_query(void *event)
{
    pk_gpu_result r = pk_gpu_event_query((pk_gpu_event)event);
    return r == PK_GPU_OK ? 1 : r == PK_GPU_NOT_READY ? 0 : -1;
}

static pk_status stage_event_wait(void *dev, void *event, pk_msg *msg)
{
    (void)dev;
    return pk_gpu_check(pk_gpu_event_wait((pk_gpu_event)event),
                        PK_GPU_CALL(cuEventSynchronize, hipEventSynchronize) " (staging ring full)", msg);
}

static void stage_event_destroy(void *dev, void *event)
{
    (void)dev;
    pk_gpu_event_destroy((pk_gpu_event)event);
}

static pk_status stage_sync(void *dev, pk_msg *msg)
{
    return pk_gpu_check(pk_gpu_stream_wait(dev), PK_GPU_CALL(cuStreamSynchronize, hipStreamSynchronize), msg);
}

static const pk_gpu_stage_fns stage_fns = {
    stage_alloc,        stage_free_host,   stage_copy,          stage_event_create, stage_event_record,
    stage_event_query,  stage_event_wait,  stage_event_destroy, stage_sync,
};

pk_status PK_GPU_OP(stage_upload)(pk_gpu_device *d, uint64_t dst, const void *src, size_t bytes, pk_msg *msg)
{
    /* a graph would replay this call's host values forever */
    if (d->gpu.capturing)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED,
                       "a host array (positions, sequence lengths) cannot be recorded into a graph: give it as a "
                       "device tensor (device_positions, device_seqlens_q/_kv)");
    pk_status s = pk_gpu_current(d, msg);
    return s != PK_SUCCESS ? s : pk_gpu_stage_copy_to(&d->gpu.stage, &stage_fns, d, dst, src, bytes, msg);
}

void PK_GPU_OP(stage_reap)(pk_gpu_device *d, int all) { pk_gpu_stage_reap(&d->gpu.stage, &stage_fns, d, all); }

void PK_GPU_OP(stage_free)(pk_gpu_device *d) { pk_gpu_stage_free(&d->gpu.stage, &stage_fns, d); }
