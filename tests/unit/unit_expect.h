/* SPDX-License-Identifier: MIT */
/* EXPECT(cond): a unit test's check; a failed one prints file, line and the
 * condition on stderr and counts in unit_failures (main returns non-zero). */
#ifndef COURIER_UNIT_EXPECT_H
#define COURIER_UNIT_EXPECT_H
#include <stdio.h>

static int unit_failures;
#define EXPECT(c)                                                                  \
    do {                                                                           \
        if (!(c)) {                                                                \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);           \
            unit_failures++;                                                       \
        }                                                                          \
    } while (0)
#endif
