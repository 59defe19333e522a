/* The unit tests' check: reports a false condition with its place and
 * counts it in `failures` (the test's exit status). */
#ifndef PK_UNIT_CHECK_H
#define PK_UNIT_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(c)                                                          \
    do {                                                                  \
        if (!(c)) {                                                       \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c);       \
            failures++;                                                   \
        }                                                                 \
    } while (0)

#endif
