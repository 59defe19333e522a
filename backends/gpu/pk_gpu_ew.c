/* The launch plans of the elementwise kernels; kernels_gpu/ew_*.h say
 * what each kernel does with them. */
#include <stdlib.h>
#include <string.h>

#include "pk_chain_dims.h"
#include "pk_gpu_args.h"
#include "pk_fault.h"
#include "pk_gpu_ew.h"
#include "pk_rope_freq.h"

#define ROWS_MAX_TPR 512    /* the row kernels' __launch_bounds__ */
#define ROWS_MIN_BLOCK 128  /* short rows share a block, several rows to one */
#define ROWS_STR_CHUNKS 4   /* register chunks the strided kernels have */
#define EW_BLOCK 256
#define EW_ROWS_PER_THREAD 4 /* EW_U in the kernels: rows a thread loads at once */
#define ROPE_TARGET_ITEMS 65536 /* fewer (token, pair) items: a token's heads are shared out */
#define ROPE_BLOCK 256
#define ROPE_MAX_BLOCKS (1u << 20) /* a grid-stride loop covers the rest */
#define CHAIN_BLOCK 256
#define INDEX_BLOCK 256          /* the index kernels' __launch_bounds__ */
#define INDEX_MAX_BLOCKS (1u << 20) /* a block an entry; they walk the rest */
#define GRID_X_MAX 2147483647u
#define GRID_Y_MAX 65535u

const char *const pk_gpu_ew_kernel_names[] = {PK_EW_KERNELS(PK_GPU_KERNEL_NAME)};

/* The list's kernels by op, dtype, path (vec) and register chunks (0, 1,
 * 2, 4, 8 as 0 to 4; 0 for the elementwise ops); the chain's by slots,
 * fewest first */
#define C_INDEX(c) ((c) == 8 ? 4 : (c) == 4 ? 3 : (c))
#define ID(kind, module, name, ...) ID_##kind(PK_GPU_##name, __VA_ARGS__)
#define ID_ROW(id, OP, DT, V, C) .rows[PK_ROWS_##OP][DT][(V) > 1][C_INDEX(C)] = id,
#define ID_RMS ID_ROW
#define ID_EW(id, OP, DT, V) .rows[PK_ROWS_##OP][DT][(V) > 1][0] = id,
#define ID_ROPE(id, DT) .rope[DT] = id,
#define ID_CHAIN(id, S, E) .chain[((S) > 8) + ((S) > 16)] = {S, E, id},
#define ID_INDEX(id, SCATTER, ES) .index[SCATTER][(ES) == 4] = id,
static const struct {
    unsigned char rows[PK_ROWS_OP_COUNT][3][2][5], rope[3], index[2][2];
    struct {
        int slots, elems; /* slots and elements per thread */
        pk_gpu_ew_kernel kernel;
    } chain[3];
} ids = {PK_EW_KERNELS(ID)};

int64_t pk_gpu_ew_dtype_size(pk_dtype t) { return t == PK_F32 || t == PK_I32 ? 4 : 2; }

pk_ew_view pk_gpu_ew_view(const pk_view *v)
{
    pk_ew_view w = {0, {0, 0, 0, 0}};
    if (!v->mem) return w;
    w.ptr = pk_gpu_addr(v->mem) + (uint64_t)v->offset * (uint64_t)pk_gpu_ew_dtype_size(v->dtype);
    for (int i = 0; i < PK_MAX_DIMS; i++) w.stride[i] = v->stride[i];
    return w;
}

int pk_gpu_ew_vec_ok(const pk_ew_view *w, int64_t elem_size, const int64_t lead[3], int bytes)
{
    if (!w->ptr) return 1;
    if (w->stride[3] != 1 || w->ptr % (uint64_t)bytes) return 0;
    for (int i = 0; i < 3; i++)
        if (lead[i] > 1 && w->stride[i] * elem_size % bytes) return 0;
    return 1;
}

/* Threads per block along x for `n` items of a 2-D block of `total`
 * threads (the rest of the block walks rows). */
static unsigned block_x(int64_t n, unsigned total)
{
    unsigned x = 1;
    while (x < total && (int64_t)x < n) x *= 2;
    return x;
}

static unsigned min_u64(uint64_t a, uint64_t b) { return (unsigned)(a < b ? a : b); }

/* Values per 16-byte access if every operand allows it, else 1. */
static int rows_vec(const pk_rows_problem *p, const pk_ew_rows_args *a)
{
    int64_t size = pk_gpu_ew_dtype_size(p->x.dtype), v = 16 / size;
    static const int64_t no_lead[3] = {1, 1, 1};
    if (p->cols % v) return 1;
    const pk_ew_view *row_views[] = {&a->x, &a->res, &a->res_out, &a->out, &a->up};
    for (size_t i = 0; i < sizeof row_views / sizeof row_views[0]; i++)
        if (!pk_gpu_ew_vec_ok(row_views[i], size, p->lead, 16)) return 1;
    if (!pk_gpu_ew_vec_ok(&a->weight, size, no_lead, 16) || !pk_gpu_ew_vec_ok(&a->bias, size, no_lead, 16)) return 1;
    return (int)v;
}

pk_status pk_gpu_rows_plan(const pk_rows_problem *p, const char *who, pk_ew_rows_args *a, pk_gpu_launch *l,
                           int *pipelined, pk_msg *msg)
{
    int64_t rows = p->lead[0] * p->lead[1] * p->lead[2];
    *a = (pk_ew_rows_args){
        .rows = rows, .lead1 = p->lead[1], .lead2 = p->lead[2], .cols = p->cols,
        .eps = p->eps, .scale = p->scale, .act = (int32_t)p->act,
        .x = pk_gpu_ew_view(&p->x), .res = pk_gpu_ew_view(&p->residual),
        .res_out = pk_gpu_ew_view(&p->residual_out), .weight = pk_gpu_ew_view(&p->weight),
        .bias = pk_gpu_ew_view(&p->bias), .out = pk_gpu_ew_view(&p->out), .up = pk_gpu_ew_view(&p->up),
    };
    int v = rows_vec(p, a);
    int64_t nchunk = p->cols / v;
    *l = (pk_gpu_launch){.grid = {1, 1, 1}, .block = {1, 1, 1}};
    *pipelined = 0;
    if (pk_rows_op_reduces(p->op)) {
        /* as many chunks per thread as registers allow (more loads in
         * flight), then the fewest threads that cover the row */
        int64_t cmax = v > 1 ? 32 / v : ROWS_STR_CHUNKS, want = (nchunk + cmax - 1) / cmax, tpr = 1, c = 1;
        while (tpr < want && tpr < ROWS_MAX_TPR) tpr *= 2;
        while (c < cmax && tpr * c < nchunk) c *= 2;
        if (tpr * c < nchunk) c = 0; /* too long for registers: stream */
        unsigned rpb = tpr < ROWS_MIN_BLOCK ? (unsigned)(ROWS_MIN_BLOCK / tpr) : 1;
        l->block[0] = (unsigned)tpr;
        l->block[1] = rpb;
        l->grid[0] = min_u64((uint64_t)(rows + rpb - 1) / rpb, GRID_X_MAX);
        l->kernel = ids.rows[p->op][p->x.dtype][v > 1][C_INDEX(c)];
        /* c8 (f32 only) stays on the general row kernel */
        *pipelined = v > 1 && c > 0 && c <= 4 && p->op == PK_ROWS_RMSNORM;
    } else {
        l->block[0] = block_x(nchunk, EW_BLOCK);
        l->block[1] = EW_BLOCK / l->block[0];
        uint64_t gx = ((uint64_t)nchunk + l->block[0] - 1) / l->block[0];
        if (gx > GRID_X_MAX)
            return pk_msgf(msg, PK_ERR_UNSUPPORTED, "%s %s: rows of %lld columns", who, pk_rows_op_name(p->op),
                           (long long)p->cols);
        l->grid[0] = (unsigned)gx;
        uint64_t rows_per_block = (uint64_t)l->block[1] * EW_ROWS_PER_THREAD;
        l->grid[1] = min_u64(((uint64_t)rows + rows_per_block - 1) / rows_per_block, GRID_Y_MAX);
        l->kernel = ids.rows[p->op][p->x.dtype][v > 1][0];
    }
    return PK_SUCCESS;
}

void pk_gpu_rows_one_wave(pk_gpu_launch *l, int per_sm, int sm_count)
{
    if (per_sm > 0 && sm_count > 0 && (uint64_t)per_sm * (uint64_t)sm_count < l->grid[0])
        l->grid[0] = (unsigned)per_sm * (unsigned)sm_count;
}

int pk_gpu_rope_plan(const pk_rope_problem *p, pk_ew_rope_args *a, pk_gpu_launch *l)
{
    int64_t tokens = p->batch * p->seq, half = p->rotary_dim / 2, heads = p->hq + (p->k.mem ? p->hk : 0);
    if (tokens == 0 || half == 0 || heads == 0) return 0;
    *a = (pk_ew_rope_args){
        .tokens = tokens, .seq = p->seq, .hq = p->hq, .hk = p->k.mem ? p->hk : 0, .half = half,
        .interleaved = p->interleaved, .q = pk_gpu_ew_view(&p->q), .k = pk_gpu_ew_view(&p->k),
        .freq_stride = p->inv_freq.mem ? p->inv_freq.stride[PK_MAX_DIMS - 1] : 1,
    };
    int64_t pairs = tokens * half, share = (ROPE_TARGET_ITEMS + pairs - 1) / pairs;
    a->share = share < heads ? share : heads;
    uint64_t blocks = ((uint64_t)(pairs * a->share) + ROPE_BLOCK - 1) / ROPE_BLOCK;
    *l = (pk_gpu_launch){.grid = {min_u64(blocks, ROPE_MAX_BLOCKS), 1, 1}, .block = {ROPE_BLOCK, 1, 1}};
    l->kernel = ids.rope[p->q.dtype];
    return 1;
}

/* p's block into t->next: *bytes long, inverse frequencies from byte
 * *freq_off (none when the caller's table gives them: it is already on
 * the device); *upload says it differs from the held block. 0: out of
 * host memory; -1: a failure injected by a test (pk_fault). */
static int rope_tables_build(pk_gpu_rope_tables *t, const pk_rope_problem *p, const void *dev, size_t *bytes,
                             size_t *freq_off, int *upload)
{
    /* positions given on the device are read where they are: not in the block */
    const size_t tokens = p->positions_dev.mem ? 0 : (size_t)(p->batch * p->seq);
    const size_t n_freq = p->inv_freq.mem ? 0 : (size_t)(p->rotary_dim / 2);
    const size_t pos_bytes = (tokens * sizeof(int32_t) + 15) & ~(size_t)15, n = pos_bytes + n_freq * sizeof(float);
    if (n > t->next_cap) {
        if (pk_fault_alloc(dev)) return -1;
        unsigned char *grown = realloc(t->next, n);
        if (!grown) return 0;
        t->next = grown;
        t->next_cap = n;
    }
    if (pos_bytes) memset(t->next, 0, pos_bytes); /* the padding too: blocks compare whole */
    if (tokens) memcpy(t->next, p->positions, tokens * sizeof(int32_t));
    if (n_freq) pk_rope_inv_freq(p->theta, p->rotary_dim, (float *)(t->next + pos_bytes));
    *bytes = n;
    *freq_off = pos_bytes;
    *upload = !(t->held_bytes == n && (n == 0 || !memcmp(t->held, t->next, n)));
    return 1;
}

/* the device now holds t->next */
static void rope_tables_commit(pk_gpu_rope_tables *t, size_t bytes)
{
    unsigned char *p = t->held;
    size_t cap = t->held_cap;
    t->held = t->next;
    t->held_cap = t->next_cap;
    t->held_bytes = bytes;
    t->next = p;
    t->next_cap = cap;
}

pk_status pk_gpu_rope_tables_place(pk_gpu_rope_tables *t, const pk_rope_problem *p, void *dev,
                                   const pk_gpu_table_ops *ops, pk_ew_rope_args *a, pk_msg *msg)
{
    size_t bytes, freq_off;
    int upload, fresh = 0;
    uint64_t addr = 0;
    int built = rope_tables_build(t, p, dev, &bytes, &freq_off, &upload);
    if (built <= 0) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory%s", built ? " (injected)" : "");
    if (bytes == 0) { /* device positions and the caller's frequencies: no block */
        a->tab_pos = pk_gpu_ew_view(&p->positions_dev).ptr;
        a->tab_freq = pk_gpu_ew_view(&p->inv_freq).ptr;
        return PK_SUCCESS;
    }
    pk_status s = ops->reserve(dev, bytes, &addr, &fresh, msg);
    if (fresh) t->held_bytes = 0;
    if (s != PK_SUCCESS) return s;
    if (fresh || upload) {
        s = ops->upload(dev, addr, t->next, bytes, msg);
        if (s == PK_SUCCESS) rope_tables_commit(t, bytes);
        else t->held_bytes = 0; /* a failed copy may have written part */
    }
    a->tab_pos = p->positions_dev.mem ? pk_gpu_ew_view(&p->positions_dev).ptr : addr;
    a->tab_freq = p->inv_freq.mem ? pk_gpu_ew_view(&p->inv_freq).ptr : addr + freq_off;
    return s;
}

void pk_gpu_rope_tables_free(pk_gpu_rope_tables *t)
{
    free(t->held);
    free(t->next);
    *t = (pk_gpu_rope_tables){0};
}

static int is_binary(pk_chain_op op) { return op <= PK_CHAIN_MIN; }

/* Fills a->steps, used and result; returns the slots needed. Inputs keep
 * slots 0..n_inputs-1; a step reads its operands before its result takes
 * the lowest free slot (possibly an operand's, freed at its last use). */
static int chain_allocate(const pk_chain_problem *p, pk_ew_chain_args *a)
{
    enum { NV = PK_CHAIN_MAX_INPUTS + PK_CHAIN_MAX_STEPS };
    int n_in = p->n_inputs, nv = n_in + p->n_steps, last[NV], slot[NV] = {0}, busy[NV] = {0}, n_slots = 0;
    for (int v = 0; v < nv; v++) last[v] = -1;
    for (int s = 0; s < p->n_steps; s++) {
        last[p->steps[s].a] = s;
        if (is_binary(p->steps[s].op)) last[p->steps[s].b] = s;
    }
    for (int i = 0; i < n_in; i++) {
        slot[i] = i;
        if (last[i] >= 0) {
            busy[i] = 1;
            a->used |= 1 << i;
            n_slots = i + 1;
        }
    }
    for (int s = 0; s < p->n_steps; s++) {
        const pk_chain_step *st = &p->steps[s];
        int binary = is_binary(st->op), dst = 0;
        if (last[st->a] == s) busy[slot[st->a]] = 0;
        if (binary && last[st->b] == s) busy[slot[st->b]] = 0;
        while (busy[dst]) dst++;
        slot[n_in + s] = dst;
        busy[dst] = last[n_in + s] >= 0; /* a value nobody reads frees its slot at once */
        if (dst + 1 > n_slots) n_slots = dst + 1;
        a->steps[s] = (pk_ew_chain_step){(uint8_t)st->op, (uint8_t)slot[st->a],
                                         (uint8_t)(binary ? slot[st->b] : 0), (uint8_t)dst, st->imm};
    }
    a->n_steps = p->n_steps;
    a->result = slot[nv - 1];
    return n_slots;
}

/* The kernel view of v with the collapsed strides. */
static pk_ew_view chain_view(const pk_view *v, const int64_t *stride)
{
    pk_ew_view w = pk_gpu_ew_view(v);
    memcpy(w.stride, stride, sizeof w.stride);
    return w;
}

pk_status pk_gpu_chain_plan(const pk_chain_problem *p, const char *who, pk_ew_chain_args *a, pk_gpu_launch *l,
                            pk_msg *msg)
{
    memset(a, 0, sizeof *a);
    int n_slots = chain_allocate(p, a), k = 0;
    while (ids.chain[k].slots < n_slots) k++;
    const int elems = ids.chain[k].elems;

    pk_chain_dims c = pk_chain_collapse(p);
    a->n1 = c.shape[1];
    a->n2 = c.shape[2];
    a->n3 = c.shape[3];
    a->outer = c.shape[0] * c.shape[1] * c.shape[2];
    a->out = chain_view(&p->out, c.stride[0]);
    a->out_dtype = (int32_t)p->out.dtype;
    for (int i = 0; i < p->n_inputs; i++) {
        a->in[i] = chain_view(&p->in[i], c.stride[1 + i]);
        a->dtype[i] = (int32_t)p->in[i].dtype;
    }
    /* vector access per view: the thread's elements whole, in one or two
     * aligned loads of up to 16 bytes */
    if (elems > 1 && a->n3 % elems == 0) {
        for (int v = 0; v <= p->n_inputs; v++) {
            const pk_ew_view *w = v < p->n_inputs ? &a->in[v] : &a->out;
            int64_t size = pk_gpu_ew_dtype_size(v < p->n_inputs ? p->in[v].dtype : p->out.dtype);
            int bytes = (int)(elems * size < 16 ? elems * size : 16);
            if (pk_gpu_ew_vec_ok(w, size, c.shape, bytes))
                a->vec |= 1 << (v < p->n_inputs ? v : PK_EW_CHAIN_INPUTS);
        }
    }

    uint64_t groups = ((uint64_t)a->n3 + (uint64_t)elems - 1) / (uint64_t)elems;
    unsigned bx = block_x((int64_t)groups, CHAIN_BLOCK);
    uint64_t gx = (groups + bx - 1) / bx, gy = ((uint64_t)a->outer + CHAIN_BLOCK / bx - 1) / (CHAIN_BLOCK / bx);
    if (gx > GRID_X_MAX)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, "%s chain: %lld elements in a row", who, (long long)a->n3);
    *l = (pk_gpu_launch){.grid = {(unsigned)gx, min_u64(gy, GRID_Y_MAX), 1}, .block = {bx, CHAIN_BLOCK / bx, 1}};
    l->kernel = ids.chain[k].kernel;
    return PK_SUCCESS;
}

void pk_gpu_index_plan(const pk_index_problem *p, pk_ew_index_args *a, pk_gpu_launch *l)
{
    *a = (pk_ew_index_args){
        .n = p->n, .rows = p->rows, .cols = p->cols, .src = pk_gpu_ew_view(&p->src), .out = pk_gpu_ew_view(&p->out),
        .index = pk_gpu_ew_view(&p->index).ptr,
    };
    /* a short row needs no more threads than its columns, in whole warps */
    unsigned threads = p->cols < INDEX_BLOCK ? (unsigned)((p->cols + 31) / 32 * 32) : INDEX_BLOCK;
    *l = (pk_gpu_launch){.grid = {(unsigned)min_u64((uint64_t)p->n, INDEX_MAX_BLOCKS), 1, 1}, .block = {threads, 1, 1}};
    l->kernel = ids.index[p->scatter != 0][p->src.dtype == PK_F32];
}
