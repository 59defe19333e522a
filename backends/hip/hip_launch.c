/* How a HIP kernel is launched (gpu/gpu_launch.c does the rest, for CUDA
 * and HIP). */
#include "gpu_vendor.h"

/* HIP has no early start (PK_GPU_LAUNCH_EARLY is CUDA's programmatic
 * dependent launch, a hint) and no kernel of it asks for clusters */
pk_status pk_hip_launch_on_stream(pk_hip_device *d, hipFunction_t f, const unsigned grid[3], const unsigned block[3],
                                  unsigned lds, void **args, int flags, pk_msg *msg)
{
    if (flags & PK_GPU_LAUNCH_PAIRS)
        return pk_msgf(msg, PK_ERR_INTERNAL, "HIP: a kernel launched in clusters, which HIP has not");
    /* HIP on AMD counts a grid in work-items, 32 bits per dimension */
    for (int i = 0; i < 3; i++)
        if ((uint64_t)grid[i] * block[i] > UINT32_MAX)
            return pk_msgf(msg, PK_ERR_UNSUPPORTED, "HIP: a grid of %u x %u work-items", grid[i], block[i]);
    return pk_gpu_check(hipModuleLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2], lds,
                                              d->stream, args, NULL),
                        "hipModuleLaunchKernel", msg);
}
