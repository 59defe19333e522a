/* The elementwise ops of a CUDA-family backend: row ops, RoPE and the
 * fused chain. Their launch plans are shared with OpenCL's where they can
 * be (pk_gpu_ew.c), and the kernels are one source for CUDA and HIP
 * (kernels_gpu/ew_*.h, built from kernels_cuda/elementwise.cu and
 * kernels_hip/elementwise.hip). */
#include "gpu_vendor.h"
#include "pk_gpu_ew.h"

static pk_status run(pk_gpu_device *d, const pk_gpu_launch *l, void *args, pk_msg *msg)
{
    void *params[] = {args};
    return PK_GPU_OP(launch)(d, PK_GPU_EW0 + l->kernel, l->grid, l->block, 0, params, 0, msg);
}

pk_status PK_GPU_OP(rows)(void *dev, const pk_rows_problem *p, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_ew_rows_args a;
    pk_gpu_launch l;
    int pipelined;
    pk_status s = pk_gpu_rows_plan(p, PK_GPU_VENDOR, &a, &l, &pipelined, msg);
    if (s != PK_SUCCESS) return s;
    if (pipelined) {
        /* one wave of blocks: as many as fit on the device at once */
        pk_gpu_function f;
        int per_unit = 0;
        s = PK_GPU_OP(function)(d, PK_GPU_EW0 + l.kernel, &f, msg);
        if (s != PK_SUCCESS) return s;
        if (pk_gpu_blocks_per_unit(&per_unit, f, (int)(l.block[0] * l.block[1])) == PK_GPU_OK)
            pk_gpu_rows_one_wave(&l, per_unit, pk_gpu_units(d));
    }
    return run(d, &l, &a, msg);
}

/* RoPE's tables live in a buffer of their own: scratch is reused by the
 * next op that asks for it. */
static pk_status rope_reserve(void *dev, size_t bytes, uint64_t *addr, int *fresh, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_status s = PK_GPU_OP(reserve)(d, &d->gpu.rope_tab, &d->gpu.rope_tab_size, bytes, 4096,
                                    PK_GPU_CALL(cuMemAlloc, hipMalloc) " (rope tables)", fresh, msg);
    *addr = pk_gpu_ptr_addr(d->gpu.rope_tab);
    return s;
}

static pk_status rope_upload(void *dev, uint64_t addr, const void *src, size_t bytes, pk_msg *msg)
{
    return PK_GPU_OP(stage_upload)(dev, addr, src, bytes, msg);
}

pk_status PK_GPU_OP(rope)(void *dev, const pk_rope_problem *p, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_ew_rope_args a;
    pk_gpu_launch l;
    if (!pk_gpu_rope_plan(p, &a, &l)) return PK_SUCCESS;
    /* the tables block is rewritten in place by later calls: a graph
     * would read whatever the last call left there */
    if (d->gpu.capturing && (!p->positions_dev.mem || !p->inv_freq.mem))
        return pk_msgf(msg, PK_ERR_UNSUPPORTED,
                       "RoPE recorded into a graph needs its positions and its frequencies on the device "
                       "(desc->device_positions, desc->inv_freq)");
    static const pk_gpu_table_ops ops = {rope_reserve, rope_upload};
    pk_status s = pk_gpu_rope_tables_place(&d->gpu.rope, p, d, &ops, &a, msg);
    return s != PK_SUCCESS ? s : run(d, &l, &a, msg);
}

pk_status PK_GPU_OP(chain)(void *dev, const pk_chain_problem *p, pk_msg *msg)
{
    pk_ew_chain_args a;
    pk_gpu_launch l;
    pk_status s = pk_gpu_chain_plan(p, PK_GPU_VENDOR, &a, &l, msg);
    return s != PK_SUCCESS ? s : run(dev, &l, &a, msg);
}

pk_status PK_GPU_OP(index_rows)(void *dev, const pk_index_problem *p, pk_msg *msg)
{
    pk_ew_index_args a;
    pk_gpu_launch l;
    pk_gpu_index_plan(p, &a, &l);
    return run(dev, &l, &a, msg);
}
