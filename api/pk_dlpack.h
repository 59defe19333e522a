/* DLPack, the tensor-exchange ABI that PyTorch, CuPy, JAX and NumPy speak
 * (https://dmlc.github.io/dlpack/latest/c_api.html), declared here under
 * portkern's own names so that this header never collides with a dlpack.h
 * in the same translation unit: the layouts are the published ABI, not
 * the names. tests/test_dlpack_layout.c checks them field by field against
 * the system's dlpack.h where there is one (Debian: libdlpack-dev, DLPack
 * 0.6, which has the legacy structs only); the versioned form (DLPack 1.0)
 * is declared from the specification.
 *
 * Plain C, no portkern types: a caller may include it alone. */
#ifndef PK_DLPACK_H
#define PK_DLPACK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* DLDeviceType: where the data lives (values of the ABI) */
enum {
    PK_DL_CPU = 1,
    PK_DL_CUDA = 2,
    PK_DL_CUDA_HOST = 3,
    PK_DL_OPENCL = 4,
    PK_DL_VULKAN = 7,
    PK_DL_METAL = 8,
    PK_DL_VPI = 9,
    PK_DL_ROCM = 10,
    PK_DL_ROCM_HOST = 11,
    PK_DL_EXT_DEV = 12,
    PK_DL_CUDA_MANAGED = 13,
    PK_DL_ONEAPI = 14
};

/* DLDataTypeCode */
enum { PK_DL_INT = 0, PK_DL_UINT = 1, PK_DL_FLOAT = 2, PK_DL_OPAQUE_HANDLE = 3, PK_DL_BFLOAT = 4, PK_DL_COMPLEX = 5, PK_DL_BOOL = 6 };

/* DLDevice */
typedef struct pk_dl_device {
    int32_t device_type; /* PK_DL_CPU, ... */
    int32_t device_id;
} pk_dl_device;

/* DLDataType: `lanes` elements of `bits` bits each of kind `code` */
typedef struct pk_dl_dtype {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} pk_dl_dtype;

/* DLTensor: strides and byte_offset in elements and bytes; strides NULL
 * means compact row-major */
typedef struct pk_dl_tensor {
    void *data;
    pk_dl_device device;
    int32_t ndim;
    pk_dl_dtype dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} pk_dl_tensor;

/* DLManagedTensor (legacy, unversioned): the producer's deleter frees it */
typedef struct pk_dl_managed {
    pk_dl_tensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct pk_dl_managed *self);
} pk_dl_managed;

/* DLPackVersion and DLManagedTensorVersioned (DLPack 1.0 on) */
typedef struct pk_dl_version {
    uint32_t major;
    uint32_t minor;
} pk_dl_version;

#define PK_DL_FLAG_READ_ONLY (UINT64_C(1) << 0)
#define PK_DL_FLAG_IS_COPIED (UINT64_C(1) << 1)

typedef struct pk_dl_managed_versioned {
    pk_dl_version version;
    void *manager_ctx;
    void (*deleter)(struct pk_dl_managed_versioned *self);
    uint64_t flags;
    pk_dl_tensor dl_tensor;
} pk_dl_managed_versioned;

#ifdef __cplusplus
}
#endif

#endif
