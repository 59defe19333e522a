/* The OpenCL GEMM plan: the skinny kernel (gemm_skinny.cl) for decode
 * problems in the linear layout, else gemm_tiled.cl with a tile; both from
 * a per-device-class table (CLBlast style) and the problem's shape. Plain C
 * without OpenCL headers, so that it is unit-tested on any machine. */
#ifndef PK_OPENCL_GEMM_PLAN_H
#define PK_OPENCL_GEMM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "opencl_vendor.h"

/* Padding of each local-memory tile row (in floats), against bank conflicts. */
#define PK_CL_GEMM_PAD 1
/* Local memory a tile may use, well under NVIDIA's 48 KiB, so that two
 * work-groups can share a multiprocessor. */
#define PK_CL_GEMM_MAX_LOCAL_BYTES (32u * 1024u)
#define PK_CL_GEMM_MAX_WORK_GROUP 256u

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

/* The skinny kernel's parameters for a device class: work-groups of wg
 * items in teams of kl; a team owns cpi[b] columns for the row bucket b
 * (MR = 1, 2, 4, 8, 16) and keeps `loads` 16-byte loads of b in flight per
 * item. k is split when the batch's column groups number fewer than
 * fill * compute units, into at most max_splits pieces of at least
 * min_split_k elements. */
typedef struct pk_cl_skinny_params {
    int wg, kl;
    int cpi[5];
    int loads;
    int vector_acc; /* accumulate in vectors of VW lanes (CPUs' SIMD), else in scalars */
    int fill, max_splits, min_split_k;
} pk_cl_skinny_params;

#define PK_CL_SKINNY_MAX_M 16

/* What gemm_skinny.cl is built and launched with. */
typedef struct pk_cl_skinny_plan {
    int mr;          /* rows the accumulators hold: 1, 2, 4, 8 or 16, >= m */
    int vw;          /* elements per 16-byte load */
    int wg, kl, cpi, unroll, vector_acc;
    int rc;          /* rows reduced in local memory at a time */
    int64_t groups;  /* column groups of one batch */
    int splits;
    int64_t ks;      /* elements of k per split */
} pk_cl_skinny_plan;

typedef struct pk_cl_gemm_plan {
    int skinny;           /* 1: gemm_skinny.cl as `sk` says; 0: gemm_tiled.cl */
    pk_cl_skinny_plan sk;
    pk_cl_vendor cls;
    pk_cl_gemm_shape shape;
    int fallback;         /* the table's tile did not fit the device */
    pk_cl_gemm_tile tile;
    size_t local[2];      /* work-group size: {TN / WN, TM / WM} */
} pk_cl_gemm_plan;

const pk_cl_gemm_tile *pk_cl_gemm_table(pk_cl_vendor cls, pk_cl_gemm_shape shape);
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

const pk_cl_skinny_params *pk_cl_skinny_table(pk_cl_vendor cls);
/* Local memory of the skinny kernel's reduction */
size_t pk_cl_skinny_local_bytes(const pk_cl_skinny_plan *sk);

/* The plan for problem p: the skinny kernel where it takes p (m <= 16, a
 * and b contiguous along k with 16-byte aligned rows, the device fits its
 * work-group), else pk_cl_gemm_plan_pick's tile. Returns 0, or -1 when
 * nothing fits the device. */
int pk_cl_gemm_plan_problem(const pk_device_info *info, size_t max_work_group, const pk_gemm_problem *p,
                            pk_cl_gemm_plan *out);

/* The variant a plan builds: its shape class and tile, e.g.
 * "large_128x64x32_8x8" ("..._fallback" when the table's did not fit), or
 * "skinny_m4_128x32x2" ("..._split" when k is split). */
void pk_cl_gemm_plan_variant(const pk_cl_gemm_plan *plan, char *name, size_t n);

/* Every variant pk_cl_gemm_plan_problem can give on the device: each name
 * once to fn. For the conformance coverage test (tests/test_cover_gemm.c). */
void pk_cl_gemm_plan_variants(const pk_device_info *info, size_t max_work_group,
                              void (*fn)(void *ctx, const char *name), void *ctx);

#endif
