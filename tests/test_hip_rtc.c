/* The HIP kernels' run-time compilation (backends/hip/hip_rtc.c), without
 * a device: every embedded kernel file compiles with the platform's
 * compiler (hipRTC on AMD, NVRTC for HIP on NVIDIA) for each target named
 * on the command line, to an ELF; the second ask comes from the disk
 * cache with the same bytes; a broken kernel (PORTKERN_HIP_SOURCE_DIR)
 * gives PK_ERR_BUILD_FAILED with the compiler's log, and is not cached.
 * Exit 77 (skipped) where the compiler is not installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hip_rtc.h"

static int failed, checks;

static void check(int ok, const char *what, const char *arch, const char *unit, const char *detail)
{
    checks++;
    if (ok) return;
    failed++;
    printf("FAIL  %s %s %s%s%s\n", arch, unit, what, detail ? ": " : "", detail ? detail : "");
}

int main(int argc, char **argv)
{
    if (argc < 2) return fprintf(stderr, "usage: test_hip_rtc ARCH...\n"), 2;
    char root[] = "/tmp/pk-hip-rtc-XXXXXX", cache[64], broken[64], path[128];
    if (!mkdtemp(root)) return perror("mkdtemp"), 1;
    snprintf(cache, sizeof cache, "%s/cache", root);
    snprintf(broken, sizeof broken, "%s/src", root);
    setenv("PORTKERN_CACHE_DIR", cache, 1);
    const int units = pk_hip_rtc_unit_count();
    check(units >= 3, "fewer than 3 kernel files embedded", "", "", NULL);
    for (int a = 1; a < argc; a++) {
        const char *arch = argv[a];
        for (int u = 0; u < units; u++) {
            const char *unit = pk_hip_rtc_unit(u);
            char *code = NULL, *again = NULL;
            size_t len = 0, len2 = 0;
            int cached = 0;
            pk_msg msg = {{0}};
            pk_status s = pk_hip_rtc_code(unit, arch, 1, &code, &len, &cached, &msg);
            if (s == PK_ERR_BUILD_FAILED && strstr(msg.text, "not found")) {
                printf("test_hip_rtc: skipped: %s\n", msg.text);
                return 77;
            }
            check(s == PK_SUCCESS, "does not compile", arch, unit, msg.text);
            if (s != PK_SUCCESS) continue;
            check(len > 4 && !memcmp(code, "\x7f" "ELF", 4) && !cached, "not a fresh ELF", arch, unit, NULL);
            s = pk_hip_rtc_code(unit, arch, 0, &again, &len2, &cached, &msg);
            check(s == PK_SUCCESS && cached && len2 == len && !memcmp(code, again, len), "not the same from the cache",
                  arch, unit, NULL);
            printf("ok    %s %s: %zu bytes, then from the cache\n", arch, unit, len);
            free(code);
            free(again);
        }
        /* a kernel file with an error in it, in place of the embedded one */
        const char *unit = pk_hip_rtc_unit(0);
        mkdir(broken, 0755);
        snprintf(path, sizeof path, "%s/%s", broken, unit);
        FILE *f = fopen(path, "w");
        fputs("extern \"C\" __global__ void pk_broken(float *p) { p[0] = undeclared_name; }\n", f);
        fclose(f);
        setenv("PORTKERN_HIP_SOURCE_DIR", broken, 1);
        char *code = NULL;
        size_t len = 0;
        int cached = 0;
        pk_msg msg = {{0}};
        pk_status s = pk_hip_rtc_code(unit, arch, 0, &code, &len, &cached, &msg);
        check(s == PK_ERR_BUILD_FAILED && strstr(msg.text, "undeclared_name") && !code, "broken source not refused",
              arch, unit, msg.text);
        printf("%s    %s broken %s: %.160s\n", s == PK_ERR_BUILD_FAILED ? "ok" : "FAIL", arch, unit, msg.text);
        unsetenv("PORTKERN_HIP_SOURCE_DIR");
        remove(path);
        rmdir(broken);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    printf("test_hip_rtc: %d checks, %d failed\n", checks, failed);
    return failed ? 1 : 0;
}
