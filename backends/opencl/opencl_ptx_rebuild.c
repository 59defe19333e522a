/* Programs rebuilt from the PTX that NVIDIA's OpenCL made of them, with the
 * edits their build options ask for (opencl_ptx_edit.h). The program that
 * NVIDIA's OpenCL hands back as its binary is PTX text, which it also
 * takes back, and two things a kernel needs can only be said there:
 *
 * - wgmma (kernels_cl/nv_ptx.cl, PK_WGMMA): its compiler targets sm_90,
 *   whose assembler refuses wgmma, so those lines are written as PTX
 *   comments behind a marker, restored here, and the target made sm_90a;
 * - a register bound: the driver accepts -cl-nv-maxrregcount=N
 *   (cl_nv_compiler_options) and then compiles as if it were absent (on
 *   the H200, driver 580, a 4096^3 f32 GEMM ran at the same speed, to four
 *   digits, with bounds of 112, 120 and 128 registers as without one,
 *   where its unbounded build takes ~200: bench/RESULTS.md, 2026-12-02
 *   14:30), while its PTX compiler follows an entry's .maxnreg.
 *
 * One rebuild makes both; the on-disk cache then keeps the edited
 * text. */
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"
#include "opencl_ptx_edit.h"

cl_int pk_cl_ptx_rebuild(cl_context ctx, cl_device_id dev, cl_program *prog, const char *options, const char **why)
{
    const pk_ptx_edits e = pk_ptx_edits_of(options);
    *why = "";
    if (!pk_ptx_edits_any(&e)) return CL_SUCCESS;
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
    char *ptx = pk_ptx_edited((const char *)bin, len, &e, &plen, why);
    free(bin);
    /* a driver whose binary is machine code: a register bound alone is
     * left out there (that driver either kept the option or never had
     * the defect); wgmma cannot be had any other way */
    if (!ptx) return pk_ptx_edits_need_ptx(&e) ? CL_INVALID_BINARY : CL_SUCCESS;
    cl_int st = CL_SUCCESS;
    const unsigned char *p = (const unsigned char *)ptx;
    cl_program next = clCreateProgramWithBinary(ctx, 1, &dev, &plen, &p, &st, &err);
    free(ptx);
    if (err == CL_SUCCESS && st != CL_SUCCESS) err = st;
    if (err == CL_SUCCESS) err = clBuildProgram(next, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        *why = "the edited PTX did not build";
        if (next) clReleaseProgram(next);
        return err;
    }
    clReleaseProgram(*prog);
    *prog = next;
    return CL_SUCCESS;
}

pk_status pk_cl_ptx_program(pk_cl_device *d, cl_program *prog, const char *options, pk_msg *msg)
{
    /* -cl-nv-maxrregcount is NVIDIA's; wgmma is asked for only of a
     * device whose probe passed, which is NVIDIA's */
    if (pk_cl_vendor_of(&d->info) != PK_CL_VENDOR_NVIDIA) return PK_SUCCESS;
    const char *why = "";
    const cl_int err = pk_cl_ptx_rebuild(d->context, d->device, prog, options, &why);
    if (err != CL_SUCCESS)
        return pk_msgf(msg, PK_ERR_BUILD_FAILED, "rebuilding [%.200s] from its PTX: %s (%s)", options, why,
                       pk_cl_error_name(err));
    return PK_SUCCESS;
}
