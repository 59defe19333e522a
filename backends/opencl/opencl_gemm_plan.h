/* The OpenCL GEMM plan: which tile gemm_tiled.cl is built with, chosen from
 * a per-device-class table (CLBlast style) and the problem's shape. Plain C
 * without OpenCL headers, so that it is unit-tested on any machine. */
#ifndef PK_OPENCL_GEMM_PLAN_H
#define PK_OPENCL_GEMM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "portkern.h"

/* Padding of each local-memory tile row (in floats), against bank conflicts. */
#define PK_CL_GEMM_PAD 1
/* Local memory a tile may use, well under NVIDIA's 48 KiB, so that two
 * work-groups can share a multiprocessor. */
#define PK_CL_GEMM_MAX_LOCAL_BYTES (32u * 1024u)
#define PK_CL_GEMM_MAX_WORK_GROUP 256u

typedef enum pk_cl_gemm_class {
    PK_CL_GEMM_NVIDIA,
    PK_CL_GEMM_AMD,
    PK_CL_GEMM_INTEL,
    PK_CL_GEMM_CPU,
    PK_CL_GEMM_OTHER,
    PK_CL_GEMM_CLASS_COUNT
} pk_cl_gemm_class;

typedef enum pk_cl_gemm_shape {
    PK_CL_GEMM_LARGE,  /* enough tiles to fill the device */
    PK_CL_GEMM_SMALL,  /* too few large tiles to fill the device */
    PK_CL_GEMM_DECODE, /* M <= the decode tile's TM (M = 1..16 decode steps) */
    PK_CL_GEMM_SHAPE_COUNT
} pk_cl_gemm_shape;

/* A work-group computes a TM x TN block of D, stepping over K by TK; each
 * of its (TN / WN) x (TM / WM) work-items computes WM x WN elements. */
typedef struct pk_cl_gemm_tile {
    int tm, tn, tk;
    int wm, wn;
} pk_cl_gemm_tile;

typedef struct pk_cl_gemm_plan {
    pk_cl_gemm_class cls;
    pk_cl_gemm_shape shape;
    int fallback;         /* the table's tile did not fit the device */
    pk_cl_gemm_tile tile;
    size_t local[2];      /* work-group size: {TN / WN, TM / WM} */
} pk_cl_gemm_plan;

pk_cl_gemm_class pk_cl_gemm_class_of(const pk_device_info *info);
const pk_cl_gemm_tile *pk_cl_gemm_table(pk_cl_gemm_class cls, pk_cl_gemm_shape shape);
/* The tile that every device can run, used when the table's does not fit. */
const pk_cl_gemm_tile *pk_cl_gemm_fallback(void);

size_t pk_cl_gemm_tile_threads(const pk_cl_gemm_tile *t);
size_t pk_cl_gemm_tile_local_bytes(const pk_cl_gemm_tile *t);
/* Whether the kernel can be built and launched with tile t on a device with
 * local_mem_bytes of local memory and work-groups of up to max_work_group. */
int pk_cl_gemm_tile_valid(const pk_cl_gemm_tile *t, uint64_t local_mem_bytes, size_t max_work_group);

/* Picks the tile for a batch of m x n outputs. Returns 0, or -1 when not
 * even the fallback tile fits the device. */
int pk_cl_gemm_plan_pick(const pk_device_info *info, size_t max_work_group, int64_t batch, int64_t m,
                         int64_t n, pk_cl_gemm_plan *out);

/* The variant a plan builds: its shape class and tile, e.g.
 * "large_128x64x32_8x8" ("..._fallback" when the table's did not fit). */
void pk_cl_gemm_plan_variant(const pk_cl_gemm_plan *plan, char *name, size_t n);

/* Every variant pk_cl_gemm_plan_pick can give on the device: each name
 * once to fn. For the conformance coverage test (tests/test_cover_gemm.c). */
void pk_cl_gemm_plan_variants(const pk_device_info *info, size_t max_work_group,
                              void (*fn)(void *ctx, const char *name), void *ctx);

#endif
