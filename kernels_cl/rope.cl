/* Rotary embedding, in place on q and k in one launch.
 *
 * Build options: DT, the dtype code of q and k.
 *
 * A work-item owns one rotation pair i of one token and walks a share of
 * that token's heads (q heads first, then k heads), so cos and sin are
 * computed once per (token, pair) and reused over the heads it walks.
 * Neighbouring work-items take neighbouring pairs, so their accesses are
 * contiguous. The flat index runs in a grid-stride loop.
 *
 * pos holds the positions (int32, one per token). The inverse frequencies
 * (rotary_dim / 2 of them) are freq[freq_off + i * freq_st]: the caller's
 * table, or those the host computed exactly as the f32 reference does,
 * written after the positions in the same buffer. */

#define PK_T __global PK_TYPE(DT)

inline void pk_rope_pair(PK_T *p, long base, long c0, long c1, float cs, float sn)
{
    float x0 = PK_LOAD(DT, p, base + c0), x1 = PK_LOAD(DT, p, base + c1);
    PK_STORE(DT, p, base + c0, x0 * cs - x1 * sn);
    PK_STORE(DT, p, base + c1, x0 * sn + x1 * cs);
}

__kernel void pk_rope(long tokens, long seq, long hq, long hk, long pairs, long share, int interleaved,
                      PK_T *q, long q_off, long4 q_st, PK_T *k, long k_off, long4 k_st,
                      __global const int *pos, __global const float *freq, long freq_off, long freq_st)
{
    const long items = tokens * share * pairs;
    for (long idx = get_global_id(0); idx < items; idx += get_global_size(0)) {
        const long i = idx % pairs, t = idx / pairs;
        const long first_head = t % share, token = t / share;
        const long b = token / seq, s = token % seq;
        const float angle = (float)pos[token] * freq[freq_off + i * freq_st];
        const float cs = cos(angle), sn = sin(angle);
        const long c0 = interleaved ? 2 * i : i, c1 = interleaved ? 2 * i + 1 : i + pairs;
        for (long h = first_head; h < hq + hk; h += share) {
            if (h < hq)
                pk_rope_pair(q, q_off + b * q_st.s0 + s * q_st.s1 + h * q_st.s2, c0 * q_st.s3, c1 * q_st.s3, cs,
                             sn);
            else
                pk_rope_pair(k, k_off + b * k_st.s0 + s * k_st.s1 + (h - hq) * k_st.s2, c0 * k_st.s3,
                             c1 * k_st.s3, cs, sn);
        }
    }
}
