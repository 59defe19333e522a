/* A register bound that NVIDIA's OpenCL keeps. Its driver accepts
 * -cl-nv-maxrregcount=N (cl_nv_compiler_options) and then compiles as if
 * it were absent: on the H200 (driver 580) a 4096^3 f32 GEMM ran at the
 * same speed, to four digits, with bounds of 112, 120 and 128 registers as
 * without one, where its unbounded build takes ~200 (bench/RESULTS.md,
 * 2026-12-02 14:30). The program NVIDIA's OpenCL hands back as its binary
 * is PTX text, which it also takes back, and PTX has the bound as a
 * directive of each kernel entry (.maxnreg), which the driver's PTX
 * compiler follows. So a program built with the option is rebuilt once
 * from its PTX with the directive in every entry; the on-disk cache then
 * keeps the bounded text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"
#include "opencl_ptx_bound.h"

#define OPTION "-cl-nv-maxrregcount="

pk_status pk_cl_nv_regs(pk_cl_device *d, cl_program *prog, const char *options, pk_msg *msg)
{
    const char *opt = options ? strstr(options, OPTION) : NULL;
    if (!opt || pk_cl_vendor_of(&d->info) != PK_CL_VENDOR_NVIDIA) return PK_SUCCESS;
    const int regs = atoi(opt + strlen(OPTION));
    size_t len = 0;
    if (regs <= 0 || clGetProgramInfo(*prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) != CL_SUCCESS || !len)
        return PK_SUCCESS;
    unsigned char *bin = malloc(len);
    if (!bin) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory");
    if (clGetProgramInfo(*prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) {
        free(bin);
        return PK_SUCCESS;
    }
    /* the binary's text may end in a NUL */
    while (len && !bin[len - 1]) len--;
    size_t blen = 0;
    char *bounded = pk_ptx_with_maxnreg((const char *)bin, len, regs, &blen);
    free(bin);
    /* not PTX: a driver whose binary is machine code, which either kept
     * the option or never had this defect */
    if (!bounded) return PK_SUCCESS;
    cl_int err, bin_status = CL_SUCCESS;
    const unsigned char *p = (const unsigned char *)bounded;
    cl_program next = clCreateProgramWithBinary(d->context, 1, &d->device, &blen, &p, &bin_status, &err);
    free(bounded);
    if (err == CL_SUCCESS && bin_status == CL_SUCCESS) err = clBuildProgram(next, 1, &d->device, options, NULL, NULL);
    else if (err == CL_SUCCESS) err = bin_status;
    if (err != CL_SUCCESS) {
        if (next) clReleaseProgram(next);
        return pk_msgf(msg, PK_ERR_BUILD_FAILED, "rebuilding with a bound of %d registers [%.200s]: %s", regs, options,
                       pk_cl_error_name(err));
    }
    clReleaseProgram(*prog);
    *prog = next;
    return PK_SUCCESS;
}
