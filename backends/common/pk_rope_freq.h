/* RoPE's inverse frequencies, shared by the GPU backends' host code. */
#ifndef PK_ROPE_FREQ_H
#define PK_ROPE_FREQ_H

#include <stdint.h>

/* out[i] = theta^(-2i / rotary_dim) for i < rotary_dim / 2, computed with
 * powf on the host exactly as the f32 reference does: a device pow may be
 * several ulp off (OpenCL allows 16), and the error grows with position. */
void pk_rope_inv_freq(float theta, int64_t rotary_dim, float *out);

#endif /* PK_ROPE_FREQ_H */
