/* The OpenCL backend: device discovery, contexts, memory. Ops live in
 * opencl_<op>.c, device code in kernels_cl/. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"
#include "opencl_tma.h"
#include "pk_fault.h"

#define PK_CL_MAX_DEVICES 64
/* Vendor queries (cl_nv_device_attribute_query, cl_amd_device_attribute_query). */
#define PK_CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define PK_CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#define PK_CL_DEVICE_REGISTERS_PER_BLOCK_NV 0x4002
#define PK_CL_DEVICE_WARP_SIZE_NV 0x4003
#define PK_CL_DEVICE_WAVEFRONT_WIDTH_AMD 0x4043

/* a probe's answer for a device: 0 not asked, 1 passed, -1 not usable, and why */
typedef struct {
    int state;
    char why[400];
} pk_cl_probed;

typedef struct pk_cl_slot {
    cl_platform_id platform;
    cl_device_id device;
    int ptx_candidate; /* an NVIDIA GPU that mma.sync, cp.async and ldmatrix exist on */
    int cc;            /* NVIDIA's compute capability, 10 major + minor; 0: not NVIDIA, or not said */
    pk_cl_probed ptx, wgmma, tma;
    unsigned char tma_tpl[PK_TMA_TEMPLATES][128]; /* the TMA GEMM's tensor-map templates, once tma passed */
} pk_cl_slot;

static pk_cl_slot slots[PK_CL_MAX_DEVICES];
static int n_slots;
/* the slots' ptx fields: contexts may open on several threads at once */
static pthread_mutex_t ptx_lock = PTHREAD_MUTEX_INITIALIZER;

const char *pk_cl_error_name(cl_int err)
{
    switch (err) {
#define E(x) case x: return #x
    E(CL_SUCCESS); E(CL_DEVICE_NOT_FOUND); E(CL_DEVICE_NOT_AVAILABLE); E(CL_COMPILER_NOT_AVAILABLE);
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE); E(CL_OUT_OF_RESOURCES); E(CL_OUT_OF_HOST_MEMORY);
    E(CL_BUILD_PROGRAM_FAILURE); E(CL_INVALID_VALUE); E(CL_INVALID_DEVICE); E(CL_INVALID_BINARY);
    E(CL_INVALID_BUILD_OPTIONS); E(CL_INVALID_PROGRAM); E(CL_INVALID_PROGRAM_EXECUTABLE);
    E(CL_INVALID_KERNEL_NAME); E(CL_INVALID_KERNEL); E(CL_INVALID_ARG_INDEX); E(CL_INVALID_ARG_VALUE);
    E(CL_INVALID_ARG_SIZE); E(CL_INVALID_KERNEL_ARGS); E(CL_INVALID_WORK_DIMENSION);
    E(CL_INVALID_WORK_GROUP_SIZE); E(CL_INVALID_WORK_ITEM_SIZE); E(CL_INVALID_GLOBAL_OFFSET);
    E(CL_INVALID_MEM_OBJECT); E(CL_INVALID_BUFFER_SIZE); E(CL_INVALID_COMMAND_QUEUE);
    E(CL_INVALID_CONTEXT); E(CL_INVALID_OPERATION); E(CL_MISALIGNED_SUB_BUFFER_OFFSET);
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST); E(CL_INVALID_PLATFORM);
#undef E
    default: return "CL_ERROR_UNKNOWN";
    }
}

pk_status pk_cl_check(cl_int err, const char *what, pk_msg *msg)
{
    if (err == CL_SUCCESS) return PK_SUCCESS;
    pk_status s = PK_ERR_DEVICE_FAILURE;
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY ||
        err == CL_INVALID_BUFFER_SIZE)
        s = PK_ERR_OUT_OF_MEMORY;
    return pk_msgf(msg, s, "%s: %s (%d)", what, pk_cl_error_name(err), (int)err);
}

static int has_extension(cl_device_id dev, const char *ext);
static int ptx_candidate(cl_device_id dev);
static int nv_cc(cl_device_id dev);

static pk_status cl_init(pk_msg *why)
{
    cl_platform_id plats[16];
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(16, plats, &np);
    if (err != CL_SUCCESS || np == 0)
        return pk_msgf(why, PK_ERR_BACKEND_UNAVAILABLE, "no OpenCL platform (clGetPlatformIDs: %s)",
                       pk_cl_error_name(err));
    n_slots = 0;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        cl_device_id devs[PK_CL_MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, PK_CL_MAX_DEVICES, devs, &nd) != CL_SUCCESS) continue;
        for (cl_uint i = 0; i < nd && n_slots < PK_CL_MAX_DEVICES; i++) {
            memset(&slots[n_slots], 0, sizeof slots[n_slots]);
            slots[n_slots].platform = plats[p];
            slots[n_slots].device = devs[i];
            slots[n_slots].ptx_candidate = ptx_candidate(devs[i]);
            slots[n_slots].cc = nv_cc(devs[i]);
            n_slots++;
        }
    }
    if (n_slots == 0)
        return pk_msgf(why, PK_ERR_BACKEND_UNAVAILABLE, "%u OpenCL platform(s) but no device", np);
    return PK_SUCCESS;
}

static int cl_device_count(void) { return n_slots; }

static int has_extension(cl_device_id dev, const char *ext)
{
    size_t n = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &n) != CL_SUCCESS || n == 0) return 0;
    char *s = malloc(n + 1);
    if (!s) return 0;
    int found = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, n, s, NULL) == CL_SUCCESS) {
        s[n] = '\0';
        size_t len = strlen(ext);
        for (const char *p = strstr(s, ext); p && !found; p = strstr(p + 1, ext))
            found = (p == s || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0');
    }
    free(s);
    return found;
}

/* NVIDIA GPUs from compute capability 8.0 on (mma.sync m16n8k16,
 * cp.async, ldmatrix); they use it if the probe says their inline PTX
 * computes exactly. Asked once, at backend init. */
static int ptx_candidate(cl_device_id dev)
{
    cl_uint cc_major = 0;
    cl_device_type type = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS || (type & CL_DEVICE_TYPE_CPU))
        return 0;
    if (has_extension(dev, "cl_nv_device_attribute_query"))
        clGetDeviceInfo(dev, PK_CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof cc_major, &cc_major, NULL);
    return cc_major >= 8;
}

static int nv_cc(cl_device_id dev)
{
    cl_uint major = 0, minor = 0;
    if (!has_extension(dev, "cl_nv_device_attribute_query") ||
        clGetDeviceInfo(dev, PK_CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(dev, PK_CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof minor, &minor, NULL) != CL_SUCCESS)
        return 0;
    return (int)(10 * major + minor);
}

/* a probe's answer for slot sl, asked once per device and process: 1 and
 * `passed`, or 0 and why not, in why */
static int probed(pk_cl_slot *sl, pk_cl_probed *p, int (*probe)(cl_platform_id, cl_device_id, char *, size_t),
                  const char *passed, char *why, size_t n)
{
    pthread_mutex_lock(&ptx_lock);
    if (!p->state) {
        char w[sizeof p->why] = "";
        p->state = probe(sl->platform, sl->device, w, sizeof w) ? 1 : -1;
        snprintf(p->why, sizeof p->why, "%s", w);
    }
    const int ok = p->state > 0;
    if (ok)
        snprintf(why, n, "%s", passed);
    else
        snprintf(why, n, "the probe failed: %s", p->why);
    pthread_mutex_unlock(&ptx_lock);
    return ok;
}

/* PORTKERN_OPENCL_<name>=0 */
static int turned_off(const char *var) { const char *env = getenv(var); return env && !strcmp(env, "0"); }

int pk_cl_ptx_state(int index, char *why, size_t n)
{
    if (index < 0 || index >= n_slots) return snprintf(why, n, "no such device"), 0;
    if (turned_off("PORTKERN_OPENCL_PTX")) return snprintf(why, n, "turned off by PORTKERN_OPENCL_PTX=0"), 0;
    pk_cl_slot *sl = &slots[index];
    if (!sl->ptx_candidate) return snprintf(why, n, "not an NVIDIA GPU of compute capability 8.0 or later"), 0;
    return probed(sl, &sl->ptx, pk_cl_ptx_probe, "the probe's mma.sync (bf16, f16), cp.async and ldmatrix were exact",
                  why, n);
}

int pk_cl_wgmma_state(int index, char *why, size_t n)
{
    char ptx_why[512];
    if (!pk_cl_ptx_state(index, ptx_why, sizeof ptx_why)) return snprintf(why, n, "no inline PTX (%s)", ptx_why), 0;
    if (turned_off("PORTKERN_OPENCL_WGMMA")) return snprintf(why, n, "turned off by PORTKERN_OPENCL_WGMMA=0"), 0;
    pk_cl_slot *sl = &slots[index];
    if (sl->cc != 90) return snprintf(why, n, "not a GPU of compute capability 9.0 (sm_90a code runs there alone)"), 0;
    return probed(sl, &sl->wgmma, pk_cl_wgmma_probe, "the probe's wgmma (bf16, f16; PTX rebuilt for sm_90a) was exact",
                  why, n);
}

int pk_cl_tma_state(int index, char *why, size_t n)
{
    char wg_why[512];
    if (!pk_cl_wgmma_state(index, wg_why, sizeof wg_why)) return snprintf(why, n, "no wgmma (%s)", wg_why), 0;
    if (turned_off("PORTKERN_OPENCL_TMA")) return snprintf(why, n, "turned off by PORTKERN_OPENCL_TMA=0"), 0;
    pk_cl_slot *sl = &slots[index];
    /* the CUDA driver's templates, then the probe with them; under
     * ptx_lock, as the other probes, which also keeps
     * pk_cl_tma_encode_templates to one thread at a time */
    pthread_mutex_lock(&ptx_lock);
    if (!sl->tma.state) {
        char w[sizeof sl->tma.why] = "", p[sizeof sl->tma.why] = "";
        if (!pk_cl_tma_encode_templates(sl->device, sl->tma_tpl, p, sizeof p))
            snprintf(w, sizeof w, "no tensor-map templates from the CUDA driver: %s", p);
        else if (!pk_cl_tma_probe(sl->platform, sl->device, (const unsigned char(*)[128])sl->tma_tpl, p, sizeof p))
            snprintf(w, sizeof w, "the probe failed: %s", p);
        sl->tma.state = *w ? -1 : 1;
        snprintf(sl->tma.why, sizeof sl->tma.why, "%s", w);
    }
    const int ok = sl->tma.state > 0;
    if (ok)
        snprintf(why, n, "the probe's TMA copies (tensor maps from the CUDA driver's templates, put in by the "
                         "device) were exact");
    else
        snprintf(why, n, "%s", sl->tma.why);
    pthread_mutex_unlock(&ptx_lock);
    return ok;
}

const unsigned char (*pk_cl_tma_templates(int index))[128]
{
    char why[600];
    /* written once, before state became 1, under ptx_lock, and never again */
    return pk_cl_tma_state(index, why, sizeof why) ? (const unsigned char(*)[128])slots[index].tma_tpl : NULL;
}

static pk_status cl_get_device_info(int index, pk_device_info *info, pk_msg *msg)
{
    memset(info, 0, sizeof *info);
    cl_device_id dev = slots[index].device;
    cl_ulong gmem = 0, lmem = 0;
    cl_uint cus = 0;
    cl_device_type type = 0;
    cl_int err = clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof info->name, info->name, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(dev, CL_DEVICE_VENDOR, sizeof info->vendor, info->vendor, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof info->driver, info->driver, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem, &gmem, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    if (err != CL_SUCCESS) return pk_cl_check(err, "clGetDeviceInfo", msg);
    info->backend = PK_BACKEND_OPENCL;
    info->index = index;
    info->global_mem_bytes = gmem;
    info->local_mem_bytes = lmem;
    info->compute_units = (int)cus;
    info->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    info->native_fp16 = has_extension(dev, "cl_khr_fp16");
    cl_uint width = 0;
    if (has_extension(dev, "cl_nv_device_attribute_query"))
        clGetDeviceInfo(dev, PK_CL_DEVICE_WARP_SIZE_NV, sizeof width, &width, NULL);
    else if (has_extension(dev, "cl_amd_device_attribute_query"))
        clGetDeviceInfo(dev, PK_CL_DEVICE_WAVEFRONT_WIDTH_AMD, sizeof width, &width, NULL);
    /* NVIDIA's OpenCL compiles inline PTX: mma.sync (sm_80 on) reaches the
     * tensor cores (kernels_cl/nv_ptx.cl), where the probe finds it exact */
    char ptx_why[512];
    info->matrix_units = pk_cl_ptx_state(index, ptx_why, sizeof ptx_why);
    info->simd_width = width ? (int)width : 1;
    return PK_SUCCESS;
}

static pk_status cl_open(int index, void *queue, void **out, pk_msg *msg)
{
    pk_cl_device *d = calloc(1, sizeof *d);
    if (!d) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory");
    pk_status s = cl_get_device_info(index, &d->info, msg);
    if (s != PK_SUCCESS) {
        free(d);
        return s;
    }
    d->platform = slots[index].platform;
    d->device = slots[index].device;
    clGetPlatformInfo(d->platform, CL_PLATFORM_NAME, sizeof d->platform_name, d->platform_name, NULL);
    clGetDeviceInfo(d->device, CL_DEVICE_VERSION, sizeof d->device_version, d->device_version, NULL);
    if (clGetDeviceInfo(d->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof d->max_wg, &d->max_wg, NULL) != CL_SUCCESS ||
        !d->max_wg)
        d->max_wg = 1;
    /* the register file a work-group's bound must fit (opencl_tuned.c) */
    if (has_extension(d->device, "cl_nv_device_attribute_query") &&
        clGetDeviceInfo(d->device, PK_CL_DEVICE_REGISTERS_PER_BLOCK_NV, sizeof d->nv_regs, &d->nv_regs, NULL) !=
            CL_SUCCESS)
        d->nv_regs = 0;
    s = pk_cl_params_load(d, msg);
    if (s != PK_SUCCESS) {
        free(d);
        return s;
    }
    pk_cl_autotune_init(d);
    cl_int err = CL_SUCCESS;
    if (queue) {
        s = pk_cl_adopt_queue(d, queue, msg);
        if (s != PK_SUCCESS) {
            free(d);
            return s;
        }
    } else {
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d->platform, 0};
        d->context = clCreateContext(props, 1, &d->device, NULL, NULL, &err);
        /* in order: every op, copy and scratch reuse relies on it */
        if (err == CL_SUCCESS) d->queue = clCreateCommandQueue(d->context, d->device, CL_QUEUE_PROFILING_ENABLE, &err);
        if (err == CL_SUCCESS) d->profiling = 1;
        else if (d->context) clReleaseContext(d->context);
    }
    if (err == CL_SUCCESS) {
        d->touch_queue = clCreateCommandQueue(d->context, d->device, 0, &err);
        if (err != CL_SUCCESS) {
            clReleaseCommandQueue(d->queue);
            clReleaseContext(d->context);
        }
    }
    if (err != CL_SUCCESS) {
        free(d);
        return pk_cl_check(err, "clCreateContext/clCreateCommandQueue", msg);
    }
    *out = d;
    return PK_SUCCESS;
}

static void cl_close(void *dev)
{
    pk_cl_device *d = dev;
    clFinish(d->queue);
    pk_cl_staged_reap(d, 1);
    pk_cl_programs_release(d);
    if (d->scratch) clReleaseMemObject(d->scratch);
    if (d->counters) clReleaseMemObject(d->counters);
    if (d->tma_slots) clReleaseMemObject(d->tma_slots);
    clReleaseCommandQueue(d->touch_queue);
    clReleaseCommandQueue(d->queue);
    clReleaseContext(d->context);
    free(d);
}

static pk_status cl_finish(void *dev, pk_msg *msg)
{
    pk_cl_device *d = dev;
    pk_status s = pk_cl_check(clFinish(d->queue), "clFinish", msg);
    pk_cl_staged_reap(d, 0);
    if (s == PK_SUCCESS && pk_fault_device(d))
        return pk_msgf(msg, PK_ERR_DEVICE_FAILURE, "clFinish: simulated device fault (injected)");
    return s;
}

static pk_status cl_alloc(void *dev, size_t bytes, pk_mem *mem, pk_msg *msg)
{
    pk_cl_device *d = dev;
    cl_ulong max_alloc = 0;
    clGetDeviceInfo(d->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    if (max_alloc && bytes > max_alloc)
        return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "%zu bytes is more than the device's largest allocation (%llu)",
                       bytes, (unsigned long long)max_alloc);
    cl_int err;
    cl_mem m = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) return pk_cl_check(err, "clCreateBuffer", msg);
    /* Many drivers allocate lazily: touch the memory now so that an
     * allocation the device cannot hold fails here, not in a later op; on
     * a queue of its own, so that pk_alloc does not wait for queued work. */
    cl_uchar zero = 0;
    err = clEnqueueFillBuffer(d->touch_queue, m, &zero, 1, 0, 1, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(d->touch_queue);
    if (err != CL_SUCCESS) {
        clReleaseMemObject(m);
        return pk_cl_check(err, "clCreateBuffer (first touch)", msg);
    }
    *mem = m;
    return PK_SUCCESS;
}

static void cl_free(void *dev, pk_mem mem)
{
    clReleaseMemObject((cl_mem)mem);
    pk_cl_args_forget(dev);
}

static pk_status cl_upload(void *dev, pk_mem dst, size_t off, const void *src, size_t n, pk_msg *msg)
{
    pk_cl_device *d = dev;
    return pk_cl_check(clEnqueueWriteBuffer(d->queue, (cl_mem)dst, CL_TRUE, off, n, src, 0, NULL, NULL),
                       "clEnqueueWriteBuffer", msg);
}

static pk_status cl_download(void *dev, pk_mem src, size_t off, void *dst, size_t n, pk_msg *msg)
{
    pk_cl_device *d = dev;
    return pk_cl_check(clEnqueueReadBuffer(d->queue, (cl_mem)src, CL_TRUE, off, n, dst, 0, NULL, NULL),
                       "clEnqueueReadBuffer", msg);
}

static pk_status cl_copy(void *dev, pk_mem dst, size_t doff, pk_mem src, size_t soff, size_t n, pk_msg *msg)
{
    pk_cl_device *d = dev;
    return pk_cl_check(clEnqueueCopyBuffer(d->queue, (cl_mem)src, (cl_mem)dst, soff, doff, n, 0, NULL, NULL),
                       "clEnqueueCopyBuffer", msg);
}

static pk_status cl_fill(void *dev, pk_mem dst, size_t off, size_t n, const void *pattern, size_t psize,
                         pk_msg *msg)
{
    pk_cl_device *d = dev;
    return pk_cl_check(clEnqueueFillBuffer(d->queue, (cl_mem)dst, pattern, psize, off, n, 0, NULL, NULL),
                       "clEnqueueFillBuffer", msg);
}

/* Buffer *mem, of *size bytes, grown to at least `bytes`: a new one is
 * touched now, as cl_alloc does (a lazy driver would otherwise fail the
 * op's kernel later, at a wait that loses the context), and zeroed whole
 * where `zeroed`. */
static pk_status grow(pk_cl_device *d, cl_mem *mem, size_t *size, size_t bytes, int zeroed, const char *what,
                      pk_msg *msg)
{
    if (bytes <= *size) return PK_SUCCESS;
    char call[64];
    if (*mem) {
        clReleaseMemObject(*mem);
        pk_cl_args_forget(d);
    }
    *mem = NULL;
    *size = 0;
    if (pk_fault_alloc(d)) {
        snprintf(call, sizeof call, "clCreateBuffer (%s, injected)", what);
        return pk_cl_check(CL_MEM_OBJECT_ALLOCATION_FAILURE, call, msg);
    }
    cl_int err;
    cl_mem m = clCreateBuffer(d->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        snprintf(call, sizeof call, "clCreateBuffer (%s)", what);
        return pk_cl_check(err, call, msg);
    }
    cl_uchar zero = 0;
    err = clEnqueueFillBuffer(d->touch_queue, m, &zero, 1, 0, zeroed ? bytes : 1, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(d->touch_queue);
    if (err != CL_SUCCESS) {
        clReleaseMemObject(m);
        snprintf(call, sizeof call, "clCreateBuffer (%s, first touch)", what);
        return pk_cl_check(err, call, msg);
    }
    *mem = m;
    *size = bytes;
    return PK_SUCCESS;
}

pk_status pk_cl_scratch(pk_cl_device *d, size_t bytes, cl_mem *out, pk_msg *msg)
{
    pk_status s = grow(d, &d->scratch, &d->scratch_size, bytes, 0, "scratch", msg);
    *out = d->scratch;
    return s;
}

pk_status pk_cl_counters(pk_cl_device *d, size_t bytes, cl_mem *out, pk_msg *msg)
{
    pk_status s = grow(d, &d->counters, &d->counters_size, bytes, 1, "counters", msg);
    *out = d->counters;
    return s;
}

pk_status pk_cl_tma_buffers(pk_cl_device *d, size_t slot_bytes, const unsigned char (**tpl)[128], cl_mem *slots,
                            pk_msg *msg)
{
    /* (NULL unless the device's TMA probe passed) */
    *tpl = pk_cl_tma_templates(d->info.index);
    if (!*tpl) return pk_msgf(msg, PK_ERR_UNSUPPORTED, "OpenCL gemm: a TMA tile on a device without TMA copies");
    pk_status s = grow(d, &d->tma_slots, &d->tma_slots_size, slot_bytes, 0, "tma slots", msg);
    *slots = d->tma_slots;
    return s;
}

void pk_cl_grid_2d(size_t wg, size_t cols, size_t rows, size_t global[2], size_t local[2])
{
    enum { MAX_GROUPS = 65535 };
    local[0] = wg;
    while (local[0] > 1 && local[0] / 2 >= cols) local[0] /= 2;
    local[1] = wg / local[0];
    global[0] = cols;
    global[1] = rows < MAX_GROUPS * local[1] ? rows : MAX_GROUPS * local[1];
}

static pk_status cl_event_record(void *dev, void **event, pk_msg *msg)
{
    pk_cl_device *d = dev;
    cl_event ev;
    pk_status s = pk_cl_check(clEnqueueMarkerWithWaitList(d->queue, 0, NULL, &ev), "clEnqueueMarkerWithWaitList", msg);
    if (s == PK_SUCCESS) *event = ev;
    return s;
}

static pk_status cl_event_elapsed(void *dev, void *start, void *end, float *ms, pk_msg *msg)
{
    if (!((pk_cl_device *)dev)->profiling)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED,
                       "the context's queue (the caller's) was made without CL_QUEUE_PROFILING_ENABLE: "
                       "its events carry no times");
    cl_event a = start, b = end;
    cl_ulong ta = 0, tb = 0;
    pk_status s = pk_cl_check(clWaitForEvents(1, &b), "clWaitForEvents", msg);
    if (s == PK_SUCCESS)
        s = pk_cl_check(clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_END, sizeof ta, &ta, NULL),
                        "clGetEventProfilingInfo", msg);
    if (s == PK_SUCCESS)
        s = pk_cl_check(clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END, sizeof tb, &tb, NULL),
                        "clGetEventProfilingInfo", msg);
    if (s == PK_SUCCESS) *ms = (float)((double)(tb - ta) * 1e-6);
    return s;
}

static void cl_event_free(void *dev, void *event)
{
    (void)dev;
    clReleaseEvent((cl_event)event);
}

static void *cl_native_queue(void *dev) { return ((pk_cl_device *)dev)->queue; }

/* No kernel of ours faults on purpose: a device fault is simulated by the
 * next finish (cl_finish). */
static pk_status cl_fault_inject(void *dev, pk_fault_plan *plan, pk_msg *msg)
{
    (void)dev;
    (void)msg;
    pk_fault_attach(plan);
    return PK_SUCCESS;
}

static const pk_backend_iface opencl_iface = {
    .abi = PK_BACKEND_ABI,
    .kind = PK_BACKEND_OPENCL,
    .init = cl_init,
    .device_count = cl_device_count,
    .device_info = cl_get_device_info,
    .open = cl_open,
    .close = cl_close,
    .finish = cl_finish,
    .alloc = cl_alloc,
    .free = cl_free,
    .wrap = pk_cl_wrap,
    .unwrap = pk_cl_unwrap,
    .upload = cl_upload,
    .download = cl_download,
    .copy = cl_copy,
    .fill = cl_fill,
    .event_record = cl_event_record,
    .event_elapsed = cl_event_elapsed,
    .event_free = cl_event_free,
    .event_wait = pk_cl_event_wait,
    .event_sync = pk_cl_event_sync,
    .native_queue = cl_native_queue,
    /* each op first asks for its family's first-use tuning where the
     * device has no table entry (opencl_autotune.c), then runs */
    .gemm = pk_cl_gemm_first_use,
    .attention = pk_cl_attention_first_use,
    .rows = pk_cl_rows_first_use,
    .rope = pk_cl_rope_first_use,
    .chain = pk_cl_chain_first_use,
    .index_rows = pk_cl_index_rows,
    .fault_inject = cl_fault_inject,
    .params = pk_cl_params_request,
    .set_core_hooks = pk_cl_set_core_hooks,
};

__attribute__((visibility("default"))) const pk_backend_iface *pk_backend_entry(void)
{
    return &opencl_iface;
}
