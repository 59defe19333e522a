/* The one translation unit nvcc builds into the embedded fatbin: every
 * kernel file is included here, so there is one module to load per device.
 * Entry points are extern "C" so the host finds them by plain name. */
#include "common.cuh"

#include "gemm.cu"
#include "attention.cu"
#include "elementwise.cu"
