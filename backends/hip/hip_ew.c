/* The elementwise ops on HIP: row ops, RoPE and the fused chain. Their
 * launch plans are shared with CUDA (pk_gpu_ew.c), and so are the kernels
 * (kernels_gpu/ew_*.h, built from elementwise.hip). */

#include "hip_internal.h"
#include "pk_gpu_ew.h"

static pk_status run(pk_hip_device *d, const pk_gpu_launch *l, void *args, pk_msg *msg)
{
    hipFunction_t f;
    pk_status s = pk_hip_function(d, l->name, &f, msg);
    void *params[] = {args};
    return s != PK_SUCCESS ? s : pk_hip_launch(d, f, l->grid, l->block, 0, params, msg);
}

static pk_status rows_run(void *dev, const pk_rows_problem *p, const char *op, int per_row, pk_msg *msg)
{
    pk_hip_device *d = dev;
    pk_ew_rows_args a;
    pk_gpu_launch l;
    int pipelined;
    pk_status s = pk_gpu_rows_plan(p, op, per_row, "HIP", &a, &l, &pipelined, msg);
    if (s != PK_SUCCESS) return s;
    if (pipelined) {
        /* one wave of blocks: as many as fit on the device at once */
        hipFunction_t f;
        int per_cu = 0;
        s = pk_hip_function(d, l.name, &f, msg);
        if (s != PK_SUCCESS) return s;
        if (hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, f, (int)(l.block[0] * l.block[1]), 0) ==
            hipSuccess)
            pk_gpu_rows_one_wave(&l, per_cu, d->target.cu_count);
    }
    return run(d, &l, &a, msg);
}

pk_status pk_hip_rmsnorm(void *dev, const pk_rows_problem *p, pk_msg *msg) { return rows_run(dev, p, "rmsnorm", 1, msg); }
pk_status pk_hip_layernorm(void *dev, const pk_rows_problem *p, pk_msg *msg) { return rows_run(dev, p, "layernorm", 1, msg); }
pk_status pk_hip_softmax(void *dev, const pk_rows_problem *p, pk_msg *msg) { return rows_run(dev, p, "softmax", 1, msg); }
pk_status pk_hip_glu(void *dev, const pk_rows_problem *p, pk_msg *msg) { return rows_run(dev, p, "glu", 0, msg); }
pk_status pk_hip_bias_act(void *dev, const pk_rows_problem *p, pk_msg *msg) { return rows_run(dev, p, "bias_act", 0, msg); }

/* RoPE's tables live in a buffer of their own: scratch is reused by the
 * next op that asks for it. */
static pk_status rope_reserve(void *dev, size_t bytes, uint64_t *addr, int *fresh, pk_msg *msg)
{
    pk_hip_device *d = dev;
    pk_status s = pk_hip_reserve(d, &d->rope_tab, &d->rope_tab_size, bytes, 4096, "hipMalloc (rope tables)", fresh, msg);
    *addr = (uint64_t)(uintptr_t)d->rope_tab;
    return s;
}

static pk_status rope_upload(void *dev, uint64_t addr, const void *src, size_t bytes, pk_msg *msg)
{
    return pk_hip_stage_upload(dev, addr, src, bytes, msg);
}

pk_status pk_hip_rope(void *dev, const pk_rope_problem *p, pk_msg *msg)
{
    pk_hip_device *d = dev;
    pk_ew_rope_args a;
    pk_gpu_launch l;
    if (!pk_gpu_rope_plan(p, &a, &l)) return PK_SUCCESS;
    static const pk_gpu_table_ops ops = {rope_reserve, rope_upload};
    pk_status s = pk_gpu_rope_tables_place(&d->rope, p, d, &ops, &a, msg);
    return s != PK_SUCCESS ? s : run(d, &l, &a, msg);
}

pk_status pk_hip_chain(void *dev, const pk_chain_problem *p, pk_msg *msg)
{
    pk_ew_chain_args a;
    pk_gpu_launch l;
    pk_status s = pk_gpu_chain_plan(p, "HIP", &a, &l, msg);
    return s != PK_SUCCESS ? s : run(dev, &l, &a, msg);
}
