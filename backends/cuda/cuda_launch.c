/* How a CUDA kernel is launched (gpu/gpu_launch.c does the rest, for CUDA
 * and HIP). */
#include "gpu_vendor.h"

pk_status pk_cu_launch_on_stream(pk_cu_device *d, CUfunction f, const unsigned grid[3], const unsigned block[3],
                                 unsigned smem, void **args, int early, pk_msg *msg)
{
    CUlaunchAttribute attr = {.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION};
    attr.value.programmaticStreamSerializationAllowed = 1;
    const CUlaunchConfig config = {grid[0],  grid[1], grid[2], block[0], block[1], block[2], smem, d->stream,
                                   &attr, early && d->early_launch ? 1u : 0u};
    return pk_gpu_check(cuLaunchKernelEx(&config, f, args, NULL), "cuLaunchKernelEx", msg);
}
