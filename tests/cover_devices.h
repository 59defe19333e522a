/* The devices the coverage tests plan for: what each backend's plans read
 * from a device (backends/cuda/cuda_backend.c, hip/hip_backend.c,
 * opencl/opencl_backend.c), as those devices report it. */
#ifndef PK_COVER_DEVICES_H
#define PK_COVER_DEVICES_H

#include <stddef.h>

#include "hip_target.h"
#include "portkern.h"

/* CUDA: compute capability, multiprocessors, opt-in shared memory per
 * block, and whether the sm_90a fatbins (gemm_sm90, attention_sm90:
 * wgmma) load there. */
typedef struct cover_cuda_device {
    const char *name;
    int sm, sm_count;
    size_t smem_optin;
    int has_wgmma;
} cover_cuda_device;

static const cover_cuda_device cover_cuda_devices[] = {
    {"H200 (sm_90a)", 90, 132, 227 * 1024, 1},
    {"A100 (sm_80)", 80, 108, 163 * 1024, 0},
};

/* HIP: hip_target.h, as hip_backend.c fills it */
typedef struct cover_hip_device {
    const char *name;
    pk_hip_target t;
} cover_hip_device;

static const cover_hip_device cover_hip_devices[] = {
    {"H200 (HIP on NVIDIA)", {"sm_90", 32, 132, 227 * 1024, 0, 1, 0}},
    {"MI250X GCD (gfx90a)", {"gfx90a", 64, 110, 65536, 1, 0, 0}},
    {"MI300X (gfx942)", {"gfx942", 64, 304, 65536, 1, 0, 0}},
    {"RX 6900 XT (gfx1030)", {"gfx1030", 32, 80, 65536, 0, 0, 0}},
    {"RX 7900 XTX (gfx1100)", {"gfx1100", 32, 96, 65536, 0, 0, 11}},
    {"RX 9070 XT (gfx1201)", {"gfx1201", 32, 64, 65536, 0, 0, 12}},
    {"H200 (HIP on NVIDIA, PORTKERN_HIP_WMMA=11)", {"sm_90", 32, 132, 227 * 1024, 0, 1, 11}},
    {"H200 (HIP on NVIDIA, PORTKERN_HIP_WMMA=12)", {"sm_90", 32, 132, 227 * 1024, 0, 1, 12}},
};

/* OpenCL: the device info the plans read, and CL_DEVICE_MAX_WORK_GROUP_SIZE. */
typedef struct cover_cl_device {
    const char *name;
    pk_device_info info;
    size_t max_work_group;
    int wgmma; /* the device runs wgmma from OpenCL (pk_cl_params_wgmma) */
    int tma;   /* and TMA copies (pk_cl_params_tma) */
} cover_cl_device;

static const cover_cl_device cover_cl_devices[] = {
    /* PoCL on this CI machine's two cores */
    {"PoCL (2-core CPU)",
     {.name = "pthread-skylake-avx512", .vendor = "AuthenticAMD", .local_mem_bytes = 1024 * 1024,
      .compute_units = 2, .simd_width = 1, .is_cpu = 1},
     4096, 0, 0},
    {"H200 (NVIDIA OpenCL)",
     {.name = "NVIDIA H200", .vendor = "NVIDIA Corporation", .local_mem_bytes = 48 * 1024,
      .compute_units = 132, .simd_width = 32, .is_cpu = 0, .matrix_units = 1},
     1024, 0, 0},
    {"H200 (NVIDIA OpenCL, wgmma)",
     {.name = "NVIDIA H200", .vendor = "NVIDIA Corporation", .local_mem_bytes = 48 * 1024,
      .compute_units = 132, .simd_width = 32, .is_cpu = 0, .matrix_units = 1},
     1024, 1, 0},
    {"H200 (NVIDIA OpenCL, wgmma and TMA)",
     {.name = "NVIDIA H200", .vendor = "NVIDIA Corporation", .local_mem_bytes = 48 * 1024,
      .compute_units = 132, .simd_width = 32, .is_cpu = 0, .matrix_units = 1},
     1024, 1, 1},
};

#define COVER_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

#endif
