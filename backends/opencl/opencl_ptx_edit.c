/* The edits a program's options ask of its PTX (opencl_ptx_edit.h), text
 * only: unit-tested anywhere (tests/test_ptx_edit.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl_ptx_edit.h"
#include "opencl_ptx_entry.h"
#include "opencl_ptx_wgmma.h"

/* the value of an option "name<digits>" as a whole word of options; 0 if absent */
static int option_int(const char *options, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = options; p && (p = strstr(p, name)); p += n)
        if (p == options || p[-1] == ' ') return atoi(p + n);
    return 0;
}

pk_ptx_edits pk_ptx_edits_of(const char *options)
{
    pk_ptx_edits e = {0, 0};
    if (!options) return e;
    e.wgmma = option_int(options, "-DPK_WGMMA=") == 1;
    e.maxnreg = option_int(options, "-cl-nv-maxrregcount=");
    if (e.maxnreg < 0) e.maxnreg = 0;
    return e;
}

int pk_ptx_edits_need_ptx(const pk_ptx_edits *e) { return e->wgmma; }

int pk_ptx_edits_any(const pk_ptx_edits *e) { return pk_ptx_edits_need_ptx(e) || e->maxnreg > 0; }

char *pk_ptx_edited(const char *ptx, size_t len, const pk_ptx_edits *e, size_t *out_len, const char **why)
{
    char *text = NULL;
    size_t tlen = len;
    if (e->wgmma && !(text = pk_ptx_wgmma(ptx, len, &tlen))) {
        *why = "not sm_90 PTX with wgmma's marked lines";
        return NULL;
    }
    char directive[32] = "";
    if (e->maxnreg > 0) snprintf(directive, sizeof directive, ".maxnreg %d", e->maxnreg);
    if (!*directive) {
        if (!text && (text = malloc(len + 1))) memcpy(text, ptx, len), text[len] = 0;
        if (!text) *why = "out of host memory";
        *out_len = tlen;
        return text;
    }
    size_t olen = 0;
    char *out = pk_ptx_entry_directive(text ? text : ptx, tlen, directive, &olen);
    free(text);
    if (!out) {
        *why = "no kernel entry with a body, or a register bound already there";
        return NULL;
    }
    *out_len = olen;
    return out;
}
