/* The on-disk cache of compiled device code that every backend which
 * compiles at run time shares (OpenCL program binaries, HIP code objects
 * compiled by hipRTC or NVRTC): where it lives, the hash that names an
 * entry, and files that are read back only when whole.
 *
 * Directory: $PORTKERN_CACHE_DIR, else $XDG_CACHE_HOME/portkern, else
 * $HOME/.cache/portkern; PORTKERN_CACHE_DIR=off disables it. A cache that
 * cannot be read or written is skipped silently: it only saves time. */
#ifndef PK_DISK_CACHE_H
#define PK_DISK_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a, one part at a time, a separator after each so that parts cannot
 * run together: h = pk_hash_part(PK_HASH_INIT, a); h = pk_hash_part(h, b) */
#define PK_HASH_INIT 0xcbf29ce484222325ull
uint64_t pk_hash_part(uint64_t h, const char *s);
uint64_t pk_hash_bytes(uint64_t h, const void *p, size_t n);

/* The cache directory in dir (created if missing); 0 when there is none. */
int pk_cache_dir(char *dir, size_t n);

/* An entry's bytes (malloc'd, *len set), or NULL when the file is missing
 * or not whole: its header's length or checksum does not match. */
unsigned char *pk_cache_read(const char *path, size_t *len);
/* Writes an entry through a file of its own and a rename, so that a
 * concurrent reader sees the old entry or the whole new one. */
void pk_cache_write(const char *path, const void *data, size_t len);

#endif
