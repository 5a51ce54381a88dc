/* SPDX-License-Identifier: MIT */
// sources: src/util/settings.c
/* Unit test of the tuning file (COURIER_TUNE_FILE, src/util/settings.c), as
 * tools/courier_tune writes it: NAME=VALUE lines by variable or field name,
 * comments and blanks skipped, size suffixes, the environment winning over
 * the file, a bad line reported without spoiling the others, and an
 * unreadable file leaving the defaults. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "util/settings.h"
#include "unit_expect.h"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    EXPECT(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

int main(void)
{
    char path[] = "/tmp/courier_tune_test_XXXXXX";
    int fd = mkstemp(path);
    EXPECT(fd >= 0);
    close(fd);
    write_file(path, "# written by hand\n\n"
                     "COURIER_COLL_BCAST_CMA_MIN_BYTES=64k\n"
                     "  coll_alltoall_cma_min_bytes = 1234  \n"
                     "COURIER_COLL_GATHER_CMA_MIN_BYTES=99\n");
    setenv("COURIER_TUNE_FILE", path, 1);
    setenv("COURIER_COLL_GATHER_CMA_MIN_BYTES", "77", 1);   /* the environment wins */
    EXPECT(ut_settings_load() == 0);
    EXPECT(ut_settings.coll_bcast_cma_min_bytes == 64 * 1024);
    EXPECT(ut_settings.coll_alltoall_cma_min_bytes == 1234);
    EXPECT(ut_settings.coll_gather_cma_min_bytes == 77);
    unsetenv("COURIER_COLL_GATHER_CMA_MIN_BYTES");

    /* a bad line and an unknown name: reported (-1), the good line still read */
    write_file(path, "COURIER_NO_SUCH_SETTING=1\nCOURIER_COLL_SCATTER_CMA_MIN_BYTES=12x\n"
                     "no equals sign\nCOURIER_COLL_REDUCE_CMA_MIN_BYTES=4096\n");
    EXPECT(ut_settings_load() == -1);
    EXPECT(ut_settings.coll_reduce_cma_min_bytes == 4096);
    EXPECT(ut_settings.coll_scatter_cma_min_bytes == 8192);   /* its default */
    EXPECT(ut_settings.coll_bcast_cma_min_bytes == 32768);    /* defaults again */

    /* no file: the defaults, and a message */
    unlink(path);
    EXPECT(ut_settings_load() == -1);
    EXPECT(ut_settings.coll_reduce_cma_min_bytes == 32768);
    unsetenv("COURIER_TUNE_FILE");
    EXPECT(ut_settings_load() == 0);
    EXPECT(ut_setting_str(ut_settings.tune_file) == NULL);
    if (!unit_failures) printf("PASS unit.tune_file\n");
    return unit_failures ? 1 : 0;
}
