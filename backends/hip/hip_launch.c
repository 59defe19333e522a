/* Where a HIP kernel lives and how it is launched (gpu/gpu_launch.c does
 * the rest of both, for CUDA and HIP). */
#include "gpu_vendor.h"

pk_status pk_hip_function_lookup(pk_hip_device *d, int module, const char *name, hipFunction_t *out, pk_msg *msg)
{
    if (!d->modules[module])
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, "HIP: this build has no kernels_hip/%s kernels",
                       pk_hip_module_names[module]);
    if (hipModuleGetFunction(out, d->modules[module], name) != hipSuccess)
        return pk_msgf(msg, PK_ERR_INTERNAL, "kernel %s is not in the embedded code objects", name);
    return PK_SUCCESS;
}

/* HIP has no early start: `early` is CUDA's programmatic dependent launch */
pk_status pk_hip_launch_on_stream(pk_hip_device *d, hipFunction_t f, const unsigned grid[3], const unsigned block[3],
                                  unsigned lds, void **args, int early, pk_msg *msg)
{
    (void)early;
    /* HIP on AMD counts a grid in work-items, 32 bits per dimension */
    for (int i = 0; i < 3; i++)
        if ((uint64_t)grid[i] * block[i] > UINT32_MAX)
            return pk_msgf(msg, PK_ERR_UNSUPPORTED, "HIP: a grid of %u x %u work-items", grid[i], block[i]);
    return pk_hip_check(hipModuleLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2], lds,
                                              d->stream, args, NULL),
                        "hipModuleLaunchKernel", msg);
}
