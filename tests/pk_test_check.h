/* The checks of the device tests (test_faults, test_interop): each counts,
 * and a failed one prints "FAIL: " and its message on stderr. One
 * translation unit a test: the counters are the file's own. */
#ifndef PK_TEST_CHECK_H
#define PK_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int n_checks, n_failed;

static int check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int check(int ok, const char *fmt, ...)
{
    n_checks++;
    if (!ok) {
        n_failed++;
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "FAIL: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
    return ok;
}

#endif
