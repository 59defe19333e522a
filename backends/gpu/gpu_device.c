/* What a CUDA-family backend's start, open and close share between CUDA
 * and HIP: the driver and its devices, driver results as statuses, the
 * embedded kernel images, unloading what open loaded, and a device fault
 * raised on purpose. */
#include <stdio.h>
#include <string.h>

#include "gpu_vendor.h"
#include "pk_fault.h"

pk_status pk_gpu_check(pk_gpu_result r, const char *what, pk_msg *msg)
{
    if (r == PK_GPU_OK) return PK_SUCCESS;
    pk_status s = PK_ERR_DEVICE_FAILURE;
    if (r == PK_GPU_ERR_OOM) s = PK_ERR_OUT_OF_MEMORY;
    else if (PK_GPU_ERR_INTERNAL(r)) s = PK_ERR_INTERNAL;
    return pk_msgf(msg, s, "%s: %s: %s", what, pk_gpu_error_name(r), pk_gpu_error_text(r));
}

static int n_devices;

pk_status PK_GPU_OP(init)(pk_msg *why)
{
    int n = 0;
    pk_gpu_result r = pk_gpu_driver_init();
    if (r != PK_GPU_OK)
        return pk_msgf(why, PK_ERR_BACKEND_UNAVAILABLE, "no %s device: %s: %s", PK_GPU_PLATFORM,
                       PK_GPU_CALL(cuInit, hipInit), pk_gpu_error_name(r));
    r = pk_gpu_driver_devices(&n);
    if (r != PK_GPU_OK || n <= 0)
        return pk_msgf(why, PK_ERR_BACKEND_UNAVAILABLE, "no %s device: %s: %s", PK_GPU_PLATFORM,
                       PK_GPU_CALL(cuDeviceGetCount, hipGetDeviceCount), r != PK_GPU_OK ? pk_gpu_error_name(r) : "none");
    n_devices = n;
    return PK_SUCCESS;
}

int PK_GPU_OP(device_count)(void) { return n_devices; }

pk_status pk_gpu_device_basics(int index, pk_device_info *info, pk_gpu_dev *dev, int *driver, pk_msg *msg)
{
    memset(info, 0, sizeof *info);
    pk_status s = pk_gpu_check(PK_GPU_FN(cuDeviceGet, hipDeviceGet)(dev, index), PK_GPU_CALL(cuDeviceGet, hipDeviceGet), msg);
    if (s != PK_SUCCESS) return s;
    size_t mem = 0;
    *driver = 0;
    PK_GPU_FN(cuDeviceGetName, hipDeviceGetName)(info->name, sizeof info->name, *dev);
    PK_GPU_FN(cuDeviceTotalMem, hipDeviceTotalMem)(&mem, *dev);
    PK_GPU_FN(cuDriverGetVersion, hipDriverGetVersion)(driver);
    snprintf(info->vendor, sizeof info->vendor, "%s", PK_GPU_MAKER);
    info->backend = PK_GPU_BACKEND;
    info->index = index;
    info->global_mem_bytes = mem;
    return PK_SUCCESS;
}

#define NAME(m) #m,
const char *const pk_gpu_module_names[PK_GPU_MODULE_COUNT] = {PK_GPU_MODULES(NAME)};

const pk_embedded_blob *pk_gpu_blob_of(const pk_embedded_blob *blobs, int module)
{
    const char *name = pk_gpu_module_names[module];
    const size_t n = strlen(name);
    for (const pk_embedded_blob *b = blobs; b->name; b++)
        if (!strncmp(b->name, name, n) && b->name[n] == '.') return b;
    return NULL;
}

pk_status pk_gpu_load(pk_gpu_device *d, int module, const pk_embedded_blob *b, pk_msg *msg)
{
    pk_status s = pk_gpu_check(pk_gpu_module_load(&d->modules[module], b->data), b->name, msg);
    if (s != PK_SUCCESS) d->modules[module] = NULL;
    /* anything but the device's earlier fault, still sticky: a bad image,
     * or none for this device in it */
    return s == PK_SUCCESS || s == PK_ERR_DEVICE_FAILURE ? s : PK_ERR_BUILD_FAILED;
}

void pk_gpu_unload(pk_gpu_device *d)
{
    if (d->gpu.fault_module) pk_gpu_module_unload(d->gpu.fault_module);
    for (int m = 0; m < PK_GPU_MODULE_COUNT; m++)
        if (d->modules[m]) pk_gpu_module_unload(d->modules[m]);
    if (d->stream && !d->gpu.foreign_stream) pk_gpu_stream_destroy(d);
}

/* A real device fault where the backend can raise one: pk_fault_store
 * through a null pointer on the device's stream. The launch succeeds; the
 * next wait reports the illegal address. Elsewhere finish (gpu_backend.c)
 * reports a simulated one. */
pk_status pk_gpu_fault_inject(void *dev, pk_fault_plan *plan, pk_msg *msg)
{
    pk_gpu_device *d = dev;
    pk_fault_attach(plan);
    if (!PK_GPU_REAL_FAULTS || !plan->device_fault) return PK_SUCCESS;
    plan->device_fault = 0; /* nothing left to simulate */
    pk_status s = pk_gpu_current(d, msg);
    if (s == PK_SUCCESS && !d->gpu.fault_module)
        s = pk_gpu_check(pk_gpu_module_load(&d->gpu.fault_module, pk_fault_store_ptx), "pk_fault_store", msg);
    pk_gpu_function f;
    if (s == PK_SUCCESS) s = pk_gpu_check(pk_gpu_module_function(&f, d->gpu.fault_module, "pk_fault_store"), "pk_fault_store", msg);
    uint64_t null_address = 0;
    void *args[] = {&null_address};
    static const unsigned one[3] = {1, 1, 1};
    if (s == PK_SUCCESS) s = PK_GPU_OP(launch_on_stream)(d, f, one, one, 0, args, 0, msg);
    return s;
}
