/* The tensor-map templates of the TMA GEMM on NVIDIA's OpenCL.
 *
 * A Hopper TMA copy names a 128-byte tensor map that only the CUDA driver
 * encodes (cuTensorMapEncodeTiled); NVIDIA's OpenCL has no such call. Of
 * what a map holds, the tensor's address, extents and row stride are the
 * operand's, and a work-group can put them into a copy of a map itself
 * (tensormap.replace: kernels_cl/nv_ptx.cl pk_tma_maps_set); the rest (type,
 * box, swizzle, L2 promotion, fill) is the kernel's. On the H100 (driver
 * 580) a map encoded with a placeholder tensor and given the real one on
 * the device was byte for byte the driver's own encoding of the real one,
 * and copied exactly. So the driver encodes templates here, once per
 * device, with a placeholder tensor.
 *
 * libcuda is opened at run time, not linked: the OpenCL module must load
 * where there is none (PoCL, AMD, Intel). The encoder answers
 * CUDA_ERROR_NOT_INITIALIZED before cuInit and CUDA_ERROR_INVALID_CONTEXT
 * with no current context, so the GPU's primary context is retained,
 * pushed for the encoding, popped and released: a context the calling
 * thread had current stays so, and unless the application holds the
 * primary context itself nothing stays allocated on the GPU. The context
 * is that of the GPU this OpenCL device is, found by PCI location, since
 * CUDA's and OpenCL's device orders need not agree.
 *
 * Once cuInit has run, libcuda stays loaded for the process: the driver
 * then has threads and exit handlers of its own, which must not outlive
 * its code. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "opencl_tma.h"

/* cuda.h's types and values, as CUDA 13.0's cuda.h defines them (not
 * included: no build dependency on the toolkit) */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;
#define CU_TENSOR_MAP_DATA_TYPE_FLOAT16 6
#define CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 9
#define CU_TENSOR_MAP_INTERLEAVE_NONE 0
#define CU_TENSOR_MAP_SWIZZLE_64B 2
#define CU_TENSOR_MAP_L2_PROMOTION_L2_128B 2
#define CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE 0
#define CU_DEVICE_ATTRIBUTE_PCI_BUS_ID 33
#define CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID 34
#define CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID 50

/* cl_khr_pci_bus_info (not in every CL/cl_ext.h), and the older
 * cl_nv_device_attribute_query PCI queries: bus; slot, device << 3 |
 * function; domain (newer drivers only) */
#ifndef CL_DEVICE_PCI_BUS_INFO_KHR
#define CL_DEVICE_PCI_BUS_INFO_KHR 0x410F
#endif
#define PK_CL_DEVICE_PCI_BUS_ID_NV 0x4008
#define PK_CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#define PK_CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A

/* the placeholder tensor of every template: the device replaces all three */
#define TPL_ADDRESS 0x100000u
#define TPL_EXTENT 4096u
#define TPL_ROW_BYTES 8192u

typedef CUresult (*encode_tiled_fn)(void *map, int type, cuuint32_t rank, void *address, const cuuint64_t *dim,
                                    const cuuint64_t *stride, const cuuint32_t *box, const cuuint32_t *element_stride,
                                    int interleave, int swizzle, int l2_promotion, int oob_fill);

static struct {
    void *lib;
    CUresult (*init)(unsigned flags);
    CUresult (*device_get_count)(int *count);
    CUresult (*device_get)(CUdevice *dev, int ordinal);
    CUresult (*device_get_attribute)(int *value, int attribute, CUdevice dev);
    CUresult (*primary_retain)(CUcontext *ctx, CUdevice dev);
    CUresult (*primary_release)(CUdevice dev);
    CUresult (*ctx_push)(CUcontext ctx);
    CUresult (*ctx_pop)(CUcontext *ctx);
    encode_tiled_fn encode_tiled;
} cu;

/* libcuda's entry points into cu (kept once loaded); 1, or 0 and why */
static int cu_load(char *why, size_t n)
{
    if (cu.lib) return 1;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        return snprintf(why, n, "the CUDA driver did not load (%s)", e ? e : "libcuda.so.1"), 0;
    }
    /* the names cuda.h maps these to (its _v2 #defines) */
    static const char *const names[] = {"cuInit",
                                        "cuDeviceGetCount",
                                        "cuDeviceGet",
                                        "cuDeviceGetAttribute",
                                        "cuDevicePrimaryCtxRetain",
                                        "cuDevicePrimaryCtxRelease_v2",
                                        "cuCtxPushCurrent_v2",
                                        "cuCtxPopCurrent_v2",
                                        "cuTensorMapEncodeTiled"};
    void *sym[sizeof names / sizeof names[0]];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!(sym[i] = dlsym(lib, names[i]))) {
            dlclose(lib);
            return snprintf(why, n, "the CUDA driver (libcuda.so.1) has no %s (older than CUDA 12)", names[i]), 0;
        }
    cu.init = (CUresult(*)(unsigned))sym[0];
    cu.device_get_count = (CUresult(*)(int *))sym[1];
    cu.device_get = (CUresult(*)(CUdevice *, int))sym[2];
    cu.device_get_attribute = (CUresult(*)(int *, int, CUdevice))sym[3];
    cu.primary_retain = (CUresult(*)(CUcontext *, CUdevice))sym[4];
    cu.primary_release = (CUresult(*)(CUdevice))sym[5];
    cu.ctx_push = (CUresult(*)(CUcontext))sym[6];
    cu.ctx_pop = (CUresult(*)(CUcontext *))sym[7];
    cu.encode_tiled = (encode_tiled_fn)sym[8];
    cu.lib = lib;
    return 1;
}

/* dev's PCI location: 1 (*domain_known 0 where only the bus and device
 * are told), or 0 and why */
static int cl_pci_location(cl_device_id dev, cl_uint *domain, cl_uint *bus, cl_uint *device, int *domain_known,
                           char *why, size_t n)
{
    /* cl_device_pci_bus_info_khr's layout */
    struct {
        cl_uint domain, bus, device, function;
    } info;
    if (clGetDeviceInfo(dev, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof info, &info, NULL) == CL_SUCCESS) {
        *domain = info.domain, *bus = info.bus, *device = info.device, *domain_known = 1;
        return 1;
    }
    cl_uint b = 0, slot = 0, d = 0;
    if (clGetDeviceInfo(dev, PK_CL_DEVICE_PCI_BUS_ID_NV, sizeof b, &b, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(dev, PK_CL_DEVICE_PCI_SLOT_ID_NV, sizeof slot, &slot, NULL) != CL_SUCCESS)
        return snprintf(why, n, "the OpenCL device tells no PCI location (no cl_khr_pci_bus_info), so its CUDA device "
                                "is not known"),
               0;
    *domain_known = clGetDeviceInfo(dev, PK_CL_DEVICE_PCI_DOMAIN_ID_NV, sizeof d, &d, NULL) == CL_SUCCESS;
    *domain = d, *bus = b & 0xffu, *device = (slot >> 3) & 0x1fu;
    return 1;
}

/* the CUDA device at PCI location (domain, bus, device): 1, or 0 and why */
static int cu_device_at(cl_uint domain, cl_uint bus, cl_uint device, int domain_known, CUdevice *out, char *why,
                        size_t n)
{
    int count = 0, found = 0;
    const CUresult r = cu.device_get_count(&count);
    if (r) return snprintf(why, n, "cuDeviceGetCount: CUresult %d", r), 0;
    for (int i = 0; i < count; i++) {
        CUdevice d = 0;
        int dom = 0, b = -1, s = -1;
        if (cu.device_get(&d, i) || cu.device_get_attribute(&dom, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d) ||
            cu.device_get_attribute(&b, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d) ||
            cu.device_get_attribute(&s, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d))
            continue;
        if ((cl_uint)b == bus && (cl_uint)s == device && (!domain_known || (cl_uint)dom == domain) && !found++)
            *out = d;
    }
    if (found == 1) return 1;
    if (found)
        return snprintf(why, n,
                        "%d CUDA devices at PCI bus %02x, device %02x, and the OpenCL device tells no PCI domain",
                        found, bus, device),
               0;
    return snprintf(why, n,
                    "no CUDA device at the OpenCL device's PCI location %04x:%02x:%02x (of %d the CUDA driver sees; "
                    "CUDA_VISIBLE_DEVICES may hide it)",
                    domain, bus, device, count),
           0;
}

/* the templates, with dev's primary context current */
static int encode_all(unsigned char out[PK_TMA_TEMPLATES][128], char *why, size_t n)
{
    for (int t = 0; t < PK_TMA_TEMPLATES; t++) {
        const int dt = 1 + t / PK_TMA_HEIGHTS, rows = 32 << (t % PK_TMA_HEIGHTS);
        if (PK_TMA_TEMPLATE(dt, rows) != t) return snprintf(why, n, "template %d is not where cl_args.h says", t), 0;
        _Alignas(128) uint64_t map[PK_TMA_MAP_LONGS];
        const cuuint64_t dim[2] = {TPL_EXTENT, TPL_EXTENT}, stride[1] = {TPL_ROW_BYTES};
        const cuuint32_t box[2] = {PK_TMA_BOX_K, (cuuint32_t)rows}, step[2] = {1, 1};
        const CUresult r = cu.encode_tiled(
            map, dt == 1 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2,
            (void *)(uintptr_t)TPL_ADDRESS, dim, stride, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (r)
            return snprintf(why, n, "cuTensorMapEncodeTiled (%s, %d x %d box): CUresult %d", dt == 1 ? "f16" : "bf16",
                            PK_TMA_BOX_K, rows, r),
                   0;
        memcpy(out[t], map, 128);
    }
    return 1;
}

int pk_cl_tma_encode_templates(cl_device_id dev, unsigned char out[PK_TMA_TEMPLATES][128], char *why, size_t n)
{
    _Static_assert(PK_TMA_MAP_LONGS * 8 == 128, "a tensor map is 128 bytes");
    cl_uint domain = 0, bus = 0, device = 0;
    int domain_known = 0;
    if (!cl_pci_location(dev, &domain, &bus, &device, &domain_known, why, n) || !cu_load(why, n)) return 0;
    CUresult r = cu.init(0);
    if (r) return snprintf(why, n, "cuInit: CUresult %d", r), 0;
    CUdevice cd = 0;
    if (!cu_device_at(domain, bus, device, domain_known, &cd, why, n)) return 0;
    CUcontext ctx = NULL;
    if ((r = cu.primary_retain(&ctx, cd))) return snprintf(why, n, "cuDevicePrimaryCtxRetain: CUresult %d", r), 0;
    int ok = 0;
    if ((r = cu.ctx_push(ctx))) {
        snprintf(why, n, "cuCtxPushCurrent: CUresult %d", r);
    } else {
        ok = encode_all(out, why, n);
        CUcontext popped = NULL;
        if ((r = cu.ctx_pop(&popped)) && ok) ok = 0, snprintf(why, n, "cuCtxPopCurrent: CUresult %d", r);
    }
    if ((r = cu.primary_release(cd)) && ok) ok = 0, snprintf(why, n, "cuDevicePrimaryCtxRelease: CUresult %d", r);
    return ok;
}
