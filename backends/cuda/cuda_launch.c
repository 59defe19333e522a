/* Where a CUDA kernel lives and how it is launched (gpu/gpu_launch.c does
 * the rest of both, for CUDA and HIP). */
#include "gpu_vendor.h"

pk_status pk_cu_function_lookup(pk_cu_device *d, int module, const char *name, CUfunction *out, pk_msg *msg)
{
    if (!d->modules[module] || cuModuleGetFunction(out, d->modules[module], name) != CUDA_SUCCESS)
        return pk_msgf(msg, PK_ERR_INTERNAL, "kernel %s is not in the embedded fatbins", name);
    return PK_SUCCESS;
}

pk_status pk_cu_launch_on_stream(pk_cu_device *d, CUfunction f, const unsigned grid[3], const unsigned block[3],
                                 unsigned smem, void **args, int early, pk_msg *msg)
{
    CUlaunchAttribute attr = {.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION};
    attr.value.programmaticStreamSerializationAllowed = 1;
    const CUlaunchConfig config = {grid[0],  grid[1], grid[2], block[0], block[1], block[2], smem, d->stream,
                                   &attr, early && d->early_launch ? 1u : 0u};
    return pk_cu_check(cuLaunchKernelEx(&config, f, args, NULL), "cuLaunchKernelEx", msg);
}
