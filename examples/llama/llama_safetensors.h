/* Read-only access to a safetensors checkpoint: DIR/model.safetensors, or the
 * shards named by DIR/model.safetensors.index.json. Files are mmapped; tensor
 * data points into the mapping and lives until llama_weights_close. */
#ifndef LLAMA_SAFETENSORS_H
#define LLAMA_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "portkern.h"

typedef struct llama_tensor {
    const char *name;
    pk_dtype dtype;
    int ndim; /* 0..4; 0 is a scalar */
    int64_t shape[4];
    const void *data; /* inside the mapping; not necessarily aligned */
    uint64_t bytes;
} llama_tensor;

typedef struct llama_weights llama_weights; /* opaque: the open files */

/* Opens and validates every file's header (length within the file, offsets
 * within the data area and equal to dtype size x shape, dtype one of BF16,
 * F16, F32). Returns 0 on success, else writes err naming the file and the
 * tensor or key at fault.
 *
 * Also refused, though some writers might produce them:
 *  - a data area not indexed exactly once: tensors whose data_offsets
 *    overlap or are identical (aliases), and holes, bytes of the data area
 *    no tensor covers (before, between or after the tensors). The format
 *    requires every byte to be indexed, and its reference reader refuses
 *    both; empty tensors may sit anywhere on the seams between others.
 *  - a shape whose non-zero dimensions multiply (times the dtype size) past
 *    2^63 - 1 bytes, whatever the order of the dimensions: a shape with a
 *    zero dimension ([0, 4] and [4, 0] alike) is an empty tensor with
 *    data_offsets [b, b], but [0, 2^40, 2^40] is refused as [2^40, 2^40, 0]
 *    is, since its row-major strides would overflow. */
int llama_weights_open(const char *dir, llama_weights **out, char *err, size_t errlen);

/* Opens one .safetensors file on its own (tests, tools). */
int llama_weights_open_file(const char *path, llama_weights **out, char *err, size_t errlen);

/* Reads a safetensors file already in memory (tests, fuzzing); name only
 * names it in errors. The tensors point into data, which stays the
 * caller's and must outlive w. */
int llama_weights_open_bytes(const void *data, size_t size, const char *name, llama_weights **out, char *err,
                             size_t errlen);

/* NULL if absent */
const llama_tensor *llama_weights_find(const llama_weights *w, const char *name);

/* the tensor `name` with exactly the given shape (ndim entries), else an error naming the tensor, what was
 * expected and what was found (or "missing") */
const llama_tensor *llama_weights_expect(const llama_weights *w, const char *name, int ndim, const int64_t *shape,
                                         char *err, size_t errlen);

/* All tensors, sorted by name (for listing). */
size_t llama_weights_count(const llama_weights *w);
const llama_tensor *llama_weights_at(const llama_weights *w, size_t i);

void llama_weights_close(llama_weights *w);

#endif
