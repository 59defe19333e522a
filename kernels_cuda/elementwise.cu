/* The elementwise kernels, CUDA's translation unit: one source with HIP's
 * (kernels_gpu/elementwise.h). */
#include "../kernels_gpu/elementwise.h"
