/* The rope types of transformers' modeling_rope_utils, in double. */
#include "llama_rope.h"

#include <math.h>

/* YaRN's boundary: the dimension whose wavelength turns num_rotations
 * times over the original context. */
static double yarn_dim(double num_rotations, double dim, double base, double orig)
{
    return dim * log(orig / (num_rotations * 2 * M_PI)) / (2 * log(base));
}

static void yarn(const llama_rope_config *r, int64_t dim, float *out)
{
    const double orig = (double)r->original_max_position_embeddings;
    double low = yarn_dim(r->beta_fast, (double)dim, r->theta, orig),
           high = yarn_dim(r->beta_slow, (double)dim, r->theta, orig);
    if (r->truncate) {
        low = floor(low);
        high = ceil(high);
    }
    low = fmax(low, 0);
    high = fmin(high, (double)(dim - 1));
    if (low == high) high += 0.001; /* as transformers does, against a zero width */
    for (int64_t i = 0; i < dim / 2; i++) {
        const double pos_freq = pow(r->theta, (double)(2 * i) / (double)dim);
        const double ramp = fmin(fmax(((double)i - low) / (high - low), 0.0), 1.0), extrap = 1 - ramp;
        out[i] = (float)(1 / (r->factor * pos_freq) * (1 - extrap) + 1 / pos_freq * extrap);
    }
}

static double llama3(const llama_rope_config *r, double f)
{
    const double orig = (double)r->original_max_position_embeddings, wavelen = 2 * M_PI / f;
    if (wavelen < orig / r->high_freq_factor) return f;
    if (wavelen > orig / r->low_freq_factor) return f / r->factor;
    const double smooth = (orig / wavelen - r->low_freq_factor) / (r->high_freq_factor - r->low_freq_factor);
    return (1 - smooth) * f / r->factor + smooth * f;
}

void llama_rope_inv_freq(const llama_config *c, float *inv_freq, double *qk_scale)
{
    const llama_rope_config *r = &c->rope;
    const int64_t dim = c->head_dim;
    *qk_scale = 1.0;
    if (r->type == LLAMA_ROPE_YARN) {
        yarn(r, dim, inv_freq);
        *qk_scale = r->attention_factor * r->attention_factor;
        return;
    }
    for (int64_t i = 0; i < dim / 2; i++) {
        const double f = 1 / pow(r->theta, (double)(2 * i) / (double)dim);
        /* dynamic equals default up to max_position_embeddings, past which
         * no context is opened */
        inv_freq[i] = (float)(r->type == LLAMA_ROPE_LINEAR   ? f / r->factor
                              : r->type == LLAMA_ROPE_LLAMA3 ? llama3(r, f)
                                                             : f);
    }
}
