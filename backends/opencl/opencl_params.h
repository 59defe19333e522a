/* The tunable parameters of every OpenCL kernel family, as data: one
 * struct a device holds (its class's table entry, then what the tuner
 * stored for it), and a list of named parameters over it (CLBlast style),
 * so that the tuner, the on-disk tuning cache and `portkern tune` read and
 * write them by name. The plans (opencl_*_plan.c) turn them into build
 * defines and launch sizes. Plain C without OpenCL headers, so that it is
 * unit-tested on any machine. */
#ifndef PK_OPENCL_PARAMS_H
#define PK_OPENCL_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "opencl_vendor.h"

/* gemm_tiled.cl: a work-group computes a TM x TN block of D, stepping over
 * K by TK; each of its (TN / WN) x (TM / WM) work-items computes WM x WN
 * elements. */
typedef enum pk_cl_gemm_shape {
    PK_CL_GEMM_LARGE,  /* enough tiles to fill the device */
    PK_CL_GEMM_SMALL,  /* too few large tiles to fill the device */
    PK_CL_GEMM_DECODE, /* M <= the decode tile's TM (M = 1..16 decode steps) */
    PK_CL_GEMM_SHAPE_COUNT
} pk_cl_gemm_shape;

typedef struct pk_cl_gemm_tile {
    int tm, tn, tk;
    int wm, wn;
    int lanes; /* 1: warps of 4 x 8 items (gemm_tiled.cl LANES) */
    int kunroll; /* unrolling of a step's k loop (gemm_tiled.cl KUNROLL): 0 the compiler's choice, 1 none */
    int regs;    /* NVIDIA: registers a work-item may use (opencl_ptx_rebuild.c), so that the work-groups the tile
                  * counts on share a multiprocessor; 0 the compiler's choice. Other devices ignore it */
    int unpadded; /* 1: local rows without padding (gemm_tiled.cl VPAD = 0), so that two whole TK-deep steps
                   * fit where padded rows would take TK / 2-deep ones */
} pk_cl_gemm_tile;

/* gemm_skinny.cl: work-groups of wg items in teams of kl; a team owns
 * cpi[b] columns for the row bucket b (MR = 1, 2, 4, 8, 16) and keeps
 * `loads` 16-byte loads of b in flight per item. k is split when the
 * batch's column groups number fewer than fill * compute units, into at
 * most max_splits pieces of at least min_split_k elements. */
typedef struct pk_cl_skinny_params {
    int wg, kl;
    int cpi[5];
    int loads;
    int vector_acc; /* accumulate in vectors of VW lanes (CPUs' SIMD), else in scalars */
    int fill, max_splits, min_split_k;
    /* tensor cores (mma.sync through inline PTX, devices whose
     * pk_device_info.matrix_units says so): 16-bit a and b with m >=
     * mma_min_m (0: never) take gemm_skinny_mma, work-groups of mma_wg
     * items, mma_nb blocks of 8 columns a strip of mma_kw warps that
     * split its k, mma_loads steps of 32 k loaded before any is used;
     * mma_stream 1 loads the weights past L1 */
    int mma_min_m, mma_wg, mma_nb, mma_loads, mma_kw, mma_stream;
} pk_cl_skinny_params;

/* rows.cl: the per-row kernels (norms, softmax) and the elementwise ones
 * (GLU, bias + activation). */
typedef struct pk_cl_rows_params {
    int vec_bytes;     /* per-row: bytes a work-item moves per access on the fast path */
    int max_tpr;       /* per-row: most work-items sharing one row */
    int target_chunks; /* per-row: vectors a work-item holds, wanted; 0: one work-item streams the row */
    int max_chunks;    /* per-row: most vectors held before the row is streamed */
    int min_group;     /* per-row: short rows share a work-group of this many work-items */
    int groups_per_cu; /* per-row: work-groups launched per compute unit at most (grid-stride beyond) */
    int prefetch;      /* per-row, row in registers: 1 loads a work-group's next row during this one's reductions */
    int red_fan;       /* per-row: partials a work-item adds per level of a reduction (a power of two) */
    int ew_vec_bytes;  /* elementwise: bytes a work-item moves per access on the fast path */
    int ew_local;      /* elementwise: work-group size */
    int ew_per_item;   /* elementwise: vectors per work-item per block */
    int ew_batch;      /* elementwise: vectors loaded before any is stored (divides ew_per_item) */
    int ew_groups_per_cu; /* elementwise: as groups_per_cu */
} pk_cl_rows_params;

/* attention_decode.cl: work-groups of up to wg items, each with `chunks`
 * 16-byte runs of K (as many of V) in flight a step; q_floats registers
 * for Q and for the accumulator; up to max_rows query rows a work-group;
 * key chunks of at least min_chunk keys, spread so that wg_per_cu groups
 * run per compute unit; the merge runs in groups of up to merge_wg items.
 * regs: NVIDIA only, the most registers a work-item of pk_attn_decode may
 * use (-cl-nv-maxrregcount), which sets how many work-groups share a
 * multiprocessor; 0: the compiler's choice. */
typedef struct pk_cl_attn_decode_params {
    int wg, chunks, q_floats, max_rows, wg_per_cu, min_chunk, merge_wg, regs;
} pk_cl_attn_decode_params;

/* gemm_mma.cl (tensor cores through inline PTX, on devices whose
 * pk_device_info.matrix_units says so): a bm x bn tile of D for a
 * work-group of warps_m x warps_n warps, `stages` steps of 32 k in flight
 * in local memory. Narrow: when one row of its tiles covers M (a taller
 * tile would multiply rows that do not exist); large: when such tiles
 * number at least the compute units; small: when they do not. */
typedef enum pk_cl_mma_shape { PK_CL_MMA_LARGE, PK_CL_MMA_SMALL, PK_CL_MMA_NARROW, PK_CL_MMA_SHAPE_COUNT } pk_cl_mma_shape;
typedef struct pk_cl_mma_tile {
    int bm, bn, warps_m, warps_n, stages;
    /* tiles in the launch order of groups of group_m tile rows, column by
     * column within a group (work-groups in flight at once share rows of
     * a and columns of b in the L2 cache) */
    int group_m;
    /* registers a work-item: a bound the driver keeps (NVIDIA's OpenCL:
     * written into the program's PTX); 0: the compiler's choice */
    int regs;
    /* small and narrow tiles: k split into up to this many pieces (a
     * power of two) while the tiles alone number fewer than the compute
     * units; 1: never */
    int max_splits;
    /* 1: the weights straight into registers, only a through local
     * memory, `stages` steps a round (gemm_mma.cl B_REG; b k-contiguous,
     * warps_m = 1) */
    int breg;
    /* w > 0: gemm_mma_kwarp.cl, whose warps_m x warps_n warp blocks each
     * take w warps that split k among themselves and multiply from
     * registers (operands from memory: a through L1, the weights
     * streamed past it), adding their
     * sums at the end in local memory; `stages` steps held a warp (b
     * k-contiguous, breg = 0; split over work-groups as the other tiles) */
    int kwarp;
    /* small and narrow tiles: k split while the work-groups number at most
     * fill x the compute units (1: one a unit; 2 or more: that many
     * multiprocessors' worth of copies in flight, where a tile's local
     * memory and registers let several share one) */
    int fill;
    /* 1: Hopper's warpgroup products (gemm_mma.cl WGMMA, devices whose
     * pk_cl_params.wgmma_units says so): warps_m / 4 warpgroups of 64
     * rows each by all bn columns (bm = 16 warps_m, warps_n = 1), b
     * k-contiguous, no breg or kwarp */
    int wgmma;
    /* 1 (with wgmma): gemm_tma.cl, its operands copied by the tensor
     * memory accelerator (devices whose pk_cl_params.tma_units says so):
     * warps_m / 4 consumer warpgroups and a producer warp, bn 32, 64 or
     * 128, a k-contiguous and a problem whose grid and extents the TMA
     * maps take (else the shape's tile without it) */
    int tma;
} pk_cl_mma_tile;

/* attention_prefill.cl: BM query rows a work-group, BN keys a tile, TPR
 * work-items a row, per head-dim class: D = 64, D = 80 or 96, D = 128, any other. */
#define PK_CL_ATTN_DCLASSES 4
typedef struct pk_cl_attn_prefill_params {
    int bm[PK_CL_ATTN_DCLASSES], bn[PK_CL_ATTN_DCLASSES], tpr[PK_CL_ATTN_DCLASSES];
} pk_cl_attn_prefill_params;

/* rope.cl and chain.cl: work-group sizes, and for RoPE how many work-items
 * it aims at (heads are shared among fewer items when the tokens give
 * enough) and the most groups a launch takes. */
typedef struct pk_cl_misc_params {
    int rope_wg, rope_items, rope_max_groups;
    int chain_wg;
} pk_cl_misc_params;

/* The class's entries of the RoPE and chain launches (opencl_params.c). */
const pk_cl_misc_params *pk_cl_misc_table(pk_cl_vendor cls);

typedef struct pk_cl_params {
    pk_cl_gemm_tile gemm[PK_CL_GEMM_SHAPE_COUNT];
    pk_cl_mma_tile mma[PK_CL_MMA_SHAPE_COUNT];
    pk_cl_skinny_params skinny;
    pk_cl_rows_params rows;
    pk_cl_attn_decode_params decode;
    pk_cl_attn_prefill_params prefill;
    pk_cl_misc_params misc;
    /* not a parameter: the device runs wgmma from OpenCL (its probe
     * passed: pk_cl_wgmma_state), so wgmma tiles may run on it */
    int wgmma_units;
    /* not a parameter: the device's TMA copies passed their probe
     * (pk_cl_tma_state), so TMA tiles may run on it */
    int tma_units;
} pk_cl_params;

/* A kernel family: what the tuner tunes as one, with the kernel source
 * its parameters are built into (the tuning cache is keyed by its hash). */
typedef enum pk_cl_family {
    PK_CL_FAMILY_GEMM_LARGE,
    PK_CL_FAMILY_GEMM_SMALL,
    PK_CL_FAMILY_GEMM_DECODE,
    PK_CL_FAMILY_SKINNY,
    PK_CL_FAMILY_ROWS,
    PK_CL_FAMILY_ELEMENTWISE,
    PK_CL_FAMILY_DECODE,
    PK_CL_FAMILY_PREFILL,
    PK_CL_FAMILY_ROPE,
    PK_CL_FAMILY_CHAIN,
    PK_CL_FAMILY_GEMM_MMA,
    PK_CL_FAMILY_GEMM_MMA_SMALL,
    PK_CL_FAMILY_GEMM_MMA_NARROW, /* the families of the pk_cl_mma_shape entries, in its order */
    PK_CL_FAMILY_COUNT
} pk_cl_family;

typedef struct pk_cl_family_info {
    const char *name;   /* "skinny" */
    const char *source; /* "gemm_skinny.cl" */
    const char *what;   /* one line for `portkern tune --list` */
    int matrix_units;   /* 1: its kernels run only on devices with matrix_units */
} pk_cl_family_info;

#define PK_CL_PARAM_CHOICES 8

/* One named parameter: an int at `offset` in pk_cl_params. */
typedef struct pk_cl_param {
    pk_cl_family family;
    const char *name;                  /* "wg", "cpi4": unique within the family */
    size_t offset;
    int lo, hi;                        /* accepted values */
    int choices[PK_CL_PARAM_CHOICES];  /* what the tuner tries */
    int nchoices;                      /* 0: not searched */
} pk_cl_param;

const pk_cl_family_info *pk_cl_family_get(pk_cl_family f);
/* -1 when there is no family of that name */
int pk_cl_family_find(const char *name);

/* Every parameter, families in order; *count gets how many. */
const pk_cl_param *pk_cl_param_list(int *count);

static inline int *pk_cl_param_ptr(pk_cl_params *p, const pk_cl_param *d)
{
    return (int *)((char *)p + d->offset);
}
static inline int pk_cl_param_get(const pk_cl_params *p, const pk_cl_param *d)
{
    return *(const int *)((const char *)p + d->offset);
}

/* The table entry of a device class. */
void pk_cl_params_default(pk_cl_vendor cls, pk_cl_params *out);
/* For a device that runs wgmma: the wgmma tiles (pk_cl_mma_wgmma_table)
 * over p's tensor-core entries of their shapes, and p->wgmma_units set */
void pk_cl_params_wgmma(pk_cl_params *p);
/* For a device whose TMA probe passed (after pk_cl_params_wgmma): the
 * TMA tiles (pk_cl_mma_tma_table) over p's entries of their shapes, and
 * p->tma_units set */
void pk_cl_params_tma(pk_cl_params *p);
/* 0 where a tensor-core tile of p names wgmma (or TMA) and p's device does not run
 * it (a tuning line or a setting made for another driver or setting of
 * PORTKERN_OPENCL_WGMMA); else 1 */
int pk_cl_params_wgmma_fits(const pk_cl_params *p);

/* Sets "family.name=value" assignments (separated by commas or spaces) in
 * *p. Either all are set, or none: returns 0, or -1 with the reason in
 * why (an unknown name, a value outside its range, a family whose values
 * together break a rule of pk_cl_params_check). */
int pk_cl_params_set(pk_cl_params *p, const char *spec, char *why, size_t n);

/* Writes family f's parameters as "family.name=value,..."; returns the
 * length snprintf would give. */
int pk_cl_params_format(const pk_cl_params *p, pk_cl_family f, char *buf, size_t n);

/* Whether family f's values in *p obey the rules its kernels rely on
 * (divisibility, powers of two, bounds a device does not set). 0, or -1
 * with the reason in why. Among them: a register bound that a work-group
 * cannot hold on NVIDIA (pk_cl_params_check_regs with
 * PK_CL_NV_REGS_PER_BLOCK). What a given device can run (local memory,
 * work-group limits) the plans check and fall back from. */
int pk_cl_params_check(const pk_cl_params *p, pk_cl_family f, char *why, size_t n);

/* The register bound of family f (regs: NVIDIA's -cl-nv-maxrregcount) and
 * the most work-items a work-group of its kernel takes with p's values
 * (gemm tiles: (tn / wn) x (tm / wm); tensor-core tiles: 32 warps_m warps_n,
 * times kwarp; attn_decode: wg); 0 for a family without a bound. */
int pk_cl_family_regs(const pk_cl_params *p, pk_cl_family f, size_t *items);
/* Whether family f's work-groups, each work-item allowed its register
 * bound, fit a register file of regs_per_block (opencl_launch.h's
 * pk_cl_regs_fit): a bound over it would have NVIDIA's OpenCL refuse the
 * launch (CL_OUT_OF_RESOURCES). 0, or -1 with the reason in why.
 * pk_cl_params_check applies it with PK_CL_NV_REGS_PER_BLOCK; a device
 * that reports a smaller file (CL_DEVICE_REGISTERS_PER_BLOCK_NV) also with
 * its own where values are set (opencl_tuned.c). */
int pk_cl_params_check_regs(const pk_cl_params *p, pk_cl_family f, uint64_t regs_per_block, char *why, size_t n);

#endif
