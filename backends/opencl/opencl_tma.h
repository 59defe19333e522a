/* The tensor-map templates of the TMA GEMM on NVIDIA's OpenCL
 * (kernels_cl/cl_args.h PK_TMA_TEMPLATE): encoded by the CUDA driver
 * (opencl_tma.c), checked by a probe on the device
 * (opencl_ptx_probe.c). */
#ifndef PK_OPENCL_TMA_H
#define PK_OPENCL_TMA_H

#include <stddef.h>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "../../kernels_cl/cl_args.h"

/* The PK_TMA_TEMPLATES maps of cl_args.h, 128 bytes each in template
 * order, as the CUDA driver encodes them for the GPU that is OpenCL
 * device dev: 1, or 0 and why (no libcuda, no CUDA device at dev's PCI
 * location, a driver call that failed, with its CUresult). Call it under
 * a lock of the caller's: it keeps libcuda's entry points in static
 * storage. */
int pk_cl_tma_encode_templates(cl_device_id dev, unsigned char out[PK_TMA_TEMPLATES][128], char *why, size_t n);

/* Runs ptx_probe.cl's TMA kernel on dev with the templates tpl: 1 if
 * every template's copy, its tensor put in on the device
 * (pk_tma_maps_set), brought back exactly the elements inside the tensor
 * and zeros outside it, else 0 and why. */
int pk_cl_tma_probe(cl_platform_id plat, cl_device_id dev, const unsigned char tpl[PK_TMA_TEMPLATES][128], char *why,
                    size_t n);

#endif
