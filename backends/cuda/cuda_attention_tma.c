/* The TMA maps of K and V for the Hopper attention kernel
 * (kernels_cuda/attention_wgmma.cuh): each a 4-D tensor of head-dim
 * elements, keys, kv heads and batches, read in boxes of 64 elements (one
 * 128-byte swizzle block) by tile_keys keys, the layout the kernel's
 * wgmma reads. */
#include "cuda_internal.h"

/* One operand's map; a stride the map cannot express (not whole 16-byte
 * units, or zero: a broadcast) makes the driver refuse it, and the kernel
 * then copies that operand's tiles with cp.async as before. A dimension
 * of one takes a stride that means nothing but must still be valid. */
static CUresult kv_map(CUtensorMap *map, const pk_view *v, const pk_attention_problem *p, unsigned tile_keys)
{
    const int64_t keys = p->skv, heads = p->hkv, batch = p->batch;
    const int64_t row = v->stride[1] * 2;
    const cuuint64_t dim[4] = {(cuuint64_t)p->d, (cuuint64_t)keys, (cuuint64_t)heads, (cuuint64_t)batch};
    const cuuint64_t stride[3] = {(cuuint64_t)row, (cuuint64_t)(heads > 1 ? v->stride[2] * 2 : row),
                                  (cuuint64_t)(batch > 1 ? v->stride[0] * 2 : row)};
    const cuuint32_t box[4] = {64, tile_keys, 1, 1}, step[4] = {1, 1, 1, 1};
    if (v->stride[3] != 1 || row <= 0 || (int64_t)stride[1] <= 0 || (int64_t)stride[2] <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    return cuTensorMapEncodeTiled(map, v->dtype == PK_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                                  4, (void *)(uintptr_t)(pk_gpu_addr(v->mem) + (uint64_t)v->offset * 2), dim, stride, box,
                                  step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

int pk_cu_attn_tma_maps(const pk_attention_problem *p, int tile_keys, CUtensorMap maps[2])
{
    return tile_keys > 0 && kv_map(&maps[0], &p->k, p, (unsigned)tile_keys) == CUDA_SUCCESS &&
           kv_map(&maps[1], &p->v, p, (unsigned)tile_keys) == CUDA_SUCCESS;
}
