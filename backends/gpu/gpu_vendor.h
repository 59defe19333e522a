/* The CUDA-family op files (the files of backends/gpu) are compiled twice: into
 * libportkern-cuda with PK_GPU_CUDA defined and into libportkern-hip with
 * PK_GPU_HIP. This header is all they see of the backend they are built
 * into: its device, its kernel lookup and launch, its scratch and staging,
 * and the few driver calls they make, under one set of names. What differs
 * between the two backends beyond these names stays in backends/cuda and
 * backends/hip. */
#ifndef PK_GPU_VENDOR_H
#define PK_GPU_VENDOR_H

#include <stdint.h>
#include <stdio.h>

#if defined(PK_GPU_CUDA) == defined(PK_GPU_HIP)
#error "backends/gpu is built with exactly one of PK_GPU_CUDA and PK_GPU_HIP"
#endif

/* The attention plan as the shared host launches it (pk_gpu_attn_plan
 * fills it from the backend's own plan): the kernel's name, its threads,
 * dynamic shared memory, row tiles, and the split over the keys. */
typedef struct pk_gpu_attn_launch {
    char name[64];
    int n_splits, row_tiles, threads, chunk;
    unsigned smem;
} pk_gpu_attn_launch;

#ifdef PK_GPU_CUDA
#include "cuda_attention_plan.h"
#include "cuda_internal.h"

typedef pk_cu_device pk_gpu_device;
typedef CUfunction pk_gpu_function;
typedef CUresult pk_gpu_result;
typedef CUevent pk_gpu_event;
typedef CUdeviceptr pk_gpu_ptr; /* a device buffer the backend keeps */
#define PK_GPU_VENDOR "CUDA"
/* an op entry point of the backend: PK_GPU_OP(rmsnorm) is pk_cu_rmsnorm */
#define PK_GPU_OP(op) pk_cu_##op
/* a driver call's name in messages: PK_GPU_CALL(cuMemHostAlloc, hipHostMalloc) */
#define PK_GPU_CALL(cuda, hip) #cuda
#define PK_GPU_OK CUDA_SUCCESS
#define PK_GPU_NOT_READY CUDA_ERROR_NOT_READY

static inline pk_status pk_gpu_check(pk_gpu_result r, const char *what, pk_msg *msg) { return pk_cu_check(r, what, msg); }
static inline pk_status pk_gpu_current(pk_gpu_device *d, pk_msg *msg)
{
    return pk_cu_check(cuCtxSetCurrent(d->context), "cuCtxSetCurrent", msg);
}
static inline pk_status pk_gpu_function_of(pk_gpu_device *d, const char *name, pk_gpu_function *f, pk_msg *msg)
{
    return pk_cu_function(d, name, f, msg);
}
/* a launch that waits for the kernel before it (no early start) */
static inline pk_status pk_gpu_launch_kernel(pk_gpu_device *d, pk_gpu_function f, const unsigned grid[3],
                                      const unsigned block[3], unsigned smem, void **args, pk_msg *msg)
{
    return pk_cu_launch(d, f, grid, block, smem, args, 0, msg);
}
static inline int pk_gpu_units(const pk_gpu_device *d) { return d->sm_count; }
static inline pk_gpu_result pk_gpu_blocks_per_unit(int *n, pk_gpu_function f, int threads)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, threads, 0);
}
static inline pk_status pk_gpu_scratch(pk_gpu_device *d, size_t bytes, uint64_t *out, pk_msg *msg)
{
    CUdeviceptr p = 0;
    pk_status s = pk_cu_scratch(d, bytes, &p, msg);
    *out = (uint64_t)p;
    return s;
}
static inline pk_status pk_gpu_upload_scratch(pk_gpu_device *d, size_t offset, const void *src, size_t bytes,
                                              uint64_t *out, pk_msg *msg)
{
    CUdeviceptr p = 0;
    pk_status s = pk_cu_upload_scratch(d, offset, src, bytes, &p, msg);
    *out = (uint64_t)p;
    return s;
}
static inline uint64_t pk_gpu_ptr_addr(pk_gpu_ptr p) { return (uint64_t)p; }
static inline pk_status pk_gpu_reserve(pk_gpu_device *d, pk_gpu_ptr *buf, size_t *size, size_t bytes, size_t least,
                                       const char *what, int *fresh, pk_msg *msg)
{
    return pk_cu_reserve(d, buf, size, bytes, least, what, fresh, msg);
}
static inline pk_gpu_result pk_gpu_host_alloc(void **p, size_t bytes) { return cuMemHostAlloc(p, bytes, 0); }
static inline void pk_gpu_host_free(void *p) { cuMemFreeHost(p); }
static inline pk_gpu_result pk_gpu_copy_in_async(pk_gpu_device *d, uint64_t dst, const void *src, size_t bytes)
{
    return cuMemcpyHtoDAsync((CUdeviceptr)dst, src, bytes, d->stream);
}
static inline pk_gpu_result pk_gpu_event_create(pk_gpu_event *e) { return cuEventCreate(e, CU_EVENT_DISABLE_TIMING); }
static inline pk_gpu_result pk_gpu_event_record(pk_gpu_device *d, pk_gpu_event e) { return cuEventRecord(e, d->stream); }
static inline pk_gpu_result pk_gpu_event_query(pk_gpu_event e) { return cuEventQuery(e); }
static inline pk_gpu_result pk_gpu_event_wait(pk_gpu_event e) { return cuEventSynchronize(e); }
static inline void pk_gpu_event_destroy(pk_gpu_event e) { cuEventDestroy(e); }
static inline pk_gpu_result pk_gpu_stream_wait(pk_gpu_device *d) { return cuStreamSynchronize(d->stream); }

static inline void pk_gpu_attn_plan(const pk_gpu_device *d, const pk_attention_problem *p, pk_gpu_attn_launch *l)
{
    pk_cu_attn_plan plan;
    pk_cu_attn_plan_make_knob(p, d->sm, d->sm_count, d->smem_optin, d->attn_knob, &plan);
    pk_cu_attn_kernel_name(p, &plan, l->name, sizeof l->name);
    l->n_splits = plan.n_splits, l->row_tiles = plan.row_tiles, l->threads = plan.threads, l->chunk = plan.chunk;
    l->smem = plan.kernel == PK_CU_ATTN_SIMT ? 0 : (unsigned)plan.smem;
}
#endif /* PK_GPU_CUDA */

#ifdef PK_GPU_HIP
#include "hip_attention_plan.h"
#include "hip_internal.h"

typedef pk_hip_device pk_gpu_device;
typedef hipFunction_t pk_gpu_function;
typedef hipError_t pk_gpu_result;
typedef hipEvent_t pk_gpu_event;
typedef hipDeviceptr_t pk_gpu_ptr;
#define PK_GPU_VENDOR "HIP"
#define PK_GPU_OP(op) pk_hip_##op
#define PK_GPU_CALL(cuda, hip) #hip
#define PK_GPU_OK hipSuccess
#define PK_GPU_NOT_READY hipErrorNotReady

static inline pk_status pk_gpu_check(pk_gpu_result r, const char *what, pk_msg *msg) { return pk_hip_check(r, what, msg); }
static inline pk_status pk_gpu_current(pk_gpu_device *d, pk_msg *msg) { return pk_hip_current(d, msg); }
static inline pk_status pk_gpu_function_of(pk_gpu_device *d, const char *name, pk_gpu_function *f, pk_msg *msg)
{
    return pk_hip_function(d, name, f, msg);
}
static inline pk_status pk_gpu_launch_kernel(pk_gpu_device *d, pk_gpu_function f, const unsigned grid[3],
                                      const unsigned block[3], unsigned smem, void **args, pk_msg *msg)
{
    return pk_hip_launch(d, f, grid, block, smem, args, msg);
}
static inline int pk_gpu_units(const pk_gpu_device *d) { return d->target.cu_count; }
static inline pk_gpu_result pk_gpu_blocks_per_unit(int *n, pk_gpu_function f, int threads)
{
    return hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(n, f, threads, 0);
}
static inline pk_status pk_gpu_scratch(pk_gpu_device *d, size_t bytes, uint64_t *out, pk_msg *msg)
{
    return pk_hip_scratch(d, bytes, out, msg);
}
static inline pk_status pk_gpu_upload_scratch(pk_gpu_device *d, size_t offset, const void *src, size_t bytes,
                                              uint64_t *out, pk_msg *msg)
{
    return pk_hip_upload_scratch(d, offset, src, bytes, out, msg);
}
static inline uint64_t pk_gpu_ptr_addr(pk_gpu_ptr p) { return (uint64_t)(uintptr_t)p; }
static inline pk_status pk_gpu_reserve(pk_gpu_device *d, pk_gpu_ptr *buf, size_t *size, size_t bytes, size_t least,
                                       const char *what, int *fresh, pk_msg *msg)
{
    return pk_hip_reserve(d, buf, size, bytes, least, what, fresh, msg);
}
static inline pk_gpu_result pk_gpu_host_alloc(void **p, size_t bytes) { return hipHostMalloc(p, bytes, hipHostMallocDefault); }
static inline void pk_gpu_host_free(void *p) { hipHostFree(p); }
static inline pk_gpu_result pk_gpu_copy_in_async(pk_gpu_device *d, uint64_t dst, const void *src, size_t bytes)
{
    return hipMemcpyHtoDAsync(pk_hip_ptr(dst), (void *)src, bytes, d->stream);
}
static inline pk_gpu_result pk_gpu_event_create(pk_gpu_event *e)
{
    return hipEventCreateWithFlags(e, hipEventDisableTiming);
}
static inline pk_gpu_result pk_gpu_event_record(pk_gpu_device *d, pk_gpu_event e) { return hipEventRecord(e, d->stream); }
static inline pk_gpu_result pk_gpu_event_query(pk_gpu_event e) { return hipEventQuery(e); }
static inline pk_gpu_result pk_gpu_event_wait(pk_gpu_event e) { return hipEventSynchronize(e); }
static inline void pk_gpu_event_destroy(pk_gpu_event e) { hipEventDestroy(e); }
static inline pk_gpu_result pk_gpu_stream_wait(pk_gpu_device *d) { return hipStreamSynchronize(d->stream); }

static inline void pk_gpu_attn_plan(const pk_gpu_device *d, const pk_attention_problem *p, pk_gpu_attn_launch *l)
{
    pk_hip_attn_plan plan;
    pk_hip_attn_plan_make(p, &d->target, &plan);
    snprintf(l->name, sizeof l->name, "%s", plan.kernel_name);
    l->n_splits = plan.n_splits, l->row_tiles = plan.row_tiles, l->threads = plan.threads, l->chunk = plan.chunk;
    l->smem = (unsigned)plan.smem;
}
#endif /* PK_GPU_HIP */

#endif
