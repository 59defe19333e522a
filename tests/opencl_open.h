/* The OpenCL tuner tests' device: `idx` (from argv by open_cl_index) and a
 * context on it, or exit 1 with the reason. */
#ifndef PK_TEST_OPENCL_OPEN_H
#define PK_TEST_OPENCL_OPEN_H

#include <stdio.h>
#include <stdlib.h>

#include "portkern.h"

static int idx;

/* idx from argv[1] (default 0); exits 77 (meson's skip) without that device */
static void open_cl_index(int argc, char **argv)
{
    idx = argc > 1 ? atoi(argv[1]) : 0;
    int n = 0;
    if (pk_device_count(PK_BACKEND_OPENCL, &n) != PK_SUCCESS || n <= idx) {
        printf("SKIP no OpenCL device %d\n", idx);
        exit(77);
    }
}

static pk_context *open_cl(void)
{
    pk_context *ctx = NULL;
    if (pk_open(PK_BACKEND_OPENCL, idx, &ctx) != PK_SUCCESS) {
        printf("FAIL open: %s\n", pk_last_error(NULL));
        exit(1);
    }
    return ctx;
}

#endif
