/* f32 <-> f16/bf16 conversions shared by the core, the host side of every
 * backend, the reference backend and the conformance suite: one definition
 * so that every piece rounds inputs the same way (round to nearest even,
 * NaN kept quiet, overflow to inf). */
#ifndef PK_HALF_H
#define PK_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t pk__f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float pk__bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline uint16_t pk__f32_to_bf16(float f)
{
    uint32_t u = pk__f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static inline float pk__bf16_to_f32(uint16_t h) { return pk__bits_f32((uint32_t)h << 16); }

static inline uint16_t pk__f32_to_f16(float f)
{
    uint32_t u = pk__f32_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu)); /* NaN */
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to >= 65520: inf */
    if (a < 0x38800000u) {
        /* subnormal or zero in f16: scale into the integer range and round */
        if (a < 0x33000000u) return (uint16_t)sign; /* < 2^-25: rounds to 0 */
        uint32_t e = a >> 23;
        uint32_t m = (a & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e; /* 14..24 */
        uint32_t q = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (q & 1u))) q++;
        return (uint16_t)(sign | q);
    }
    uint32_t r = a - 0x38000000u; /* rebias exponent 127 -> 15 */
    r += 0xfffu + ((r >> 13) & 1u);
    return (uint16_t)(sign | (r >> 13));
}

static inline float pk__f16_to_f32(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu;
    uint32_t m = h & 0x3ffu;
    if (e == 0x1fu) return pk__bits_f32(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (m == 0) return pk__bits_f32(sign);
        float f = (float)m * (1.0f / 16777216.0f); /* m * 2^-24 */
        return sign ? -f : f;
    }
    return pk__bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

/* Reads element i of a buffer of dtype t (0 f32, 1 f16, 2 bf16) as f32. */
static inline float pk__load_f32(const void *base, int t, int64_t i)
{
    if (t == 0) return ((const float *)base)[i];
    if (t == 1) return pk__f16_to_f32(((const uint16_t *)base)[i]);
    return pk__bf16_to_f32(((const uint16_t *)base)[i]);
}

static inline void pk__store_f32(void *base, int t, int64_t i, float v)
{
    if (t == 0) ((float *)base)[i] = v;
    else if (t == 1) ((uint16_t *)base)[i] = pk__f32_to_f16(v);
    else ((uint16_t *)base)[i] = pk__f32_to_bf16(v);
}

#endif /* PK_HALF_H */
