/* Kernel lookup, launch and scratch memory for the CUDA op files. */
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "pk_fault.h"

struct pk_cu_function_entry {
    pk_cu_function_entry *next; /* first: cu_close walks the list through it */
    char name[96];
    CUfunction function;
    unsigned smem_set; /* dynamic shared memory the attribute allows so far */
};

static pk_cu_function_entry *find(pk_cu_device *d, CUfunction f)
{
    for (pk_cu_function_entry *e = d->functions; e; e = e->next)
        if (e->function == f) return e;
    return NULL;
}

/* The module that holds kernels named prefix*: asking only there keeps
 * every lookup a hit (compute-sanitizer reports a miss as an API error).
 * The first prefix that matches wins: longer ones come first. */
static CUmodule module_of(const pk_cu_device *d, const char *name)
{
    static const struct {
        const char *prefix, *module;
    } owners[] = {{"pk_gemm_wgmma_", "gemm_sm90.fatbin"}, {"pk_gemm_", "gemm.fatbin"}, {"pk_attn_", "attention.fatbin"}, {"pk_ew_", "elementwise.fatbin"}};
    for (size_t i = 0; i < sizeof owners / sizeof owners[0]; i++)
        if (!strncmp(name, owners[i].prefix, strlen(owners[i].prefix)))
            for (int m = 0; m < d->n_modules; m++)
                if (!strcmp(d->module_names[m], owners[i].module)) return d->modules[m];
    return NULL;
}

pk_status pk_cu_function(pk_cu_device *d, const char *name, CUfunction *out, pk_msg *msg)
{
    /* A context may come from another thread, where nothing made it
     * current yet: the lookup and what callers do with the function before
     * pk_cu_launch (occupancy) need it current here. */
    pk_status s = pk_cu_check(cuCtxSetCurrent(d->context), "cuCtxSetCurrent", msg);
    if (s != PK_SUCCESS) return s;
    for (pk_cu_function_entry *e = d->functions; e; e = e->next)
        if (!strcmp(e->name, name)) {
            *out = e->function;
            return PK_SUCCESS;
        }
    int injected = pk_fault_alloc(d);
    pk_cu_function_entry *e = injected ? NULL : calloc(1, sizeof *e);
    if (!e) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory%s", injected ? " (injected)" : "");
    CUmodule mod = module_of(d, name);
    if (!mod || cuModuleGetFunction(&e->function, mod, name) != CUDA_SUCCESS) {
        free(e);
        return pk_msgf(msg, PK_ERR_INTERNAL, "kernel %s is not in the embedded fatbins", name);
    }
    strncpy(e->name, name, sizeof e->name - 1);
    e->smem_set = 48 * 1024;
    e->next = d->functions;
    d->functions = e;
    *out = e->function;
    return PK_SUCCESS;
}

pk_status pk_cu_launch(pk_cu_device *d, CUfunction f, const unsigned grid[3], const unsigned block[3],
                       unsigned smem, void **args, int early, pk_msg *msg)
{
    pk_status s = pk_cu_check(cuCtxSetCurrent(d->context), "cuCtxSetCurrent", msg);
    if (s != PK_SUCCESS) return s;
    pk_cu_function_entry *e = find(d, f);
    if (e && smem > e->smem_set) {
        if (smem > d->smem_optin)
            return pk_msgf(msg, PK_ERR_INTERNAL, "%s wants %u bytes of shared memory, the device has %zu", e->name,
                           smem, d->smem_optin);
        s = pk_cu_check(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem),
                        "cuFuncSetAttribute", msg);
        if (s != PK_SUCCESS) return s;
        e->smem_set = smem;
    }
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) return PK_SUCCESS;
    CUlaunchAttribute attr = {.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION};
    attr.value.programmaticStreamSerializationAllowed = 1;
    const CUlaunchConfig config = {grid[0],  grid[1], grid[2], block[0], block[1], block[2], smem, d->stream,
                                   &attr, early && d->early_launch ? 1u : 0u};
    return pk_cu_check(cuLaunchKernelEx(&config, f, args, NULL), "cuLaunchKernelEx", msg);
}

static int retire_record(void *dev, void **event)
{
    pk_cu_device *d = dev;
    CUevent e;
    if (cuEventCreate(&e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) return -1;
    if (cuEventRecord(e, d->stream) != CUDA_SUCCESS) {
        cuEventDestroy(e);
        return -1;
    }
    *event = e;
    return 0;
}

static int retire_query(void *event)
{
    CUresult r = cuEventQuery((CUevent)event);
    return r == CUDA_SUCCESS ? 1 : r == CUDA_ERROR_NOT_READY ? 0 : -1;
}

static void retire_destroy(void *event) { cuEventDestroy((CUevent)event); }

static void retire_free(void *dev, uintptr_t mem)
{
    (void)dev;
    cuMemFree((CUdeviceptr)mem);
}

static const pk_gpu_retire_fns retire_fns = {retire_record, retire_query, retire_destroy, retire_free};

void pk_cu_reap(pk_cu_device *d, int all) { pk_gpu_reap(&d->retired, &retire_fns, d, all); }

pk_status pk_cu_reserve(pk_cu_device *d, CUdeviceptr *buf, size_t *size, size_t bytes, size_t least,
                        const char *what, int *fresh, pk_msg *msg)
{
    if (fresh) *fresh = bytes > *size;
    if (bytes <= *size) return PK_SUCCESS;
    cuCtxSetCurrent(d->context);
    pk_cu_reap(d, 0);
    if (*buf && pk_gpu_retire(&d->retired, &retire_fns, d, (uintptr_t)*buf) != 0) {
        /* no event: the old way, waiting */
        cuStreamSynchronize(d->stream);
        cuMemFree(*buf);
    }
    *buf = 0;
    *size = 0;
    size_t want = bytes < least ? least : bytes;
    if (pk_fault_alloc(d))
        return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "%s: CUDA_ERROR_OUT_OF_MEMORY (injected)", what);
    pk_status s = pk_cu_check(cuMemAlloc(buf, want), what, msg);
    if (s == PK_SUCCESS) *size = want;
    return s;
}

pk_status pk_cu_scratch(pk_cu_device *d, size_t bytes, CUdeviceptr *out, pk_msg *msg)
{
    pk_status s = pk_cu_reserve(d, &d->scratch, &d->scratch_size, bytes, 1u << 20, "cuMemAlloc (scratch)", NULL, msg);
    *out = d->scratch;
    return s;
}

pk_status pk_cu_upload_scratch(pk_cu_device *d, size_t offset, const void *src, size_t bytes, CUdeviceptr *out,
                               pk_msg *msg)
{
    CUdeviceptr base;
    pk_status s = pk_cu_scratch(d, offset + bytes, &base, msg);
    if (s != PK_SUCCESS) return s;
    s = pk_cu_stage_upload(d, base + offset, src, bytes, msg);
    *out = base + offset;
    return s;
}
