/* TMA maps of the CUDA backend's 16-bit operands, in the 128-byte swizzle
 * both Hopper kernels' wgmma read: the encoding they share, and the K and
 * V maps of the Hopper attention kernel (kernels_cuda/attention_wgmma.cuh).
 * The GEMM's A and B maps are cuda_gemm.c's. */
#include "cuda_internal.h"

CUresult pk_cu_tma_sw128(CUtensorMap *map, const pk_view *v, unsigned rank, const cuuint64_t *dim,
                         const cuuint64_t *stride, const cuuint32_t *box)
{
    const cuuint32_t step[5] = {1, 1, 1, 1, 1};
    return cuTensorMapEncodeTiled(map, v->dtype == PK_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                                  rank, (void *)(uintptr_t)(pk_gpu_addr(v->mem) + (uint64_t)v->offset * 2), dim, stride,
                                  box, step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

/* One of K and V: a 4-D tensor of head-dim elements, keys, kv heads and
 * batches, read in boxes of 64 elements (one swizzle block) by tile_keys
 * keys. A stride the map cannot express (the head dim not contiguous, or
 * a zero or negative one: a broadcast) leaves the kernel that operand's
 * cp.async copies; the driver refuses strides that are not whole 16-byte
 * units. A dimension of one takes a stride that means nothing but must
 * still be valid. */
static CUresult kv_map(CUtensorMap *map, const pk_view *v, const pk_attention_problem *p, unsigned tile_keys)
{
    const int64_t row = v->stride[1] * 2, head = p->hkv > 1 ? v->stride[2] * 2 : row,
                  plane = p->batch > 1 ? v->stride[0] * 2 : row;
    if (v->stride[3] != 1 || row <= 0 || head <= 0 || plane <= 0) return CUDA_ERROR_INVALID_VALUE;
    const cuuint64_t dim[4] = {(cuuint64_t)p->d, (cuuint64_t)p->skv, (cuuint64_t)p->hkv, (cuuint64_t)p->batch};
    const cuuint64_t stride[3] = {(cuuint64_t)row, (cuuint64_t)head, (cuuint64_t)plane};
    const cuuint32_t box[4] = {64, tile_keys, 1, 1};
    return pk_cu_tma_sw128(map, v, 4, dim, stride, box);
}

int pk_cu_attn_tma_maps(const pk_attention_problem *p, int tile_keys, CUtensorMap maps[2])
{
    return tile_keys > 0 && kv_map(&maps[0], &p->k, p, (unsigned)tile_keys) == CUDA_SUCCESS &&
           kv_map(&maps[1], &p->v, p, (unsigned)tile_keys) == CUDA_SUCCESS;
}
