/* PTX text with a register bound in every kernel entry (opencl_nv_regs.c
 * says why); text only, so that a test can check it without a driver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_ptx_bound.h"

char *pk_ptx_with_maxnreg(const char *ptx, size_t len, int regs, size_t *out_len)
{
    if (len < 8 || !memmem(ptx, len, ".entry", 6) || memmem(ptx, len, ".maxnreg", 8)) return NULL;
    size_t entries = 0;
    for (const char *p = ptx; (p = memmem(p, len - (size_t)(p - ptx), ".entry", 6)); p += 6) entries++;
    char directive[32];
    const int dl = snprintf(directive, sizeof directive, "\n.maxnreg %d", regs);
    char *out = malloc(len + entries * (size_t)dl + 1);
    if (!out) return NULL;
    size_t o = 0, i = 0;
    while (i < len) {
        const char *e = memmem(ptx + i, len - i, ".entry", 6);
        /* the entry's body opens on a line of its own after its
         * parameters and its other directives (.reqntid) */
        const char *body = e ? memmem(e, len - (size_t)(e - ptx), "\n{", 2) : NULL;
        if (!body) {
            if (e) {
                free(out);
                return NULL;
            }
            memcpy(out + o, ptx + i, len - i);
            o += len - i;
            break;
        }
        const size_t upto = (size_t)(body - ptx);
        memcpy(out + o, ptx + i, upto - i);
        o += upto - i;
        memcpy(out + o, directive, (size_t)dl);
        o += (size_t)dl;
        i = upto;
    }
    out[o] = 0;
    *out_len = o;
    return out;
}
