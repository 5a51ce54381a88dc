/* SPDX-License-Identifier: MIT */
// sources: src/util/settings.c
/* Unit test of the settings table (src/util/settings.c): defaults, numbers
 * with size suffixes, booleans, a value that does not parse (default kept,
 * -1 returned), an alias of another MPI, and STRING settings, which hold the
 * environment's string (NULL when unset). */
#define _GNU_SOURCE
#include "util/settings.h"
#include "unit_expect.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *str(long v)
{
    return (const char *)(intptr_t)v;
}

int main(void)
{
    unsetenv("COURIER_OFI_PROVIDER");
    unsetenv("COURIER_EAGER_LIMIT");
    unsetenv("COURIER_SPIN_COUNT");
    unsetenv("MPIR_CVAR_POLLS_BEFORE_YIELD");
    EXPECT(ut_settings_load() == 0);
    EXPECT(ut_settings.ofi_provider == 0);
    EXPECT(ut_settings.eager_limit == 8192);

    setenv("COURIER_OFI_PROVIDER", "tcp;ofi_rxm", 1);
    setenv("COURIER_EAGER_LIMIT", "16k", 1);
    setenv("COURIER_BACKTRACE", "off", 1);
    setenv("MPIR_CVAR_POLLS_BEFORE_YIELD", "77", 1);
    EXPECT(ut_settings_load() == 0);
    EXPECT(str(ut_settings.ofi_provider) && !strcmp(str(ut_settings.ofi_provider), "tcp;ofi_rxm"));
    EXPECT(ut_settings.eager_limit == 16384);
    EXPECT(ut_settings.backtrace == 0);
    EXPECT(ut_settings.spin_count == 77);

    /* an empty string is unset */
    setenv("COURIER_OFI_PROVIDER", "", 1);
    setenv("COURIER_EAGER_LIMIT", "lots", 1);
    fprintf(stderr, "(a message about COURIER_EAGER_LIMIT follows, as it should)\n");
    EXPECT(ut_settings_load() == -1);
    EXPECT(ut_settings.ofi_provider == 0);
    EXPECT(ut_settings.eager_limit == 8192);

    int found = 0;
    for (int i = 0; i < ut_setting_count; i++)
        if (!strcmp(ut_setting_descs[i].name, "ofi_provider")) {
            found = 1;
            EXPECT(ut_setting_descs[i].type == UT_SET_STRING);
            EXPECT(!strcmp(ut_setting_type_name(ut_setting_descs[i].type), "string"));
        }
    EXPECT(found);
    if (unit_failures) return 1;
    printf("PASS settings\n");
    return 0;
}
