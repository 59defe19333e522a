/* CUDA GEMM host side: plan, arguments and launch of the kernels of
 * kernels_cuda/gemm_kernels.h.
 * Every entry point takes PK_GEMM_PARAMS (kernels_gpu/gemm_abi.h),
 * marshalled as for HIP (pk_gpu_args); the Hopper kernel takes the TMA
 * maps of A, B and D, whether D's holds, and its split-K arguments before
 * them. */
#include "gpu_vendor.h"
#include "pk_gpu_args.h"

/* The TMA map of a k-contiguous operand: k, then rows `row_stride`
 * apart, then batch planes (one plane when broadcast or batch is 1); boxes
 * of BK x box_rows with the 128-byte swizzle the wgmma kernel reads. D's
 * map is the same with n for k. */
static CUresult tma_map(CUtensorMap *map, const pk_view *v, int64_t rows, int64_t k, int64_t batch,
                        int64_t row_stride, int64_t batch_stride, unsigned box_rows)
{
    const int planes = batch > 1 && batch_stride != 0;
    const cuuint64_t dim[3] = {(cuuint64_t)k, (cuuint64_t)rows, (cuuint64_t)(planes ? batch : 1)};
    const cuuint64_t stride[2] = {(cuuint64_t)row_stride * 2,
                                  (cuuint64_t)(planes ? batch_stride : rows * row_stride) * 2};
    const cuuint32_t box[3] = {PK_CU_WGMMA_BK, box_rows, 1};
    return pk_cu_tma_sw128(map, v, 3, dim, stride, box);
}

/* The blocks of clusters of two that the device holds at once for pair
 * kernel k (smem bytes each), asked of the driver once a kernel
 * (d->pair_blocks[k]):
 * a cluster needs two multiprocessors of one GPC, and one left over in a
 * GPC takes no pair, so a persistent grid of a block per multiprocessor
 * may not all run at once (the rest would wait for a whole wave). */
static pk_status pair_blocks(pk_cu_device *d, int kernel, unsigned smem, const unsigned block[3], pk_msg *msg)
{
    if (d->pair_blocks[kernel]) return PK_SUCCESS;
    CUfunction f;
    pk_status s = pk_cu_function(d, PK_GPU_GEMM0 + kernel, &f, msg);
    if (s == PK_SUCCESS)
        s = pk_gpu_check(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem),
                         "cuFuncSetAttribute", msg);
    CUlaunchAttribute attr = pk_cu_pair_attribute();
    const CUlaunchConfig config = {(unsigned)(d->sm_count & ~1), 1, 1, block[0], block[1], block[2], smem, d->stream,
                                   &attr, 1};
    int clusters = 0;
    if (s == PK_SUCCESS)
        s = pk_gpu_check(cuOccupancyMaxActiveClusters(&clusters, f, &config), "cuOccupancyMaxActiveClusters", msg);
    if (s == PK_SUCCESS && clusters < 1)
        s = pk_msgf(msg, PK_ERR_UNSUPPORTED, "CUDA: no cluster of two blocks of %u bytes of shared memory fits the device",
                    smem);
    if (s == PK_SUCCESS) d->pair_blocks[kernel] = 2 * clusters;
    return s;
}

pk_status pk_cu_gemm(void *dev, const pk_gemm_problem *p, pk_msg *msg)
{
    pk_cu_device *d = dev;
    if (p->batch == 0 || p->m == 0 || p->n == 0) return PK_SUCCESS;
    pk_cu_gemm_plan plan;
    CUtensorMap maps[3];
    /* the A/B knob, read at each call: conformance sets it around the
     * cases that need it (cf_run_case), on a context opened before */
    const pk_cu_gemm_knob knob = pk_cu_gemm_knob_of(getenv("PORTKERN_CUDA_GEMM"));
    /* a map the driver refuses leaves the problem to the other kernels,
     * which take any layout */
    int wgmma = d->has_sm90_gemm && pk_cu_gemm_plan_wgmma(p, d->sm_count, knob, &plan) &&
                tma_map(&maps[0], &p->a, p->m, p->k, p->batch, p->a.stride[1], p->a.stride[0],
                        plan.pair_a ? plan.tile_m / 2 : plan.tile_m) == CUDA_SUCCESS &&
                tma_map(&maps[1], &p->b, p->n, p->k, p->batch, p->b.stride[2], p->b.stride[0],
                        plan.pair && !plan.pair_a ? plan.tile_n / 2 : plan.tile_n) ==
                    CUDA_SUCCESS;
    if (!wgmma) pk_cu_gemm_plan_pick_knob(p, d->sm_count, d->smem_optin, knob, &plan);
    /* D's map, for the tiles that write through TMA (plan.out), in boxes
     * of 64 columns x 64 rows (a consumer's rows), where D's layout allows
     * one (a forced tile takes any D) and the driver takes its address;
     * elsewhere the kernel writes from its registers */
    int store = wgmma && plan.out && pk_cu_gemm_staged_fits(p) &&
                tma_map(&maps[2], &p->d, p->m, p->n, p->batch, p->d.stride[1], p->d.stride[0], 64) == CUDA_SUCCESS;
    if (!store) memset(&maps[2], 0, sizeof maps[2]); /* unread, but no stack garbage handed to the driver */
    if (wgmma && plan.pair) {
        /* no more pairs than run at once (grid[0] stays even) */
        pk_status s = pair_blocks(d, plan.kernel, plan.smem, plan.block, msg);
        if (s != PK_SUCCESS) return s;
        const unsigned most = (unsigned)d->pair_blocks[plan.kernel];
        if (plan.grid[0] > most) plan.grid[0] = most, plan.grid[1] = 1;
        if (plan.grid[0] * plan.grid[1] > most) plan.grid[1] = most / plan.grid[0] ? most / plan.grid[0] : 1;
    }
    pk_cu_gemm_split split = {0, d->split_flags, plan.splits, plan.steps};
    if (plan.splits > 1) {
        uint64_t part = 0;
        pk_status s = pk_gpu_current(d, msg);
        if (s == PK_SUCCESS) s = pk_cu_scratch(d, plan.part_bytes, &part, msg);
        if (s != PK_SUCCESS) return s;
        split.part = part;
    }
    pk_gpu_gemm_args g;
    pk_gpu_gemm_args_fill(p, &g);
    void *args[5 + sizeof g.args / sizeof g.args[0]] = {&maps[0], &maps[1], &maps[2], &store, &split};
    for (size_t i = 0; i < sizeof g.args / sizeof g.args[0]; i++) args[5 + i] = g.args[i];
    /* VEC takes the split and PK_GEMM_PARAMS, the others but the Hopper
     * kernel PK_GEMM_PARAMS alone */
    const int flags = (plan.early ? PK_GPU_LAUNCH_EARLY : 0) | (wgmma && plan.pair ? PK_GPU_LAUNCH_PAIRS : 0);
    return pk_cu_launch(d, PK_GPU_GEMM0 + plan.kernel, plan.grid, plan.block, plan.smem,
                        wgmma ? args : plan.kind == PK_CU_GEMM_VEC ? args + 4 : args + 5, flags, msg);
}
