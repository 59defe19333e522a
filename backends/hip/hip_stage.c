/* The pinned staging ring (pk_gpu_stage) on HIP: host arrays an op needs
 * on the device are copied from page-locked memory, so the copy is queued
 * without the host waiting for the stream. */
#include "hip_internal.h"

static pk_status stage_alloc(void *dev, size_t bytes, void **host, pk_msg *msg)
{
    (void)dev;
    return pk_hip_check(hipHostMalloc(host, bytes, hipHostMallocDefault), "hipHostMalloc (pinned staging)", msg);
}

static void stage_free_host(void *dev, void *host)
{
    (void)dev;
    hipHostFree(host);
}

static pk_status stage_copy(void *dev, uint64_t dst, const void *src, size_t bytes, pk_msg *msg)
{
    pk_hip_device *d = dev;
    return pk_hip_check(hipMemcpyHtoDAsync(pk_hip_ptr(dst), (void *)src, bytes, d->stream), "hipMemcpyHtoDAsync",
                        msg);
}

static pk_status stage_event_create(void *dev, void **event, pk_msg *msg)
{
    (void)dev;
    hipEvent_t e;
    pk_status s = pk_hip_check(hipEventCreateWithFlags(&e, hipEventDisableTiming), "hipEventCreateWithFlags", msg);
    if (s == PK_SUCCESS) *event = (void *)e;
    return s;
}

static pk_status stage_event_record(void *dev, void *event, pk_msg *msg)
{
    pk_hip_device *d = dev;
    return pk_hip_check(hipEventRecord((hipEvent_t)event, d->stream), "hipEventRecord", msg);
}

static int stage_event_query(void *event)
{
    hipError_t r = hipEventQuery((hipEvent_t)event);
    return r == hipSuccess ? 1 : r == hipErrorNotReady ? 0 : -1;
}

static pk_status stage_event_wait(void *dev, void *event, pk_msg *msg)
{
    (void)dev;
    return pk_hip_check(hipEventSynchronize((hipEvent_t)event), "hipEventSynchronize (staging ring full)", msg);
}

static void stage_event_destroy(void *dev, void *event)
{
    (void)dev;
    hipEventDestroy((hipEvent_t)event);
}

static pk_status stage_sync(void *dev, pk_msg *msg)
{
    pk_hip_device *d = dev;
    return pk_hip_check(hipStreamSynchronize(d->stream), "hipStreamSynchronize", msg);
}

static const pk_gpu_stage_fns stage_fns = {
    stage_alloc,        stage_free_host,   stage_copy,          stage_event_create, stage_event_record,
    stage_event_query,  stage_event_wait,  stage_event_destroy, stage_sync,
};

pk_status pk_hip_stage_upload(pk_hip_device *d, uint64_t dst, const void *src, size_t bytes, pk_msg *msg)
{
    pk_status s = pk_hip_current(d, msg);
    return s != PK_SUCCESS ? s : pk_gpu_stage_copy_to(&d->stage, &stage_fns, d, dst, src, bytes, msg);
}

void pk_hip_stage_reap(pk_hip_device *d, int all) { pk_gpu_stage_reap(&d->stage, &stage_fns, d, all); }

void pk_hip_stage_free(pk_hip_device *d) { pk_gpu_stage_free(&d->stage, &stage_fns, d); }
