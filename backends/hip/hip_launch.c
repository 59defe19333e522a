/* Where a HIP kernel lives and how it is launched (gpu/gpu_launch.c does
 * the rest of both, for CUDA and HIP). */
#include <string.h>

#include "gpu_vendor.h"

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

pk_status pk_hip_function_lookup(pk_hip_device *d, const char *name, hipFunction_t *out, pk_msg *msg)
{
    const char *file = file_of(name);
    hipModule_t mod = file ? module_of(d, file) : NULL;
    if (file && !mod) return pk_msgf(msg, PK_ERR_UNSUPPORTED, "HIP: this build has no kernels_hip/%s.hip kernels", file);
    if (!mod || hipModuleGetFunction(out, mod, name) != hipSuccess)
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
