/* safetensors reader: mmap each file, check its header against the file
 * before any tensor is handed out, so the engine can trust shape, dtype and
 * bytes without re-checking. Format: u64 little-endian header length, a JSON
 * object header, then the data area that data_offsets index into. */
#include "llama_safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "llama_json.h"

typedef struct st_file {
    char *path;
    const void *map;
    size_t size;
    int mapped; /* 0: the caller's bytes (llama_weights_open_bytes), not ours to unmap */
} st_file;

/* llama_tensor first, so a pointer to the entry is one to the tensor */
typedef struct st_entry {
    llama_tensor t;
    size_t file;
} st_entry;

struct llama_weights {
    st_file *files;
    size_t nfiles;
    st_entry *entries; /* sorted by name once every file is in */
    size_t count, cap;
};

/* s holds len bytes: "F32\u0000x" is no F32 */
static int st_dtype(const char *s, size_t len, pk_dtype *out)
{
    static const struct {
        const char *name;
        pk_dtype dtype;
    } known[] = {{"BF16", PK_BF16}, {"F16", PK_F16}, {"F32", PK_F32}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (strlen(s) == len && strcmp(s, known[i].name) == 0) {
            *out = known[i].dtype;
            return 0;
        }
    }
    return -1;
}

static int st_push(llama_weights *w, const char *path, const char *msg, char *err, size_t errlen)
{
    if (w->count == w->cap) {
        size_t ncap = w->cap ? w->cap * 2 : 64;
        st_entry *e = realloc(w->entries, ncap * sizeof *e);
        if (!e) {
            snprintf(err, errlen, "%s: out of memory for %s", path, msg);
            return -1;
        }
        w->entries = e;
        w->cap = ncap;
    }
    memset(&w->entries[w->count], 0, sizeof w->entries[0]);
    w->count++;
    return 0;
}

/* A non-negative JSON integer; -2 for one past int64 (out of range, not
 * malformed), else -1. */
static int64_t st_uint(const llama_json *v)
{
    if (v && v->type == LLAMA_JSON_NUMBER && v->integral && !v->is_int && v->number > 0) return -2;
    return v && v->type == LLAMA_JSON_NUMBER && v->is_int && v->integer >= 0 ? v->integer : -1;
}

/* One header member -> one entry; data_size is the length of the data area. */
static int st_tensor(llama_weights *w, size_t file, const llama_json *m, const char *base, uint64_t data_size,
                     char *err, size_t errlen)
{
    const char *path = w->files[file].path, *name = m->key;
    if (m->type != LLAMA_JSON_OBJECT) {
        snprintf(err, errlen, "%s: tensor %s: expected an object, found %s", path, name,
                 llama_json_type_name(m->type));
        return -1;
    }
    for (size_t i = 0; i < m->count; i++) {
        const char *k = m->items[i].key;
        /* with its length: "dtype\u0000x" is no dtype */
        if (strlen(k) != m->items[i].key_length ||
            (strcmp(k, "dtype") != 0 && strcmp(k, "shape") != 0 && strcmp(k, "data_offsets") != 0)) {
            snprintf(err, errlen, "%s: tensor %s: unknown key \"%s\"", path, name, k);
            return -1;
        }
    }
    const llama_json *dt = llama_json_get(m, "dtype"), *sh = llama_json_get(m, "shape"),
                     *off = llama_json_get(m, "data_offsets");
    pk_dtype dtype;
    if (!dt || dt->type != LLAMA_JSON_STRING) {
        snprintf(err, errlen, "%s: tensor %s: dtype: expected a string", path, name);
        return -1;
    }
    if (st_dtype(dt->string, dt->length, &dtype)) {
        snprintf(err, errlen, "%s: tensor %s: dtype \"%s\" not supported (BF16, F16, F32)", path, name,
                 dt->string);
        return -1;
    }
    if (!sh || sh->type != LLAMA_JSON_ARRAY || sh->count > 4) {
        snprintf(err, errlen, "%s: tensor %s: shape: expected an array of at most 4 dimensions", path, name);
        return -1;
    }
    if (!off || off->type != LLAMA_JSON_ARRAY || off->count != 2 || st_uint(&off->items[0]) < 0 ||
        st_uint(&off->items[1]) < 0) {
        int past = off && off->type == LLAMA_JSON_ARRAY && off->count == 2 &&
                   (st_uint(&off->items[0]) == -2 || st_uint(&off->items[1]) == -2);
        snprintf(err, errlen, "%s: tensor %s: data_offsets: %s", path, name,
                 past ? "out of range: an integer past 2^63 - 1"
                      : "expected [begin, end] of non-negative integers");
        return -1;
    }
    uint64_t begin = (uint64_t)off->items[0].integer, end = (uint64_t)off->items[1].integer;
    if (begin > end || end > data_size) {
        snprintf(err, errlen,
                 "%s: tensor %s: data_offsets [%llu, %llu] outside the data area of %llu bytes", path, name,
                 (unsigned long long)begin, (unsigned long long)end, (unsigned long long)data_size);
        return -1;
    }
    if (st_push(w, path, name, err, errlen))
        return -1;
    llama_tensor *t = &w->entries[w->count - 1].t;
    w->entries[w->count - 1].file = file;
    /* A zero dimension empties the tensor wherever it stands, but the other
     * dimensions must still multiply to a size that fits int64 (pk_tensor's
     * shapes and strides): row-major strides of [0, 2^40, 2^40] overflow as
     * surely as those of [2^40, 2^40, 0]. So both orders are judged alike:
     * the product of the non-zero dimensions times the dtype size must fit. */
    uint64_t span = pk_dtype_size(dtype);
    int zero = 0, overflow = 0;
    for (size_t i = 0; i < sh->count; i++) {
        int64_t d = st_uint(&sh->items[i]);
        if (d < 0) {
            snprintf(err, errlen, "%s: tensor %s: shape[%zu]: %s", path, name, i,
                     d == -2 ? "out of range: an integer past 2^63 - 1" : "expected a non-negative integer");
            return -1;
        }
        t->shape[i] = d;
        if (d == 0)
            zero = 1;
        else if (span > (uint64_t)INT64_MAX / (uint64_t)d)
            overflow = 1;
        else
            span *= (uint64_t)d;
    }
    if (overflow) {
        snprintf(err, errlen, "%s: tensor %s: shape: its non-zero dimensions hold more than 2^63 - 1 bytes of %s",
                 path, name, dt->string);
        return -1;
    }
    uint64_t need = zero ? 0 : span;
    if (need != end - begin) {
        snprintf(err, errlen, "%s: tensor %s: data_offsets [%llu, %llu] hold %llu bytes, but %s x shape needs %llu",
                 path, name, (unsigned long long)begin, (unsigned long long)end, (unsigned long long)(end - begin),
                 dt->string, (unsigned long long)need);
        return -1;
    }
    t->name = name;
    t->dtype = dtype;
    t->ndim = (int)sh->count;
    t->data = base + begin;
    t->bytes = end - begin;
    return 0;
}

typedef struct st_span {
    uint64_t begin, end;
    const char *name;
} st_span;

static int st_span_cmp(const void *a, const void *b)
{
    const st_span *x = a, *y = b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The data area must be indexed exactly once, as the format requires (and
 * its reference reader checks): sorted by offset, each tensor starts where
 * the previous one ends, the first at 0 and the last at the area's end.
 * Two tensors sharing bytes (overlapping or identical data_offsets) would
 * alias; a hole is bytes nobody accounts for. Either way the file is damaged
 * or hand-made, so both are refused. Empty tensors sit anywhere on the
 * seams. Checks the entries from `first` on, all of one file. */
static int st_check_tiling(const llama_weights *w, size_t first, const char *base, uint64_t data_size, char *err,
                           size_t errlen)
{
    const char *path = w->files[w->nfiles - 1].path;
    size_t n = w->count - first;
    if (n == 0 && data_size == 0) return 0;
    st_span *s = n ? malloc(n * sizeof *s) : NULL;
    if (n && !s) {
        snprintf(err, errlen, "%s: out of memory checking data_offsets", path);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const llama_tensor *t = &w->entries[first + i].t;
        uint64_t b = (uint64_t)((const char *)t->data - base);
        s[i] = (st_span){b, b + t->bytes, t->name};
    }
    if (n) qsort(s, n, sizeof *s, st_span_cmp);
    uint64_t at = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (s[i].begin < at) {
            snprintf(err, errlen, "%s: tensor %s: data_offsets [%llu, %llu] overlap tensor %s's [%llu, %llu]", path,
                     s[i].name, (unsigned long long)s[i].begin, (unsigned long long)s[i].end, s[i - 1].name,
                     (unsigned long long)s[i - 1].begin, (unsigned long long)s[i - 1].end);
            rc = -1;
        } else if (s[i].begin > at) {
            snprintf(err, errlen, "%s: data area bytes [%llu, %llu) before tensor %s belong to no tensor "
                     "(safetensors indexes every byte)", path, (unsigned long long)at,
                     (unsigned long long)s[i].begin, s[i].name);
            rc = -1;
        }
        at = s[i].end;
    }
    if (rc == 0 && at != data_size) {
        snprintf(err, errlen, "%s: data area bytes [%llu, %llu) after the last tensor belong to no tensor "
                 "(safetensors indexes every byte)", path, (unsigned long long)at, (unsigned long long)data_size);
        rc = -1;
    }
    free(s);
    return rc;
}

/* Names point into the header tree, which is freed after reading; copy them.
 * On failure the entries from `from` on are dropped. */
static int st_own_names(llama_weights *w, size_t from, char *err, size_t errlen)
{
    for (size_t i = from; i < w->count; i++) {
        char *copy = strdup(w->entries[i].t.name);
        if (!copy) {
            while (i-- > from)
                free((char *)w->entries[i].t.name);
            w->count = from;
            snprintf(err, errlen, "out of memory for tensor names");
            return -1;
        }
        w->entries[i].t.name = copy;
    }
    return 0;
}

/* A new file record named path (no bytes yet). */
static int st_new_file(llama_weights *w, const char *path, char *err, size_t errlen)
{
    st_file *files = realloc(w->files, (w->nfiles + 1) * sizeof *files);
    if (!files) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    w->files = files;
    st_file *f = &w->files[w->nfiles];
    memset(f, 0, sizeof *f);
    f->path = strdup(path);
    if (!f->path) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    w->nfiles++;
    return 0;
}

static int st_map(llama_weights *w, const char *path, char *err, size_t errlen)
{
    if (st_new_file(w, path, err, errlen))
        return -1;
    st_file *f = &w->files[w->nfiles - 1];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (st.st_size < 8) {
        snprintf(err, errlen, "%s: truncated: %lld bytes, the header length alone takes 8", path,
                 (long long)st.st_size);
        close(fd);
        return -1;
    }
    /* The mapping outlives the descriptor; MAP_PRIVATE so nothing can write back. */
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        snprintf(err, errlen, "%s: cannot mmap: %s", path, strerror(errno));
        return -1;
    }
    f->map = map;
    f->size = (size_t)st.st_size;
    f->mapped = 1;
    return 0;
}

/* Reads the header of the last file added, whose bytes are in place. */
static int st_read_file(llama_weights *w, char *err, size_t errlen)
{
    size_t file = w->nfiles - 1;
    const char *path = w->files[file].path;
    const unsigned char *p = w->files[file].map;
    uint64_t size = w->files[file].size, hlen = 0;
    if (size < 8) {
        snprintf(err, errlen, "%s: truncated: %llu bytes, the header length alone takes 8", path,
                 (unsigned long long)size);
        return -1;
    }
    for (int i = 7; i >= 0; i--)
        hlen = hlen << 8 | p[i];
    if (hlen > size - 8) {
        snprintf(err, errlen, "%s: header length %llu runs past the end of the file (%llu bytes)", path,
                 (unsigned long long)hlen, (unsigned long long)size);
        return -1;
    }
    char msg[256];
    llama_json *root = llama_json_parse((const char *)p + 8, (size_t)hlen, msg, sizeof msg);
    if (!root) {
        snprintf(err, errlen, "%s: header: %s", path, msg);
        return -1;
    }
    int rc = 0;
    size_t first = w->count;
    if (root->type != LLAMA_JSON_OBJECT) {
        snprintf(err, errlen, "%s: header: expected an object, found %s", path, llama_json_type_name(root->type));
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < root->count; i++) {
        const llama_json *m = &root->items[i];
        /* names are C strings from here on: "w\u0000x" would pass for "w" */
        if (strlen(m->key) != m->key_length) {
            snprintf(err, errlen, "%s: tensor %s: the name holds a NUL byte (\\u0000)", path, m->key);
            rc = -1;
            break;
        }
        if (strcmp(m->key, "__metadata__") == 0) {
            if (m->type != LLAMA_JSON_OBJECT) {
                snprintf(err, errlen, "%s: __metadata__: expected an object", path);
                rc = -1;
            }
            continue;
        }
        rc = st_tensor(w, file, m, (const char *)p + 8 + hlen, size - 8 - hlen, err, errlen);
    }
    if (rc == 0)
        rc = st_check_tiling(w, first, (const char *)p + 8 + hlen, size - 8 - hlen, err, errlen);
    if (rc == 0)
        rc = st_own_names(w, first, err, errlen);
    else
        w->count = first; /* their names borrow from the tree freed below */
    llama_json_free(root);
    return rc;
}

static int st_add_file(llama_weights *w, const char *path, char *err, size_t errlen)
{
    return st_map(w, path, err, errlen) ? -1 : st_read_file(w, err, errlen);
}

static int st_cmp(const void *a, const void *b)
{
    return strcmp(((const st_entry *)a)->t.name, ((const st_entry *)b)->t.name);
}

static int st_finish(llama_weights *w, char *err, size_t errlen)
{
    if (w->count) qsort(w->entries, w->count, sizeof *w->entries, st_cmp); /* entries is NULL when empty */
    for (size_t i = 1; i < w->count; i++) {
        if (strcmp(w->entries[i - 1].t.name, w->entries[i].t.name) == 0) {
            snprintf(err, errlen, "tensor %s: in both %s and %s", w->entries[i].t.name,
                     w->files[w->entries[i - 1].file].path, w->files[w->entries[i].file].path);
            return -1;
        }
    }
    return 0;
}

static const st_entry *st_find(const llama_weights *w, const char *name)
{
    st_entry key;
    key.t.name = name;
    return w->count ? bsearch(&key, w->entries, w->count, sizeof key, st_cmp) : NULL;
}

/* index.json: {"metadata": {...}, "weight_map": {tensor: shard file}}. Every
 * listed tensor must be in the shard the index names. */
static int st_open_index(llama_weights *w, const char *dir, const char *index, char *err, size_t errlen)
{
    llama_json *root = llama_json_load(index, err, errlen);
    if (!root)
        return -1;
    int rc = -1;
    const llama_json *map = llama_json_get(root, "weight_map");
    if (!map || map->type != LLAMA_JSON_OBJECT || map->count == 0) {
        snprintf(err, errlen, "%s: weight_map: expected a non-empty object", index);
        goto done;
    }
    for (size_t i = 0; i < map->count; i++) {
        const llama_json *e = &map->items[i];
        /* a shard outside DIR would be a surprising thing to mmap */
        if (strlen(e->key) != e->key_length) {
            snprintf(err, errlen, "%s: weight_map: tensor %s: the name holds a NUL byte (\\u0000)", index, e->key);
            goto done;
        }
        if (e->type != LLAMA_JSON_STRING || e->length == 0 || strlen(e->string) != e->length ||
            strchr(e->string, '/') || strcmp(e->string, "..") == 0) {
            snprintf(err, errlen, "%s: weight_map: tensor %s: expected a file name in the same directory", index,
                     e->key);
            goto done;
        }
        /* each shard once: against the files opened so far (a few), not
         * every earlier entry (tens of thousands in a large index) */
        size_t seen = 0;
        while (seen < w->nfiles && strcmp(strrchr(w->files[seen].path, '/') + 1, e->string) != 0)
            seen++;
        if (seen < w->nfiles)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->string);
        if (st_add_file(w, path, err, errlen))
            goto done;
    }
    if (st_finish(w, err, errlen))
        goto done;
    for (size_t i = 0; i < map->count; i++) {
        const llama_json *e = &map->items[i];
        const st_entry *t = st_find(w, e->key);
        const char *file = t ? strrchr(w->files[t->file].path, '/') + 1 : NULL;
        if (!t || strcmp(file, e->string) != 0) {
            snprintf(err, errlen, "%s: weight_map: tensor %s: not found in %s", index, e->key, e->string);
            goto done;
        }
    }
    rc = 0;
done:
    llama_json_free(root);
    return rc;
}

int llama_weights_open_file(const char *path, llama_weights **out, char *err, size_t errlen)
{
    *out = NULL;
    llama_weights *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    if (st_add_file(w, path, err, errlen) || st_finish(w, err, errlen)) {
        llama_weights_close(w);
        return -1;
    }
    *out = w;
    return 0;
}

int llama_weights_open_bytes(const void *data, size_t size, const char *name, llama_weights **out, char *err,
                             size_t errlen)
{
    *out = NULL;
    llama_weights *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    if (st_new_file(w, name, err, errlen)) {
        llama_weights_close(w);
        return -1;
    }
    w->files[0].map = data;
    w->files[0].size = size;
    if (st_read_file(w, err, errlen) || st_finish(w, err, errlen)) {
        llama_weights_close(w);
        return -1;
    }
    *out = w;
    return 0;
}

int llama_weights_open(const char *dir, llama_weights **out, char *err, size_t errlen)
{
    char index[4096], single[4096];
    snprintf(index, sizeof index, "%s/model.safetensors.index.json", dir);
    snprintf(single, sizeof single, "%s/model.safetensors", dir);
    if (access(index, F_OK) != 0) {
        if (access(single, F_OK) != 0) {
            snprintf(err, errlen, "%s: neither model.safetensors.index.json nor model.safetensors", dir);
            *out = NULL;
            return -1;
        }
        return llama_weights_open_file(single, out, err, errlen);
    }
    *out = NULL;
    llama_weights *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "%s: out of memory", index);
        return -1;
    }
    if (st_open_index(w, dir, index, err, errlen)) {
        llama_weights_close(w);
        return -1;
    }
    *out = w;
    return 0;
}

const llama_tensor *llama_weights_find(const llama_weights *w, const char *name)
{
    const st_entry *e = st_find(w, name);
    return e ? &e->t : NULL;
}

static void st_shape_str(char *buf, size_t len, int ndim, const int64_t *shape)
{
    size_t n = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < ndim && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? ", " : "", (long long)shape[i]);
    if (n < len)
        snprintf(buf + n, len - n, "]");
}

const llama_tensor *llama_weights_expect(const llama_weights *w, const char *name, int ndim, const int64_t *shape,
                                         char *err, size_t errlen)
{
    char want[128], have[128];
    st_shape_str(want, sizeof want, ndim, shape);
    const llama_tensor *t = llama_weights_find(w, name);
    if (!t) {
        snprintf(err, errlen, "tensor %s: expected shape %s, found missing", name, want);
        return NULL;
    }
    int same = t->ndim == ndim;
    for (int i = 0; same && i < ndim; i++)
        same = t->shape[i] == shape[i];
    if (!same) {
        st_shape_str(have, sizeof have, t->ndim, t->shape);
        snprintf(err, errlen, "tensor %s: expected shape %s, found %s", name, want, have);
        return NULL;
    }
    return t;
}

size_t llama_weights_count(const llama_weights *w) { return w->count; }

const llama_tensor *llama_weights_at(const llama_weights *w, size_t i)
{
    return i < w->count ? &w->entries[i].t : NULL;
}

void llama_weights_close(llama_weights *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->count; i++)
        free((char *)w->entries[i].t.name);
    for (size_t i = 0; i < w->nfiles; i++) {
        if (w->files[i].mapped)
            munmap((void *)w->files[i].map, w->files[i].size);
        free(w->files[i].path);
    }
    free(w->entries);
    free(w->files);
    free(w);
}
