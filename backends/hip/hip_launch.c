/* Kernel lookup, launch and scratch memory for the HIP op files. */
#include <stdlib.h>
#include <string.h>

#include "hip_internal.h"
#include "pk_fault.h"

struct pk_hip_function_entry {
    pk_hip_function_entry *next; /* first: hip_close walks the list through it */
    char name[96];
    hipFunction_t function;
    unsigned lds_allowed; /* dynamic LDS the kernel may use so far */
};

static pk_hip_function_entry *find(pk_hip_device *d, hipFunction_t f)
{
    for (pk_hip_function_entry *e = d->functions; e; e = e->next)
        if (e->function == f) return e;
    return NULL;
}

/* The kernel file that holds kernels named prefix* ("gemm"), or NULL. */
static const char *file_of(const char *name)
{
    static const struct {
        const char *prefix, *file;
    } owners[] = {{"pk_gemm_", "gemm"}, {"pk_attn_", "attention"}, {"pk_ew_", "elementwise"}};
    for (size_t i = 0; i < sizeof owners / sizeof owners[0]; i++)
        if (!strncmp(name, owners[i].prefix, strlen(owners[i].prefix))) return owners[i].file;
    return NULL;
}

/* The loaded module of that file: "gemm.co" (AMD) or "gemm.fatbin"
 * (NVIDIA). Asking only there keeps every lookup a hit. */
static hipModule_t module_of(const pk_hip_device *d, const char *file)
{
    size_t n = strlen(file);
    for (int m = 0; m < d->n_modules; m++)
        if (!strncmp(d->module_names[m], file, n) && d->module_names[m][n] == '.') return d->modules[m];
    return NULL;
}

pk_status pk_hip_function(pk_hip_device *d, const char *name, hipFunction_t *out, pk_msg *msg)
{
    /* A context may come from another thread, whose current device is
     * another (or, on NVIDIA, no context at all): the lookup and what
     * callers do with the function before pk_hip_launch need ours. */
    pk_status s = pk_hip_current(d, msg);
    if (s != PK_SUCCESS) return s;
    for (pk_hip_function_entry *e = d->functions; e; e = e->next)
        if (!strcmp(e->name, name)) {
            *out = e->function;
            return PK_SUCCESS;
        }
    int injected = pk_fault_alloc(d);
    pk_hip_function_entry *e = injected ? NULL : calloc(1, sizeof *e);
    if (!e) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory%s", injected ? " (injected)" : "");
    const char *file = file_of(name);
    hipModule_t mod = file ? module_of(d, file) : NULL;
    if (file && !mod) {
        free(e);
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, "HIP: this build has no kernels_hip/%s.hip kernels", file);
    }
    if (!mod || hipModuleGetFunction(&e->function, mod, name) != hipSuccess) {
        free(e);
        return pk_msgf(msg, PK_ERR_INTERNAL, "kernel %s is not in the embedded code objects", name);
    }
    strncpy(e->name, name, sizeof e->name - 1);
    e->next = d->functions;
    d->functions = e;
    *out = e->function;
    return PK_SUCCESS;
}

pk_status pk_hip_launch(pk_hip_device *d, hipFunction_t f, const unsigned grid[3], const unsigned block[3],
                        unsigned lds, void **args, pk_msg *msg)
{
    pk_status s = pk_hip_current(d, msg);
    if (s != PK_SUCCESS) return s;
    pk_hip_function_entry *e = find(d, f);
    if (e && lds > e->lds_allowed) {
        if (lds > d->target.lds_bytes)
            return pk_msgf(msg, PK_ERR_INTERNAL, "%s wants %u bytes of LDS, the device has %zu", e->name, lds,
                           d->target.lds_bytes);
        s = pk_hip_check(pk_hip_allow_lds(f, lds), "setting the kernel's dynamic LDS", msg);
        if (s != PK_SUCCESS) return s;
        e->lds_allowed = lds;
    }
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) return PK_SUCCESS;
    /* HIP on AMD counts a grid in work-items, 32 bits per dimension */
    for (int i = 0; i < 3; i++)
        if ((uint64_t)grid[i] * block[i] > UINT32_MAX)
            return pk_msgf(msg, PK_ERR_UNSUPPORTED, "HIP: a grid of %u x %u work-items", grid[i], block[i]);
    return pk_hip_check(hipModuleLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2], lds,
                                              d->stream, args, NULL),
                        "hipModuleLaunchKernel", msg);
}

static int retire_record(void *dev, void **event)
{
    pk_hip_device *d = dev;
    hipEvent_t e;
    if (hipEventCreateWithFlags(&e, hipEventDisableTiming) != hipSuccess) return -1;
    if (hipEventRecord(e, d->stream) != hipSuccess) {
        hipEventDestroy(e);
        return -1;
    }
    *event = (void *)e;
    return 0;
}

static int retire_query(void *event)
{
    hipError_t r = hipEventQuery((hipEvent_t)event);
    return r == hipSuccess ? 1 : r == hipErrorNotReady ? 0 : -1;
}

static void retire_destroy(void *event) { hipEventDestroy((hipEvent_t)event); }

static void retire_free(void *dev, uintptr_t mem)
{
    (void)dev;
    hipFree((hipDeviceptr_t)mem);
}

static const pk_gpu_retire_fns retire_fns = {retire_record, retire_query, retire_destroy, retire_free};

void pk_hip_reap(pk_hip_device *d, int all) { pk_gpu_reap(&d->retired, &retire_fns, d, all); }

pk_status pk_hip_reserve(pk_hip_device *d, hipDeviceptr_t *buf, size_t *size, size_t bytes, size_t least,
                         const char *what, int *fresh, pk_msg *msg)
{
    if (fresh) *fresh = bytes > *size;
    if (bytes <= *size) return PK_SUCCESS;
    pk_status s = pk_hip_current(d, msg);
    if (s != PK_SUCCESS) return s;
    pk_hip_reap(d, 0);
    if (*buf && pk_gpu_retire(&d->retired, &retire_fns, d, (uintptr_t)*buf) != 0) {
        /* no event: the old way, waiting */
        hipStreamSynchronize(d->stream);
        hipFree(*buf);
    }
    *buf = NULL;
    *size = 0;
    size_t want = bytes < least ? least : bytes;
    if (pk_fault_alloc(d)) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "%s: hipErrorOutOfMemory (injected)", what);
    s = pk_hip_check(hipMalloc(buf, want), what, msg);
    if (s == PK_SUCCESS) *size = want;
    return s;
}

pk_status pk_hip_scratch(pk_hip_device *d, size_t bytes, uint64_t *out, pk_msg *msg)
{
    pk_status s = pk_hip_reserve(d, &d->scratch, &d->scratch_size, bytes, 1u << 20, "hipMalloc (scratch)", NULL, msg);
    *out = (uint64_t)(uintptr_t)d->scratch;
    return s;
}

pk_status pk_hip_upload_scratch(pk_hip_device *d, size_t offset, const void *src, size_t bytes, uint64_t *out,
                                pk_msg *msg)
{
    uint64_t base;
    pk_status s = pk_hip_scratch(d, offset + bytes, &base, msg);
    if (s != PK_SUCCESS) return s;
    s = pk_hip_stage_upload(d, base + offset, src, bytes, msg);
    *out = base + offset;
    return s;
}
