#ifndef PK_OPENCL_PTX_EDIT_H
#define PK_OPENCL_PTX_EDIT_H

#include <stddef.h>

/* What a program's build options ask of the PTX that NVIDIA's OpenCL
 * compiled from it (opencl_ptx_rebuild.c says why each is done there):
 *   -DPK_WGMMA=1             wgmma's marked lines restored, target sm_90a
 *                            (opencl_ptx_wgmma.h)
 *   -cl-nv-maxrregcount=N    .maxnreg N in every entry */
typedef struct {
    int wgmma;
    int maxnreg; /* 0: none */
} pk_ptx_edits;

pk_ptx_edits pk_ptx_edits_of(const char *options);
/* any edit at all; and any that needs PTX (the register bound alone is
 * left out where the driver's binary is not PTX) */
int pk_ptx_edits_any(const pk_ptx_edits *e);
int pk_ptx_edits_need_ptx(const pk_ptx_edits *e);

/* A copy of ptx[0..len) with the edits made, *out_len its length (a NUL
 * follows); NULL where one cannot be made (not sm_90 PTX, no wgmma
 * marker, the bound already there, no entry; or out of memory), with
 * *why saying which. The caller frees it. */
char *pk_ptx_edited(const char *ptx, size_t len, const pk_ptx_edits *e, size_t *out_len, const char **why);

#endif
