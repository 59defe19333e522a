/* A device's kernel parameters: its class's table entry, overlaid by what
 * the tuner stored for this device and driver (the tuning cache), and the
 * params hook through which the tuner (api/pk_tune.c) reads, sets and
 * stores them.
 *
 * The tuning cache is one text file per device and driver in the cache
 * directory (tuned-<key>.txt): a line per family, "family srchash spec",
 * then "end <checksum>". A family's line counts only while the hash of the
 * sources its parameters are built into matches (a changed kernel drops
 * its stale entry) and its spec is valid; a file whose checksum fails
 * counts not at all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "opencl_internal.h"
#include "opencl_launch.h"
#include "pk_disk_cache.h"

#define TUNED_MAGIC "portkern-tuned 1"
#define LINE_MAX_LEN 2048

enum { FROM_TABLE = 't', FROM_TUNED = 'd', FROM_SET = 's' };

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static int tuned_path(pk_cl_device *d, char *path, size_t n)
{
    char dir[1024];
    if (!pk_cache_dir(dir, sizeof dir)) return 0;
    snprintf(path, n, "%s/tuned-%016llx.txt", dir, (unsigned long long)pk_cl_device_hash(d));
    return 1;
}

/* The file's family lines (without the checksum line) if it is whole, else NULL. */
static char *read_tuned(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    long n = 0;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && n < (1 << 20) && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        buf[n] = 0;
        char *end = strstr(buf, "\nend ");
        unsigned long long sum = 0;
        if (strncmp(buf, TUNED_MAGIC "\n", strlen(TUNED_MAGIC) + 1) || !end || sscanf(end + 5, "%llx", &sum) != 1 ||
            fnv(0xcbf29ce484222325ull, buf, (size_t)(end + 1 - buf)) != sum) {
            free(buf);
            buf = NULL;
        } else
            end[1] = 0;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* Applies the lines of `text` whose source hash matches to prm, marking
 * their families in from. */
static void apply_tuned(pk_cl_params *prm, char *from, const char *text)
{
    const char *line = strchr(text, '\n'); /* after the magic */
    while (line && *++line) {
        const char *next = strchr(line, '\n');
        size_t len = next ? (size_t)(next - line) : strlen(line);
        char buf[LINE_MAX_LEN], fam[64], spec[LINE_MAX_LEN];
        unsigned long long h;
        if (len < sizeof buf) {
            memcpy(buf, line, len);
            buf[len] = 0;
            int f;
            char why[160];
            if (buf[0] != '#' && sscanf(buf, "%63s %llx %2047s", fam, &h, spec) == 3 &&
                (f = pk_cl_family_find(fam)) >= 0 && h == pk_cl_source_hash(pk_cl_family_get((pk_cl_family)f)->source)) {
                pk_cl_params next = *prm;
                /* one family's names only: a line cannot reach another's values */
                size_t fl = strlen(fam);
                int own = 1;
                for (const char *s = spec; *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : s + strlen(s))
                    if (strncmp(s, fam, fl) || s[fl] != '.') own = 0;
                /* a wgmma (or TMA) tile stored where it ran, loaded where it
                 * does not (PORTKERN_OPENCL_WGMMA=0, PORTKERN_OPENCL_TMA=0): the
                 * table's stays */
                if (own && pk_cl_params_set(&next, spec, why, sizeof why) == 0 && pk_cl_params_wgmma_fits(&next)) {
                    *prm = next;
                    from[f] = FROM_TUNED;
                }
            }
        }
        line = next;
    }
}

int pk_cl_tuned_off(void)
{
    const char *env = getenv("PORTKERN_CL_TUNED");
    return env && !strcmp(env, "off");
}

/* spec's values over d->prm, the families they change marked as set; 0,
 * or -1 with why (d->prm as it was) */
static int set_over(pk_cl_device *d, const char *spec, char *why, size_t n)
{
    pk_cl_params next = d->prm;
    if (pk_cl_params_set(&next, spec, why, n)) return -1;
    if (!pk_cl_params_wgmma_fits(&next))
        return snprintf(why, n, "a tensor-core tile with wgmma=1 (or tma=1), on a device that does not run wgmma "
                                "(or TMA copies) from OpenCL (portkern devices says why)"),
               -1;
    int count;
    const pk_cl_param *ps = pk_cl_param_list(&count);
    char changed[PK_CL_FAMILY_COUNT] = {0};
    for (int i = 0; i < count; i++)
        if (pk_cl_param_get(&next, &ps[i]) != pk_cl_param_get(&d->prm, &ps[i])) changed[ps[i].family] = 1;
    /* pk_cl_params_set held the register bounds to NVIDIA's usual file;
     * a device that says it has less holds them to its own */
    for (int f = 0; f < PK_CL_FAMILY_COUNT && d->nv_regs && d->nv_regs < PK_CL_NV_REGS_PER_BLOCK; f++) {
        char rule[160];
        if (changed[f] && pk_cl_params_check_regs(&next, (pk_cl_family)f, d->nv_regs, rule, sizeof rule)) {
            snprintf(why, n, "%s: %s", pk_cl_family_get((pk_cl_family)f)->name, rule);
            return -1;
        }
    }
    for (int f = 0; f < PK_CL_FAMILY_COUNT; f++)
        if (changed[f]) d->prm_from[f] = FROM_SET;
    d->prm = next;
    return 0;
}

/* PORTKERN_CL_PARAMS: values set over the table's and the tuning cache's
 * for every context of the process (an experiment without a rebuild;
 * portkern tune's search starts from them) */
static pk_status apply_env(pk_cl_device *d, pk_msg *msg)
{
    const char *env = getenv("PORTKERN_CL_PARAMS");
    char why[256];
    if (env && *env && set_over(d, env, why, sizeof why))
        return pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "PORTKERN_CL_PARAMS=\"%s\": %s", env, why);
    return PK_SUCCESS;
}

pk_status pk_cl_params_load(pk_cl_device *d, pk_msg *msg)
{
    pk_cl_params_default(pk_cl_vendor_of(&d->info), &d->prm);
    char why[512];
    if (d->info.matrix_units && pk_cl_wgmma_state(d->info.index, why, sizeof why)) {
        pk_cl_params_wgmma(&d->prm);
        if (pk_cl_tma_state(d->info.index, why, sizeof why)) pk_cl_params_tma(&d->prm);
    }
    memset(d->prm_from, FROM_TABLE, sizeof d->prm_from);
    char path[1200];
    if (!pk_cl_tuned_off() && tuned_path(d, path, sizeof path)) {
        char *text = read_tuned(path);
        if (text) apply_tuned(&d->prm, d->prm_from, text);
        free(text);
    }
    return apply_env(d, msg);
}

int pk_cl_params_load_family(pk_cl_device *d, pk_cl_family f)
{
    char path[1200];
    if (pk_cl_tuned_off() || !tuned_path(d, path, sizeof path)) return -1;
    char *text = read_tuned(path);
    pk_cl_params next = d->prm;
    char from[PK_CL_FAMILY_COUNT] = {0};
    if (text) apply_tuned(&next, from, text);
    free(text);
    if (from[f] != FROM_TUNED) return -1;
    int count;
    const pk_cl_param *ps = pk_cl_param_list(&count);
    for (int i = 0; i < count; i++)
        if (ps[i].family == f) *pk_cl_param_ptr(&d->prm, &ps[i]) = pk_cl_param_get(&next, &ps[i]);
    d->prm_from[f] = FROM_TUNED;
    return 0;
}

/* Writes family f's current values into the tuning cache, keeping the
 * other families' lines. */
static pk_status store(pk_cl_device *d, pk_cl_family f, pk_msg *msg)
{
    char path[1200];
    if (!tuned_path(d, path, sizeof path))
        return pk_msgf(msg, PK_ERR_UNSUPPORTED, "no cache directory to store tuning in (PORTKERN_CACHE_DIR=off, or "
                                                "no HOME)");
    const pk_cl_family_info *fi = pk_cl_family_get(f);
    /* read, add a line, rename over: two processes storing at once (first
     * uses of two families) would each drop the other's line, so they
     * take turns on a lock file beside it (advisory: a reader needs none,
     * the rename is atomic) */
    char lockpath[1300];
    snprintf(lockpath, sizeof lockpath, "%s.lock", path);
    int lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lockfd >= 0) flock(lockfd, LOCK_EX);
    char *old = read_tuned(path);
    size_t cap = (old ? strlen(old) : 0) + LINE_MAX_LEN + 512;
    char *out = malloc(cap);
    if (!out) {
        free(old);
        if (lockfd >= 0) close(lockfd);
        return pk_msgf(msg, PK_ERR_OUT_OF_MEMORY, "out of host memory");
    }
    size_t len = (size_t)snprintf(out, cap, "%s\n# %s | %s | %s\n", TUNED_MAGIC, d->info.name, d->platform_name,
                                  d->info.driver);
    const char *line = old ? strchr(old, '\n') : NULL;
    while (line && *++line) {
        const char *next = strchr(line, '\n');
        size_t n = next ? (size_t)(next - line) : strlen(line);
        size_t fl = strlen(fi->name);
        int mine = n > fl && !strncmp(line, fi->name, fl) && line[fl] == ' ';
        if (line[0] != '#' && !mine && len + n + 1 < cap) {
            memcpy(out + len, line, n);
            len += n;
            out[len++] = '\n';
        }
        line = next;
    }
    free(old);
    char spec[LINE_MAX_LEN];
    pk_cl_params_format(&d->prm, f, spec, sizeof spec);
    len += (size_t)snprintf(out + len, cap - len, "%s %016llx %s\n", fi->name,
                            (unsigned long long)pk_cl_source_hash(fi->source), spec);
    len += (size_t)snprintf(out + len, cap - len, "end %016llx\n",
                            (unsigned long long)fnv(0xcbf29ce484222325ull, out, len));

    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    pk_status s = PK_SUCCESS;
    if (fd < 0) {
        s = pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "cannot write the tuning cache %s", path);
    } else {
        fchmod(fd, 0644);
        int ok = write(fd, out, len) == (ssize_t)len;
        ok = close(fd) == 0 && ok;
        /* rename is atomic: a reader sees the old file or the whole new one */
        if (!ok || rename(tmp, path) != 0) {
            remove(tmp);
            s = pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "cannot write the tuning cache %s", path);
        }
    }
    free(out);
    if (lockfd >= 0) close(lockfd); /* and with it the lock */
    if (s == PK_SUCCESS) d->prm_from[f] = FROM_TUNED;
    return s;
}

static int family_arg(const char *arg, pk_msg *msg)
{
    int f = pk_cl_family_find(arg);
    if (f < 0) pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "no OpenCL kernel family '%s'", arg);
    return f;
}

static const char *from_name(char c)
{
    return c == FROM_TUNED ? "tuned" : c == FROM_SET ? "set" : "table";
}

/* a family whose kernels this device runs (the tensor-core ones only
 * where the probe passed) */
static int runs_here(const pk_cl_device *d, pk_cl_family f)
{
    return !pk_cl_family_get(f)->matrix_units || d->info.matrix_units;
}

/* Requests (one per call; reply is one line per item):
 *   list            "family.name lo hi choice..." for every parameter
 *   families        "family source what" per family whose kernels the
 *                   device runs (the tensor-core ones need matrix units)
 *   status          "class C autotune on SECONDS|off" then "family
 *                   table|tuned|set" per such family (class "other": no table
 *                   entry for this device; autotune: families are tuned
 *                   on first use, opencl_autotune.c)
 *   get FAMILY      FAMILY's values as "family.name=value,..."
 *   set SPEC        sets "family.name=value,..." on this context only
 *   default FAMILY  FAMILY back to the class's table entry
 *   store FAMILY    FAMILY's current values into the tuning cache
 *   reload          the table, then the tuning cache, as a new context
 *   ptx             "on|off WHY": whether kernels use inline PTX here,
 *                   then "wgmma on|off WHY" and "tma on|off WHY" */
pk_status pk_cl_params_request(void *dev, const char *request, char *reply, size_t n, pk_msg *msg)
{
    pk_cl_device *d = dev;
    char verb[16] = "", arg[LINE_MAX_LEN] = "";
    if (n) reply[0] = 0;
    if (sscanf(request, "%15s %2047[^\n]", verb, arg) < 1)
        return pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "empty params request");
    size_t len = 0;
#define OUT(...) (len += (size_t)snprintf(len < n ? reply + len : NULL, len < n ? n - len : 0, __VA_ARGS__))
    if (!strcmp(verb, "list")) {
        int count;
        const pk_cl_param *ps = pk_cl_param_list(&count);
        for (int i = 0; i < count; i++) {
            OUT("%s.%s %d %d", pk_cl_family_get(ps[i].family)->name, ps[i].name, ps[i].lo, ps[i].hi);
            for (int c = 0; c < ps[i].nchoices; c++) OUT(" %d", ps[i].choices[c]);
            OUT("\n");
        }
    } else if (!strcmp(verb, "families")) {
        /* only the families whose kernels this device runs */
        for (int f = 0; f < PK_CL_FAMILY_COUNT; f++) {
            const pk_cl_family_info *fi = pk_cl_family_get((pk_cl_family)f);
            if (runs_here(d, (pk_cl_family)f)) OUT("%s %s %s\n", fi->name, fi->source, fi->what);
        }
    } else if (!strcmp(verb, "status")) {
        static const char *const cls[PK_CL_VENDOR_COUNT] = {"nvidia", "amd", "intel", "cpu", "other"};
        char at[32];
        pk_cl_autotune_describe(d, at, sizeof at);
        OUT("class %s autotune %s\n", cls[pk_cl_vendor_of(&d->info)], at);
        for (int f = 0; f < PK_CL_FAMILY_COUNT; f++)
            if (runs_here(d, (pk_cl_family)f))
                OUT("%s %s\n", pk_cl_family_get((pk_cl_family)f)->name, from_name(d->prm_from[f]));
    } else if (!strcmp(verb, "ptx")) {
        char why[512];
        const int on = pk_cl_ptx_state(d->info.index, why, sizeof why);
        OUT("%s %s\n", on ? "on" : "off", why);
        const int wg = on && pk_cl_wgmma_state(d->info.index, why, sizeof why);
        OUT("wgmma %s %s\n", wg ? "on" : "off", on ? why : "without inline PTX");
        const int tma = wg && pk_cl_tma_state(d->info.index, why, sizeof why);
        OUT("tma %s %s\n", tma ? "on" : "off", wg ? why : "without wgmma");
    } else if (!strcmp(verb, "get") || !strcmp(verb, "default") || !strcmp(verb, "store")) {
        int f = family_arg(arg, msg);
        if (f < 0) return PK_ERR_INVALID_ARGUMENT;
        if (!strcmp(verb, "default")) {
            pk_cl_params def;
            pk_cl_params_default(pk_cl_vendor_of(&d->info), &def);
            if (d->prm.wgmma_units) pk_cl_params_wgmma(&def);
            if (d->prm.tma_units) pk_cl_params_tma(&def);
            int count;
            const pk_cl_param *ps = pk_cl_param_list(&count);
            for (int i = 0; i < count; i++)
                if ((int)ps[i].family == f) *pk_cl_param_ptr(&d->prm, &ps[i]) = pk_cl_param_get(&def, &ps[i]);
            d->prm_from[f] = FROM_TABLE;
        } else if (!strcmp(verb, "store")) {
            pk_status s = store(d, (pk_cl_family)f, msg);
            if (s != PK_SUCCESS) return s;
        }
        char spec[LINE_MAX_LEN];
        pk_cl_params_format(&d->prm, (pk_cl_family)f, spec, sizeof spec);
        OUT("%s\n", spec);
    } else if (!strcmp(verb, "set")) {
        char why[256];
        if (set_over(d, arg, why, sizeof why)) return pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "params: %s", why);
    } else if (!strcmp(verb, "reload")) {
        pk_status s = pk_cl_params_load(d, msg);
        if (s != PK_SUCCESS) return s;
    } else {
        return pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "unknown params request '%s'", verb);
    }
#undef OUT
    if (len >= n && n) return pk_msgf(msg, PK_ERR_INVALID_ARGUMENT, "params reply needs %zu bytes, got %zu", len + 1, n);
    return PK_SUCCESS;
}
