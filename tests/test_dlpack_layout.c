/* api/pk_dlpack.h against the DLPack ABI: with the system's dlpack.h
 * (PK_HAVE_DLPACK_H), every struct's size and every field's offset and
 * every enum value it has, compared with ours; always, the layouts the
 * specification gives on an LP64 machine (pointers of 8 bytes), which is
 * also the only check of the versioned form where the system header is
 * older than DLPack 1.0 (Debian 12's is 0.6). */
#include <stddef.h>
#include <stdio.h>

#include "pk_dlpack.h"
#if PK_HAVE_DLPACK_H
#include <dlpack/dlpack.h>
#endif

static int checks, failures;

static void check(int ok, const char *what, long got, long want)
{
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL %s: %ld, want %ld\n", what, got, want);
    }
}

#define EQ(what, got, want) check((long)(got) == (long)(want), what, (long)(got), (long)(want))
#define SAME_FIELD(ours, theirs, f) EQ(#ours "." #f, offsetof(ours, f), offsetof(theirs, f))

int main(void)
{
    if (sizeof(void *) == 8) {
        EQ("sizeof pk_dl_device", sizeof(pk_dl_device), 8);
        EQ("sizeof pk_dl_dtype", sizeof(pk_dl_dtype), 4);
        EQ("pk_dl_tensor.device", offsetof(pk_dl_tensor, device), 8);
        EQ("pk_dl_tensor.ndim", offsetof(pk_dl_tensor, ndim), 16);
        EQ("pk_dl_tensor.dtype", offsetof(pk_dl_tensor, dtype), 20);
        EQ("pk_dl_tensor.shape", offsetof(pk_dl_tensor, shape), 24);
        EQ("pk_dl_tensor.strides", offsetof(pk_dl_tensor, strides), 32);
        EQ("pk_dl_tensor.byte_offset", offsetof(pk_dl_tensor, byte_offset), 40);
        EQ("sizeof pk_dl_tensor", sizeof(pk_dl_tensor), 48);
        EQ("pk_dl_managed.manager_ctx", offsetof(pk_dl_managed, manager_ctx), 48);
        EQ("pk_dl_managed.deleter", offsetof(pk_dl_managed, deleter), 56);
        EQ("sizeof pk_dl_managed", sizeof(pk_dl_managed), 64);
        EQ("pk_dl_managed_versioned.manager_ctx", offsetof(pk_dl_managed_versioned, manager_ctx), 8);
        EQ("pk_dl_managed_versioned.deleter", offsetof(pk_dl_managed_versioned, deleter), 16);
        EQ("pk_dl_managed_versioned.flags", offsetof(pk_dl_managed_versioned, flags), 24);
        EQ("pk_dl_managed_versioned.dl_tensor", offsetof(pk_dl_managed_versioned, dl_tensor), 32);
        EQ("sizeof pk_dl_managed_versioned", sizeof(pk_dl_managed_versioned), 80);
    }
#if PK_HAVE_DLPACK_H
    EQ("sizeof DLDevice", sizeof(pk_dl_device), sizeof(DLDevice));
    SAME_FIELD(pk_dl_device, DLDevice, device_type);
    SAME_FIELD(pk_dl_device, DLDevice, device_id);
    EQ("sizeof DLDataType", sizeof(pk_dl_dtype), sizeof(DLDataType));
    SAME_FIELD(pk_dl_dtype, DLDataType, code);
    SAME_FIELD(pk_dl_dtype, DLDataType, bits);
    SAME_FIELD(pk_dl_dtype, DLDataType, lanes);
    EQ("sizeof DLTensor", sizeof(pk_dl_tensor), sizeof(DLTensor));
    SAME_FIELD(pk_dl_tensor, DLTensor, data);
    SAME_FIELD(pk_dl_tensor, DLTensor, device);
    SAME_FIELD(pk_dl_tensor, DLTensor, ndim);
    SAME_FIELD(pk_dl_tensor, DLTensor, dtype);
    SAME_FIELD(pk_dl_tensor, DLTensor, shape);
    SAME_FIELD(pk_dl_tensor, DLTensor, strides);
    SAME_FIELD(pk_dl_tensor, DLTensor, byte_offset);
    EQ("sizeof DLManagedTensor", sizeof(pk_dl_managed), sizeof(DLManagedTensor));
    SAME_FIELD(pk_dl_managed, DLManagedTensor, dl_tensor);
    SAME_FIELD(pk_dl_managed, DLManagedTensor, manager_ctx);
    SAME_FIELD(pk_dl_managed, DLManagedTensor, deleter);
    EQ("kDLCPU", PK_DL_CPU, kDLCPU);
    EQ("kDLCUDA", PK_DL_CUDA, kDLCUDA);
    EQ("kDLCUDAHost", PK_DL_CUDA_HOST, kDLCUDAHost);
    EQ("kDLOpenCL", PK_DL_OPENCL, kDLOpenCL);
    EQ("kDLVulkan", PK_DL_VULKAN, kDLVulkan);
    EQ("kDLMetal", PK_DL_METAL, kDLMetal);
    EQ("kDLVPI", PK_DL_VPI, kDLVPI);
    EQ("kDLROCM", PK_DL_ROCM, kDLROCM);
    EQ("kDLROCMHost", PK_DL_ROCM_HOST, kDLROCMHost);
    EQ("kDLExtDev", PK_DL_EXT_DEV, kDLExtDev);
    EQ("kDLCUDAManaged", PK_DL_CUDA_MANAGED, kDLCUDAManaged);
    EQ("kDLInt", PK_DL_INT, kDLInt);
    EQ("kDLUInt", PK_DL_UINT, kDLUInt);
    EQ("kDLFloat", PK_DL_FLOAT, kDLFloat);
    EQ("kDLOpaqueHandle", PK_DL_OPAQUE_HANDLE, kDLOpaqueHandle);
    EQ("kDLBfloat", PK_DL_BFLOAT, kDLBfloat);
    EQ("kDLComplex", PK_DL_COMPLEX, kDLComplex);
#if defined(DLPACK_MAJOR_VERSION) /* 1.0 and later: the versioned form, oneAPI and bool */
    EQ("kDLOneAPI", PK_DL_ONEAPI, kDLOneAPI);
    EQ("kDLBool", PK_DL_BOOL, kDLBool);
    EQ("sizeof DLManagedTensorVersioned", sizeof(pk_dl_managed_versioned), sizeof(DLManagedTensorVersioned));
    SAME_FIELD(pk_dl_managed_versioned, DLManagedTensorVersioned, version);
    SAME_FIELD(pk_dl_managed_versioned, DLManagedTensorVersioned, manager_ctx);
    SAME_FIELD(pk_dl_managed_versioned, DLManagedTensorVersioned, deleter);
    SAME_FIELD(pk_dl_managed_versioned, DLManagedTensorVersioned, flags);
    SAME_FIELD(pk_dl_managed_versioned, DLManagedTensorVersioned, dl_tensor);
    EQ("DLPACK_FLAG_BITMASK_READ_ONLY", PK_DL_FLAG_READ_ONLY, DLPACK_FLAG_BITMASK_READ_ONLY);
    EQ("DLPACK_FLAG_BITMASK_IS_COPIED", PK_DL_FLAG_IS_COPIED, DLPACK_FLAG_BITMASK_IS_COPIED);
#endif
    printf("dlpack layout: %d checks against the system's dlpack.h (DLPack %s) and the specification, %d failed\n",
           checks,
#if defined(DLPACK_MAJOR_VERSION)
           "1.x",
#else
           "0.x, legacy structs",
#endif
           failures);
#else
    printf("dlpack layout: %d checks against the specification only (no dlpack.h here), %d failed\n", checks,
           failures);
#endif
    return failures != 0;
}
