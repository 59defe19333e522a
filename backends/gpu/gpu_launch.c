/* Kernel lookup and launch of a CUDA-family backend: a kernel is looked
 * up once per device, by the name and in the module its list gives, and
 * kept in the device's table at its index; a launch sets the dynamic
 * shared memory the kernel may use once it asks for more than the default,
 * then goes to the backend's launch call. */
#include <stdlib.h>

#include "gpu_vendor.h"
#include "pk_fault.h"
#include "pk_gpu_args.h"

static const char *const names[PK_GPU_KERNEL_COUNT] = {
    PK_GPU_GEMM_KERNELS(PK_GPU_KERNEL_NAME) PK_GPU_ATTN_KERNELS(PK_GPU_KERNEL_NAME) PK_EW_KERNELS(PK_GPU_KERNEL_NAME)};
#define MODULE(kind, module, ...) PK_GPU_MODULE_##module,
static const unsigned char modules[PK_GPU_KERNEL_COUNT] = {
    PK_GPU_GEMM_KERNELS(MODULE) PK_GPU_ATTN_KERNELS(MODULE) PK_EW_KERNELS(MODULE)};

struct pk_gpu_kernel {
    pk_gpu_function function; /* NULL until looked up */
    unsigned smem_allowed;    /* dynamic shared memory it may use so far */
};

/* what every kernel may use without asking (CUDA's 48 KiB; AMD's 64 KiB of
 * LDS need no call, so HIP asks only past this too) */
#define SMEM_DEFAULT (48u * 1024u)

/* The function `name` in d->modules[module] (PK_ERR_UNSUPPORTED where the
 * device has no code of that module) */
static pk_status function_lookup(pk_gpu_device *d, int module, const char *name, pk_gpu_function *out, pk_msg *msg)
{
    if (!d->modules[module])
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, "%s: this device has no code of kernels_*/%s (for %s)", PK_GPU_VENDOR,
                       pk_gpu_module_names[module], name);
    if (pk_gpu_module_function(out, d->modules[module], name) != PK_GPU_OK)
        return pk_msgf(msg, PK_ERR_INTERNAL, "kernel %s is not in the code of kernels_*/%s", name,
                       pk_gpu_module_names[module]);
    return PK_SUCCESS;
}

/* Kernel k of the device, looked up the first time; NULL and *s on failure */
static struct pk_gpu_kernel *kernel(pk_gpu_device *d, int k, pk_status *s, pk_msg *msg)
{
    /* A context may come from another thread, whose current device is
     * another (or no context at all): the lookup and what callers do with
     * the function before the launch (occupancy) need ours. */
    if ((*s = pk_gpu_current(d, msg)) != PK_SUCCESS) return NULL;
    if (!d->gpu.kernels) {
        int injected = pk_fault_alloc(d);
        d->gpu.kernels = injected ? NULL : calloc(PK_GPU_KERNEL_COUNT, sizeof *d->gpu.kernels);
        if (!d->gpu.kernels) {
            *s = pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory%s", injected ? " (injected)" : "");
            return NULL;
        }
    }
    struct pk_gpu_kernel *e = &d->gpu.kernels[k];
    if (!e->function) {
        pk_gpu_function f;
        if ((*s = function_lookup(d, modules[k], names[k], &f, msg)) != PK_SUCCESS) return NULL;
        e->function = f;
        e->smem_allowed = SMEM_DEFAULT;
    }
    return e;
}

pk_status PK_GPU_OP(function)(pk_gpu_device *d, int k, pk_gpu_function *out, pk_msg *msg)
{
    pk_status s;
    const struct pk_gpu_kernel *e = kernel(d, k, &s, msg);
    if (e) *out = e->function;
    return s;
}

pk_status PK_GPU_OP(launch)(pk_gpu_device *d, int k, const unsigned grid[3], const unsigned block[3], unsigned smem,
                            void **args, int flags, pk_msg *msg)
{
    pk_status s;
    struct pk_gpu_kernel *e = kernel(d, k, &s, msg);
    if (!e) return s;
    if (smem > e->smem_allowed) {
        if (smem > pk_gpu_smem_most(d))
            return pk_msgf(msg, PK_ERR_INTERNAL, "%s wants %u bytes of dynamic shared memory, the device has %zu",
                           names[k], smem, pk_gpu_smem_most(d));
        s = pk_gpu_check(pk_gpu_allow_smem(e->function, smem), PK_GPU_CALL(cuFuncSetAttribute, pk_hip_allow_lds), msg);
        if (s != PK_SUCCESS) return s;
        e->smem_allowed = smem;
    }
    if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0) return PK_SUCCESS;
    return PK_GPU_OP(launch_on_stream)(d, e->function, grid, block, smem, args, flags, msg);
}
