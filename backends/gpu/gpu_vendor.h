/* The files of backends/gpu are compiled twice: into libportkern-cuda
 * with PK_GPU_CUDA defined and into libportkern-hip with PK_GPU_HIP. This
 * header is all they see of the backend they are built
 * into: its device, its kernel lookup and launch, its scratch and staging,
 * and the few driver calls they make, under one set of names. What differs
 * between the two backends beyond these names stays in backends/cuda and
 * backends/hip. */
#ifndef PK_GPU_VENDOR_H
#define PK_GPU_VENDOR_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(PK_GPU_CUDA) == defined(PK_GPU_HIP)
#error "backends/gpu is built with exactly one of PK_GPU_CUDA and PK_GPU_HIP"
#endif

#ifdef PK_GPU_CUDA
#include "cuda_attention_plan.h"
#include "cuda_gemm_plan.h"
#include "cuda_internal.h"

/* the backend's kernel lists */
#define PK_GPU_GEMM_KERNELS PK_CU_GEMM_KERNELS
#define PK_GPU_GEMM_KERNEL_COUNT PK_CU_GEMM_KERNEL_COUNT
#define PK_GPU_ATTN_KERNELS PK_CU_ATTN_KERNELS
#define PK_GPU_ATTN_KERNEL_COUNT PK_CU_ATTN_KERNEL_COUNT

typedef pk_cu_device pk_gpu_device;
typedef CUdevice pk_gpu_dev; /* the driver's handle of a device */
typedef CUfunction pk_gpu_function;
typedef CUevent pk_gpu_event;
#define PK_GPU_VENDOR "CUDA"
/* who made the device, and the platform in messages */
#define PK_GPU_MAKER "NVIDIA"
#define PK_GPU_PLATFORM "NVIDIA"
/* the kernel files, as the lists name their modules */
#define PK_GPU_MODULES PK_CU_MODULES
/* a device fault can be raised for real (pk_fault_store) */
#define PK_GPU_REAL_FAULTS 1
/* an op entry point of the backend: PK_GPU_OP(rmsnorm) is pk_cu_rmsnorm */
#define PK_GPU_OP(op) pk_cu_##op
/* a driver call's name in messages: PK_GPU_CALL(cuMemHostAlloc, hipHostMalloc);
 * the call itself where both take the same arguments: PK_GPU_FN(cuDeviceGet, hipDeviceGet) */
#define PK_GPU_CALL(cuda, hip) #cuda
#define PK_GPU_FN(cuda, hip) cuda
#define PK_GPU_OK CUDA_SUCCESS
#define PK_GPU_NOT_READY CUDA_ERROR_NOT_READY

static inline const char *pk_gpu_error_name(pk_gpu_result r)
{
    const char *name = NULL;
    return cuGetErrorName(r, &name) == CUDA_SUCCESS ? name : "CUDA_ERROR";
}
static inline const char *pk_gpu_error_text(pk_gpu_result r)
{
    const char *text = NULL;
    return cuGetErrorString(r, &text) == CUDA_SUCCESS ? text : "";
}
/* what pk_gpu_check maps to PK_ERR_OUT_OF_MEMORY and to PK_ERR_INTERNAL */
#define PK_GPU_ERR_OOM CUDA_ERROR_OUT_OF_MEMORY
#define PK_GPU_ERR_INTERNAL(r)                                                                                    \
    ((r) == CUDA_ERROR_INVALID_VALUE || (r) == CUDA_ERROR_NOT_FOUND || (r) == CUDA_ERROR_INVALID_IMAGE ||         \
     (r) == CUDA_ERROR_NO_BINARY_FOR_GPU)
static inline pk_status pk_gpu_current(pk_gpu_device *d, pk_msg *msg)
{
    return pk_gpu_check(cuCtxSetCurrent(d->context), "cuCtxSetCurrent", msg);
}
/* the most dynamic shared memory a kernel may ask for, and the asking */
static inline size_t pk_gpu_smem_most(const pk_gpu_device *d) { return d->smem_optin; }
static inline pk_gpu_result pk_gpu_allow_smem(pk_gpu_function f, unsigned bytes)
{
    return cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes);
}
static inline int pk_gpu_units(const pk_gpu_device *d) { return d->sm_count; }
static inline pk_gpu_result pk_gpu_blocks_per_unit(int *n, pk_gpu_function f, int threads)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, threads, 0);
}
static inline uint64_t pk_gpu_ptr_addr(pk_gpu_ptr p) { return (uint64_t)p; }
static inline pk_gpu_ptr pk_gpu_ptr_of(uint64_t addr) { return (CUdeviceptr)addr; }
static inline pk_gpu_result pk_gpu_mem_alloc(pk_gpu_ptr *p, size_t bytes) { return cuMemAlloc(p, bytes); }
static inline void pk_gpu_mem_free(pk_gpu_ptr p) { cuMemFree(p); }
#define PK_GPU_OUT_OF_MEMORY "CUDA_ERROR_OUT_OF_MEMORY"
static inline pk_gpu_result pk_gpu_host_alloc(void **p, size_t bytes) { return cuMemHostAlloc(p, bytes, 0); }
static inline void pk_gpu_host_free(void *p) { cuMemFreeHost(p); }
static inline pk_gpu_result pk_gpu_event_create(pk_gpu_event *e) { return cuEventCreate(e, CU_EVENT_DISABLE_TIMING); }
static inline pk_gpu_result pk_gpu_event_record(pk_gpu_device *d, pk_gpu_event e) { return cuEventRecord(e, d->stream); }
static inline pk_gpu_result pk_gpu_event_query(pk_gpu_event e) { return cuEventQuery(e); }
static inline pk_gpu_result pk_gpu_event_wait(pk_gpu_event e) { return cuEventSynchronize(e); }
static inline void pk_gpu_event_destroy(pk_gpu_event e) { cuEventDestroy(e); }
static inline pk_gpu_result pk_gpu_stream_wait(pk_gpu_device *d) { return cuStreamSynchronize(d->stream); }
static inline pk_gpu_result pk_gpu_stream_wait_event(pk_gpu_device *d, pk_gpu_event e) { return cuStreamWaitEvent(d->stream, e, 0); }
/* stream capture into a graph, and the instantiated graph's launch */
typedef CUgraphExec pk_gpu_graph;
static inline pk_gpu_result pk_gpu_capture_begin(pk_gpu_device *d)
{
    return cuStreamBeginCapture(d->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
}
static inline pk_gpu_result pk_gpu_capture_end(pk_gpu_device *d, pk_gpu_graph *exec)
{
    CUgraph g = NULL;
    CUresult r = cuStreamEndCapture(d->stream, &g);
    if (r == CUDA_SUCCESS) r = cuGraphInstantiate(exec, g, 0);
    if (g) cuGraphDestroy(g);
    return r;
}
static inline pk_gpu_result pk_gpu_graph_launch(pk_gpu_device *d, pk_gpu_graph e) { return cuGraphLaunch(e, d->stream); }
static inline void pk_gpu_graph_destroy(pk_gpu_graph e) { cuGraphExecDestroy(e); }
/* the device ordinal of the allocation holding address p (the result),
 * and its range where the driver says (*size 0 where it does not) */
static inline pk_gpu_result pk_gpu_ptr_range(uint64_t p, int *ordinal, uint64_t *base, size_t *size)
{
    CUdeviceptr start = 0;
    *size = 0;
    CUresult r = cuPointerGetAttribute(ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (CUdeviceptr)p);
    if (r == CUDA_SUCCESS && (cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, (CUdeviceptr)p) ||
                              cuPointerGetAttribute(size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, (CUdeviceptr)p)))
        *size = 0;
    *base = (uint64_t)start;
    return r;
}
/* Whether memory at p may be used by the device's kernels: memory of
 * another CUDA context is not mapped in the primary one (memory of no
 * context, VMM and pools, belongs to the device) */
static inline int pk_gpu_ptr_in_context(const pk_gpu_device *d, uint64_t p)
{
    CUcontext of = NULL;
    return cuPointerGetAttribute(&of, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)p) != CUDA_SUCCESS || !of ||
           of == d->context;
}
/* for the calls that cannot report (free, destroy): their result unread */
static inline void pk_gpu_make_current(pk_gpu_device *d) { cuCtxSetCurrent(d->context); }
static inline pk_gpu_ptr pk_gpu_at(pk_mem m, size_t off) { return (CUdeviceptr)(uintptr_t)m + off; }
static inline pk_mem pk_gpu_mem(pk_gpu_ptr p) { return (pk_mem)(uintptr_t)p; }
static inline pk_gpu_result pk_gpu_copy_to_device(pk_gpu_device *d, pk_gpu_ptr dst, const void *src, size_t n)
{
    return cuMemcpyHtoDAsync(dst, src, n, d->stream);
}
static inline pk_gpu_result pk_gpu_copy_to_host(pk_gpu_device *d, void *dst, pk_gpu_ptr src, size_t n)
{
    return cuMemcpyDtoHAsync(dst, src, n, d->stream);
}
static inline pk_gpu_result pk_gpu_copy_on_device(pk_gpu_device *d, pk_gpu_ptr dst, pk_gpu_ptr src, size_t n)
{
    return cuMemcpyDtoDAsync(dst, src, n, d->stream);
}
static inline pk_gpu_result pk_gpu_set8(pk_gpu_device *d, pk_gpu_ptr p, unsigned char v, size_t n)
{
    return cuMemsetD8Async(p, v, n, d->stream);
}
static inline pk_gpu_result pk_gpu_set16(pk_gpu_device *d, pk_gpu_ptr p, unsigned short v, size_t n)
{
    return cuMemsetD16Async(p, v, n, d->stream);
}
static inline pk_gpu_result pk_gpu_set32(pk_gpu_device *d, pk_gpu_ptr p, unsigned v, size_t n)
{
    return cuMemsetD32Async(p, v, n, d->stream);
}
/* events the host times with (the staging ring's take no timing) */
static inline pk_gpu_result pk_gpu_timer_create(pk_gpu_event *e) { return cuEventCreate(e, CU_EVENT_DEFAULT); }
static inline pk_gpu_result pk_gpu_timer_elapsed(float *ms, pk_gpu_event a, pk_gpu_event b)
{
    return cuEventElapsedTime(ms, a, b);
}
#define PK_GPU_BACKEND PK_BACKEND_CUDA

/* the backend's attention plan, as gpu_attention.c launches it. The A/B
 * knob is read at each call: conformance sets it around the cases that
 * need it (cf_run_case), on a context opened before. */
static inline void pk_gpu_attn_plan_make(const pk_gpu_device *d, const pk_attention_problem *p, pk_gpu_attn_plan *plan)
{
    pk_cu_attn_plan_make_knob(p, d->sm, d->sm_count, d->smem_optin, d->modules[PK_GPU_MODULE_attention_sm90] != NULL,
                              pk_cu_attn_knob_of(getenv("PORTKERN_CUDA_ATTN")), plan);
    if (plan->kind == PK_CU_ATTN_SIMT) plan->smem = 0;
}
/* The launch arguments of the plan's kernel: the parameters alone, or
 * for the Hopper kernel the TMA maps of K and V and whether they hold
 * first: they do where the plan asks for them (tile_keys, the box's keys)
 * and the driver took them (pk_cu_attn_tma_maps) */
typedef struct pk_gpu_attn_launch {
    CUtensorMap maps[2];
    int tma;
    void *args[4];
} pk_gpu_attn_launch;
static inline void **pk_gpu_attn_args(const pk_attention_problem *p, const pk_gpu_attn_plan *plan, pk_attn_params *a,
                                      pk_gpu_attn_launch *l)
{
    if (plan->kind != PK_CU_ATTN_WGMMA) {
        l->args[0] = a;
        return l->args;
    }
    l->tma = pk_cu_attn_tma_maps(p, plan->tile_keys, l->maps);
    if (!l->tma) memset(l->maps, 0, sizeof l->maps); /* unread, but no stack garbage handed to the driver */
    l->args[0] = &l->maps[0];
    l->args[1] = &l->maps[1];
    l->args[2] = &l->tma;
    l->args[3] = a;
    return l->args;
}
#endif /* PK_GPU_CUDA */

#ifdef PK_GPU_HIP
#include "hip_attention_plan.h"
#include "hip_gemm_plan.h"
#include "hip_internal.h"

#define PK_GPU_GEMM_KERNELS PK_HIP_GEMM_KERNELS
#define PK_GPU_GEMM_KERNEL_COUNT PK_HIP_GEMM_KERNEL_COUNT
#define PK_GPU_ATTN_KERNELS PK_HIP_ATTN_KERNELS
#define PK_GPU_ATTN_KERNEL_COUNT PK_HIP_ATTN_KERNEL_COUNT

typedef pk_hip_device pk_gpu_device;
typedef hipDevice_t pk_gpu_dev;
typedef hipFunction_t pk_gpu_function;
typedef hipEvent_t pk_gpu_event;
#define PK_GPU_VENDOR "HIP"
#if PK_HIP_ON_CUDA
#define PK_GPU_MAKER "NVIDIA"
#define PK_GPU_PLATFORM "NVIDIA (HIP on the CUDA driver)"
#else
#define PK_GPU_MAKER "AMD"
#define PK_GPU_PLATFORM "AMD"
#endif
#define PK_GPU_MODULES PK_HIP_MODULES
/* AMD: no faulting code object is carried (none could be run here), so
 * finish reports a simulated fault */
#define PK_GPU_REAL_FAULTS PK_HIP_ON_CUDA
#define PK_GPU_OP(op) pk_hip_##op
#define PK_GPU_CALL(cuda, hip) #hip
#define PK_GPU_FN(cuda, hip) hip
#define PK_GPU_OK hipSuccess
#define PK_GPU_NOT_READY hipErrorNotReady

static inline const char *pk_gpu_error_name(pk_gpu_result r) { return hipGetErrorName(r); }
static inline const char *pk_gpu_error_text(pk_gpu_result r) { return hipGetErrorString(r); }
#define PK_GPU_ERR_OOM hipErrorOutOfMemory
#define PK_GPU_ERR_INTERNAL(r)                                                                                    \
    ((r) == hipErrorInvalidValue || (r) == hipErrorNotFound || (r) == hipErrorInvalidImage ||                     \
     (r) == hipErrorNoBinaryForGpu)
static inline pk_status pk_gpu_current(pk_gpu_device *d, pk_msg *msg) { return pk_hip_current(d, msg); }
static inline size_t pk_gpu_smem_most(const pk_gpu_device *d) { return d->target.lds_bytes; }
static inline pk_gpu_result pk_gpu_allow_smem(pk_gpu_function f, unsigned bytes) { return pk_hip_allow_lds(f, bytes); }
static inline int pk_gpu_units(const pk_gpu_device *d) { return d->target.cu_count; }
static inline pk_gpu_result pk_gpu_blocks_per_unit(int *n, pk_gpu_function f, int threads)
{
    return hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(n, f, threads, 0);
}
static inline uint64_t pk_gpu_ptr_addr(pk_gpu_ptr p) { return (uint64_t)(uintptr_t)p; }
static inline pk_gpu_ptr pk_gpu_ptr_of(uint64_t addr) { return pk_hip_ptr(addr); }
static inline pk_gpu_result pk_gpu_mem_alloc(pk_gpu_ptr *p, size_t bytes) { return hipMalloc(p, bytes); }
static inline void pk_gpu_mem_free(pk_gpu_ptr p) { hipFree(p); }
#define PK_GPU_OUT_OF_MEMORY "hipErrorOutOfMemory"
static inline pk_gpu_result pk_gpu_host_alloc(void **p, size_t bytes) { return hipHostMalloc(p, bytes, hipHostMallocDefault); }
static inline void pk_gpu_host_free(void *p) { hipHostFree(p); }
static inline pk_gpu_result pk_gpu_event_create(pk_gpu_event *e)
{
    return hipEventCreateWithFlags(e, hipEventDisableTiming);
}
static inline pk_gpu_result pk_gpu_event_record(pk_gpu_device *d, pk_gpu_event e) { return hipEventRecord(e, d->stream); }
static inline pk_gpu_result pk_gpu_event_query(pk_gpu_event e) { return hipEventQuery(e); }
static inline pk_gpu_result pk_gpu_event_wait(pk_gpu_event e) { return hipEventSynchronize(e); }
static inline void pk_gpu_event_destroy(pk_gpu_event e) { hipEventDestroy(e); }
static inline pk_gpu_result pk_gpu_stream_wait(pk_gpu_device *d) { return hipStreamSynchronize(d->stream); }
static inline pk_gpu_result pk_gpu_stream_wait_event(pk_gpu_device *d, pk_gpu_event e) { return hipStreamWaitEvent(d->stream, e, 0); }
typedef hipGraphExec_t pk_gpu_graph;
static inline pk_gpu_result pk_gpu_capture_begin(pk_gpu_device *d)
{
    return hipStreamBeginCapture(d->stream, hipStreamCaptureModeThreadLocal);
}
static inline pk_gpu_result pk_gpu_capture_end(pk_gpu_device *d, pk_gpu_graph *exec)
{
    hipGraph_t g = NULL;
    hipError_t r = hipStreamEndCapture(d->stream, &g);
    if (r == hipSuccess) r = hipGraphInstantiate(exec, g, NULL, NULL, 0);
    if (g) hipGraphDestroy(g);
    return r;
}
static inline pk_gpu_result pk_gpu_graph_launch(pk_gpu_device *d, pk_gpu_graph e) { return hipGraphLaunch(e, d->stream); }
static inline void pk_gpu_graph_destroy(pk_gpu_graph e) { hipGraphExecDestroy(e); }
static inline pk_gpu_result pk_gpu_ptr_range(uint64_t p, int *ordinal, uint64_t *base, size_t *size)
{
    hipDeviceptr_t at = pk_hip_ptr(p), start = NULL;
    *size = 0;
    hipError_t r = hipPointerGetAttribute(ordinal, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, at);
    if (r == hipSuccess && (hipPointerGetAttribute(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, at) != hipSuccess ||
                            hipPointerGetAttribute(size, HIP_POINTER_ATTRIBUTE_RANGE_SIZE, at) != hipSuccess))
        *size = 0;
    *base = (uint64_t)(uintptr_t)start;
    return r;
}
/* HIP on NVIDIA: as on CUDA, memory of another CUDA context than the
 * primary one is not the device's kernels' (AMD's HIP has no such thing) */
static inline int pk_gpu_ptr_in_context(const pk_gpu_device *d, uint64_t p)
{
    (void)d;
#if PK_HIP_ON_CUDA
    CUcontext of = NULL, mine = NULL;
    cuCtxGetCurrent(&mine);
    return cuPointerGetAttribute(&of, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)p) != CUDA_SUCCESS || !of ||
           of == mine;
#else
    (void)p;
    return 1;
#endif
}
static inline void pk_gpu_make_current(pk_gpu_device *d) { hipSetDevice(d->index); }
static inline pk_gpu_ptr pk_gpu_at(pk_mem m, size_t off) { return (char *)m + off; }
static inline pk_mem pk_gpu_mem(pk_gpu_ptr p) { return p; }
static inline pk_gpu_result pk_gpu_copy_to_device(pk_gpu_device *d, pk_gpu_ptr dst, const void *src, size_t n)
{
    return hipMemcpyHtoDAsync(dst, (void *)src, n, d->stream);
}
static inline pk_gpu_result pk_gpu_copy_to_host(pk_gpu_device *d, void *dst, pk_gpu_ptr src, size_t n)
{
    return hipMemcpyDtoHAsync(dst, src, n, d->stream);
}
static inline pk_gpu_result pk_gpu_copy_on_device(pk_gpu_device *d, pk_gpu_ptr dst, pk_gpu_ptr src, size_t n)
{
    return hipMemcpyDtoDAsync(dst, src, n, d->stream);
}
static inline pk_gpu_result pk_gpu_set8(pk_gpu_device *d, pk_gpu_ptr p, unsigned char v, size_t n)
{
    return hipMemsetD8Async(p, v, n, d->stream);
}
static inline pk_gpu_result pk_gpu_set16(pk_gpu_device *d, pk_gpu_ptr p, unsigned short v, size_t n)
{
    return hipMemsetD16Async(p, v, n, d->stream);
}
static inline pk_gpu_result pk_gpu_set32(pk_gpu_device *d, pk_gpu_ptr p, unsigned v, size_t n)
{
    return hipMemsetD32Async(p, (int)v, n, d->stream);
}
static inline pk_gpu_result pk_gpu_timer_create(pk_gpu_event *e) { return hipEventCreate(e); }
static inline pk_gpu_result pk_gpu_timer_elapsed(float *ms, pk_gpu_event a, pk_gpu_event b)
{
    return hipEventElapsedTime(ms, a, b);
}
#define PK_GPU_BACKEND PK_BACKEND_HIP

static inline void pk_gpu_attn_plan_make(const pk_gpu_device *d, const pk_attention_problem *p, pk_gpu_attn_plan *plan)
{
    pk_hip_attn_plan_make(p, &d->target, plan);
}
/* every HIP attention kernel takes its parameters alone */
typedef struct pk_gpu_attn_launch {
    void *args[1];
} pk_gpu_attn_launch;
static inline void **pk_gpu_attn_args(const pk_attention_problem *p, const pk_gpu_attn_plan *plan, pk_attn_params *a,
                                      pk_gpu_attn_launch *l)
{
    (void)p;
    (void)plan;
    l->args[0] = a;
    return l->args;
}
#endif /* PK_GPU_HIP */

/* the driver calls both spell alike but for their prefix */
static inline pk_gpu_result pk_gpu_driver_init(void) { return PK_GPU_FN(cuInit, hipInit)(0); }
static inline pk_gpu_result pk_gpu_driver_devices(int *n) { return PK_GPU_FN(cuDeviceGetCount, hipGetDeviceCount)(n); }
static inline pk_gpu_result pk_gpu_module_load(pk_gpu_module *m, const void *image)
{
    return PK_GPU_FN(cuModuleLoadData, hipModuleLoadData)(m, image);
}
static inline void pk_gpu_module_unload(pk_gpu_module m) { PK_GPU_FN(cuModuleUnload, hipModuleUnload)(m); }
static inline pk_gpu_result pk_gpu_module_function(pk_gpu_function *f, pk_gpu_module m, const char *name)
{
    return PK_GPU_FN(cuModuleGetFunction, hipModuleGetFunction)(f, m, name);
}
static inline void pk_gpu_stream_destroy(pk_gpu_device *d) { PK_GPU_FN(cuStreamDestroy, hipStreamDestroy)(d->stream); }

/* Every kernel of the backend's lists has an index on the device: its
 * index in its list after those of the lists before it. */
enum {
    PK_GPU_GEMM0 = 0,
    PK_GPU_ATTN0 = PK_GPU_GEMM_KERNEL_COUNT,
    PK_GPU_EW0 = PK_GPU_ATTN0 + PK_GPU_ATTN_KERNEL_COUNT,
    PK_GPU_KERNEL_COUNT = PK_GPU_EW0 + PK_GPU_EW_KERNEL_COUNT
};

/* What backends/gpu defines for the backend it is built into (PK_GPU_OP(x)
 * is pk_cu_x or pk_hip_x), and the two calls it asks of the backend. */

/* Kernel k, looked up once per device and kept (gpu_launch.c), in the
 * module its list names. */
pk_status PK_GPU_OP(function)(pk_gpu_device *d, int k, pk_gpu_function *out, pk_msg *msg);
/* Launches kernel k on the device's stream with smem bytes of dynamic
 * shared memory (asked for past the default here); args as
 * cuLaunchKernel's. flags, PK_GPU_LAUNCH_*: EARLY: k may start while
 * the previous kernel still runs, where the device allows (CUDA's
 * programmatic dependent launch, sm_90 on; never on HIP); k must then wait
 * for it (pk_grid_dependency_wait) before it reads or writes anything but
 * a prefetch. PAIRS: blocks in clusters of two along x (CUDA, sm_90 on;
 * grid[0] even), which k needs. launch_on_stream is the backend's call
 * that launch ends in. */
#define PK_GPU_LAUNCH_EARLY 1
#define PK_GPU_LAUNCH_PAIRS 2
pk_status PK_GPU_OP(launch)(pk_gpu_device *d, int k, const unsigned grid[3], const unsigned block[3], unsigned smem,
                            void **args, int flags, pk_msg *msg);
pk_status PK_GPU_OP(launch_on_stream)(pk_gpu_device *d, pk_gpu_function f, const unsigned grid[3],
                                      const unsigned block[3], unsigned smem, void **args, int flags, pk_msg *msg);

/* Makes a device buffer the device keeps (*buf of *size bytes) at least
 * `bytes` long, and no shorter than `least` when it grows; growing loses
 * the contents, which *fresh (if not NULL) reports. The old buffer is
 * freed once the stream has passed the work queued so far (which may
 * still read it), without the host waiting. */
pk_status PK_GPU_OP(reserve)(pk_gpu_device *d, pk_gpu_ptr *buf, size_t *size, size_t bytes, size_t least,
                             const char *what, int *fresh, pk_msg *msg);
/* Frees the outgrown buffers the stream is done with (all of them, after
 * the caller waited for the stream, when `all`). */
void PK_GPU_OP(reap)(pk_gpu_device *d, int all);
/* Device scratch of at least `bytes`, valid until the next op. Growing it
 * frees the old one: an op asks once for all it needs, then carves it. */
pk_status PK_GPU_OP(scratch)(pk_gpu_device *d, size_t bytes, uint64_t *out, pk_msg *msg);
/* Copies a small host array (lengths, positions) into scratch at `offset`,
 * ordered on the stream before the kernels that read it; the host memory
 * may be freed when this returns. */
pk_status PK_GPU_OP(upload_scratch)(pk_gpu_device *d, size_t offset, const void *src, size_t bytes, uint64_t *out,
                                    pk_msg *msg);
/* Queues a copy of a host array to dst through the pinned staging ring,
 * without waiting for the stream (pageable sources may); src may be freed
 * when this returns. */
pk_status PK_GPU_OP(stage_upload)(pk_gpu_device *d, uint64_t dst, const void *src, size_t bytes, pk_msg *msg);
/* Hands back the staging regions whose copies completed (all of them,
 * after the caller waited for the stream, when `all`). */
void PK_GPU_OP(stage_reap)(pk_gpu_device *d, int all);
/* Frees the staging ring; the caller has waited for the stream. */
void PK_GPU_OP(stage_free)(pk_gpu_device *d);

/* The driver started and its devices counted (gpu_device.c) */
pk_status PK_GPU_OP(init)(pk_msg *why);
int PK_GPU_OP(device_count)(void);
/* What every device of the backend says of itself (name, vendor, memory,
 * backend, index), with its handle and the driver's version for the rest
 * (gpu_device.c) */
pk_status pk_gpu_device_basics(int index, pk_device_info *info, pk_gpu_dev *dev, int *driver, pk_msg *msg);
/* The backend's own entries of its pk_backend_iface (gpu_backend.c holds
 * the table and the rest): devices, open. */
pk_status PK_GPU_OP(device_info)(int index, pk_device_info *info, pk_msg *msg);
pk_status PK_GPU_OP(open)(int index, void *queue, void **out, pk_msg *msg);
/* A device fault (an illegal address, a trap) stays for the rest of the
 * process on both drivers: every later call on the device says it again.
 * s as open got it, said so when it is such a fault (gpu_backend.c). */
pk_status pk_gpu_sticky(pk_status s, pk_msg *msg);
/* What open made, undone and d freed: the end of close (gpu_backend.c),
 * and of an open that fails. pk_gpu_unload (gpu_device.c) undoes what
 * every backend made (the modules, the stream); the backend's release
 * calls it and then undoes its own. */
void PK_GPU_OP(release)(pk_gpu_device *d);
void pk_gpu_unload(pk_gpu_device *d);
/* The modules' names as the kernel lists give them ("gemm"); the embedded
 * image of one ("gemm.fatbin", "gemm.co"), NULL when the build has none;
 * that image loaded into d->modules[module] (a bad image, or one with no
 * code for the device: PK_ERR_BUILD_FAILED, and the module stays NULL). */
extern const char *const pk_gpu_module_names[PK_GPU_MODULE_COUNT];
const pk_embedded_blob *pk_gpu_blob_of(const pk_embedded_blob *blobs, int module);
pk_status pk_gpu_load(pk_gpu_device *d, int module, const pk_embedded_blob *b, pk_msg *msg);
pk_status pk_gpu_fault_inject(void *dev, struct pk_fault_plan *plan, pk_msg *msg);

/* ops */
pk_status PK_GPU_OP(gemm)(void *dev, const pk_gemm_problem *p, pk_msg *msg);
pk_status PK_GPU_OP(attention)(void *dev, const pk_attention_problem *p, pk_msg *msg);
pk_status PK_GPU_OP(rows)(void *dev, const pk_rows_problem *p, pk_msg *msg);
pk_status PK_GPU_OP(rope)(void *dev, const pk_rope_problem *p, pk_msg *msg);
pk_status PK_GPU_OP(chain)(void *dev, const pk_chain_problem *p, pk_msg *msg);
pk_status PK_GPU_OP(index_rows)(void *dev, const pk_index_problem *p, pk_msg *msg);
/* Graphs (gpu_graph.c): capture of the stream, launch, free. keep() holds
 * an outgrown buffer while a graph lives (1: kept; 0: no graph, free it
 * as usual; -1: a graph lives but no host memory to note it: the buffer
 * must stay); kept_free() frees them once none does. */
pk_status PK_GPU_OP(graph_begin)(void *dev, pk_msg *msg);
pk_status PK_GPU_OP(graph_end)(void *dev, void **graph, pk_msg *msg);
pk_status PK_GPU_OP(graph_launch)(void *dev, void *graph, pk_msg *msg);
void PK_GPU_OP(graph_free)(void *dev, void *graph);
int PK_GPU_OP(keep)(pk_gpu_device *d, pk_gpu_ptr mem);
void PK_GPU_OP(kept_free)(pk_gpu_device *d);

#endif
