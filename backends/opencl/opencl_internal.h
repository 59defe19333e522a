/* The OpenCL backend's internal interface, shared by its op files. */
#ifndef PK_OPENCL_INTERNAL_H
#define PK_OPENCL_INTERNAL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "backend.h"
#include "opencl_params.h"

typedef struct pk_cl_program pk_cl_program; /* built programs, keyed by source + options */

typedef struct pk_cl_staged pk_cl_staged;

typedef struct pk_cl_device {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_command_queue touch_queue; /* first touches of new memory: waited on without draining `queue` */
    int profiling;        /* `queue` times its commands (the caller's queue may not) */
    pk_device_info info;
    char platform_name[128];
    char device_version[128];
    pk_cl_program *programs;
    cl_mem scratch;       /* grown on demand; in-order queue makes reuse safe */
    size_t scratch_size;
    cl_mem counters;      /* zeros between ops: each kernel that counts sets its counters back */
    size_t counters_size;
    cl_mem tma_slots;     /* gemm_tma.cl's maps, two a work-group; grown on demand */
    size_t tma_slots_size;
    pk_cl_staged *staged; /* host copies of in-flight uploads (opencl_stage.c) */
    size_t max_wg;        /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    cl_uint nv_regs;      /* CL_DEVICE_REGISTERS_PER_BLOCK_NV; 0: not NVIDIA, or not said */
    pk_cl_params prm;     /* the kernels' parameters (opencl_tuned.c) */
    char prm_from[PK_CL_FAMILY_COUNT]; /* per family: 't'able, tune'd' (the cache), 's'et by a caller */
    int autotune;                        /* families are tuned on first use (opencl_autotune.c) */
    char autotune_pending[PK_CL_FAMILY_COUNT]; /* per family: not asked for yet */
} pk_cl_device;

/* The caller's side (opencl_foreign.c): d->context and d->queue from the
 * caller's in-order queue of d->device (both retained); a cl_mem of
 * d->context as a pk_mem and back; event waits. */
pk_status pk_cl_adopt_queue(pk_cl_device *d, cl_command_queue queue, pk_msg *msg);
pk_status pk_cl_wrap(void *dev, uintptr_t handle, size_t bytes, pk_mem *mem, pk_msg *msg);
void pk_cl_unwrap(void *dev, pk_mem mem);
pk_status pk_cl_event_wait(void *dev, void *owner, void *event, pk_msg *msg);
pk_status pk_cl_event_sync(void *dev, void *event, pk_msg *msg);

/* pk_gather_rows and pk_scatter_rows (opencl_index.c) */
pk_status pk_cl_index_rows(void *dev, const pk_index_problem *p, pk_msg *msg);

/* FNV-1a of common.cl and `source` as embedded, and of what names this
 * device and its driver: the keys of the on-disk caches. */
uint64_t pk_cl_source_hash(const char *source);
uint64_t pk_cl_device_hash(pk_cl_device *d);

/* d->prm from the table of d's class, then each family the tuning cache
 * holds for this device, driver and source, then PORTKERN_CL_PARAMS's
 * values (PK_ERR_INVALID_ARGUMENT, saying why, where they do not parse or
 * break a kernel's rule). */
pk_status pk_cl_params_load(pk_cl_device *d, pk_msg *msg);
/* Family f from the tuning cache into d->prm, the other families as they
 * are; 0, or -1 when the cache has no valid entry for it. */
int pk_cl_params_load_family(pk_cl_device *d, pk_cl_family f);
/* PORTKERN_CL_TUNED=off: the table alone, no tuning cache read or made. */
int pk_cl_tuned_off(void);
/* The backend's params hook (backend.h): get, set, default, store, status. */
pk_status pk_cl_params_request(void *dev, const char *request, char *reply, size_t n, pk_msg *msg);

/* Queues a copy of the n int32 values of device view v (lengths,
 * positions the caller gave on the device) into dst at byte off; `what`
 * names it in errors. */
pk_status pk_cl_copy_i32(pk_cl_device *d, const pk_view *v, cl_mem dst, size_t off, size_t n, const char *what,
                         pk_msg *msg);

/* Queues a copy of src[0..n) into dst at off without waiting for it;
 * `what` names it in errors. */
pk_status pk_cl_upload_async(pk_cl_device *d, cl_mem dst, size_t off, const void *src, size_t n, const char *what,
                             pk_msg *msg);
/* Frees the staging copies whose writes are done (all, waiting, if wait). */
void pk_cl_staged_reap(pk_cl_device *d, int wait);

/* Checks an OpenCL return code; on failure writes "what: CL_ERROR_NAME". */
pk_status pk_cl_check(cl_int err, const char *what, pk_msg *msg);
const char *pk_cl_error_name(cl_int err);

/* An embedded kernel source by file name ("nv_ptx.cl"), or NULL. */
const char *pk_cl_embedded_source(const char *name);
/* Runs kernels_cl/ptx_probe.cl on dev (opencl_ptx_probe.c): 1 if its inline
 * PTX builds and computes exactly, else 0 and why. */
int pk_cl_ptx_probe(cl_platform_id plat, cl_device_id dev, char *why, size_t n);
/* Whether device `index` runs inline PTX (PORTKERN_OPENCL_PTX=0: no), and
 * how that was decided; the probe runs once per device and process. */
int pk_cl_ptx_state(int index, char *why, size_t n);
/* Runs ptx_probe.cl's wgmma kernel on dev: 1 if its products are exact
 * once rebuilt for sm_90a (opencl_ptx_rebuild.c), else 0 and why. */
int pk_cl_wgmma_probe(cl_platform_id plat, cl_device_id dev, char *why, size_t n);
/* Whether device `index` runs wgmma from OpenCL: its inline PTX passed
 * (pk_cl_ptx_state), it is of compute capability 9.0 (sm_90a code runs
 * there alone), PORTKERN_OPENCL_WGMMA is not 0, and the probe passed; once
 * per device and process. */
int pk_cl_wgmma_state(int index, char *why, size_t n);
/* Whether device `index` runs TMA from OpenCL: wgmma runs there
 * (pk_cl_wgmma_state), PORTKERN_OPENCL_TMA is not 0, the CUDA driver
 * encoded the tensor-map templates (opencl_tma.c) and the probe's copies
 * through them were exact; once per device and process. */
int pk_cl_tma_state(int index, char *why, size_t n);
/* Device `index`'s tensor-map templates (kernels_cl/cl_args.h
 * PK_TMA_TEMPLATE order, PK_TMA_TEMPLATES of them), or NULL unless
 * pk_cl_tma_state passes. */
const unsigned char (*pk_cl_tma_templates(int index))[128];
/* *prog (built from source) rebuilt from its PTX with the edits its
 * options ask for (opencl_ptx_rebuild.c: wgmma, a register bound), or
 * left where they ask none; a CL error code, and *why which
 * edit failed */
cl_int pk_cl_ptx_rebuild(cl_context ctx, cl_device_id dev, cl_program *prog, const char *options, const char **why);
/* the same on NVIDIA's OpenCL, as a status; other devices' programs are
 * left as they are */
pk_status pk_cl_ptx_program(pk_cl_device *d, cl_program *prog, const char *options, pk_msg *msg);

/* A kernel of a built program, with the argument values it holds from
 * its last launch (opencl_program.c). */
typedef struct pk_cl_kern pk_cl_kern;

/* The kernel `kernel` of the program built from the embedded sources
 * common.cl + `source` with build `options`, for this device. Built once
 * per (source, options) and kept; binaries are cached on disk. */
pk_status pk_cl_kernel(pk_cl_device *d, const char *source, const char *options, const char *kernel,
                       pk_cl_kern **out, pk_msg *msg);
/* The most work-items a work-group of k may have (its registers can allow
 * fewer than the device), asked once when k was made; 0: unknown. */
size_t pk_cl_kern_max_wg(const pk_cl_kern *k);
void pk_cl_programs_release(pk_cl_device *d);

typedef struct pk_cl_arg {
    size_t size;
    const void *ptr; /* NULL with size > 0: local memory of that size */
} pk_cl_arg;
#define PK_CL_ARG(x) ((pk_cl_arg){sizeof(x), &(x)})

/* Sets the arguments of a kernel pk_cl_kernel gave, skipping values the
 * kernel already holds from its last launch. */
pk_status pk_cl_set_args(pk_cl_kern *k, const pk_cl_arg *args, int nargs, pk_msg *msg);
/* Forgets every kept argument value: called whenever a cl_mem is released,
 * since a new buffer may come back under the same handle. */
void pk_cl_args_forget(pk_cl_device *d);

/* Sets args and enqueues `k` over `global` (rounded up to a multiple of
 * `local`, which may be NULL to let the runtime choose). */
pk_status pk_cl_run(pk_cl_device *d, pk_cl_kern *k, const pk_cl_arg *args, int nargs, cl_uint dims,
                    const size_t *global, const size_t *local, pk_msg *msg);

/* The grid of an elementwise kernel over rows x cols: work-groups of wg
 * items (a power of two), as wide along cols as cols allows, and at most
 * 65535 groups along rows (NVIDIA bounds a grid's second dimension; the
 * kernels loop over the rows beyond). */
void pk_cl_grid_2d(size_t wg, size_t cols, size_t rows, size_t global[2], size_t local[2]);

/* A device scratch buffer of at least `bytes`, valid until the next call. */
pk_status pk_cl_scratch(pk_cl_device *d, size_t bytes, cl_mem *out, pk_msg *msg);
/* A device buffer of at least `bytes` of zeros, for counters that the
 * work-groups of one kernel meet on (gemm_mma.cl's split-K): the kernel
 * leaves them zeros again. */
pk_status pk_cl_counters(pk_cl_device *d, size_t bytes, cl_mem *out, pk_msg *msg);
/* What gemm_tma.cl needs: the device's tensor-map templates (its
 * arguments by value; PK_ERR_UNSUPPORTED where the TMA probe did not
 * pass) and at least slot_bytes of slots for the work-groups' own maps. */
pk_status pk_cl_tma_buffers(pk_cl_device *d, size_t slot_bytes, const unsigned char (**tpl)[128], cl_mem *slots,
                            pk_msg *msg);

/* "-DNAME=dtype" fragments for build options. */
int pk_cl_options(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* First-use tuning (opencl_autotune.c): the core's hooks, kept when the
 * core loads the module; whether d tunes families on first use (at open,
 * after pk_cl_params_load); "on SECONDS" or "off" for the params status;
 * and the ops that ask for it before they plan (each then runs the op). */
void pk_cl_set_core_hooks(const pk_core_hooks *hooks);
void pk_cl_autotune_init(pk_cl_device *d);
void pk_cl_autotune_describe(const pk_cl_device *d, char *buf, size_t n);
pk_status pk_cl_gemm_first_use(void *dev, const pk_gemm_problem *p, pk_msg *msg);
pk_status pk_cl_attention_first_use(void *dev, const pk_attention_problem *p, pk_msg *msg);
pk_status pk_cl_rows_first_use(void *dev, const pk_rows_problem *p, pk_msg *msg);
pk_status pk_cl_rope_first_use(void *dev, const pk_rope_problem *p, pk_msg *msg);
pk_status pk_cl_chain_first_use(void *dev, const pk_chain_problem *p, pk_msg *msg);

/* ops */
pk_status pk_cl_gemm(void *dev, const pk_gemm_problem *p, pk_msg *msg);
pk_status pk_cl_attention(void *dev, const pk_attention_problem *p, pk_msg *msg);
pk_status pk_cl_rows(void *dev, const pk_rows_problem *p, pk_msg *msg);
pk_status pk_cl_rope(void *dev, const pk_rope_problem *p, pk_msg *msg);
pk_status pk_cl_chain(void *dev, const pk_chain_problem *p, pk_msg *msg);

#endif
