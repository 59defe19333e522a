#include "pk_rope_freq.h"

#include <math.h>

void pk_rope_inv_freq(float theta, int64_t rotary_dim, float *out)
{
    for (int64_t i = 0; i < rotary_dim / 2; i++)
        out[i] = powf(theta, -(float)(2 * i) / (float)rotary_dim);
}
