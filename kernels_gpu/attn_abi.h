/* The argument block of every attention kernel of CUDA and HIP (but the
 * merge), passed by value: one definition that the kernels and the host
 * (backends/gpu/pk_gpu_args.c fills it) both compile. Device code
 * sees typed pointers, the host the same 64-bit device addresses as
 * integers; nothing else differs.
 *
 * Rows, grid and the split partials: attn_common.h. */
#ifndef PK_ATTN_ABI_H
#define PK_ATTN_ABI_H

#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define PK_ATTN_PTR(type) type *
#else
#define PK_ATTN_PTR(type) uint64_t
#endif

/* the head dims the kernels are built for, 64, 80, 96, 128 and 256, as 0 to 4 */
#define PK_ATTN_DIM_INDEX(d) ((d) == 64 ? 0 : (d) == 80 ? 1 : (d) == 96 ? 2 : (d) == 128 ? 3 : 4)

typedef struct pk_attn_params {
    PK_ATTN_PTR(const void) q;
    PK_ATTN_PTR(const void) k;
    PK_ATTN_PTR(const void) v;
    PK_ATTN_PTR(void) o;
    PK_ATTN_PTR(float) lse;       /* NULL (0): not written */
    PK_ATTN_PTR(float) part;      /* split partials; NULL in one pass */
    PK_ATTN_PTR(const int) lens;  /* NULL: all sq / skv; else len_q[batch] then len_kv[batch] */
    int64_t off[5];               /* elements: q, k, v, o, lse */
    int64_t qs[4], ks[4], vs[4], os[4], ls[4]; /* {B, S, H, D}; lse {B, H, S, -} */
    int64_t wl, wr;               /* < 0: unbounded */
    int32_t batch, sq, skv, hq, hkv;
    int32_t chunk;                /* keys per split, a multiple of every key tile */
    int32_t n_splits;
    float qscale;                 /* scale * log2(e): scores are kept in base 2 */
} pk_attn_params;

#undef PK_ATTN_PTR

#endif
