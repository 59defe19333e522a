/* The OpenCL tuner tests' device: `idx` (set by main from argv) and a
 * context on it, or exit 1 with the reason. */
#ifndef PK_TEST_OPENCL_OPEN_H
#define PK_TEST_OPENCL_OPEN_H

#include <stdio.h>
#include <stdlib.h>

#include "portkern.h"

static int idx;

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
