/* libFuzzer harness: the safetensors reader on arbitrary bytes, header and
 * data, through llama_weights_open_bytes (the file entry mmaps and then
 * runs the same code). Contract: a status, and on success every tensor
 * handed out lies inside the input, holds dtype size x shape bytes, and
 * none shares a byte with another (the data area is indexed once); names
 * are sorted and found by name. The input is an exact-size heap copy, so
 * ASan sees a read one byte past it; each tensor's bytes are read here to
 * make sure. A violation abort()s. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llama_safetensors.h"

typedef struct span {
    uint64_t begin, end;
} span;

static int by_begin(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin ? 1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    llama_weights *w = NULL;
    char err[512];
    err[0] = '\0';
    if (llama_weights_open_bytes(data, size, "fuzz", &w, err, sizeof err) != 0) {
        if (w || strncmp(err, "fuzz: ", 6) != 0) abort();
        return 0;
    }
    size_t n = llama_weights_count(w);
    span *s = n ? malloc(n * sizeof *s) : NULL;
    volatile unsigned char sink = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const llama_tensor *t = llama_weights_at(w, i);
        if (!t) abort();
        const unsigned char *p = t->data;
        if (t->ndim < 0 || t->ndim > 4 || p < data || p > data + size || t->bytes > (uint64_t)(data + size - p))
            abort();
        uint64_t elems = 1;
        for (int d = 0; d < t->ndim; d++) {
            if (t->shape[d] < 0) abort();
            elems *= (uint64_t)t->shape[d];
        }
        if (elems * pk_dtype_size(t->dtype) != t->bytes) abort();
        for (uint64_t b = 0; b < t->bytes; b++) sink ^= p[b];
        if (i && strcmp(llama_weights_at(w, i - 1)->name, t->name) >= 0) abort();
        if (llama_weights_find(w, t->name) != t) abort();
        if (t->bytes) s[m++] = (span){(uint64_t)(p - data), (uint64_t)(p - data) + t->bytes};
    }
    /* empty tensors own no byte: only the others can share one */
    if (m) qsort(s, m, sizeof *s, by_begin);
    for (size_t i = 1; i < m; i++)
        if (s[i].begin < s[i - 1].end) abort();
    free(s);
    llama_weights_close(w);
    return 0;
}
