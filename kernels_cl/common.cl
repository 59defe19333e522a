/* Shared by every portkern OpenCL program (prepended by the host).
 *
 * Storage dtypes are chosen per operand at build time with defines
 * (-DDT_A=2 ...): 0 = f32, 1 = f16, 2 = bf16. f16 goes through
 * vload_half/vstore_half, which are core OpenCL and need no cl_khr_fp16;
 * bf16 is bit manipulation. All arithmetic is f32. */

#define PK_CAT2(a, b) a##b
#define PK_CAT(a, b) PK_CAT2(a, b)

#define PK_TYPE_0 float
#define PK_TYPE_1 half
#define PK_TYPE_2 ushort
/* The pointer element type of an operand of dtype dt. */
#define PK_TYPE(dt) PK_CAT(PK_TYPE_, dt)
#define PK_LOAD(dt, p, i) PK_CAT(pk_load_, dt)((p), (i))
#define PK_STORE(dt, p, i, v) PK_CAT(pk_store_, dt)((p), (i), (v))

inline float pk_load_0(__global const float *p, long i) { return p[i]; }
inline float pk_load_1(__global const half *p, long i) { return vload_half(i, p); }
inline float pk_load_2(__global const ushort *p, long i) { return as_float((uint)p[i] << 16); }

inline void pk_store_0(__global float *p, long i, float v) { p[i] = v; }
inline void pk_store_1(__global half *p, long i, float v) { vstore_half_rte(v, i, p); }
/* f32 to bf16, rounded to nearest even; a NaN stays a (quiet) NaN */
inline ushort pk_bf16_bits(float v)
{
    uint u = as_uint(v);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (ushort)(u >> 16);
}
inline void pk_store_2(__global ushort *p, long i, float v) { p[i] = pk_bf16_bits(v); }

/* Two adjacent elements i and i + 1 (i even) in one store */
#define PK_STORE2(dt, p, i, v0, v1) PK_CAT(pk_store2_, dt)((p), (i), (v0), (v1))
inline void pk_store2_0(__global float *p, long i, float v0, float v1) { *(__global float2 *)(p + i) = (float2)(v0, v1); }
inline void pk_store2_1(__global half *p, long i, float v0, float v1) { vstore_half2_rte((float2)(v0, v1), i / 2, p); }
inline void pk_store2_2(__global ushort *p, long i, float v0, float v1)
{
    *(__global uint *)(p + i) = (uint)pk_bf16_bits(v0) | ((uint)pk_bf16_bits(v1) << 16);
}

/* Activations: 0 none, 1 relu, 2 gelu (erf), 3 gelu tanh, 4 silu
 * (pk_activation's values). */
inline float pk_act(int act, float x)
{
    switch (act) {
    case 1: return x > 0.0f ? x : (isnan(x) ? x : 0.0f);
    case 2: return 0.5f * x * (1.0f + erf(x * 0.70710678118654752f));
    case 3: {
        /* 0.5 x (1 + tanh u) written as x * sigmoid(2u): no cancellation in
         * 1 + tanh u, and right at the tails where some tanh never reach 1 */
        float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
        return x / (1.0f + exp(-2.0f * u));
    }
    case 4: return x / (1.0f + exp(-x));
    default: return x;
    }
}

/* A GEMM output (gm, gn) of batch z from its sum, through the epilogue
 * that every GEMM kernel takes (gemm_tiled.cl's arguments, by name: c, d,
 * bias, res with their offsets and strides, alpha, beta; build defines
 * DT_D ACT HAS_C HAS_BIAS HAS_RES). c is read before d is written by the
 * same work-item, so c may be d. */
#define PK_GEMM_VALUE_AT(x, sum, gm_, gn_)                                                               \
    do {                                                                                                   \
        x = alpha * (sum);                                                                                 \
        if (HAS_C) x += beta * PK_LOAD(DT_D, c, c_off + z * c_sb + (gm_) * c_sm + (gn_) * c_sn);           \
        if (HAS_BIAS) x += PK_LOAD(DT_D, bias, bias_off + (gn_) * bias_sn);                                \
        x = pk_act(ACT, x);                                                                                \
        if (HAS_RES) x += PK_LOAD(DT_D, res, res_off + z * res_sb + (gm_) * res_sm + (gn_) * res_sn);      \
    } while (0)
#define PK_GEMM_FINISH_AT(sum, gm_, gn_)                                                                   \
    do {                                                                                                   \
        float x_;                                                                                          \
        PK_GEMM_VALUE_AT(x_, sum, gm_, gn_);                                                               \
        PK_STORE(DT_D, d, d_off + z * d_sb + (gm_) * d_sm + (gn_) * d_sn, x_);                             \
    } while (0)
#define PK_GEMM_FINISH(sum) PK_GEMM_FINISH_AT(sum, gm, gn)
/* Outputs (gm_, gn_) and (gm_, gn_ + 1) of a row inside d, as
 * PK_GEMM_FINISH makes each, stored together where d's columns are
 * contiguous and the pair is aligned (the accumulator layouts of mma.sync
 * and wgmma hold such pairs; element stores cost the TMA tile about a
 * microsecond at M = 128: bench/RESULTS.md, 2026-12-07 14:56) */
#define PK_GEMM_FINISH_PAIR(s0, s1, gm_, gn_)                                                              \
    do {                                                                                                   \
        const long i_ = d_off + z * d_sb + (gm_) * d_sm + (gn_) * d_sn;                                    \
        if ((gn_) + 1 < n && d_sn == 1 && (i_ & 1) == 0) {                                                 \
            float x0_, x1_;                                                                                \
            PK_GEMM_VALUE_AT(x0_, s0, gm_, gn_);                                                           \
            PK_GEMM_VALUE_AT(x1_, s1, gm_, (gn_) + 1);                                                     \
            PK_STORE2(DT_D, d, i_, x0_, x1_);                                                              \
        } else {                                                                                           \
            if ((gn_) < n) PK_GEMM_FINISH_AT(s0, gm_, gn_);                                                \
            if ((gn_) + 1 < n) PK_GEMM_FINISH_AT(s1, gm_, (gn_) + 1);                                      \
        }                                                                                                  \
    } while (0)

/* Attention: the larger of two row maxima of split or warp partials, NaN
 * winning, as in the reference (fmax would drop it). */
inline float pk_attn_merge_max(float a, float b) { return (a > b || isnan(a)) ? a : b; }

/* Attention (attention_prefill.cl, attention_mma.cl): the visible keys of
 * a row at position pos (bottom-right aligned), clipped to the chunk [c0,
 * c1); lo > hi when none. */
inline void pk_attn_window(int valid, long pos, long wl, long wr, long c0, long c1, __local int *lo,
                           __local int *hi)
{
    long a = c0, z = c1 - 1;
    if (wl >= 0 && pos - wl > a) a = pos - wl;
    if (wr >= 0 && pos + wr < z) z = pos + wr;
    if (!valid || a > z) {
        a = 1;
        z = 0;
    }
    *lo = (int)a;
    *hi = (int)z;
}
