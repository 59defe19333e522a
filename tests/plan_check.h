/* The check the plan unit tests share: a failed condition is counted and
 * printed with its place and a message; main returns failures != 0. */
#ifndef PK_PLAN_CHECK_H
#define PK_PLAN_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                \
    do {                                                \
        if (!(cond)) {                                  \
            failures++;                                 \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__);                        \
            printf("\n");                               \
        }                                               \
    } while (0)

#endif
