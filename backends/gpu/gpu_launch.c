/* Kernel lookup and launch of a CUDA-family backend: a kernel is looked
 * up once per device, in the module its name's prefix names (the backend's
 * function_lookup), and kept in a list; a launch sets the dynamic shared memory
 * the kernel may use once it asks for more than the default, then goes to
 * the backend's launch call. */
#include <stdlib.h>
#include <string.h>

#include "gpu_vendor.h"
#include "pk_fault.h"

struct pk_gpu_function_entry {
    struct pk_gpu_function_entry *next;
    char name[96];
    pk_gpu_function function;
    unsigned smem_allowed; /* dynamic shared memory the kernel may use so far */
};

/* what every kernel may use without asking (CUDA's 48 KiB; AMD's 64 KiB of
 * LDS need no call, so HIP asks only past this too) */
#define SMEM_DEFAULT (48u * 1024u)

static struct pk_gpu_function_entry *find(pk_gpu_device *d, pk_gpu_function f)
{
    for (struct pk_gpu_function_entry *e = d->functions; e; e = e->next)
        if (e->function == f) return e;
    return NULL;
}

pk_status PK_GPU_OP(function)(pk_gpu_device *d, const char *name, pk_gpu_function *out, pk_msg *msg)
{
    /* A context may come from another thread, whose current device is
     * another (or no context at all): the lookup and what callers do with
     * the function before the launch (occupancy) need ours. */
    pk_status s = pk_gpu_current(d, msg);
    if (s != PK_SUCCESS) return s;
    for (struct pk_gpu_function_entry *e = d->functions; e; e = e->next)
        if (!strcmp(e->name, name)) {
            *out = e->function;
            return PK_SUCCESS;
        }
    int injected = pk_fault_alloc(d);
    struct pk_gpu_function_entry *e = injected ? NULL : calloc(1, sizeof *e);
    if (!e) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory%s", injected ? " (injected)" : "");
    s = PK_GPU_OP(function_lookup)(d, name, &e->function, msg);
    if (s != PK_SUCCESS) {
        free(e);
        return s;
    }
    strncpy(e->name, name, sizeof e->name - 1);
    e->smem_allowed = SMEM_DEFAULT;
    e->next = d->functions;
    d->functions = e;
    *out = e->function;
    return PK_SUCCESS;
}

void PK_GPU_OP(functions_free)(pk_gpu_device *d)
{
    while (d->functions) {
        struct pk_gpu_function_entry *e = d->functions;
        d->functions = e->next;
        free(e);
    }
}

pk_status PK_GPU_OP(launch)(pk_gpu_device *d, pk_gpu_function f, const unsigned grid[3], const unsigned block[3],
                            unsigned smem, void **args, int early, pk_msg *msg)
{
    pk_status s = pk_gpu_current(d, msg);
    if (s != PK_SUCCESS) return s;
    struct pk_gpu_function_entry *e = find(d, f);
    if (e && smem > e->smem_allowed) {
        if (smem > pk_gpu_smem_most(d))
            return pk_msgf(msg, PK_ERR_INTERNAL, "%s wants %u bytes of dynamic shared memory, the device has %zu",
                           e->name, smem, pk_gpu_smem_most(d));
        s = pk_gpu_check(pk_gpu_allow_smem(f, smem), PK_GPU_CALL(cuFuncSetAttribute, pk_hip_allow_lds), msg);
        if (s != PK_SUCCESS) return s;
        e->smem_allowed = smem;
    }
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) return PK_SUCCESS;
    return PK_GPU_OP(launch_on_stream)(d, f, grid, block, smem, args, early, msg);
}
