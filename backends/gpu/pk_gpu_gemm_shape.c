#include "pk_gpu_gemm_shape.h"

int pk_gpu_contiguous(int64_t stride, int64_t size) { return stride == 1 || size <= 1; }

int pk_gpu_stride_aligned(int64_t stride, int64_t size, int64_t elems) { return size <= 1 || stride % elems == 0; }

int pk_gpu_gemm_decode_fits(const pk_gemm_problem *p)
{
    const pk_view *a = &p->a, *b = &p->b;
    if (p->m > 16 || a->dtype == PK_F32) return 0;
    if (a->stride[2] != 1 || b->stride[1] != 1) return 0;
    return a->offset % 8 == 0 && b->offset % 8 == 0 && pk_gpu_stride_aligned(a->stride[1], p->m, 8) &&
           pk_gpu_stride_aligned(b->stride[2], p->n, 8) && pk_gpu_stride_aligned(a->stride[0], p->batch, 8) &&
           pk_gpu_stride_aligned(b->stride[0], p->batch, 8);
}
