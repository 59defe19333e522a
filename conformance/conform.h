/* portkern conformance suite: shared declarations.
 *
 * The suite runs every op over a list of cases on each target device and
 * compares with the reference backend (float64 accumulation, the oracle)
 * and with the same-precision reference (pk_internal_open_ref_f32), using
 * the numerics rule (README "Numerics"; conform_compare.c). It uses only the public API and
 * pk_internal.h.
 *
 * Files, one job each:
 *   conform_main.c     options, backends/devices, the loop, the summary
 *   conform_tensor.c   tensor specs, host images (poison + data), device I/O
 *   conform_compare.c  the numerics rule and the memory checks
 *   conform_report.c   one line per case, JSON report, counters
 *   conform_run.c      runs one numerical case on target + both refs
 *   cases_*.c          the case lists and how each op is called
 */
#ifndef PK_CONFORM_H
#define PK_CONFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "portkern.h"
#include "pk_internal.h"

/* Entry point called by `portkern conform [options]`; argv[0] is "conform". */
int pk_conform_main(int argc, char **argv);

/* ---------------------------------------------------------------- ops */

typedef enum cf_op {
    CF_OP_GEMM = 0,
    CF_OP_ATTENTION,
    CF_OP_RMSNORM,
    CF_OP_LAYERNORM,
    CF_OP_GLU,
    CF_OP_BIAS_ACT,
    CF_OP_SOFTMAX,
    CF_OP_ROPE,
    CF_OP_CHAIN,
    CF_OP_INDEX_ROWS,
    CF_OP_BAD_INPUT,
    CF_OP_COUNT
} cf_op;

const char *cf_op_name(int op);
int cf_op_from_name(const char *name); /* -1 if unknown */

/* ---------------------------------------------------------------- random */

typedef struct cf_rng {
    uint64_t s;
} cf_rng;

void cf_rng_seed(cf_rng *r, const char *name, uint64_t seed);
uint64_t cf_rng_next(cf_rng *r);
double cf_rng_uniform(cf_rng *r); /* [0, 1) */
double cf_rng_normal(cf_rng *r);  /* N(0, 1) */

/* ---------------------------------------------------------------- tensors */

/* A tensor inside its own buffer: elements before it (offset), its strided
 * extent, and spare elements after it (tail). The buffer holds exactly
 * offset + extent + tail elements (rounded up to 4 bytes), all poisoned
 * except the logical elements of an input. */
typedef struct cf_spec {
    pk_dtype dtype;
    int ndim;
    int64_t shape[PK_MAX_DIMS];
    int64_t stride[PK_MAX_DIMS];
    int64_t offset; /* elements */
    int64_t tail;   /* elements */
} cf_spec;

/* Row-major spec; offset 0, tail 3. */
cf_spec cf_contig(pk_dtype dt, int ndim, const int64_t *shape);
/* Same, shape given inline: cf_shape(dt, 3, B, M, N). */
cf_spec cf_shape(pk_dtype dt, int ndim, ...);
/* Recomputes strides row-major with `pad` extra elements after every row
 * of the last dim (a padded leading dimension), and `pad` more between the
 * blocks of every outer dim. */
void cf_spec_pad(cf_spec *s, int64_t pad);
/* Recomputes strides for a storage order: order[0] is the outermost logical
 * dim in memory, order[ndim-1] the innermost (stride 1). E.g. [B,S,H,D]
 * stored as [B,H,S,D]: order {0, 2, 1, 3}; a transposed 2-D view: {1, 0}. */
void cf_spec_order(cf_spec *s, const int *order);
int64_t cf_spec_numel(const cf_spec *s);
/* 1 + sum (shape-1)*stride, 0 if empty. */
int64_t cf_spec_extent(const cf_spec *s);
/* Buffer size in elements / bytes. */
int64_t cf_spec_buf_elems(const cf_spec *s);
size_t cf_spec_buf_bytes(const cf_spec *s);
/* Element position (in the buffer) of logical flat (row-major) index i. */
int64_t cf_spec_pos(const cf_spec *s, int64_t i);

/* The poison bit pattern of a dtype: a signalling NaN with a payload that
 * no arithmetic produces (arithmetic returns quiet NaNs), so a computed NaN
 * never looks like poison. */
uint32_t cf_poison_bits(pk_dtype dt);
uint32_t cf_elem_bits(const void *img, pk_dtype dt, int64_t pos);
double cf_elem_value(const void *img, pk_dtype dt, int64_t pos);
void cf_elem_store(void *img, pk_dtype dt, int64_t pos, float v);

/* ---------------------------------------------------------------- cases */

enum { CF_IN = 0, CF_OUT = 1, CF_INOUT = 2 };
enum { CF_GEN_UNIFORM = 0, CF_GEN_NORMAL = 1 };

#define CF_MAX_ARGS 12
#define CF_MAX_SPECIAL 4

/* A run of logical elements set to one value after drawing (NaN, inf). */
typedef struct cf_special {
    int64_t start, count;
    float value;
} cf_special;

typedef struct cf_arg {
    const char *name;  /* as in the API ("a", "desc->bias"), for messages */
    int used;
    int role;          /* CF_IN, CF_OUT, CF_INOUT */
    int view_of;       /* -1: own buffer; else a view (own spec) of that arg's buffer */
    cf_spec spec;
    int gen;           /* CF_GEN_UNIFORM: uniform(lo, hi); CF_GEN_NORMAL: N(0,1)*hi + lo */
    float lo, hi;
    int n_special;
    cf_special special[CF_MAX_SPECIAL];
} cf_arg;

typedef struct cf_case cf_case;

/* Calls the op on ctx; t[i] is the tensor of arg i (unused args: t[i].buf
 * NULL; pass NULL to the API for them). */
typedef pk_status (*cf_run_fn)(const cf_case *c, pk_context *ctx, const pk_tensor *t);

typedef struct cf_gemm_params {
    int trans_a, trans_b;
    float alpha, beta;
    pk_activation act;
} cf_gemm_params;

typedef struct cf_attn_params {
    float scale;
    int causal;
    int64_t window_left, window_right;
    int has_seqlens_q, has_seqlens_kv;
    int32_t seqlens_q[8], seqlens_kv[8];
} cf_attn_params;

typedef struct cf_rows_params {
    float eps;
    float scale;
    pk_activation act;
} cf_rows_params;

typedef struct cf_rope_params {
    float theta;
    int64_t rotary_dim;
    int interleaved;
    int has_positions;
    int32_t positions[512];
    int has_inv_freq; /* arg 2 is desc->inv_freq */
} cf_rope_params;

typedef struct cf_index_params {
    int scatter;
} cf_index_params;

typedef struct cf_chain_params {
    int n_inputs;
    int n_steps;
    pk_chain_step steps[PK_CHAIN_MAX_STEPS];
} cf_chain_params;

/* Size classes. CF_SIZE_GPU: large enough for the production tiles of a
 * GPU (more packed rows or output tiles than a big GPU has
 * multiprocessors, twice over), too slow for a CPU device (PoCL on a few
 * cores); such a case runs on GPU devices only and is skipped elsewhere,
 * with the reason. Its name ends in "/large". */
enum { CF_SIZE_ANY = 0, CF_SIZE_GPU = 1 };

/* A knob: "VAR=value", an environment setting a case runs under (set
 * around the case, then restored), for the kernel variants that only a
 * knob picks (PORTKERN_CUDA_ATTN, PORTKERN_CUDA_GEMM); its name ends in
 * "/knob:value".
 * Untried: the knobs (prefixes of "VAR=value") whose kernels are built
 * but have not yet run on a GPU. On CUDA their cases are skipped, with the
 * reason, unless PORTKERN_CONFORM_UNTRIED=1: a wrong kernel fails its
 * cases, but one that hangs would hold up the whole suite
 * (tools/gpu_check.sh, part untried, runs them apart under a limit).
 * Elsewhere the knob picks nothing and the cases run. A knob leaves this
 * list once its kernels have passed on a GPU. */
#define CF_UNTRIED_KNOBS NULL /* none now; NULL ends the list */
struct cf_case {
    char name[160];
    int op;           /* cf_op */
    int size;         /* CF_SIZE_ANY, CF_SIZE_GPU */
    char knob[48];    /* "" or "VAR=value" */
    pk_dtype dtype;   /* the case's main dtype (shown in reports) */
    int nargs;
    cf_arg arg[CF_MAX_ARGS];
    cf_run_fn run;
    union {
        cf_gemm_params gemm;
        cf_attn_params attn;
        cf_rows_params rows;
        cf_rope_params rope;
        cf_chain_params chain;
        cf_index_params index;
    } p;
};

/* A growing list of cases. */
typedef struct cf_case_list {
    cf_case *v;
    int n, cap;
} cf_case_list;

/* Appends a zeroed case (every arg view_of = -1) named by the format. */
cf_case *cf_case_add(cf_case_list *l, int op, pk_dtype dt, cf_run_fn run, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Sets arg i of a case. */
cf_arg *cf_case_arg(cf_case *c, int i, const char *name, int role, cf_spec spec);
void cf_arg_gen(cf_arg *a, int gen, float lo, float hi);
void cf_arg_special(cf_arg *a, int64_t start, int64_t count, float value);

/* Whether case c runs on a device (is_cpu: pk_device_info.is_cpu). */
int cf_case_runs_on(const cf_case *c, int is_cpu);

void cf_cases_gemm(cf_case_list *l);
void cf_cases_attention(cf_case_list *l);
void cf_cases_rows(cf_case_list *l);
void cf_cases_chain(cf_case_list *l);
void cf_cases_index(cf_case_list *l);

const char *cf_dtype_tag(pk_dtype dt); /* "f32", "f16", "bf16", "i32" */
const char *cf_act_tag(pk_activation a); /* "relu", ..., "none" */
/* Tensor pointer for arg i, NULL if unused. */
static inline const pk_tensor *cf_t(const pk_tensor *t, int i) { return t[i].buf ? &t[i] : NULL; }

/* ---------------------------------------------------------------- targets, results */

typedef struct cf_target {
    pk_context *ctx;
    pk_backend backend;
    int index;
    char label[32];   /* "opencl:0" */
    char devname[256];
    int is_ref;       /* the target is ref, the oracle: only bad-input cases run on it */
} cf_target;

typedef struct cf_env {
    pk_context *ref64; /* the oracle */
    pk_context *ref32; /* same precision */
    uint64_t seed;
    int verbose;
} cf_env;

enum { CF_PASS = 0, CF_FAIL = 1, CF_SKIP = 2 };

/* Figures of one output compared with the oracle. */
typedef struct cf_figures {
    double err, err_sp, nmse, nmse_sp;
    double floor_err, floor_nmse;
    double thr_err, thr_nmse;
    int have;          /* figures computed */
} cf_figures;

typedef struct cf_result {
    int status;        /* CF_PASS, CF_FAIL, CF_SKIP */
    cf_figures fig;
    double ms;
    char msg[1024];
} cf_result;

void cf_msg_append(cf_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Runs one numerical case on a target (conform_run.c). */
void cf_run_case(const cf_env *env, const cf_target *tg, const cf_case *c, cf_result *res);
/* When c does not run on the target's device (its size class): fills res
 * as a skip with the reason and returns 1; else 0. */
int cf_case_skip(const cf_target *tg, const cf_case *c, cf_result *res);

/* The numerics rule (conform_compare.c). */
double cf_floor_err(pk_dtype dt);
double cf_floor_nmse(pk_dtype dt);
/* Compares output arg a: target/ref64/ref32 buffer images against the
 * initial image; fills fig and appends failures to res->msg. Returns 1 if
 * this output passes. */
int cf_compare_output(const cf_arg *a, const void *init, const void *tgt, const void *ref64,
                      const void *ref32, cf_figures *fig, cf_result *res);

/* Reports (conform_report.c). */
typedef struct cf_report {
    int passed, failed, skipped;
    FILE *json;
    int json_count;
    int verbose;
} cf_report;

int cf_report_open_json(cf_report *r, const char *path);
void cf_report_close_json(cf_report *r);
void cf_report_case(cf_report *r, const cf_target *tg, const char *case_name, int op,
                    pk_dtype dt, const cf_result *res);
/* A failure that is not a case (a device that does not open). */
void cf_report_failure(cf_report *r, const char *label, const char *what, const char *msg);

/* Bad-input cases (cases_bad_input.c). */
int cf_bad_count(void);
const char *cf_bad_name(int i, char *buf, size_t n);
/* Runs bad-input case i on ctx; other is a second context of the same backend. */
void cf_bad_run(int i, pk_context *ctx, pk_context *other, cf_result *res);

#endif
