/* Attention on a CUDA-family backend: one fused pass, or for decode shapes
 * a split-KV pass whose per-chunk partials pk_attn_merge combines. The
 * backend's plan picks the kernel (gpu_vendor.h pk_gpu_attn_plan_make); the
 * arguments and the scratch layout are one for both (pk_gpu_args). */
#include "gpu_vendor.h"
#include "pk_gpu_args.h"

pk_status PK_GPU_OP(attention)(void *dev, const pk_attention_problem *p, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    if (p->batch == 0 || p->sq == 0 || p->hq == 0) return PK_SUCCESS;

    pk_gpu_attn_plan plan;
    pk_gpu_attn_plan_make(d, p, &plan);
    if (plan.row_tiles > 65535 || p->batch * p->hkv > 0x7fffffff)
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, PK_GPU_VENDOR " attention: %lld x %lld query rows per kv head exceed the grid",
                       (long long)p->sq, (long long)(p->hq / p->hkv));

    pk_gpu_attn_scratch sc = pk_gpu_attn_scratch_layout(p, plan.n_splits);
    uint64_t scratch = 0, lens = 0;
    pk_status s = pk_gpu_current(d, msg);
    if (s == PK_SUCCESS && sc.lens_bytes + sc.part_bytes) s = PK_GPU_OP(scratch)(d, sc.part_start + sc.part_bytes, &scratch, msg);
    if (s == PK_SUCCESS && sc.lens_bytes) {
        /* len_q then len_kv: host arrays staged, lengths on the device
         * copied on the stream (no host copy, no wait: graph-capturable) */
        const size_t half = sc.lens_bytes / 2;
        const int32_t *host[2] = {p->len_q, p->len_kv};
        const int64_t full[2] = {p->sq, p->skv};
        const pk_view *dev_lens[2] = {&p->len_q_dev, &p->len_kv_dev};
        for (int i = 0; i < 2 && s == PK_SUCCESS; i++) {
            uint64_t at = scratch + i * half;
            int64_t same = 0;
            while (!dev_lens[i]->mem && same < p->batch && host[i][same] == full[i]) same++;
            if (!dev_lens[i]->mem && same == p->batch) {
                /* every length the full S (no array given): a fill, which
                 * needs no host copy (and so can be recorded in a graph) */
                s = pk_gpu_check(pk_gpu_set32(d, pk_gpu_ptr_of(at), (unsigned)full[i], (size_t)p->batch),
                                 PK_GPU_CALL(cuMemsetD32Async, hipMemsetD32Async), msg);
            } else if (!dev_lens[i]->mem) {
                s = PK_GPU_OP(upload_scratch)(d, i * half, host[i], half, &at, msg);
            } else {
                s = pk_gpu_check(pk_gpu_copy_on_device(d, pk_gpu_ptr_of(at),
                                                       pk_gpu_at(dev_lens[i]->mem, (size_t)dev_lens[i]->offset * 4), half),
                                 PK_GPU_CALL(cuMemcpyDtoDAsync, hipMemcpyDtoDAsync), msg);
            }
            if (i == 0) lens = at;
        }
    }
    if (s != PK_SUCCESS) return s;

    pk_attn_params a;
    pk_gpu_attn_params_fill(p, plan.chunk, plan.n_splits, lens, sc.part_bytes ? scratch + sc.part_start : 0, &a);
    unsigned grid[3] = {(unsigned)(p->batch * p->hkv), (unsigned)plan.n_splits, (unsigned)plan.row_tiles};
    unsigned block[3] = {(unsigned)plan.threads, 1, 1};
    pk_gpu_attn_launch launch;
    s = PK_GPU_OP(launch)(d, PK_GPU_ATTN0 + plan.kernel, grid, block, plan.smem, pk_gpu_attn_args(p, &plan, &a, &launch),
                          0, msg);
    if (s != PK_SUCCESS || plan.n_splits == 1) return s;

    int hd = (int)p->d;
    void *merge_args[] = {&a, &hd};
    size_t elems = (size_t)(p->batch * p->hq * p->sq) * (size_t)p->d;
    unsigned merge_grid[3] = {(unsigned)((elems + 255) / 256), 1, 1}, merge_block[3] = {256, 1, 1};
    return PK_GPU_OP(launch)(d, PK_GPU_ATTN0 + plan.merge, merge_grid, merge_block, 0, merge_args, 0, msg);
}
