/* The elementwise kernels, HIP's translation unit: one source with CUDA's
 * (kernels_gpu/elementwise.h). */
#include "../kernels_gpu/elementwise.h"
