/* Kernel arguments of the elementwise kernels (elementwise.cu), passed by
 * value as one struct each. Plain C with fixed-width fields and no device
 * code: the host plans (backends/gpu/pk_gpu_ew.c, shared by CUDA and
 * HIP) fill the same structs, so the two sides cannot drift. */
#ifndef PK_EW_ABI_H
#define PK_EW_ABI_H

#include <stdint.h>

/* A strided operand: ptr is the device address of its element 0 (buffer
 * base plus offset, in bytes; 0 when absent), strides in elements. */
typedef struct pk_ew_view {
    uint64_t ptr;
    int64_t stride[4];
} pk_ew_view;

/* Row ops: rows flat over lead0 x lead1 x lead2, cols along stride[3]. */
typedef struct pk_ew_rows_args {
    int64_t rows, lead1, lead2, cols;
    float eps, scale;
    int32_t act, pad;
    pk_ew_view x, res, res_out, weight, bias, out, up;
} pk_ew_rows_args;

/* RoPE: tab_pos holds int32 positions [tokens], tab_freq f32 inverse
 * frequencies [half], freq_stride elements apart (the caller's table may
 * be strided); share = work-items that split one (token, pair)'s heads. */
typedef struct pk_ew_rope_args {
    int64_t tokens, seq, hq, hk, half, share;
    int32_t interleaved, pad;
    pk_ew_view q, k;
    uint64_t tab_pos, tab_freq;
    int64_t freq_stride;
} pk_ew_rope_args;

/* Rows by device indices: index holds int32 [n]; src and out are 2-D with
 * {row, col} strides in stride[2], stride[3]; rows bounds the indices. */
typedef struct pk_ew_index_args {
    int64_t n, rows, cols;
    pk_ew_view src, out;
    uint64_t index;
} pk_ew_index_args;

#define PK_EW_CHAIN_INPUTS 8
#define PK_EW_CHAIN_STEPS 32

/* One chain step over physical register slots (the host has allocated the
 * program's values to as few slots as their lifetimes allow). */
typedef struct pk_ew_chain_step {
    uint8_t op, a, b, dst;
    float imm;
} pk_ew_chain_step;

/* The chain over a collapsed 4-D shape: n3 innermost, outer = n0 * n1 * n2.
 * Input i is loaded into slot i when bit i of `used` is set; bit i of
 * `vec` (bit 8 for out) says its innermost stride is 1 and every access of
 * a thread's group of elements is aligned for one vector load. */
typedef struct pk_ew_chain_args {
    int64_t n1, n2, n3, outer;
    pk_ew_view in[PK_EW_CHAIN_INPUTS];
    pk_ew_view out;
    int32_t dtype[PK_EW_CHAIN_INPUTS];
    int32_t out_dtype, n_steps, used, vec, result;
    int32_t pad;
    pk_ew_chain_step steps[PK_EW_CHAIN_STEPS];
} pk_ew_chain_args;

#endif /* PK_EW_ABI_H */
