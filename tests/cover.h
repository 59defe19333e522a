/* Conformance coverage of the plans: which kernel variants the suite's
 * cases reach on each device a plan knows.
 *
 * cover_collect runs every case of the conformance list through the real
 * API (api/pk_gemm.c and the rest: checks, transposes folded into strides,
 * lengths resolved) on a recording backend that allocates nothing and only
 * keeps the problem each op hands it. A test then plans every recorded
 * problem for a device description, names the variant each plan picked,
 * and compares that set with every variant the plan can pick there
 * (the plans' own *_kernels / *_variants lists): a variant no case
 * reaches fails the test, named, and so does a variant a case reaches that
 * the list lacks. Cases of the GPU size class count only on GPUs, as the
 * suite runs them (cf_case_runs_on). */
#ifndef PK_COVER_H
#define PK_COVER_H

#include "backend.h"
#include "conform.h"

/* One op call a case made. */
typedef struct cover_call {
    const cf_case *c;
    int op; /* cf_op */
    union {
        pk_gemm_problem gemm;
        pk_attention_problem attn;
        pk_rows_problem rows;
        pk_rope_problem rope;
        pk_chain_problem chain;
        pk_index_problem index;
    } p;
} cover_call;

typedef struct cover_calls {
    cf_case_list cases;
    cover_call *v;
    int n, cap;
} cover_calls;

/* Every case of the suite (cf_cases_*), run on the recording backend.
 * Returns 0 on success; prints why and returns -1 otherwise (a case the
 * API refused: the suite would fail it too). */
int cover_collect(cover_calls *out);
void cover_calls_free(cover_calls *calls);

/* The rows op of a CF_OP_* value: "rmsnorm", ..., and whether it runs a
 * row per block (pk_gpu_rows_plan's per_row); NULL for other ops. */
const char *cover_rows_op(int op, int *per_row);

/* A set of variant names, each with the first case that reached it. */
typedef struct cover_set {
    struct cover_item {
        char name[96];
        const char *example; /* a case name; NULL in a list of what a plan can pick */
        int count;
    } *v;
    int n, cap;
} cover_set;

void cover_set_add(cover_set *s, const char *name, const char *example);
/* A kernel's variant: its name, with "+split" when it writes split-KV
 * partials for a merge. */
void cover_set_add_split(cover_set *s, const char *kernel, int split, const char *example);
/* For the plans' name callbacks: ctx is a cover_set. */
void cover_set_add_fn(void *ctx, const char *name);
void cover_set_add_split_fn(void *ctx, const char *kernel, int split);
void cover_set_free(cover_set *s);

/* Compares what cases reached on a device with what the plan can pick
 * there; prints one line (every variant and a case reaching it with -v)
 * and each gap. Returns the number of gaps. */
int cover_check(const char *family, const char *device, const cover_set *can, const cover_set *reached, int verbose);

/* The value c's knob gives var ("PORTKERN_CUDA_ATTN"), or NULL: the
 * suite runs the case with that variable set. */
const char *cover_knob(const cf_case *c, const char *var);

/* -v among the arguments */
int cover_verbose(int argc, char **argv);

#endif
