/* The OpenCL row-op plan: how rows.cl is built and launched for a problem
 * on a device (vector width, work-items per row, rows per work-group,
 * registers per work-item), from a per-device-class table. Plain C without
 * OpenCL headers, so that it is unit-tested on any machine. */
#ifndef PK_OPENCL_ROWS_PLAN_H
#define PK_OPENCL_ROWS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "opencl_params.h"

/* What rows.cl is built with (VEC, NCH, PF, RED, FAN, EWU) and how it is launched. */
typedef struct pk_cl_rows_plan {
    pk_cl_vendor cls;
    int per_row;    /* rmsnorm, layernorm, softmax; else elementwise (glu, bias_act) */
    int vec;        /* elements per access; 1: the strided path (any strides) */
    int chunks;     /* per-row: vectors a work-item holds across the reductions; 0: streamed */
    int tpr;        /* per-row: work-items per row (a power of two) */
    int rpg;        /* per-row: rows per work-group */
    int prefetch;   /* per-row, chunks > 0: the next row's loads in flight during this one's reductions */
    int fan;        /* per-row: partials a work-item adds per reduction level */
    int per_item;   /* elementwise: vectors per work-item per block */
    int batch;      /* elementwise: vectors loaded before any is stored */
    size_t local;   /* work-group size */
    size_t groups;  /* work-groups launched */
} pk_cl_rows_plan;

const pk_cl_rows_params *pk_cl_rows_table(pk_cl_vendor cls);

/* Folds leading dims of p whose strides let the rows be counted with one
 * stride in every row operand, so that lead[2] == rows where the layout
 * allows (the kernels then find a row without dividing). */
void pk_cl_rows_collapse(pk_rows_problem *p);

/* Elements per access that every operand of p allows under t (the per-row
 * or the elementwise vec_bytes): that vector if each row operand has column
 * stride 1 and its offset and leading strides are multiples of it, else 1. */
int pk_cl_rows_vec(const pk_cl_rows_params *t, int per_row, const pk_rows_problem *p);

/* The plan for p from prm under at most max_work_group work-items a group. */
void pk_cl_rows_plan_pick(const pk_cl_params *prm, const pk_device_info *info, size_t max_work_group, const pk_rows_problem *p,
                          int per_row, pk_cl_rows_plan *out);

/* The variant a plan builds, e.g. "rmsnorm_vec8_c4_red_pf", "glu_vec8_u4" or "glu_str". */
void pk_cl_rows_plan_variant(const pk_cl_rows_plan *plan, const char *op, char *name, size_t n);

/* Every variant pk_cl_rows_plan_pick can give on the device for op: each
 * name at least once to fn. For the conformance coverage test
 * (tests/test_cover_rows.c). */
void pk_cl_rows_plan_variants(const pk_cl_params *prm, const pk_device_info *info, size_t max_work_group, const char *op, int per_row,
                              void (*fn)(void *ctx, const char *name), void *ctx);

#endif
