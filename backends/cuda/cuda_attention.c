/* CUDA attention: one fused pass, or for decode shapes a split-KV pass
 * whose per-chunk partials pk_attn_merge combines. The plan
 * (cuda_attention_plan.c) picks the kernel: tensor cores for f16/bf16 with
 * 16-byte aligned, D-contiguous q/k/v, the CUDA-core kernel otherwise.
 *
 * Scratch: per-batch lengths (int32, len_q then len_kv, only when they are
 * not uniform), then from a 256-byte boundary the split partials (f32):
 * (m, l) per row and split, then D accumulators per row and split. */
#include <stdio.h>

#include "cuda_attention_plan.h"
#include "cuda_internal.h"

_Static_assert(sizeof(pk_cu_attn_params) == 304, "pk_cu_attn_params must match the kernels' pk_attn_params");

#define PK_LOG2E 1.44269504088896340736

static const char *dtype_tag(pk_dtype t) { return t == PK_F32 ? "f32" : t == PK_F16 ? "f16" : "bf16"; }

static void fill_params(const pk_attention_problem *p, const pk_cu_attn_plan *plan, CUdeviceptr lens,
                        CUdeviceptr part, pk_cu_attn_params *a)
{
    *a = (pk_cu_attn_params){
        .q = pk_cu_ptr(p->q.mem), .k = pk_cu_ptr(p->k.mem), .v = pk_cu_ptr(p->v.mem), .o = pk_cu_ptr(p->o.mem),
        .lse = p->lse.mem ? pk_cu_ptr(p->lse.mem) : 0, .part = part, .lens = lens,
        .wl = p->window_left < 0 ? -1 : p->window_left, .wr = p->window_right < 0 ? -1 : p->window_right,
        .batch = (int32_t)p->batch, .sq = (int32_t)p->sq, .skv = (int32_t)p->skv, .hq = (int32_t)p->hq,
        .hkv = (int32_t)p->hkv, .chunk = plan->chunk, .n_splits = plan->n_splits,
        .qscale = (float)(p->scale * PK_LOG2E),
    };
    const pk_view *views[5] = {&p->q, &p->k, &p->v, &p->o, &p->lse};
    int64_t *strides[5] = {a->qs, a->ks, a->vs, a->os, a->ls};
    for (int i = 0; i < 5; i++) {
        a->off[i] = views[i]->offset;
        for (int j = 0; j < 4; j++) strides[i][j] = views[i]->stride[j];
    }
}

static void kernel_name(const pk_attention_problem *p, const pk_cu_attn_plan *plan, char *name, size_t n)
{
    const char *dt = dtype_tag(p->q.dtype), *suffix = pk_cu_attn_kernel_suffix(plan->kernel);
    if (plan->kernel == PK_CU_ATTN_SIMT) snprintf(name, n, "pk_attn_simt_%s_d%d", dt, (int)p->d);
    else snprintf(name, n, "pk_attn_mma_%s_d%d_%s", dt, (int)p->d, suffix);
}

pk_status pk_cu_attention(void *dev, const pk_attention_problem *p, pk_msg *msg)
{
    pk_cu_device *d = dev;
    if (p->batch == 0 || p->sq == 0 || p->hq == 0) return PK_SUCCESS;

    pk_cu_attn_plan plan;
    pk_cu_attn_plan_make(p, d->sm, d->sm_count, d->smem_optin, &plan);
    if (plan.row_tiles > 65535 || p->batch * p->hkv > 0x7fffffff)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, "CUDA attention: %lld x %lld query rows per kv head exceed the grid",
                       (long long)p->sq, (long long)(p->hq / p->hkv));

    size_t lens_bytes = p->uniform_lengths ? 0 : (size_t)p->batch * 2 * sizeof(int32_t);
    size_t part_start = (lens_bytes + 255) / 256 * 256;
    size_t n_rows = (size_t)(p->batch * p->hq * p->sq);
    size_t part_bytes = plan.n_splits > 1 ? n_rows * (size_t)plan.n_splits * (size_t)(p->d + 2) * sizeof(float) : 0;
    CUdeviceptr scratch = 0, lens = 0, part = 0;
    pk_status s = pk_cu_check(cuCtxSetCurrent(d->context), "cuCtxSetCurrent", msg);
    if (s == PK_SUCCESS && lens_bytes + part_bytes)
        s = pk_cu_scratch(d, part_start + part_bytes, &scratch, msg);
    if (s == PK_SUCCESS && lens_bytes) {
        size_t half = lens_bytes / 2;
        CUdeviceptr kv;
        s = pk_cu_upload_scratch(d, 0, p->len_q, half, &lens, msg);
        if (s == PK_SUCCESS) s = pk_cu_upload_scratch(d, half, p->len_kv, half, &kv, msg);
    }
    if (s != PK_SUCCESS) return s;
    if (part_bytes) part = scratch + part_start;

    pk_cu_attn_params a;
    fill_params(p, &plan, lens, part, &a);
    char name[64];
    CUfunction f;
    kernel_name(p, &plan, name, sizeof name);
    s = pk_cu_function(d, name, &f, msg);
    if (s != PK_SUCCESS) return s;
    unsigned grid[3] = {(unsigned)(p->batch * p->hkv), (unsigned)plan.n_splits, (unsigned)plan.row_tiles};
    unsigned block[3] = {(unsigned)plan.threads, 1, 1};
    void *args[] = {&a};
    s = pk_cu_launch(d, f, grid, block, plan.kernel == PK_CU_ATTN_SIMT ? 0 : plan.smem, args, msg);
    if (s != PK_SUCCESS || plan.n_splits == 1) return s;

    snprintf(name, sizeof name, "pk_attn_merge_%s", dtype_tag(p->o.dtype));
    s = pk_cu_function(d, name, &f, msg);
    if (s != PK_SUCCESS) return s;
    int hd = (int)p->d;
    void *merge_args[] = {&a, &hd};
    size_t elems = n_rows * (size_t)p->d;
    unsigned merge_grid[3] = {(unsigned)((elems + 255) / 256), 1, 1}, merge_block[3] = {256, 1, 1};
    return pk_cu_launch(d, f, merge_grid, merge_block, 0, merge_args, msg);
}
