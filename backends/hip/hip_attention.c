/* HIP attention: one fused pass, or for decode shapes a split-KV pass whose
 * per-chunk partials pk_attn_merge combines; the plan
 * (hip_attention_plan.c) picks the kernel. Scratch layout and arguments
 * are CUDA's (pk_gpu_args). */
#include <stdio.h>

#include "hip_attention_plan.h"
#include "hip_internal.h"
#include "pk_gpu_args.h"

pk_status pk_hip_attention(void *dev, const pk_attention_problem *p, pk_msg *msg)
{
    pk_hip_device *d = dev;
    if (p->batch == 0 || p->sq == 0 || p->hq == 0) return PK_SUCCESS;

    pk_hip_attn_plan plan;
    pk_hip_attn_plan_make(p, &d->target, &plan);
    if (plan.row_tiles > 65535 || p->batch * p->hkv > 0x7fffffff)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, "HIP attention: %lld x %lld query rows per kv head exceed the grid",
                       (long long)p->sq, (long long)(p->hq / p->hkv));

    pk_gpu_attn_scratch sc = pk_gpu_attn_scratch_layout(p, plan.n_splits);
    uint64_t scratch = 0, lens = 0, kv_lens;
    pk_status s = PK_SUCCESS;
    if (sc.lens_bytes + sc.part_bytes) s = pk_hip_scratch(d, sc.part_start + sc.part_bytes, &scratch, msg);
    if (s == PK_SUCCESS && sc.lens_bytes) {
        size_t half = sc.lens_bytes / 2;
        s = pk_hip_upload_scratch(d, 0, p->len_q, half, &lens, msg);
        if (s == PK_SUCCESS) s = pk_hip_upload_scratch(d, half, p->len_kv, half, &kv_lens, msg);
    }
    if (s != PK_SUCCESS) return s;

    pk_attn_params a;
    pk_gpu_attn_params_fill(p, plan.chunk, plan.n_splits, lens, sc.part_bytes ? scratch + sc.part_start : 0, &a);
    hipFunction_t f;
    s = pk_hip_function(d, plan.kernel_name, &f, msg);
    if (s != PK_SUCCESS) return s;
    unsigned grid[3] = {(unsigned)(p->batch * p->hkv), (unsigned)plan.n_splits, (unsigned)plan.row_tiles};
    unsigned block[3] = {(unsigned)plan.threads, 1, 1};
    void *args[] = {&a};
    s = pk_hip_launch(d, f, grid, block, plan.smem, args, msg);
    if (s != PK_SUCCESS || plan.n_splits == 1) return s;

    char name[64];
    snprintf(name, sizeof name, "pk_attn_merge_%s", pk_gpu_dtype_tag(p->o.dtype));
    s = pk_hip_function(d, name, &f, msg);
    if (s != PK_SUCCESS) return s;
    int hd = (int)p->d;
    void *merge_args[] = {&a, &hd};
    size_t elems = (size_t)(p->batch * p->hq * p->sq) * (size_t)p->d;
    unsigned merge_grid[3] = {(unsigned)((elems + 255) / 256), 1, 1}, merge_block[3] = {256, 1, 1};
    return pk_hip_launch(d, f, merge_grid, merge_block, 0, merge_args, msg);
}
