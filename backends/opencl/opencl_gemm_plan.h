/* The OpenCL GEMM plan: the skinny kernel (gemm_skinny.cl) for decode
 * problems in the linear layout, else gemm_tiled.cl with a tile; both from
 * a per-device-class table (CLBlast style) and the problem's shape. Plain C
 * without OpenCL headers, so that it is unit-tested on any machine. */
#ifndef PK_OPENCL_GEMM_PLAN_H
#define PK_OPENCL_GEMM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "opencl_params.h"

/* Padding of each local-memory tile row (in floats), against bank conflicts. */
#define PK_CL_GEMM_PAD 1
/* Local memory a tile may use, well under NVIDIA's 48 KiB, so that two
 * work-groups can share a multiprocessor. */
#define PK_CL_GEMM_MAX_LOCAL_BYTES (32u * 1024u)
#define PK_CL_GEMM_MAX_WORK_GROUP 256u

#define PK_CL_SKINNY_MAX_M 16

/* What gemm_skinny.cl is built and launched with. */
typedef struct pk_cl_skinny_plan {
    int mma;         /* gemm_skinny_mma: warps of kl = 32 items, cpi blocks of 8 columns each, mr = 16 */
    int mr;          /* rows the accumulators hold: 1, 2, 4, 8 or 16, >= m */
    int vw;          /* elements per 16-byte load */
    int wg, kl, cpi, unroll, vector_acc;
    int rc;          /* rows reduced in local memory at a time */
    int kw, stream;  /* mma: warps splitting a strip's k; weights loaded past L1 */
    int64_t groups;  /* column groups of one batch */
    int splits;
    int64_t ks;      /* elements of k per split */
} pk_cl_skinny_plan;

typedef struct pk_cl_gemm_plan {
    int skinny;           /* 1: gemm_skinny.cl as `sk` says */
    pk_cl_skinny_plan sk;
    int mma;              /* 1: gemm_mma.cl with mt (tensor cores); else gemm_tiled.cl */
    pk_cl_mma_shape mma_shape; /* mma: the table entry mt came from */
    int mma_splits;       /* mma: pieces of k (gemm_mma.cl SPLITS; > 1: the last piece of a tile sums them) */
    pk_cl_mma_tile mt;
    int b_kc;             /* mma: b k-contiguous (else n-contiguous) */
    pk_cl_vendor cls;
    pk_cl_gemm_shape shape;
    int fallback;         /* the table's tile did not fit the device */
    pk_cl_gemm_tile tile;
    size_t local[2];      /* work-group size: {TN / WN, TM / WM} */
} pk_cl_gemm_plan;

/* A class's table entries (pk_cl_params_default gathers them). */
const pk_cl_gemm_tile *pk_cl_gemm_table(pk_cl_vendor cls, pk_cl_gemm_shape shape);
/* The tile that every device can run, used when the table's does not fit. */
const pk_cl_gemm_tile *pk_cl_gemm_fallback(void);

size_t pk_cl_gemm_tile_threads(const pk_cl_gemm_tile *t);
size_t pk_cl_gemm_tile_local_bytes(const pk_cl_gemm_tile *t);
/* Whether the kernel can be built and launched with tile t on a device with
 * local_mem_bytes of local memory and work-groups of up to max_work_group. */
int pk_cl_gemm_tile_valid(const pk_cl_gemm_tile *t, uint64_t local_mem_bytes, size_t max_work_group);

/* Picks the tile of prm for a batch of m x n outputs. Returns 0, or -1
 * when not even the fallback tile fits the device. */
int pk_cl_gemm_plan_pick(const pk_cl_params *prm, const pk_device_info *info, size_t max_work_group, int64_t batch, int64_t m,
                         int64_t n, pk_cl_gemm_plan *out);

const pk_cl_skinny_params *pk_cl_skinny_table(pk_cl_vendor cls);
/* Local memory of the skinny kernel's reduction */
size_t pk_cl_skinny_local_bytes(const pk_cl_skinny_plan *sk);

/* Local memory a tensor-core tile may take: what NVIDIA's OpenCL gives a
 * work-group on every GPU with matrix units (a tuned tile over it would
 * never run: the plan would quietly take another kernel in its place). */
#define PK_CL_MMA_MAX_LOCAL_BYTES (48u * 1024u)
/* Steps of 32 k a split of the tensor-core kernel takes at least, so that
 * its pipeline fills and the partial sums stay a small part of the traffic. */
#define PK_CL_MMA_MIN_SPLIT_STEPS 8

/* Local memory of gemm_mma.cl with tile t (gemm_mma_kwarp.cl: at the
 * least, its sums one m16 tile at a time) */
size_t pk_cl_mma_local_bytes(const pk_cl_mma_tile *t);
/* gemm_mma_kwarp.cl: local memory for its warps' sums red_mt m16 tiles at
 * a time, and the most tiles at a time (dividing a warp block's) that fit in
 * local_mem_bytes (0: none) */
size_t pk_cl_mma_red_bytes(const pk_cl_mma_tile *t, int red_mt);
int pk_cl_mma_red_mt(const pk_cl_mma_tile *t, uint64_t local_mem_bytes);
/* A class's gemm_mma.cl tiles (pk_cl_params_default gathers them). */
const pk_cl_mma_tile *pk_cl_mma_table(pk_cl_vendor cls, pk_cl_mma_shape shape);
/* The wgmma tile of a shape, for devices that run wgmma from OpenCL
 * (pk_cl_params_wgmma); NULL where the class's mma.sync tile stays */
const pk_cl_mma_tile *pk_cl_mma_wgmma_table(pk_cl_mma_shape shape);
/* The TMA tile of a shape, for devices whose TMA copies passed their
 * probe (pk_cl_params_tma); NULL where the shape's other tile stays */
const pk_cl_mma_tile *pk_cl_mma_tma_table(pk_cl_mma_shape shape);
/* Whether gemm_mma.cl can be built with tile t (warps that tile it in
 * whole mma steps, at most 128 accumulators a lane, b's swizzled rows;
 * with b in registers, one warp a column of the tile)
 * and launched on a device with local_mem_bytes of local memory and
 * work-groups of up to max_work_group. */
int pk_cl_mma_tile_valid(const pk_cl_mma_tile *t, uint64_t local_mem_bytes, size_t max_work_group);

/* The plan for problem p: the skinny kernel where it takes p (m <= 16, a
 * and b contiguous along k with 16-byte aligned rows, the device fits its
 * work-group), else the tensor-core kernel where the device has matrix
 * units and p is 16-bit with a k-contiguous and b k- or n-contiguous, rows
 * 16-byte aligned (its large tile when those number at least the compute
 * units, else its small one, k split while the small tiles alone do not
 * fill the device), else pk_cl_gemm_plan_pick's tile. Returns 0, or -1 when
 * nothing fits the device. */
int pk_cl_gemm_plan_problem(const pk_cl_params *prm, const pk_device_info *info, size_t max_work_group, const pk_gemm_problem *p,
                            pk_cl_gemm_plan *out);

/* The variant a plan builds: its shape class and tile, e.g.
 * "large_128x64x32_8x8" ("..._fallback" when the table's did not fit),
 * "skinny_m4_128x32x2" ("..._split" when k is split), or
 * "mma_128x128_w2x4_s3_bk" (b k- or n-contiguous: _bk, _bn; "..._split"
 * when k is split). */
void pk_cl_gemm_plan_variant(const pk_cl_gemm_plan *plan, char *name, size_t n);

/* Every variant pk_cl_gemm_plan_problem can give on the device: each name
 * once to fn. For the conformance coverage test (tests/test_cover_gemm.c). */
void pk_cl_gemm_plan_variants(const pk_cl_params *prm, const pk_device_info *info, size_t max_work_group,
                              void (*fn)(void *ctx, const char *name), void *ctx);

#endif
