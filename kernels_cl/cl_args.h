/* Slots of the packed scalar arguments of the decode-path OpenCL kernels:
 * the host fills them (backends/opencl), the kernels unpack them; valid C
 * and OpenCL C, prepended to every kernel source.
 *
 * Why packed: NVIDIA's OpenCL spends host time on every argument of a
 * kernel at every enqueue, set or not, so a decode step of short kernels
 * was bound by the host. The scalars of rows.cl, the GEMM kernels and
 * attention_decode.cl travel as long16s (and a float or two), buffers stay
 * separate arguments. */
#ifndef PK_CL_ARGS_H
#define PK_CL_ARGS_H

/* Kernel side: the long16s a0, a1 (, a2) into the private array arr of n
 * longs, which a kernel reads by slot (constant indices: registers). */
#define PK_ARGS_UNPACK2(arr, n, a0, a1)                                                                    \
    long arr[n];                                                                                           \
    vstore16(a0, 0, arr);                                                                                  \
    vstore16(a1, 1, arr)
#define PK_ARGS_UNPACK3(arr, n, a0, a1, a2)                                                                \
    PK_ARGS_UNPACK2(arr, n, a0, a1);                                                                       \
    vstore16(a2, 2, arr)

/* rows.cl (every row kernel): three long16s */
#define PK_RA_ROWS 0
#define PK_RA_LEAD1 1
#define PK_RA_LEAD2 2
#define PK_RA_COLS 3
#define PK_RA_TPR 4
#define PK_RA_PER_ITEM 5
#define PK_RA_OFF 6 /* + view: the view's element offset */
#define PK_RA_ST 16 /* + 4 * view: its strides {lead0, lead1, lead2, col} */
#define PK_RA_LONGS 48
/* the views, in argument order */
#define PK_RV_X 0
#define PK_RV_RES 1
#define PK_RV_RES_OUT 2
#define PK_RV_WEIGHT 3
#define PK_RV_BIAS 4
#define PK_RV_OUT 5
#define PK_RV_UP 6
#define PK_RV_COUNT 7

/* Every GEMM kernel (gemm_skinny.cl, gemm_tiled.cl, gemm_mma.cl): two
 * long16s; strides in elements as {batch, row, col} (a: {batch, m, k}, b:
 * {batch, k, n}) */
#define PK_SA_BATCH 0
#define PK_SA_M 1
#define PK_SA_N 2
#define PK_SA_K 3
#define PK_SA_KS 4     /* k of a split (skinny) */
#define PK_SA_SPLITS 5 /* the merge's splits (skinny) */
#define PK_SA_A_OFF 6
#define PK_SA_A_SB 7
#define PK_SA_A_SM 8
#define PK_SA_A_SK 9
#define PK_SA_B_OFF 10
#define PK_SA_B_SB 11
#define PK_SA_B_SK 12
#define PK_SA_B_SN 13
#define PK_SA_C 16 /* c: offset, then strides batch, m, n */
#define PK_SA_D 20 /* d: the same */
#define PK_SA_BIAS 24 /* bias: offset, n stride */
#define PK_SA_RES 26 /* residual: offset, strides batch, m, n */
#define PK_SA_LONGS 32

/* The floats a row of a split GEMM's partial sums takes in part: n rounded
 * up to a multiple of 4 (16-byte rows: the pieces' sums move as float2 or
 * float4). Host and gemm_mma*.cl alike. */
#define PK_GEMM_PART_PN(n) (((n) + 3) / 4 * 4)

/* Kernel side: the arguments (buffers, the two long16s, alpha and beta;
 * part: the split partial sums, where a kernel has them), and the
 * scalars under their names, each kernel's first line. */
#define PK_GEMM_CL_PARAMS(A, B)                                                                            \
    __global const a_t *A, __global const a_t *B, __global float *part, __global const d_t *c,             \
        __global d_t *d, __global const d_t *bias, __global const d_t *res, long16 pk_s0, long16 pk_s1,   \
        float2 pk_ab
#define PK_GEMM_CL_UNPACK                                                                                  \
    PK_ARGS_UNPACK2(pk_s, PK_SA_LONGS, pk_s0, pk_s1);                                                     \
    const long batch = pk_s[PK_SA_BATCH], m = pk_s[PK_SA_M], n = pk_s[PK_SA_N], k = pk_s[PK_SA_K];         \
    const long a_off = pk_s[PK_SA_A_OFF], a_sb = pk_s[PK_SA_A_SB];                                         \
    const long b_off = pk_s[PK_SA_B_OFF], b_sb = pk_s[PK_SA_B_SB];                                         \
    /* not const: gemm_tiled.cl makes a unit stride a literal 1 */                                         \
    long a_sm = pk_s[PK_SA_A_SM], a_sk = pk_s[PK_SA_A_SK], b_sk = pk_s[PK_SA_B_SK], b_sn = pk_s[PK_SA_B_SN]; \
    const long c_off = pk_s[PK_SA_C], c_sb = pk_s[PK_SA_C + 1], c_sm = pk_s[PK_SA_C + 2];                  \
    const long c_sn = pk_s[PK_SA_C + 3];                                                                   \
    const long d_off = pk_s[PK_SA_D], d_sb = pk_s[PK_SA_D + 1], d_sm = pk_s[PK_SA_D + 2];                  \
    const long d_sn = pk_s[PK_SA_D + 3];                                                                   \
    const long bias_off = pk_s[PK_SA_BIAS], bias_sn = pk_s[PK_SA_BIAS + 1];                                \
    const long res_off = pk_s[PK_SA_RES], res_sb = pk_s[PK_SA_RES + 1], res_sm = pk_s[PK_SA_RES + 2];      \
    const long res_sn = pk_s[PK_SA_RES + 3];                                                               \
    const float alpha = pk_ab.s0, beta = pk_ab.s1;                                                         \
    (void)a_sk, (void)b_sk, (void)part

/* attention_decode.cl (pk_attn_decode, pk_attn_merge) and attention_mma.cl
 * (pk_attn_mma_decode): three long16s;
 * strides in elements, each view's four in its own order (q, k, v:
 * {batch, seq, head, d}; o the same; lse {batch, head, seq}) */
#define PK_DA_ML_OFF 0  /* the partials' (m, l) pairs in part */
#define PK_DA_ACC_OFF 1 /* their accumulators */
#define PK_DA_SQ 2
#define PK_DA_SKV 3
#define PK_DA_HQ 4
#define PK_DA_HKV 5
#define PK_DA_WL 6 /* window left, right: -1 unbounded */
#define PK_DA_WR 7
#define PK_DA_CHUNK 8  /* keys of a split */
#define PK_DA_SPLITS 9 /* splits, for the merge */
#define PK_DA_OFF 16   /* + view: element offsets of q, k, v, o, lse */
#define PK_DA_QS 24
#define PK_DA_KS 28
#define PK_DA_VS 32
#define PK_DA_OS 36
#define PK_DA_LS 40
#define PK_DA_LONGS 48
/* Kernel side: the slots every decode-path kernel reads, by name. */
#define PK_DECODE_UNPACK                                                                                   \
    PK_ARGS_UNPACK3(pk_d, PK_DA_LONGS, pk_d0, pk_d1, pk_d2);                                              \
    const long ml_off = pk_d[PK_DA_ML_OFF], acc_off = pk_d[PK_DA_ACC_OFF];                                 \
    const int sq = (int)pk_d[PK_DA_SQ], hq = (int)pk_d[PK_DA_HQ]

/* The tensor-map templates of the TMA GEMM (gemm_tma.cl) on NVIDIA's
 * Hopper GPUs through their OpenCL: 2-D maps of 16-bit elements, k
 * innermost, boxes of PK_TMA_BOX_K k by 32, 64, 128 or 256 rows in the
 * 64-byte swizzle (nv_ptx.cl's pk_k32_at layout), one for each input
 * type and box height, PK_TMA_MAP_LONGS longs each. The host has the CUDA
 * driver encode them once per device (backends/opencl/opencl_tma.c) with
 * a placeholder address and extents; a launch passes the two it needs by
 * value, and a work-group puts its operands' addresses, extents and row
 * strides into its copies (pk_tma_maps_set). */
#define PK_TMA_BOX_K 32
#define PK_TMA_MAP_LONGS 16
#define PK_TMA_HEIGHTS 4
#define PK_TMA_TEMPLATES (2 * PK_TMA_HEIGHTS)
/* box height `rows` (32, 64, 128, 256) as an index */
#define PK_TMA_HEIGHT_AT(rows) ((rows) <= 32 ? 0 : (rows) <= 64 ? 1 : (rows) <= 128 ? 2 : 3)
/* the template for inputs of dtype dt (1 f16, 2 bf16; DT_A's codes) and boxes of `rows` rows */
#define PK_TMA_TEMPLATE(dt, rows) (((dt) - 1) * PK_TMA_HEIGHTS + PK_TMA_HEIGHT_AT(rows))

#endif
