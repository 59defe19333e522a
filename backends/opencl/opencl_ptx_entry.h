#ifndef PK_OPENCL_PTX_ENTRY_H
#define PK_OPENCL_PTX_ENTRY_H

#include <stddef.h>

/* A copy of the PTX text ptx[0..len) with `directive` (one or more lines
 * of PTX performance directives, e.g. ".maxnreg 128") after the directives
 * of every .entry, before its body; *out_len its length (a NUL follows).
 * NULL where the text has no entry, already names the first word of a
 * line of it anywhere (a second would contradict the first), has an entry
 * without a body, or memory runs out. The caller frees it. */
char *pk_ptx_entry_directive(const char *ptx, size_t len, const char *directive, size_t *out_len);

#endif
