/* Split-KV decode, second pass: merges the per-chunk partials that
 * pk_attn_split (attention_prefill.cl) wrote, in a fixed order (no atomics,
 * so the result is the same bit for bit on every run).
 *
 * Each chunk s left an unnormalised accumulator acc_s with its running max
 * m_s and sum l_s, in base 2 (scores carry a factor log2 e). With
 * M = max m_s and w_s = exp2(m_s - M):
 *   o = sum w_s acc_s / sum w_s l_s,  lse = (M + log2(sum w_s l_s)) ln 2.
 * A row whose chunks are all empty (M = -inf) gets zeros and lse -inf.
 *
 * One work-item per output element; rows = ((b * hq + h) * sq + i).
 * Build defines: DT (dtype of o), D (head dim). */

typedef PK_TYPE(DT) pk_t;

inline float pk_attn_merge_max(float a, float b) { return (a > b || isnan(a)) ? a : b; }

__kernel void pk_attn_merge(__global const float *part, long ml_off, long acc_off, int n_splits, long n_rows,
                            __global pk_t *o, __global float *lse, long o_off, long lse_off, long4 os, long4 ls,
                            int sq, int hq)
{
    long x = get_global_id(0);
    if (x >= n_rows * D) return;
    long row = x / D;
    int c = (int)(x % D);
    __global const float *ml = part + ml_off + row * n_splits * 2;
    __global const float *acc = part + acc_off + row * n_splits * D + c;

    float big = -INFINITY;
    for (int s = 0; s < n_splits; s++) big = pk_attn_merge_max(big, ml[2 * s]);
    float sum = 0.0f, out = 0.0f;
    if (big != -INFINITY) {
        for (int s = 0; s < n_splits; s++) {
            float w = exp2(ml[2 * s] - big);
            sum += w * ml[2 * s + 1];
            out += w * acc[(long)s * D];
        }
        out /= sum;
    }

    int i = (int)(row % sq);
    int h = (int)(row / sq % hq);
    long b = row / sq / hq;
    PK_STORE(DT, o, o_off + b * os.s0 + i * os.s1 + h * os.s2 + c * os.s3, out);
    if (lse && c == 0)
        lse[lse_off + b * ls.s0 + h * ls.s1 + i * ls.s2] = big == -INFINITY ? -INFINITY : (big + log2(sum)) * M_LN2_F;
}
