/* The CUDA backend's internal interface, shared by its op files. Host code
 * is C over the CUDA driver API; device code lives in kernels_cuda/ and is
 * built by nvcc into one fatbin embedded in the module. */
#ifndef PK_CUDA_INTERNAL_H
#define PK_CUDA_INTERNAL_H

#include <cuda.h>

#include "backend.h"
#include "pk_gpu_ew.h"
#include "pk_gpu_retire.h"
#include "pk_gpu_stage.h"

typedef struct pk_cu_function_entry pk_cu_function_entry;

#define PK_CU_MAX_MODULES 8

typedef struct pk_cu_device {
    CUdevice device;
    CUcontext context;         /* the device's primary context */
    CUstream stream;           /* every op of the pk_context is queued here, in order */
    CUmodule modules[PK_CU_MAX_MODULES]; /* the embedded fatbins, loaded once at open */
    const char *module_names[PK_CU_MAX_MODULES]; /* their files: "gemm.fatbin", ... */
    int n_modules;
    int has_sm90_gemm;         /* gemm_sm90.fatbin loaded: the wgmma GEMM runs here */
    pk_device_info info;
    int sm;                    /* compute capability major*10 + minor, e.g. 90 */
    int sm_count;
    int early_launch;          /* programmatic dependent launch: sm_90 on, unless PORTKERN_CUDA_PDL=0 */
    /* A/B knobs, read once at open: PORTKERN_CUDA_GEMM and PORTKERN_CUDA_ATTN
     * (the plans' knob arguments); NULL when unset */
    const char *gemm_knob, *attn_knob;
    char knobs[2][32];
    size_t smem_optin;         /* max dynamic shared memory per block (opt-in) */
    pk_cu_function_entry *functions;
    CUdeviceptr scratch;       /* grown on demand; the in-order stream makes reuse safe */
    size_t scratch_size;
    CUdeviceptr rope_tab;      /* RoPE's tables, kept between calls (pk_gpu_rope_tables) */
    size_t rope_tab_size;
    pk_gpu_rope_tables rope;
    CUmodule fault_module;     /* pk_fault_store, loaded by a test's device fault only */
    pk_gpu_retired *retired;   /* outgrown buffers the stream may still read (pk_cu_reserve) */
    pk_gpu_stage stage;        /* pinned ring the host arrays of ops are copied from (gpu/gpu_stage.c) */
} pk_cu_device;

/* Checks a driver API result; on failure writes "what: CUDA_ERROR_NAME: text".
 * Sticky errors (illegal address, launch failure) give PK_ERR_DEVICE_FAILURE,
 * allocation failures PK_ERR_OUT_OF_MEMORY. */
pk_status pk_cu_check(CUresult r, const char *what, pk_msg *msg);

/* The kernel `name` (an extern "C" __global__ of kernels_cuda/), looked up
 * once per device and kept. Its prefix names its module: pk_gemm_wgmma_ in
 * gemm_sm90.fatbin, pk_gemm_ in gemm.fatbin, pk_attn_ in attention.fatbin,
 * pk_ew_ in elementwise.fatbin. */
pk_status pk_cu_function(pk_cu_device *d, const char *name, CUfunction *out, pk_msg *msg);

/* Launches f on the device's stream; smem is dynamic shared memory in bytes
 * (the attribute for more than 48 KiB is set here). args as cuLaunchKernel.
 * early: f may start while the previous kernel still runs, where the
 * device allows (programmatic dependent launch, sm_90 on); f must then
 * wait for it (pk_grid_dependency_wait) before it reads or writes
 * anything but a prefetch. */
pk_status pk_cu_launch(pk_cu_device *d, CUfunction f, const unsigned grid[3], const unsigned block[3],
                       unsigned smem, void **args, int early, pk_msg *msg);

/* Makes a device buffer the device keeps (*buf of *size bytes) at least
 * `bytes` long, and no shorter than `least` when it grows; growing loses
 * the contents, which *fresh (if not NULL) reports. The old buffer is
 * freed once the stream has passed the work queued so far (which may
 * still read it), without the host waiting. */
pk_status pk_cu_reserve(pk_cu_device *d, CUdeviceptr *buf, size_t *size, size_t bytes, size_t least,
                        const char *what, int *fresh, pk_msg *msg);

/* Frees the outgrown buffers the stream is done with (all of them, after
 * the caller waited for the stream, when `all`). */
void pk_cu_reap(pk_cu_device *d, int all);

/* Device scratch of at least `bytes`, valid until the next op. Growing it
 * frees the old one: an op asks once for all it needs, then carves it. */
pk_status pk_cu_scratch(pk_cu_device *d, size_t bytes, CUdeviceptr *out, pk_msg *msg);

/* Copies a small host array (lengths, positions) into scratch at `offset`,
 * ordered on the stream before the kernels that read it; the host memory
 * may be freed when this returns. */
pk_status pk_cu_upload_scratch(pk_cu_device *d, size_t offset, const void *src, size_t bytes,
                               CUdeviceptr *out, pk_msg *msg);

/* Queues a copy of a host array to dst through the pinned staging ring,
 * without waiting for the stream (pageable sources may); src may be freed
 * when this returns. */
pk_status pk_cu_stage_upload(pk_cu_device *d, uint64_t dst, const void *src, size_t bytes, pk_msg *msg);

/* Hands back the staging regions whose copies completed (all of them,
 * after the caller waited for the stream, when `all`). */
void pk_cu_stage_reap(pk_cu_device *d, int all);

/* Frees the staging ring; the caller has waited for the stream. */
void pk_cu_stage_free(pk_cu_device *d);

static inline CUdeviceptr pk_cu_ptr(pk_mem m) { return (CUdeviceptr)(uintptr_t)m; }

/* ops */
pk_status pk_cu_gemm(void *dev, const pk_gemm_problem *p, pk_msg *msg);
pk_status pk_cu_attention(void *dev, const pk_attention_problem *p, pk_msg *msg);
pk_status pk_cu_rmsnorm(void *dev, const pk_rows_problem *p, pk_msg *msg);
pk_status pk_cu_layernorm(void *dev, const pk_rows_problem *p, pk_msg *msg);
pk_status pk_cu_glu(void *dev, const pk_rows_problem *p, pk_msg *msg);
pk_status pk_cu_bias_act(void *dev, const pk_rows_problem *p, pk_msg *msg);
pk_status pk_cu_softmax(void *dev, const pk_rows_problem *p, pk_msg *msg);
pk_status pk_cu_rope(void *dev, const pk_rope_problem *p, pk_msg *msg);
pk_status pk_cu_chain(void *dev, const pk_chain_problem *p, pk_msg *msg);

#endif
