#ifndef PK_OPENCL_PTX_BOUND_H
#define PK_OPENCL_PTX_BOUND_H

#include <stddef.h>

/* A copy of the PTX text ptx[0..len) with ".maxnreg regs" after the
 * directives of every .entry, before its body; *out_len its length (a NUL
 * follows). NULL where the text has no entry, already has a bound, or an
 * entry without a body, or memory runs out. The caller frees it. */
char *pk_ptx_with_maxnreg(const char *ptx, size_t len, int regs, size_t *out_len);

#endif
