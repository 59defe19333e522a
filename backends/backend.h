/* The interface every backend implements: a table of function pointers
 * (like ggml's backend interface). The router (api/) checks every argument
 * before it calls a backend, and hands it normalised problems: offsets in
 * elements, operands already transposed by strides, masks and lengths
 * resolved. A backend trusts these and only decides how to run them.
 *
 * Backends other than ref are shared modules that export
 *     const pk_backend_iface *pk_backend_entry(void);
 */
#ifndef PK_BACKEND_H
#define PK_BACKEND_H

#include "portkern.h"

#define PK_BACKEND_ABI 8
#define PK_MSG_MAX 512

/* Where a backend writes the message of a failed call. */
typedef struct pk_msg {
    char text[PK_MSG_MAX];
} pk_msg;

/* What open's `queue` is when the caller asked for the runtime's default
 * stream (CUDA's legacy stream, HIP's null stream): a handle no runtime
 * gives out. */
#define PK_DEFAULT_QUEUE ((void *)~(uintptr_t)0)

/* A backend's device memory: the backend's handle plus the byte base that
 * problem offsets count from. */
typedef void *pk_mem;

/* A strided view of an operand, offset in elements. */
typedef struct pk_view {
    pk_mem mem;                 /* NULL: operand absent */
    int64_t offset;             /* elements */
    pk_dtype dtype;
    int64_t stride[PK_MAX_DIMS];
} pk_view;

/* GEMM, transposes resolved: d[z][i][j] over z < batch, i < m, j < n.
 *   a: stride {batch, m (row), k (col)}   (0 batch stride broadcasts)
 *   b: stride {batch, k (row), n (col)}
 *   c, d, residual: stride {batch, m, n}; bias: stride {n}
 * d = act(alpha * sum_k a*b + beta * c + bias) + residual.
 * c.mem is NULL when beta == 0. */
typedef struct pk_gemm_problem {
    int64_t batch, m, n, k;
    pk_view a, b, c, d, bias, residual;
    float alpha, beta;
    pk_activation act;
    int allow_tf32;
} pk_gemm_problem;

/* Attention, per batch b, query head h, query row i: strides {B, S, H, D}
 * for q, k, v, o and {B, H, S} for lse (f32). lengths are resolved to
 * per-batch arrays (never NULL); window_left/right < 0 mean unbounded and
 * causal is already folded into window_right = 0. */
typedef struct pk_attention_problem {
    int64_t batch, sq, skv, hq, hkv, d;
    pk_view q, k, v, o, lse;     /* lse.mem NULL: none */
    float scale;
    int64_t window_left, window_right;
    const int32_t *len_q;        /* [batch], host memory valid during the call */
    const int32_t *len_kv;       /* [batch] */
    int uniform_lengths;         /* every len_q == sq and len_kv == skv (never with device lengths) */
    /* Lengths on the device (i32, [batch] contiguous at offset), read when
     * the op runs, each clamped to [0, S]; mem NULL: the host array above.
     * Where one is given, that host array holds S (a bound, not a length). */
    pk_view len_q_dev, len_kv_dev;
} pk_attention_problem;

/* Row ops: rows are indexed by up to 3 leading dims (sizes lead[0..2],
 * padded with 1 at the front), columns by the last dim of size cols. Each
 * view's stride is {lead0, lead1, lead2, col}. Per-column operands (weight,
 * bias) use only stride[3]. */
/* The row ops, one table slot (pk_backend_iface.rows) told apart by op */
typedef enum pk_rows_op {
    PK_ROWS_RMSNORM,   /* add + RMSNorm */
    PK_ROWS_LAYERNORM,
    PK_ROWS_GLU,       /* x = gate */
    PK_ROWS_BIAS_ACT,
    PK_ROWS_SOFTMAX,
    PK_ROWS_OP_COUNT
} pk_rows_op;

/* Its name ("rmsnorm"), as kernels and messages spell it */
static inline const char *pk_rows_op_name(pk_rows_op op)
{
    static const char *const names[PK_ROWS_OP_COUNT] = {"rmsnorm", "layernorm", "glu", "bias_act", "softmax"};
    return (unsigned)op < PK_ROWS_OP_COUNT ? names[op] : "?";
}
/* Whether it reduces along a row (norms and softmax) or maps elements */
static inline int pk_rows_op_reduces(pk_rows_op op)
{
    return op == PK_ROWS_RMSNORM || op == PK_ROWS_LAYERNORM || op == PK_ROWS_SOFTMAX;
}

typedef struct pk_rows_problem {
    pk_rows_op op;
    int64_t lead[3];
    int64_t cols;
    pk_view x, residual, residual_out, weight, bias, out, up; /* absent: mem NULL */
    float eps;
    float scale;
    pk_activation act;
} pk_rows_problem;

/* RoPE in place: q and k strides {B, S, H, D}; k.mem NULL if absent. */
typedef struct pk_rope_problem {
    int64_t batch, seq, hq, hk, d, rotary_dim;
    pk_view q, k;
    float theta;
    int interleaved;
    const int32_t *positions;    /* [batch * seq], host memory; NULL when positions_dev is given */
    pk_view positions_dev;       /* i32 [batch * seq] contiguous on the device; mem NULL: positions */
    pk_view inv_freq;            /* f32 [rotary_dim / 2], stride[3]; mem NULL: from theta */
} pk_rope_problem;

/* Fused chain over a 4-D output (shape padded with 1 at the front); every
 * input view is already broadcast to the output shape (stride 0). */
typedef struct pk_chain_problem {
    int64_t shape[PK_MAX_DIMS];
    int n_inputs;
    pk_view in[PK_CHAIN_MAX_INPUTS];
    int n_steps;
    pk_chain_step steps[PK_CHAIN_MAX_STEPS];
    pk_view out;
} pk_chain_problem;

/* Rows by device indices (pk_gather_rows, pk_scatter_rows), bit-exact
 * moves: gather out[i] = src[index[i]] (zeros outside [0, rows)); scatter
 * out[index[i]] = src[i] (skipped outside [0, rows); of repeated indices
 * the last i wins). rows bounds the indices (src's rows for gather, out's
 * for scatter); src and out strides {row, col} in stride[2], stride[3];
 * index is i32, n contiguous elements from its offset. */
typedef struct pk_index_problem {
    int scatter;
    int64_t n, rows, cols;
    pk_view src, out, index;
} pk_index_problem;

struct pk_fault_plan; /* common/pk_fault.h */

/* What the core offers a backend, the one way a backend calls up into it
 * (the core hands it over with set_core_hooks when it loads the module). */
typedef struct pk_core_hooks {
    /* First-use tuning (api/pk_autotune.c): tunes kernel family `family`
     * (a name of the params hook's "families") of device `index` of backend
     * `kind` on contexts of its own, for at most `seconds`, and stores the
     * winner in the tuning cache. A backend calls it from inside an op, on
     * a device whose class has no table entry, before it plans the family.
     * Serialised across the process; a family of a device is tuned once a
     * process (a later call gives the first's result without tuning).
     * PK_SUCCESS: the cache holds the family now. Anything else (msg says
     * why): plan with what the device has. */
    pk_status (*autotune)(pk_backend kind, int index, const char *family, double seconds, pk_msg *msg);
} pk_core_hooks;

typedef struct pk_backend_iface {
    int abi;                     /* PK_BACKEND_ABI */
    pk_backend kind;
    /* Loads the runtime; on failure says why (no library, no platform). */
    pk_status (*init)(pk_msg *why);
    int (*device_count)(void);
    pk_status (*device_info)(int index, pk_device_info *info, pk_msg *msg);

    /* queue NULL: a queue of the context's own. Else the caller's native
     * queue (pk_open_on_queue), which the backend checks belongs to the
     * device and never destroys. */
    pk_status (*open)(int index, void *queue, void **dev, pk_msg *msg);
    void (*close)(void *dev);
    pk_status (*finish)(void *dev, pk_msg *msg);

    pk_status (*alloc)(void *dev, size_t bytes, pk_mem *mem, pk_msg *msg);
    void (*free)(void *dev, pk_mem mem);
    /* The caller's memory at native handle `handle` as a pk_mem (checked
     * against the device where the runtime can tell), and its release
     * (frees nothing of the caller's). NULL: the backend wraps nothing. */
    pk_status (*wrap)(void *dev, uintptr_t handle, size_t bytes, pk_mem *mem, pk_msg *msg);
    void (*unwrap)(void *dev, pk_mem mem);
    pk_status (*upload)(void *dev, pk_mem dst, size_t off, const void *src, size_t n, pk_msg *msg);
    pk_status (*download)(void *dev, pk_mem src, size_t off, void *dst, size_t n, pk_msg *msg);
    pk_status (*copy)(void *dev, pk_mem dst, size_t doff, pk_mem src, size_t soff, size_t n,
                      pk_msg *msg);
    pk_status (*fill)(void *dev, pk_mem dst, size_t off, size_t n, const void *pattern,
                      size_t pattern_size, pk_msg *msg);

    /* Timing for the bench: a point recorded on the queue after all work
     * queued before it; elapsed waits for `end` and gives milliseconds. */
    pk_status (*event_record)(void *dev, void **event, pk_msg *msg);
    pk_status (*event_elapsed)(void *dev, void *start, void *end, float *ms, pk_msg *msg);
    void (*event_free)(void *dev, void *event);
    /* dev's queue waits for `event`, recorded by `owner` (a device of the
     * same backend, maybe dev itself), without blocking the host; and the
     * host waits for an event of dev. */
    pk_status (*event_wait)(void *dev, void *owner, void *event, pk_msg *msg);
    pk_status (*event_sync)(void *dev, void *event, pk_msg *msg);
    /* The native queue (CUstream, cl_command_queue), or NULL (pk_context_queue;
     * the bench queues a vendor library's work there, in order with ours).
     * A pk_mem is the native memory handle itself (pk_buffer_handle). */
    void *(*native_queue)(void *dev);

    /* Ops. Return PK_ERR_UNSUPPORTED (with a message) for what is not implemented. */
    pk_status (*gemm)(void *dev, const pk_gemm_problem *p, pk_msg *msg);
    pk_status (*attention)(void *dev, const pk_attention_problem *p, pk_msg *msg);
    pk_status (*rows)(void *dev, const pk_rows_problem *p, pk_msg *msg); /* p->op says which */
    pk_status (*rope)(void *dev, const pk_rope_problem *p, pk_msg *msg);
    pk_status (*chain)(void *dev, const pk_chain_problem *p, pk_msg *msg);
    pk_status (*index_rows)(void *dev, const pk_index_problem *p, pk_msg *msg); /* NULL: unsupported */

    /* Graphs (NULL: the backend records none): from begin to end the
     * queue's work is recorded instead of run; end gives a graph that
     * launch queues again (any number of times) and free destroys. A
     * backend refuses, while recording, what a replay would get wrong
     * (host arrays, buffers it would have to grow). */
    pk_status (*graph_begin)(void *dev, pk_msg *msg);
    pk_status (*graph_end)(void *dev, void **graph, pk_msg *msg);
    pk_status (*graph_launch)(void *dev, void *graph, pk_msg *msg);
    void (*graph_free)(void *dev, void *graph);

    /* Test hook behind pk_internal_fault_inject (NULL: the backend takes
     * no injection). Points the backend's allocation sites at the
     * router's plan; with plan->device_fault set, makes dev's queue fault:
     * a real faulting kernel where the backend has one (it then clears
     * device_fault), else its next finish reports a simulated fault. */
    pk_status (*fault_inject)(void *dev, struct pk_fault_plan *plan, pk_msg *msg);

    /* Behind pk_internal_params (NULL: the backend's kernels have no
     * named parameters): one text request, its answer in reply[0..n). */
    pk_status (*params)(void *dev, const char *request, char *reply, size_t n, pk_msg *msg);

    /* Called once, when the core loads the module, before init (NULL: the
     * backend calls nothing up); hooks lives as long as the process. */
    void (*set_core_hooks)(const pk_core_hooks *hooks);
} pk_backend_iface;

typedef const pk_backend_iface *(*pk_backend_entry_fn)(void);

/* Formats into msg (printf-style); returns status so callers can
 * `return pk_msgf(msg, PK_ERR_..., "...")`. Defined in common/. */
pk_status pk_msgf(pk_msg *msg, pk_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* PK_BACKEND_H */
