#include "cuda_ew.h"

int64_t pk_cu_ew_dtype_size(pk_dtype t) { return t == PK_F32 ? 4 : 2; }

pk_ew_view pk_cu_ew_view(const pk_view *v)
{
    pk_ew_view w = {0, {0, 0, 0, 0}};
    if (!v->mem) return w;
    w.ptr = (uint64_t)pk_cu_ptr(v->mem) + (uint64_t)v->offset * pk_cu_ew_dtype_size(v->dtype);
    for (int i = 0; i < PK_MAX_DIMS; i++) w.stride[i] = v->stride[i];
    return w;
}

int pk_cu_ew_vec_ok(const pk_ew_view *w, int64_t elem_size, const int64_t lead[3], int bytes)
{
    if (!w->ptr) return 1;
    if (w->stride[3] != 1 || w->ptr % (uint64_t)bytes) return 0;
    for (int i = 0; i < 3; i++)
        if (lead[i] > 1 && w->stride[i] * elem_size % bytes) return 0;
    return 1;
}

unsigned pk_cu_ew_block_x(int64_t n, unsigned total)
{
    unsigned x = 1;
    while (x < total && (int64_t)x < n) x *= 2;
    return x;
}
