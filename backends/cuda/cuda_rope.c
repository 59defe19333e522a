/* RoPE on CUDA: one launch over q and k (kernels_cuda/ew_rope.cuh). The
 * positions and the host-computed inverse frequencies go to the device
 * through scratch, ordered on the stream before the kernel. */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_ew.h"
#include "pk_rope_freq.h"

/* Threads the launch aims for; with fewer (token, pair) items than this
 * the heads of a token are shared out among several threads. */
#define ROPE_TARGET_ITEMS 65536
#define ROPE_BLOCK 256
#define ROPE_MAX_BLOCKS (1u << 20) /* a grid-stride loop covers the rest */

pk_status pk_cu_rope(void *dev, const pk_rope_problem *p, pk_msg *msg)
{
    pk_cu_device *d = dev;
    int64_t tokens = p->batch * p->seq, half = p->rotary_dim / 2, heads = p->hq + (p->k.mem ? p->hk : 0);
    if (tokens == 0 || half == 0 || heads == 0) return PK_SUCCESS;
    size_t pos_bytes = ((size_t)tokens * sizeof(int32_t) + 15) & ~(size_t)15, freq_bytes = (size_t)half * sizeof(float);

    float *inv_freq = malloc(freq_bytes);
    if (!inv_freq) return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory");
    pk_rope_inv_freq(p->theta, p->rotary_dim, inv_freq);
    pk_ew_rope_args a = {
        .tokens = tokens, .seq = p->seq, .hq = p->hq, .hk = p->k.mem ? p->hk : 0, .half = half,
        .interleaved = p->interleaved, .q = pk_cu_ew_view(&p->q), .k = pk_cu_ew_view(&p->k),
    };
    CUdeviceptr base, pos, freq;
    pk_status s = pk_cu_scratch(d, pos_bytes + freq_bytes, &base, msg); /* once, for both tables */
    if (s == PK_SUCCESS)
        s = pk_cu_upload_scratch(d, 0, p->positions, (size_t)tokens * sizeof(int32_t), &pos, msg);
    if (s == PK_SUCCESS) s = pk_cu_upload_scratch(d, pos_bytes, inv_freq, freq_bytes, &freq, msg);
    free(inv_freq);
    if (s != PK_SUCCESS) return s;
    a.tab_pos = (uint64_t)pos;
    a.tab_freq = (uint64_t)freq;

    int64_t pairs = tokens * half, share = (ROPE_TARGET_ITEMS + pairs - 1) / pairs;
    a.share = share < heads ? share : heads;
    uint64_t blocks = ((uint64_t)(pairs * a.share) + ROPE_BLOCK - 1) / ROPE_BLOCK;
    unsigned grid[3] = {(unsigned)(blocks < ROPE_MAX_BLOCKS ? blocks : ROPE_MAX_BLOCKS), 1, 1};
    unsigned block[3] = {ROPE_BLOCK, 1, 1};
    char name[32];
    snprintf(name, sizeof name, "pk_ew_rope_%s", p->q.dtype == PK_F32 ? "f32" : p->q.dtype == PK_F16 ? "f16" : "bf16");
    CUfunction f;
    if ((s = pk_cu_function(d, name, &f, msg)) != PK_SUCCESS) return s;
    void *args[] = {&a};
    return pk_cu_launch(d, f, grid, block, 0, args, msg);
}
