/* How a CUDA kernel is launched (gpu/gpu_launch.c does the rest, for CUDA
 * and HIP). */
#include "gpu_vendor.h"

CUlaunchAttribute pk_cu_pair_attribute(void)
{
    CUlaunchAttribute a = {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION};
    a.value.clusterDim.x = 2;
    a.value.clusterDim.y = a.value.clusterDim.z = 1;
    return a;
}

pk_status pk_cu_launch_on_stream(pk_cu_device *d, CUfunction f, const unsigned grid[3], const unsigned block[3],
                                 unsigned smem, void **args, int flags, pk_msg *msg)
{
    CUlaunchAttribute attr[2] = {{.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION}};
    attr[0].value.programmaticStreamSerializationAllowed = 1;
    unsigned n = (flags & PK_GPU_LAUNCH_EARLY) && d->early_launch ? 1u : 0u;
    if (flags & PK_GPU_LAUNCH_PAIRS) {
        /* the attribute list is a prefix: the cluster shape after PDL's, or alone */
        attr[n++] = pk_cu_pair_attribute();
    }
    const CUlaunchConfig config = {grid[0], grid[1], grid[2], block[0], block[1], block[2], smem, d->stream, attr, n};
    return pk_gpu_check(cuLaunchKernelEx(&config, f, args, NULL), "cuLaunchKernelEx", msg);
}
