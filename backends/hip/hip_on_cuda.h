/* The HIP host API that the HIP backend uses, on the CUDA driver API: the
 * HIP-on-NVIDIA build (-Dhip_platform=nvidia) compiles the same host code
 * against this header instead of <hip/hip_runtime_api.h>, whose NVIDIA
 * half (Debian's HIP 5.2) does not compile with CUDA 13. Only the calls
 * the backend makes are here, with HIP's signatures and meaning; a device
 * pointer is a void *, as in HIP on AMD. */
#ifndef PK_HIP_ON_CUDA_H
#define PK_HIP_ON_CUDA_H

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

typedef CUresult hipError_t;
typedef CUdevice hipDevice_t;
typedef CUmodule hipModule_t;
typedef CUfunction hipFunction_t;
typedef CUstream hipStream_t;
typedef CUevent hipEvent_t;
typedef void *hipDeviceptr_t;

/* Constants of hipError_t's type, so that comparisons stay within one enum;
 * static const in a header draws no unused-variable warning. */
static const hipError_t hipSuccess = CUDA_SUCCESS;
static const hipError_t hipErrorNotReady = CUDA_ERROR_NOT_READY;
#define hipEventDisableTiming CU_EVENT_DISABLE_TIMING
static const hipError_t hipErrorInvalidValue = CUDA_ERROR_INVALID_VALUE;
static const hipError_t hipErrorOutOfMemory = CUDA_ERROR_OUT_OF_MEMORY;
static const hipError_t hipErrorNotFound = CUDA_ERROR_NOT_FOUND;
static const hipError_t hipErrorInvalidImage = CUDA_ERROR_INVALID_IMAGE;
static const hipError_t hipErrorNoBinaryForGpu = CUDA_ERROR_NO_BINARY_FOR_GPU;
static const unsigned hipStreamNonBlocking = CU_STREAM_NON_BLOCKING;

typedef enum hipDeviceAttribute_t {
    hipDeviceAttributeComputeCapabilityMajor = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
    hipDeviceAttributeComputeCapabilityMinor = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
    hipDeviceAttributeMultiprocessorCount = CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
    hipDeviceAttributeWarpSize = CU_DEVICE_ATTRIBUTE_WARP_SIZE,
    hipDeviceAttributeMaxSharedMemoryPerBlock = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
    hipDeviceAttributeSharedMemPerBlockOptin = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
} hipDeviceAttribute_t;

static inline CUdeviceptr pk_cu_dptr(hipDeviceptr_t p) { return (CUdeviceptr)(uintptr_t)p; }

static inline hipError_t hipInit(unsigned flags) { return cuInit(flags); }
static inline hipError_t hipGetDeviceCount(int *n) { return cuDeviceGetCount(n); }
static inline hipError_t hipDeviceGet(hipDevice_t *d, int ordinal) { return cuDeviceGet(d, ordinal); }
static inline hipError_t hipDeviceGetName(char *name, int len, hipDevice_t d) { return cuDeviceGetName(name, len, d); }
static inline hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t d) { return cuDeviceTotalMem(bytes, d); }
static inline hipError_t hipDriverGetVersion(int *v) { return cuDriverGetVersion(v); }
static inline hipError_t hipDeviceGetAttribute(int *v, hipDeviceAttribute_t a, int ordinal)
{
    CUdevice d;
    CUresult r = cuDeviceGet(&d, ordinal);
    return r != CUDA_SUCCESS ? r : cuDeviceGetAttribute(v, (CUdevice_attribute)a, d);
}

static inline const char *hipGetErrorName(hipError_t e)
{
    const char *s = NULL;
    return cuGetErrorName(e, &s) == CUDA_SUCCESS && s ? s : "CUDA_ERROR_UNKNOWN";
}
static inline const char *hipGetErrorString(hipError_t e)
{
    const char *s = NULL;
    return cuGetErrorString(e, &s) == CUDA_SUCCESS && s ? s : "unknown error";
}

/* As in HIP (and the CUDA runtime), a device's primary context is retained
 * the first time the device is made current, for the life of the process. */
static inline hipError_t hipSetDevice(int ordinal)
{
    enum { MAX_DEVICES = 64 };
    static CUcontext ctx[MAX_DEVICES];
    if (ordinal < 0 || ordinal >= MAX_DEVICES) return CUDA_ERROR_INVALID_DEVICE;
    CUcontext c = __atomic_load_n(&ctx[ordinal], __ATOMIC_ACQUIRE);
    if (!c) {
        CUdevice d;
        CUresult r = cuDeviceGet(&d, ordinal);
        if (r == CUDA_SUCCESS) r = cuDevicePrimaryCtxRetain(&c, d);
        if (r != CUDA_SUCCESS) return r;
        CUcontext none = NULL;
        /* another thread got there first: drop the second retain */
        if (!__atomic_compare_exchange_n(&ctx[ordinal], &none, c, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            cuDevicePrimaryCtxRelease(d);
    }
    return cuCtxSetCurrent(c);
}

static inline hipError_t hipStreamCreateWithFlags(hipStream_t *s, unsigned flags) { return cuStreamCreate(s, flags); }
static inline hipError_t hipStreamDestroy(hipStream_t s) { return cuStreamDestroy(s); }
static inline hipError_t hipStreamSynchronize(hipStream_t s) { return cuStreamSynchronize(s); }
static inline hipError_t hipStreamGetFlags(hipStream_t s, unsigned *flags) { return cuStreamGetFlags(s, flags); }

static inline hipError_t hipModuleLoadData(hipModule_t *m, const void *image) { return cuModuleLoadData(m, image); }
static inline hipError_t hipModuleUnload(hipModule_t m) { return cuModuleUnload(m); }
static inline hipError_t hipModuleGetFunction(hipFunction_t *f, hipModule_t m, const char *name)
{
    return cuModuleGetFunction(f, m, name);
}
static inline hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                               unsigned by, unsigned bz, unsigned lds, hipStream_t s, void **params,
                                               void **extra)
{
    return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, lds, s, params, extra);
}
static inline hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *n, hipFunction_t f, int block,
                                                                            size_t lds)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, block, lds);
}

/* Beyond 48 KiB of dynamic shared memory CUDA wants an opt-in per kernel;
 * HIP has no such call (AMD's 64 KiB need none): see hip_internal.h. */
static inline hipError_t pk_hip_allow_lds(hipFunction_t f, unsigned bytes)
{
    return bytes <= 48u * 1024u ? CUDA_SUCCESS
                                : cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes);
}

static inline hipError_t hipMalloc(void **p, size_t bytes)
{
    CUdeviceptr d = 0;
    CUresult r = cuMemAlloc(&d, bytes);
    *p = (void *)(uintptr_t)d;
    return r;
}
static inline hipError_t hipFree(void *p) { return p ? cuMemFree(pk_cu_dptr(p)) : CUDA_SUCCESS; }
#define hipHostMallocDefault 0u
static inline hipError_t hipHostMalloc(void **p, size_t bytes, unsigned flags)
{
    return cuMemHostAlloc(p, bytes, flags);
}
static inline hipError_t hipHostFree(void *p) { return p ? cuMemFreeHost(p) : CUDA_SUCCESS; }
static inline hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t n, hipStream_t s)
{
    return cuMemcpyHtoDAsync(pk_cu_dptr(dst), src, n, s);
}
static inline hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t n, hipStream_t s)
{
    return cuMemcpyDtoHAsync(dst, pk_cu_dptr(src), n, s);
}
static inline hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n, hipStream_t s)
{
    return cuMemcpyDtoDAsync(pk_cu_dptr(dst), pk_cu_dptr(src), n, s);
}
static inline hipError_t hipMemsetD8Async(hipDeviceptr_t p, unsigned char v, size_t n, hipStream_t s)
{
    return cuMemsetD8Async(pk_cu_dptr(p), v, n, s);
}
static inline hipError_t hipMemsetD16Async(hipDeviceptr_t p, unsigned short v, size_t n, hipStream_t s)
{
    return cuMemsetD16Async(pk_cu_dptr(p), v, n, s);
}
static inline hipError_t hipMemsetD32Async(hipDeviceptr_t p, int v, size_t n, hipStream_t s)
{
    return cuMemsetD32Async(pk_cu_dptr(p), (unsigned)v, n, s);
}

static inline hipError_t hipEventCreate(hipEvent_t *e) { return cuEventCreate(e, CU_EVENT_DEFAULT); }
static inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t s) { return cuEventRecord(e, s); }
static inline hipError_t hipEventSynchronize(hipEvent_t e) { return cuEventSynchronize(e); }
static inline hipError_t hipEventElapsedTime(float *ms, hipEvent_t a, hipEvent_t b) { return cuEventElapsedTime(ms, a, b); }
static inline hipError_t hipEventDestroy(hipEvent_t e) { return cuEventDestroy(e); }
static inline hipError_t hipEventQuery(hipEvent_t e) { return cuEventQuery(e); }
static inline hipError_t hipEventCreateWithFlags(hipEvent_t *e, unsigned flags) { return cuEventCreate(e, flags); }
static inline hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t e, unsigned flags) { return cuStreamWaitEvent(s, e, flags); }

typedef CUgraph hipGraph_t;
typedef CUgraphExec hipGraphExec_t;
typedef CUstreamCaptureMode hipStreamCaptureMode;
#define hipStreamCaptureModeThreadLocal CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
static inline hipError_t hipStreamBeginCapture(hipStream_t s, hipStreamCaptureMode m) { return cuStreamBeginCapture(s, m); }
static inline hipError_t hipStreamEndCapture(hipStream_t s, hipGraph_t *g) { return cuStreamEndCapture(s, g); }
static inline hipError_t hipGraphInstantiate(hipGraphExec_t *e, hipGraph_t g, void *error_node, char *log, size_t log_size)
{
    (void)error_node, (void)log, (void)log_size;
    return cuGraphInstantiate(e, g, 0);
}
static inline hipError_t hipGraphLaunch(hipGraphExec_t e, hipStream_t s) { return cuGraphLaunch(e, s); }
static inline hipError_t hipGraphExecDestroy(hipGraphExec_t e) { return cuGraphExecDestroy(e); }
static inline hipError_t hipGraphDestroy(hipGraph_t g) { return cuGraphDestroy(g); }

/* the pointer attributes the backend asks for, in HIP's spelling */
#define HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
#define HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR CU_POINTER_ATTRIBUTE_RANGE_START_ADDR
#define HIP_POINTER_ATTRIBUTE_RANGE_SIZE CU_POINTER_ATTRIBUTE_RANGE_SIZE
static inline hipError_t hipPointerGetAttribute(void *data, CUpointer_attribute a, hipDeviceptr_t p)
{
    return cuPointerGetAttribute(data, a, pk_cu_dptr(p));
}

#endif /* PK_HIP_ON_CUDA_H */
