/* What the HIP plans need to know about a device. Plain C without HIP
 * headers, so that the plans (hip_gemm_plan.c, hip_attention_plan.c) are
 * unit-tested on any machine with made-up targets. */
#ifndef PK_HIP_TARGET_H
#define PK_HIP_TARGET_H

#include <stddef.h>
#include <string.h>

typedef struct pk_hip_target {
    char arch[32];       /* "gfx90a", "gfx942", "gfx1100", ...; "sm_90" for HIP on NVIDIA */
    int wave_size;       /* 64 on CDNA, 32 on RDNA and NVIDIA: never assume either */
    int cu_count;        /* compute units (multiprocessors on NVIDIA) */
    size_t lds_bytes;    /* max dynamic LDS (shared memory) per block */
    int has_mfma;        /* matrix cores the MFMA kernels use (pk_hip_arch_mfma) */
    int platform_nvidia; /* built with -Dhip_platform=nvidia: no AMD-only kernels */
    int wmma;            /* RDNA matrix cores the WMMA kernels use: 11 (gfx11), 12 (gfx12), 0 none; on
                            NVIDIA PORTKERN_HIP_WMMA=11 or 12 picks those kernels with the instruction
                            emulated, to check them there */
} pk_hip_target;

/* Whether the MFMA kernels are built and picked for an AMD architecture:
 * CDNA2 (gfx90a), CDNA3 (gfx940-942), CDNA4 (gfx950, which keeps CDNA3's
 * v_mfma_f32_32x32x8 forms). kernels_gpu/gpu_dialect.h's PK_HIP_MFMA says
 * the same to the compiler. */
static inline int pk_hip_arch_mfma(const char *arch)
{
    return !strcmp(arch, "gfx90a") || !strncmp(arch, "gfx94", 5) || !strncmp(arch, "gfx95", 5);
}

#endif
