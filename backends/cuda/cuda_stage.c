/* The pinned staging ring (pk_gpu_stage) on the CUDA driver API: host
 * arrays an op needs on the device are copied from page-locked memory, so
 * the copy is queued without the host waiting for the stream. */
#include "cuda_internal.h"

static pk_status stage_alloc(void *dev, size_t bytes, void **host, pk_msg *msg)
{
    (void)dev;
    return pk_cu_check(cuMemHostAlloc(host, bytes, 0), "cuMemHostAlloc (pinned staging)", msg);
}

static void stage_free_host(void *dev, void *host)
{
    (void)dev;
    cuMemFreeHost(host);
}

static pk_status stage_copy(void *dev, uint64_t dst, const void *src, size_t bytes, pk_msg *msg)
{
    pk_cu_device *d = dev;
    return pk_cu_check(cuMemcpyHtoDAsync((CUdeviceptr)dst, src, bytes, d->stream), "cuMemcpyHtoDAsync", msg);
}

static pk_status stage_event_create(void *dev, void **event, pk_msg *msg)
{
    (void)dev;
    CUevent e;
    pk_status s = pk_cu_check(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate", msg);
    if (s == PK_SUCCESS) *event = e;
    return s;
}

static pk_status stage_event_record(void *dev, void *event, pk_msg *msg)
{
    pk_cu_device *d = dev;
    return pk_cu_check(cuEventRecord((CUevent)event, d->stream), "cuEventRecord", msg);
}

static int stage_event_query(void *event)
{
    CUresult r = cuEventQuery((CUevent)event);
    return r == CUDA_SUCCESS ? 1 : r == CUDA_ERROR_NOT_READY ? 0 : -1;
}

static pk_status stage_event_wait(void *dev, void *event, pk_msg *msg)
{
    (void)dev;
    return pk_cu_check(cuEventSynchronize((CUevent)event), "cuEventSynchronize (staging ring full)", msg);
}

static void stage_event_destroy(void *dev, void *event)
{
    (void)dev;
    cuEventDestroy((CUevent)event);
}

static pk_status stage_sync(void *dev, pk_msg *msg)
{
    pk_cu_device *d = dev;
    return pk_cu_check(cuStreamSynchronize(d->stream), "cuStreamSynchronize", msg);
}

static const pk_gpu_stage_fns stage_fns = {
    stage_alloc,        stage_free_host,   stage_copy,          stage_event_create, stage_event_record,
    stage_event_query,  stage_event_wait,  stage_event_destroy, stage_sync,
};

pk_status pk_cu_stage_upload(pk_cu_device *d, CUdeviceptr dst, const void *src, size_t bytes, pk_msg *msg)
{
    pk_status s = pk_cu_check(cuCtxSetCurrent(d->context), "cuCtxSetCurrent", msg);
    return s != PK_SUCCESS ? s : pk_gpu_stage_copy_to(&d->stage, &stage_fns, d, (uint64_t)dst, src, bytes, msg);
}

void pk_cu_stage_reap(pk_cu_device *d, int all) { pk_gpu_stage_reap(&d->stage, &stage_fns, d, all); }

void pk_cu_stage_free(pk_cu_device *d) { pk_gpu_stage_free(&d->stage, &stage_fns, d); }
