/* The bench's platforms by name: "backend[:index][/portable]". The
 * "/portable" form opens an OpenCL device with its inline PTX kernels off
 * (PORTKERN_OPENCL_PTX=0 for that open only), so that one run can set the
 * portable OpenCL kernels beside the tensor-core ones on the same device,
 * and CUDA beside both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define PORTABLE "/portable"

int pk_bench_open(const char *spec, pk_context **ctx, char *label, size_t n)
{
    char name[32] = "auto";
    int idx = 0, portable = 0;
    const char *s = spec && *spec ? spec : "auto";
    size_t len = strlen(s);
    if (len > strlen(PORTABLE) && !strcmp(s + len - strlen(PORTABLE), PORTABLE)) {
        portable = 1;
        len -= strlen(PORTABLE);
    }
    const char *colon = memchr(s, ':', len);
    size_t nl = colon ? (size_t)(colon - s) : len;
    if (nl >= sizeof name) nl = sizeof name - 1;
    memcpy(name, s, nl);
    name[nl] = 0;
    if (colon) {
        char *end;
        long v = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || end != s + len || v < 0) {
            fprintf(stderr, "bench: '%s' is not backend[:index][/portable]\n", s);
            return 0;
        }
        idx = (int)v;
    }
    pk_backend b;
    if (pk_backend_from_name(name, &b) != PK_SUCCESS) {
        fprintf(stderr, "bench: unknown backend '%s'\n", name);
        return 0;
    }
    if (portable && b != PK_BACKEND_OPENCL) {
        fprintf(stderr, "bench: '%s': only OpenCL has portable kernels to choose (" PORTABLE ")\n", s);
        return 0;
    }
    /* the OpenCL backend reads PORTKERN_OPENCL_PTX when a context opens */
    char *was = NULL;
    if (portable) {
        const char *w = getenv("PORTKERN_OPENCL_PTX");
        was = w ? strdup(w) : NULL;
        setenv("PORTKERN_OPENCL_PTX", "0", 1);
    }
    pk_status st = pk_open(b, idx, ctx);
    if (portable) {
        if (was) setenv("PORTKERN_OPENCL_PTX", was, 1);
        else unsetenv("PORTKERN_OPENCL_PTX");
        free(was);
    }
    if (st != PK_SUCCESS) {
        fprintf(stderr, "bench: cannot open %s: %s\n", s, pk_last_error(NULL));
        return 0;
    }
    pk_device_info info;
    pk_context_info(*ctx, &info);
    snprintf(label, n, "%s:%d%s", pk_backend_name(info.backend), info.index, portable ? PORTABLE : "");
    return 1;
}
