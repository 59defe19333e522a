/* Rows by device indices: bit-exact moves, so one version serves both
 * variants of the reference backend (compiled once, beside ref_device.c). */
#include <string.h>

#include "ref_device.h"

pk_status pk_ref_index_rows(void *dev, const pk_index_problem *p, pk_msg *msg)
{
    (void)dev;
    (void)msg;
    const size_t es = pk_dtype_size(p->src.dtype);
    const int32_t *index = (const int32_t *)p->index.mem + p->index.offset;
    const unsigned char *src = (const unsigned char *)p->src.mem + (size_t)p->src.offset * es;
    unsigned char *out = (unsigned char *)p->out.mem + (size_t)p->out.offset * es;
    const int64_t sr = p->src.stride[2], sc = p->src.stride[3], orow = p->out.stride[2], oc = p->out.stride[3];
    for (int64_t i = 0; i < p->n; i++) {
        const int64_t j = index[i];
        const int in_range = j >= 0 && j < p->rows;
        if (p->scatter) {
            /* the last i of an index writes its row */
            int later = 0;
            for (int64_t k = i + 1; k < p->n && !later; k++) later = index[k] == j;
            if (!in_range || later) continue;
            for (int64_t c = 0; c < p->cols; c++)
                memcpy(out + (size_t)(j * orow + c * oc) * es, src + (size_t)(i * sr + c * sc) * es, es);
        } else {
            for (int64_t c = 0; c < p->cols; c++) {
                unsigned char *to = out + (size_t)(i * orow + c * oc) * es;
                if (in_range) memcpy(to, src + (size_t)(j * sr + c * sc) * es, es);
                else memset(to, 0, es);
            }
        }
    }
    return PK_SUCCESS;
}
