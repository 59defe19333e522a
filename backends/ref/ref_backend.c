/* The interface table of one variant of the reference backend. */
#include "ref_backend.h"

#include <stdlib.h>

#include "pk_fault.h"
#include "ref_device.h"
#include "ref_variant.h"

#define PK_REF_STR_(x) #x
#define PK_REF_STR(x) PK_REF_STR_(x)

pk_ref_acc *PK_REF_FN(scratch)(const void *dev, int64_t n, pk_msg *msg)
{
    size_t count = n > 0 ? (size_t)n : 1;
    int injected = pk_fault_alloc(dev);
    pk_ref_acc *buf = injected ? NULL : malloc(count * sizeof *buf);
    if (!buf)
        pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "ref: no host memory for %zu scratch values%s", count,
                injected ? " (injected)" : "");
    return buf;
}

static pk_status PK_REF_FN(device_info)(int index, pk_device_info *info, pk_msg *msg)
{
    (void)msg;
    pk_ref_describe(index,
                    "portkern reference (CPU, " PK_REF_STR(PK_REF_SUFFIX) " accumulation)",
                    info);
    return PK_SUCCESS;
}

static const pk_backend_iface PK_REF_FN(iface) = {
    .abi = PK_BACKEND_ABI,
    .kind = PK_BACKEND_REF,
    .init = pk_ref_init,
    .device_count = pk_ref_device_count,
    .device_info = PK_REF_FN(device_info),
    .open = pk_ref_open,
    .close = pk_ref_close,
    .finish = pk_ref_finish,
    .alloc = pk_ref_alloc,
    .free = pk_ref_free,
    .wrap = pk_ref_wrap,
    .unwrap = pk_ref_unwrap,
    .upload = pk_ref_upload,
    .download = pk_ref_download,
    .copy = pk_ref_copy,
    .fill = pk_ref_fill,
    .event_record = pk_ref_event_record,
    .event_elapsed = pk_ref_event_elapsed,
    .event_free = pk_ref_event_free,
    .event_wait = pk_ref_event_wait,
    .event_sync = pk_ref_event_sync,
    .gemm = PK_REF_FN(gemm),
    .attention = PK_REF_FN(attention),
    .rows = PK_REF_FN(rows),
    .rope = PK_REF_FN(rope),
    .chain = PK_REF_FN(chain),
    .index_rows = pk_ref_index_rows,
    .fault_inject = pk_ref_fault_inject,
};

const pk_backend_iface *PK_REF_FN(backend)(void)
{
    return &PK_REF_FN(iface);
}
