/* Finds and loads backends once per process. ref is built in; the others
 * are shared modules loaded with dlopen, so the core links no vendor
 * runtime and one build runs wherever any subset of them exists. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pk_core.h"
#include "ref_backend.h"

/* An entry is written once, by the first caller for its backend, under
 * the entry's lock; later callers take the lock to see it whole. A lock
 * per backend: a slow start of one runtime (cuInit on a machine of many
 * GPUs) holds up no thread that asks for another backend. */
typedef struct pk_registry_entry {
    pthread_mutex_t lock;
    int tried;
    const pk_backend_iface *be;
    char why[PK_MSG_MAX];
} pk_registry_entry;

static pk_registry_entry registry[PK_BACKEND_COUNT] = {
    [0 ... PK_BACKEND_COUNT - 1] = {.lock = PTHREAD_MUTEX_INITIALIZER},
};

/* Directory of the core library: modules are installed beside it (in the
 * build tree) or in its portkern/ subdirectory (installed). */
static void core_dir(char *dir, size_t n)
{
    Dl_info info;
    dir[0] = '\0';
    if (dladdr((void *)&pk_registry_get, &info) && info.dli_fname) {
        snprintf(dir, n, "%s", info.dli_fname);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0';
        else snprintf(dir, n, ".");
    }
}

int pk_module_dirs(char dirs[PK_MODULE_DIRS][1024])
{
    char base[1024];
    int nd = 0;
    const char *env = getenv("PORTKERN_MODULE_DIR");
    if (env && *env) snprintf(dirs[nd++], 1024, "%s", env);
    core_dir(base, sizeof base);
    if (base[0]) {
        snprintf(dirs[nd++], 1024, "%s", base);
        snprintf(dirs[nd++], 1024, "%.1000s/portkern", base);
    }
    return nd;
}

/* why: the reason on failure, the path opened on success */
static void *open_module(const char *file, char *why, size_t why_len)
{
    char dirs[PK_MODULE_DIRS][1024];
    const int nd = pk_module_dirs(dirs);
    why[0] = '\0';
    for (int i = 0; i < nd; i++) {
        char path[1100];
        snprintf(path, sizeof path, "%.1024s/%.64s", dirs[i], file);
        if (access(path, F_OK) != 0) continue;
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h) {
            snprintf(why, why_len, "%.200s", path);
            return h;
        }
        /* the module exists but does not load: a vendor runtime it needs is
         * missing, or the file is damaged; dlerror says which */
        const char *err = dlerror();
        snprintf(why, why_len, "%.200s does not load (a runtime it needs missing, or a damaged file): %.200s",
                 path, err ? err : "dlopen failed");
        return NULL;
    }
    snprintf(why, why_len, "not built: no %s beside libportkern (or in $PORTKERN_MODULE_DIR)", file);
    return NULL;
}

static void load(pk_backend kind, pk_registry_entry *e)
{
    static const char *const files[PK_BACKEND_COUNT] = {
        [PK_BACKEND_OPENCL] = "libportkern-opencl.so",
        [PK_BACKEND_CUDA] = "libportkern-cuda.so",
        [PK_BACKEND_HIP] = "libportkern-hip.so",
    };
    const pk_backend_iface *be = NULL;
    if (kind == PK_BACKEND_REF) {
        be = pk_ref_backend_f64();
    } else {
        char why[PK_MSG_MAX];
        void *h = open_module(files[kind], why, sizeof why);
        if (!h) {
            snprintf(e->why, sizeof e->why, "%s", why);
            return;
        }
        pk_backend_entry_fn entry = (pk_backend_entry_fn)dlsym(h, "pk_backend_entry");
        be = entry ? entry() : NULL;
        if (!be || be->abi != PK_BACKEND_ABI || be->kind != kind) {
            char reason[96];
            if (!entry) snprintf(reason, sizeof reason, "it has no pk_backend_entry");
            else if (!be) snprintf(reason, sizeof reason, "its pk_backend_entry returned NULL");
            else if (be->abi != PK_BACKEND_ABI)
                snprintf(reason, sizeof reason, "its interface is version %d, this library's %d", be->abi,
                         PK_BACKEND_ABI);
            else snprintf(reason, sizeof reason, "it is the %s backend", pk_backend_name(be->kind));
            snprintf(e->why, sizeof e->why, "%.200s is not a portkern %s backend of this version: %s", why,
                     pk_backend_name(kind), reason);
            dlclose(h);
            return;
        }
        /* the module stays loaded for the life of the process */
        if (be->set_core_hooks) be->set_core_hooks(&pk_core_hooks_of_core);
    }
    pk_msg msg = {{0}};
    pk_status s = be->init(&msg);
    if (s != PK_SUCCESS) {
        snprintf(e->why, sizeof e->why, "%s", msg.text[0] ? msg.text : pk_status_string(s));
        return;
    }
    if (be->device_count() <= 0) {
        snprintf(e->why, sizeof e->why, "no device");
        return;
    }
    e->be = be;
}

const pk_backend_iface *pk_registry_get(pk_backend kind, const char **why)
{
    if ((unsigned)kind >= PK_BACKEND_COUNT || kind == PK_BACKEND_AUTO) {
        if (why) *why = "not a backend";
        return NULL;
    }
    pk_registry_entry *e = &registry[kind];
    pthread_mutex_lock(&e->lock);
    if (!e->tried) {
        load(kind, e);
        e->tried = 1;
    }
    pthread_mutex_unlock(&e->lock);
    if (why) *why = e->be ? NULL : e->why;
    return e->be;
}

const pk_backend_iface *pk_registry_ref_f32(void) { return pk_ref_backend_f32(); }

const char *pk_backend_name(pk_backend b)
{
    static const char *const names[PK_BACKEND_COUNT] = {"auto", "ref", "opencl", "cuda", "hip"};
    return (unsigned)b < PK_BACKEND_COUNT ? names[b] : NULL;
}

pk_status pk_backend_from_name(const char *name, pk_backend *out)
{
    if (!name) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_backend_from_name: 'name' is NULL");
    if (!out) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_backend_from_name: 'out' is NULL");
    for (int b = 0; b < PK_BACKEND_COUNT; b++)
        if (!strcmp(name, pk_backend_name((pk_backend)b))) {
            *out = (pk_backend)b;
            return PK_SUCCESS;
        }
    return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT,
                   "pk_backend_from_name: 'name': unknown backend \"%.64s\"", name);
}

const char *pk_backend_unavailable_reason(pk_backend b)
{
    const char *why = NULL;
    pk_registry_get(b, &why);
    return why;
}

pk_status pk_device_count(pk_backend b, int *count)
{
    if (!count) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_device_count: 'count' is NULL");
    *count = 0;
    if ((unsigned)b >= PK_BACKEND_COUNT || b == PK_BACKEND_AUTO)
        return pk_fail(NULL, PK_ERR_INVALID_ARGUMENT, "pk_device_count: 'b': not a backend (%d)",
                       (int)b);
    const char *why = NULL;
    const pk_backend_iface *be = pk_registry_get(b, &why);
    if (!be)
        return pk_fail(NULL, PK_ERR_BACKEND_UNAVAILABLE, "pk_device_count: backend %s: %s",
                       pk_backend_name(b), why);
    *count = be->device_count();
    pk_clear_error(NULL);
    return PK_SUCCESS;
}

pk_status pk_device_info_get(pk_backend b, int index, pk_device_info *info)
{
    if (!info) return pk_fail(NULL, PK_ERR_NULL_ARGUMENT, "pk_device_info_get: 'info' is NULL");
    int n = 0;
    pk_status s = pk_device_count(b, &n);
    if (s != PK_SUCCESS) return s;
    if (index < 0 || index >= n)
        return pk_fail(NULL, PK_ERR_NO_DEVICE, "pk_device_info_get: 'index' %d: backend %s has %d device(s)",
                       index, pk_backend_name(b), n);
    pk_msg msg = {{0}};
    const pk_backend_iface *be = pk_registry_get(b, NULL);
    s = be->device_info(index, info, &msg);
    if (s != PK_SUCCESS) return pk_fail(NULL, s, "pk_device_info_get: %s", msg.text);
    info->backend = b;
    info->index = index;
    return PK_SUCCESS;
}
