/* The fused chain on CUDA: one precompiled interpreter kernel
 * (kernels_cuda/ew_chain.cuh, which says why), fed the program by value.
 * The host maps the program's values onto as few register slots as their
 * lifetimes allow and picks the smallest kernel that holds them; the more
 * slots, the fewer elements per thread. */
#include <stdio.h>
#include <string.h>

#include "cuda_ew.h"
#include "pk_chain_dims.h"

#define CHAIN_BLOCK 256
#define GRID_X_MAX 2147483647u
#define GRID_Y_MAX 65535u

/* slots and elements per thread of each kernel, smallest first */
static const struct {
    int slots, elems;
} chain_kernels[] = {{8, 4}, {16, 2}, {40, 1}};

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
    pk_ew_view w = pk_cu_ew_view(v);
    memcpy(w.stride, stride, sizeof w.stride);
    return w;
}

pk_status pk_cu_chain(void *dev, const pk_chain_problem *p, pk_msg *msg)
{
    pk_cu_device *d = dev;
    pk_ew_chain_args a;
    memset(&a, 0, sizeof a);
    int n_slots = chain_allocate(p, &a), k = 0;
    while (chain_kernels[k].slots < n_slots) k++;
    const int elems = chain_kernels[k].elems;

    pk_chain_dims c = pk_chain_collapse(p);
    a.n1 = c.shape[1];
    a.n2 = c.shape[2];
    a.n3 = c.shape[3];
    a.outer = c.shape[0] * c.shape[1] * c.shape[2];
    a.out = chain_view(&p->out, c.stride[0]);
    a.out_dtype = (int32_t)p->out.dtype;
    for (int i = 0; i < p->n_inputs; i++) {
        a.in[i] = chain_view(&p->in[i], c.stride[1 + i]);
        a.dtype[i] = (int32_t)p->in[i].dtype;
    }
    /* vector access per view: the thread's elements whole, in one or two
     * aligned loads of up to 16 bytes */
    if (elems > 1 && a.n3 % elems == 0) {
        for (int v = 0; v <= p->n_inputs; v++) {
            const pk_ew_view *w = v < p->n_inputs ? &a.in[v] : &a.out;
            int64_t size = pk_cu_ew_dtype_size(v < p->n_inputs ? p->in[v].dtype : p->out.dtype);
            int bytes = (int)(elems * size < 16 ? elems * size : 16);
            if (pk_cu_ew_vec_ok(w, size, c.shape, bytes))
                a.vec |= 1 << (v < p->n_inputs ? v : PK_EW_CHAIN_INPUTS);
        }
    }

    uint64_t groups = ((uint64_t)a.n3 + (uint64_t)elems - 1) / (uint64_t)elems;
    unsigned block[3] = {pk_cu_ew_block_x((int64_t)groups, CHAIN_BLOCK), 1, 1};
    block[1] = CHAIN_BLOCK / block[0];
    uint64_t gx = (groups + block[0] - 1) / block[0], gy = ((uint64_t)a.outer + block[1] - 1) / block[1];
    if (gx > GRID_X_MAX) return pk_msgf(msg, PK_ERR_UNSUPPORTED, "CUDA chain: %lld elements in a row", (long long)a.n3);
    unsigned grid[3] = {(unsigned)gx, (unsigned)(gy < GRID_Y_MAX ? gy : GRID_Y_MAX), 1};
    char name[32];
    snprintf(name, sizeof name, "pk_ew_chain_s%d", chain_kernels[k].slots);
    CUfunction f;
    pk_status s = pk_cu_function(d, name, &f, msg);
    if (s != PK_SUCCESS) return s;
    void *args[] = {&a};
    return pk_cu_launch(d, f, grid, block, 0, args, msg);
}
