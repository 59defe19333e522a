/* The PTX text of a program that uses wgmma, made from what NVIDIA's
 * OpenCL compiled (opencl_ptx_wgmma.h). Plain C, unit-tested anywhere
 * (tests/test_ptx_wgmma.c). */
#include <stdlib.h>
#include <string.h>

#include "opencl_ptx_wgmma.h"

/* ".target sm_90" followed by a separator (",", a blank or the line's
 * end): sm_90 itself, not sm_90a nor a longer number; NULL if the first
 * .target names anything else */
static const char *sm90_target(const char *ptx, const char *end, const char **arch_end)
{
    static const char dir[] = ".target";
    const char *t = NULL;
    for (const char *p = ptx; p + sizeof dir - 1 <= end; p++)
        if (!memcmp(p, dir, sizeof dir - 1) && (p == ptx || p[-1] == '\n')) {
            t = p;
            break;
        }
    if (!t) return NULL;
    const char *a = t + sizeof dir - 1;
    while (a < end && (*a == ' ' || *a == '\t')) a++;
    if (end - a < 5 || memcmp(a, "sm_90", 5)) return NULL;
    const char *after = a + 5;
    if (after < end && *after != ',' && *after != ' ' && *after != '\t' && *after != '\n' && *after != '\r')
        return NULL;
    *arch_end = after;
    return a;
}

char *pk_ptx_wgmma(const char *ptx, size_t len, size_t *out_len)
{
    const char *end = ptx + len, *arch_end = NULL;
    if (!sm90_target(ptx, end, &arch_end)) return NULL;
    const size_t mark = strlen(PK_PTX_WGMMA_MARK);
    int marks = 0;
    for (const char *p = ptx; p + mark <= end; p++)
        if (!memcmp(p, PK_PTX_WGMMA_MARK, mark)) marks++, p += mark - 1;
    if (!marks) return NULL;
    char *out = malloc(len + 2), *o = out;
    if (!out) return NULL;
    for (const char *p = ptx; p < end;) {
        if (p == arch_end) *o++ = 'a';
        if (p + mark <= end && !memcmp(p, PK_PTX_WGMMA_MARK, mark)) {
            p += mark;
            continue;
        }
        *o++ = *p++;
    }
    if (arch_end == end) *o++ = 'a';
    *o = 0;
    *out_len = (size_t)(o - out);
    return out;
}
