/* CUDA attention: one fused pass, or for decode shapes a split-KV pass
 * whose per-chunk partials pk_attn_merge combines. The plan
 * (cuda_attention_plan.c) picks the kernel: tensor cores for f16/bf16 with
 * 16-byte aligned, D-contiguous q/k/v, the CUDA-core kernel otherwise.
 *
 * Arguments and scratch layout are shared with HIP (pk_gpu_args). */
#include <stdio.h>

#include "cuda_attention_plan.h"
#include "cuda_internal.h"
#include "pk_gpu_args.h"

pk_status pk_cu_attention(void *dev, const pk_attention_problem *p, pk_msg *msg)
{
    pk_cu_device *d = dev;
    if (p->batch == 0 || p->sq == 0 || p->hq == 0) return PK_SUCCESS;

    pk_cu_attn_plan plan;
    pk_cu_attn_plan_make_knob(p, d->sm, d->sm_count, d->smem_optin, d->attn_knob, &plan);
    if (plan.row_tiles > 65535 || p->batch * p->hkv > 0x7fffffff)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, "CUDA attention: %lld x %lld query rows per kv head exceed the grid",
                       (long long)p->sq, (long long)(p->hq / p->hkv));

    pk_gpu_attn_scratch sc = pk_gpu_attn_scratch_layout(p, plan.n_splits);
    CUdeviceptr scratch = 0, lens = 0;
    pk_status s = pk_cu_check(cuCtxSetCurrent(d->context), "cuCtxSetCurrent", msg);
    if (s == PK_SUCCESS && sc.lens_bytes + sc.part_bytes)
        s = pk_cu_scratch(d, sc.part_start + sc.part_bytes, &scratch, msg);
    if (s == PK_SUCCESS && sc.lens_bytes) {
        size_t half = sc.lens_bytes / 2;
        CUdeviceptr kv;
        s = pk_cu_upload_scratch(d, 0, p->len_q, half, &lens, msg);
        if (s == PK_SUCCESS) s = pk_cu_upload_scratch(d, half, p->len_kv, half, &kv, msg);
    }
    if (s != PK_SUCCESS) return s;

    pk_attn_params a;
    pk_gpu_attn_params_fill(p, plan.chunk, plan.n_splits, lens, sc.part_bytes ? scratch + sc.part_start : 0, &a);
    char name[64];
    CUfunction f;
    pk_cu_attn_kernel_name(p, &plan, name, sizeof name);
    s = pk_cu_function(d, name, &f, msg);
    if (s != PK_SUCCESS) return s;
    unsigned grid[3] = {(unsigned)(p->batch * p->hkv), (unsigned)plan.n_splits, (unsigned)plan.row_tiles};
    unsigned block[3] = {(unsigned)plan.threads, 1, 1};
    void *args[] = {&a};
    s = pk_cu_launch(d, f, grid, block, plan.kernel == PK_CU_ATTN_SIMT ? 0 : plan.smem, args, 0, msg);
    if (s != PK_SUCCESS || plan.n_splits == 1) return s;

    snprintf(name, sizeof name, "pk_attn_merge_%s", pk_gpu_dtype_tag(p->o.dtype));
    s = pk_cu_function(d, name, &f, msg);
    if (s != PK_SUCCESS) return s;
    int hd = (int)p->d;
    void *merge_args[] = {&a, &hd};
    size_t elems = (size_t)(p->batch * p->hq * p->sq) * (size_t)p->d;
    unsigned merge_grid[3] = {(unsigned)((elems + 255) / 256), 1, 1}, merge_block[3] = {256, 1, 1};
    return pk_cu_launch(d, f, merge_grid, merge_block, 0, merge_args, 0, msg);
}
