/* Programs that use wgmma on NVIDIA's OpenCL (kernels_cl/nv_ptx.cl,
 * PK_WGMMA): built once as the driver's compiler takes them, their wgmma
 * lines PTX comments, then rebuilt from their PTX text with those lines
 * restored and the target sm_90a (opencl_ptx_wgmma.c). The on-disk cache
 * keeps the rebuilt text. */
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"
#include "opencl_ptx_wgmma.h"

cl_int pk_cl_wgmma_rebuild(cl_context ctx, cl_device_id dev, cl_program *prog, const char *options)
{
    size_t len = 0;
    cl_int err = clGetProgramInfo(*prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL);
    if (err != CL_SUCCESS) return err;
    if (!len) return CL_INVALID_BINARY;
    unsigned char *bin = malloc(len + 1);
    if (!bin) return CL_OUT_OF_HOST_MEMORY;
    err = clGetProgramInfo(*prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
    if (err != CL_SUCCESS) {
        free(bin);
        return err;
    }
    /* the binary's text may end in a NUL */
    while (len && !bin[len - 1]) len--;
    size_t plen = 0;
    char *ptx = pk_ptx_wgmma((const char *)bin, len, &plen);
    free(bin);
    /* not the sm_90 PTX this was made for (machine code, another target) */
    if (!ptx) return CL_INVALID_BINARY;
    cl_int st = CL_SUCCESS;
    const unsigned char *p = (const unsigned char *)ptx;
    cl_program next = clCreateProgramWithBinary(ctx, 1, &dev, &plen, &p, &st, &err);
    free(ptx);
    if (err == CL_SUCCESS && st != CL_SUCCESS) err = st;
    if (err == CL_SUCCESS) err = clBuildProgram(next, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        if (next) clReleaseProgram(next);
        return err;
    }
    clReleaseProgram(*prog);
    *prog = next;
    return CL_SUCCESS;
}

pk_status pk_cl_wgmma_program(pk_cl_device *d, cl_program *prog, const char *options, pk_msg *msg)
{
    if (!options || !strstr(options, "-DPK_WGMMA=1")) return PK_SUCCESS;
    const cl_int err = pk_cl_wgmma_rebuild(d->context, d->device, prog, options);
    if (err != CL_SUCCESS)
        return pk_msgf(msg, PK_ERR_BUILD_FAILED, "rebuilding [%.200s] from its PTX for sm_90a (wgmma): %s", options,
                       pk_cl_error_name(err));
    return PK_SUCCESS;
}
