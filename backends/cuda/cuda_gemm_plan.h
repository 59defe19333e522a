/* The CUDA GEMM plan: which kernel of kernels_cuda/gemm.cu runs a problem,
 * with what grid and shared memory. Plain C without CUDA headers, so that
 * it is unit-tested on any machine. */
#ifndef PK_CUDA_GEMM_PLAN_H
#define PK_CUDA_GEMM_PLAN_H

#include <stddef.h>

#include "../../kernels_cuda/gemm_kernels.h"
#include "backend.h"
#include "pk_kernel_list.h"

/* The kernels of the list in kernels_cuda/gemm_kernels.h by index, and
 * their entry points' names. */
#define PK_CU_GEMM_ID(kind, module, name, ...) PK_CU_##name,
PK_KERNEL_LIST_ENUM(PK_CU_GEMM_KERNELS, PK_CU_GEMM_ID, pk_cu_gemm_kernel, PK_CU_GEMM_KERNEL_COUNT);

/* PORTKERN_CUDA_GEMM, for A/B timing: "skinny" or "decode" sends every
 * decode problem (M <= 16, linear layout) to that kernel, "mma" keeps
 * problems from the Hopper kernel, a Hopper tile's name ("128x256",
 * "64x128", ...) sends every problem the Hopper kernel takes at all to
 * that tile, unsplit, and "<tile>:<splits>" cut in that many ranges of k
 * (fewer where K has fewer steps), and "<tile>[:<splits>]@<blocks>" on at
 * most that many blocks, each taking several units (a test of the ring
 * and of the units' hand-over; batches then in turn); "trial" lets the Hopper plan weigh its
 * trial tiles (gemm_kernels.h) and split-K too, and take from 17 rows on,
 * and cuts k of f32 problems whose 128 x 128 tiles are too few (on the
 * VEC kernel); "vec" keeps every f32 problem with aligned rows on the VEC
 * kernel (the plan's before the wide-thread one took 128 rows and
 * columns and more); a tile of the wide-thread f32 kernel ("f32w",
 * "f32t": gemm_kernels.h's WIDE) sends every f32 problem the VEC kernel
 * takes to it, k cut in ranges that fill one wave of its blocks where its
 * tiles leave room, "<tile>:<splits>" in that many ranges (fewer where K
 * has fewer steps).
 * Any other value, or none, changes nothing. */
typedef enum pk_cu_gemm_knob_kind {
    PK_CU_GEMM_KNOB_NONE, PK_CU_GEMM_KNOB_SKINNY, PK_CU_GEMM_KNOB_DECODE, PK_CU_GEMM_KNOB_MMA,
    PK_CU_GEMM_KNOB_TILE, PK_CU_GEMM_KNOB_TRIAL, PK_CU_GEMM_KNOB_WIDE, PK_CU_GEMM_KNOB_VEC
} pk_cu_gemm_knob_kind;
typedef struct pk_cu_gemm_knob {
    pk_cu_gemm_knob_kind kind;
    int tile, splits; /* KNOB_TILE, KNOB_WIDE: the tile's index and 0, or the ranges asked for */
    unsigned blocks;  /* KNOB_TILE: 0, or at most this many blocks (even for pairs) */
} pk_cu_gemm_knob;
pk_cu_gemm_knob pk_cu_gemm_knob_of(const char *value); /* NULL: unset */

/* The most ranges a tile's k is cut in */
#define PK_CU_GEMM_MAX_SPLITS 16

/* grid.y and grid.z limit; the kernels loop over batches beyond it */
#define PK_CU_GEMM_MAX_GRID_YZ 65535u
#define PK_CU_GEMM_MAX_GRID_X 2147483647u

typedef enum pk_cu_gemm_kind {
    PK_CU_GEMM_SKINNY, /* M <= 16, linear layout, f16/bf16, aligned: streams W */
    PK_CU_GEMM_DECODE, /* the same problems from a few rows on: streams W into tensor cores */
    PK_CU_GEMM_WGMMA,  /* f16/bf16, both operands k-contiguous, large: Hopper wgmma fed by TMA */
    PK_CU_GEMM_MMA,    /* f16/bf16 with a contiguous, aligned direction per operand: tensor cores */
    PK_CU_GEMM_VEC,    /* f32 with contiguous, 16-byte aligned rows: exact f32 on the CUDA cores, float4 loads
                        * (or the wide-thread kernel, the same arguments: f32w from 128 rows and
                        * columns on, or a WIDE knob's tile) */
    PK_CU_GEMM_SIMT    /* everything else: exact f32 on the CUDA cores */
} pk_cu_gemm_kind;

typedef struct pk_cu_gemm_plan {
    pk_cu_gemm_kind kind;
    pk_cu_gemm_kernel kernel;
    unsigned grid[3], block[3];
    unsigned smem;     /* dynamic shared memory, bytes */
    int early;         /* may start behind the previous kernel (it waits before it reads) */
    unsigned tile_m, tile_n; /* the Hopper kernel's tile: its TMA boxes' rows of A and of B */
    int splits, steps;       /* the Hopper kernel's split-K (pk_cu_gemm_split): 1 and k's steps unsplit */
    int pair;                /* its blocks in clusters of two (PK_GPU_LAUNCH_PAIRS), each with half of B's box */
    int pair_a;              /* ... or, where set, half of A's */
    int out;                 /* its tile writes through TMA where D allows (gemm_kernels.h's out) */
    size_t part_bytes;       /* its scratch for the ranges' partial sums; 0 unsplit */
} pk_cu_gemm_plan;

/* Picks the kernel for p on a device with sm_count multiprocessors and
 * smem_optin bytes of dynamic shared memory per block, under the knob the
 * device read at open. Always succeeds: the SIMT kernel takes anything. */
void pk_cu_gemm_plan_pick_knob(const pk_gemm_problem *p, int sm_count, size_t smem_optin, pk_cu_gemm_knob knob,
                               pk_cu_gemm_plan *out);

/* Whether D can be written through a TMA map (the tiles of
 * gemm_kernels.h's out): 16-bit, columns contiguous, rows and batch
 * planes whole 16-byte units apart from a 16-byte aligned offset. The
 * base address is the driver's to check, at the map's encoding. */
int pk_cu_gemm_staged_fits(const pk_gemm_problem *p);

/* The Hopper kernel (kernels_cuda/gemm_sm90.cu) for p, where the device
 * has sm_90a code loaded: returns 1 and fills out when it takes p. It
 * takes f16/bf16 with both operands k-contiguous in non-overlapping,
 * 16-byte aligned rows (what a TMA map can describe), 64 rows at least
 * (17 under the trial knob or a forced 64-row tile); its tiles are
 * gemm_kernels.h's. */
int pk_cu_gemm_plan_wgmma(const pk_gemm_problem *p, int sm_count, pk_cu_gemm_knob knob, pk_cu_gemm_plan *out);

/* Every kernel variant that pk_cu_gemm_plan_pick_knob, after
 * pk_cu_gemm_plan_wgmma where has_wgmma (sm_90a code loaded, as pk_cu_gemm
 * does), can name for some problem on a device with smem_optin bytes of
 * dynamic shared memory, without a knob: each kernel's name once to fn,
 * with split set where the variant is the Hopper kernel's split-K. The
 * same on every multiprocessor count (that only moves where one tile gives
 * way to the next). With the plans above, so that a tile added to a table
 * is a kernel that the conformance coverage test (tests/test_cover_gemm.c)
 * asks a case for. */
void pk_cu_gemm_plan_kernels(int has_wgmma, size_t smem_optin, void (*fn)(void *ctx, const char *name, int split),
                             void *ctx);
/* Those only a knob picks: the skinny kernel's 8- and 16-row forms, VEC's
 * 128 x 128 tile (split too), the wide-thread kernel's f32t, split too,
 * and where has_wgmma the Hopper kernel's trial tiles and every tile
 * split. */
void pk_cu_gemm_plan_knob_kernels(int has_wgmma, void (*fn)(void *ctx, const char *name, int split), void *ctx);

#endif
