#include "pk_disk_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t pk_hash_part(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    h ^= 0xffu;
    return h * 0x100000001b3ull;
}

uint64_t pk_hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

int pk_cache_dir(char *dir, size_t n)
{
    const char *env = getenv("PORTKERN_CACHE_DIR");
    if (env && !strcmp(env, "off")) return 0;
    if (env && *env) snprintf(dir, n, "%s", env);
    else if (getenv("XDG_CACHE_HOME") && *getenv("XDG_CACHE_HOME"))
        snprintf(dir, n, "%s/portkern", getenv("XDG_CACHE_HOME"));
    else if (getenv("HOME") && *getenv("HOME"))
        snprintf(dir, n, "%s/.cache/portkern", getenv("HOME"));
    else
        return 0;
    /* create the last two levels if missing ($HOME/.cache may not exist) */
    char parent[1024];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        mkdir(parent, 0755);
    }
    mkdir(dir, 0755);
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* An entry is this header, then the bytes. PoCL crashes on a truncated
 * program binary, so a file that is not whole never reaches a driver. */
typedef struct entry_header {
    char magic[8]; /* "pkcache1" */
    uint64_t len;  /* bytes after the header */
    uint64_t hash; /* FNV-1a of them */
} entry_header;
static const char magic[8] = {'p', 'k', 'c', 'a', 'c', 'h', 'e', '1'};

unsigned char *pk_cache_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    *len = 0;
    if (!f) return NULL;
    unsigned char *buf = NULL;
    long n = 0;
    entry_header h;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > (long)sizeof h && fseek(f, 0, SEEK_SET) == 0 &&
        fread(&h, sizeof h, 1, f) == 1 && !memcmp(h.magic, magic, sizeof magic) && h.len == (uint64_t)n - sizeof h) {
        buf = malloc((size_t)h.len);
        if (buf && (fread(buf, 1, (size_t)h.len, f) != (size_t)h.len ||
                    pk_hash_bytes(PK_HASH_INIT, buf, (size_t)h.len) != h.hash)) {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    if (buf) *len = (size_t)h.len;
    return buf;
}

void pk_cache_write(const char *path, const void *data, size_t len)
{
    char tmp[1300];
    /* a file of its own per writer: two contexts of one process (one pid)
     * that build the same program at once would otherwise write into one
     * temporary file, and the first rename would publish it half written */
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) return;
    fchmod(fd, 0644); /* as fopen would have made it: mkstemp makes 0600 */
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        remove(tmp);
        return;
    }
    entry_header h = {{0}, len, pk_hash_bytes(PK_HASH_INIT, data, len)};
    memcpy(h.magic, magic, sizeof magic);
    int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) remove(tmp);
}
