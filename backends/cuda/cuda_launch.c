/* Where a CUDA kernel lives and how it is launched (gpu/gpu_launch.c does
 * the rest of both, for CUDA and HIP). */
#include <string.h>

#include "gpu_vendor.h"

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

pk_status pk_cu_function_lookup(pk_cu_device *d, const char *name, CUfunction *out, pk_msg *msg)
{
    CUmodule mod = module_of(d, name);
    if (!mod || cuModuleGetFunction(out, mod, name) != CUDA_SUCCESS)
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
