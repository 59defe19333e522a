/* PTX text with directives in every kernel entry (opencl_ptx_rebuild.c
 * says why); text only, so that a test can check it without a driver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_ptx_entry.h"

char *pk_ptx_entry_directive(const char *ptx, size_t len, const char *directive, size_t *out_len)
{
    if (len < 8 || !*directive || !memmem(ptx, len, ".entry", 6)) return NULL;
    /* each line's first word (.maxnreg, .minnctapersm) */
    for (const char *d = directive; *d; d += strcspn(d, "\n"), d += *d == '\n') {
        const size_t word = strcspn(d, " \t\n");
        if (!word || memmem(ptx, len, d, word)) return NULL;
    }
    size_t entries = 0;
    for (const char *p = ptx; (p = memmem(p, len - (size_t)(p - ptx), ".entry", 6)); p += 6) entries++;
    const size_t dl = strlen(directive) + 1;
    char *out = malloc(len + entries * dl + 1);
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
        out[o++] = '\n';
        memcpy(out + o, directive, dl - 1);
        o += dl - 1;
        i = upto;
    }
    out[o] = 0;
    *out_len = o;
    return out;
}
