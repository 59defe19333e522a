#include "pk_gpu_args.h"

#define PK_LOG2E 1.44269504088896340736

static size_t esize(pk_dtype t) { return t == PK_F32 ? 4 : 2; }

/* the view's element (0, 0, 0); 0 when the operand is absent */
static uint64_t origin(const pk_view *v)
{
    return v->mem ? pk_gpu_addr(v->mem) + (uint64_t)(v->offset * (int64_t)esize(v->dtype)) : 0;
}

void pk_gpu_gemm_args_fill(const pk_gemm_problem *p, pk_gpu_gemm_args *g)
{
    g->v = (pk_gemm_kargs){
        .batch = p->batch, .m = p->m, .n = p->n, .k = p->k,
        .a = origin(&p->a), .a_sb = p->a.stride[0], .a_sm = p->a.stride[1], .a_sk = p->a.stride[2],
        .b = origin(&p->b), .b_sb = p->b.stride[0], .b_sk = p->b.stride[1], .b_sn = p->b.stride[2],
        .c = origin(&p->c), .c_sb = p->c.stride[0], .c_sm = p->c.stride[1], .c_sn = p->c.stride[2],
        .d = origin(&p->d), .d_sb = p->d.stride[0], .d_sm = p->d.stride[1], .d_sn = p->d.stride[2],
        .bias = origin(&p->bias), .bias_sn = p->bias.stride[0],
        .res = origin(&p->residual), .r_sb = p->residual.stride[0], .r_sm = p->residual.stride[1],
        .r_sn = p->residual.stride[2],
        .alpha = p->alpha, .beta = p->beta, .act = (int)p->act, .d_dt = (int)p->d.dtype,
    };
    void **arg = g->args;
#define PK_GEMM_ADDR_(type, name) *arg++ = &g->v.name;
    PK_GEMM_ABI(PK_GEMM_ADDR_, PK_GEMM_ADDR_)
#undef PK_GEMM_ADDR_
}

pk_gpu_attn_scratch pk_gpu_attn_scratch_layout(const pk_attention_problem *p, int n_splits)
{
    pk_gpu_attn_scratch s;
    s.lens_bytes = p->uniform_lengths ? 0 : (size_t)p->batch * 2 * sizeof(int32_t);
    s.part_start = (s.lens_bytes + 255) / 256 * 256;
    size_t n_rows = (size_t)(p->batch * p->hq * p->sq);
    s.part_bytes = n_splits > 1 ? n_rows * (size_t)n_splits * (size_t)(p->d + 2) * sizeof(float) : 0;
    return s;
}

void pk_gpu_attn_params_fill(const pk_attention_problem *p, int chunk, int n_splits, uint64_t lens, uint64_t part,
                             pk_attn_params *a)
{
    *a = (pk_attn_params){
        .q = pk_gpu_addr(p->q.mem), .k = pk_gpu_addr(p->k.mem), .v = pk_gpu_addr(p->v.mem),
        .o = pk_gpu_addr(p->o.mem), .lse = p->lse.mem ? pk_gpu_addr(p->lse.mem) : 0, .part = part, .lens = lens,
        .wl = p->window_left < 0 ? -1 : p->window_left, .wr = p->window_right < 0 ? -1 : p->window_right,
        .batch = (int32_t)p->batch, .sq = (int32_t)p->sq, .skv = (int32_t)p->skv, .hq = (int32_t)p->hq,
        .hkv = (int32_t)p->hkv, .chunk = chunk, .n_splits = n_splits,
        .qscale = (float)(p->scale * PK_LOG2E),
    };
    const pk_view *views[5] = {&p->q, &p->k, &p->v, &p->o, &p->lse};
    int64_t *strides[5] = {a->qs, a->ks, a->vs, a->os, a->ls};
    for (int i = 0; i < 5; i++) {
        a->off[i] = views[i]->offset;
        for (int j = 0; j < 4; j++) strides[i][j] = views[i]->stride[j];
    }
}
