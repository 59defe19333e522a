/* What the tensor-core attention kernels of every backend (CUDA's
 * attention_mma.cuh, OpenCL's attention_mma.cl) ask of a problem's
 * layout: 16-bit Q, K and V whose head rows are contiguous and start on
 * 16 bytes, so that every K and V row moves in 16-byte copies (cp.async)
 * and every fragment is one ldmatrix. Each backend adds what its own
 * memory needs (CUDA: the device pointer's alignment; OpenCL: head dims
 * its kernel is built for). Plain C, unit-tested on any machine. */
#ifndef PK_ATTN_LAYOUT_H
#define PK_ATTN_LAYOUT_H

#include "backend.h"

int pk_attn_mma_rows(const pk_attention_problem *p);

#endif
