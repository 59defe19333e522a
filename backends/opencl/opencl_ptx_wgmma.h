#ifndef PK_OPENCL_PTX_WGMMA_H
#define PK_OPENCL_PTX_WGMMA_H

#include <stddef.h>

/* The marker before each line of kernels_cl/nv_ptx.cl that names wgmma:
 * a PTX comment that NVIDIA's OpenCL passes through (its compiler targets
 * sm_90, whose assembler refuses wgmma). */
#define PK_PTX_WGMMA_MARK "//PKWG "

/* A copy of the PTX text ptx[0..len) with every PK_PTX_WGMMA_MARK removed
 * (the lines it hid become instructions) and the target sm_90 made sm_90a
 * (wgmma's); *out_len its length (a NUL follows). NULL where the text
 * names another target than sm_90 (a driver or GPU this was not made
 * for), has no marker, or memory runs out. The caller frees it. */
char *pk_ptx_wgmma(const char *ptx, size_t len, size_t *out_len);

#endif
