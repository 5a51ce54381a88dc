/* SPDX-License-Identifier: MIT */
/* Get_processor_name, Get_version, Get_library_version, Wtime / Wtick
 * (monotonic, sensible resolution), Alloc_mem / Free_mem (usable memory,
 * also as a communication buffer). */
#include "mpitest.h"
#include <time.h>

int main(int argc, char **argv)
{
    int rank, size, len = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char name[MPI_MAX_PROCESSOR_NAME];
    memset(name, 0x7f, sizeof name);
    CHECK_MPI(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "processor name length %d", len);
    if (len > 0 && len < MPI_MAX_PROCESSOR_NAME) {
        CHECK_INT(strlen(name), len);
    }

    int ver = -1, sub = -1;
    CHECK_MPI(MPI_Get_version(&ver, &sub));
    CHECK_INT(ver, MPI_VERSION);
    CHECK_INT(sub, MPI_SUBVERSION);
    CHECK(ver >= 3, "MPI version %d.%d", ver, sub);

    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    len = -1;
    CHECK_MPI(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING, "library version length %d", len);
    if (len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING) CHECK_INT(strlen(lib), len);
    if (rank == 0) printf("library: %.*s\nprocessor: %s, MPI %d.%d\n", (int)strcspn(lib, "\n"), lib, name, ver, sub);

    /* Wtime: monotonic, advances, tick in (0, 1 ms] */
    double tick = MPI_Wtick();
    CHECK(tick > 0 && tick <= 1e-3, "Wtick %g", tick);
    double t0 = MPI_Wtime(), prev = t0;
    for (int i = 0; i < 100000; i++) {
        double t = MPI_Wtime();
        CHECK(t >= prev, "Wtime went backwards: %.9f after %.9f", t, prev);
        if (t < prev) break;
        prev = t;
    }
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    double dt = MPI_Wtime() - t0;
    CHECK(dt >= 0.019 && dt < 10, "20 ms sleep measured as %g s", dt);

    /* Alloc_mem */
    void *p = NULL;
    CHECK_MPI(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &p));
    CHECK(p != NULL, "Alloc_mem gave NULL");
    if (p) {
        memset(p, 0x5a, 1 << 20);
        int to = (rank + 1) % size, from = (rank + size - 1) % size;
        void *q = NULL;
        CHECK_MPI(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &q));
        mt_fill(p, 1 << 20, rank);
        CHECK_MPI(MPI_Sendrecv(p, 1 << 20, MPI_BYTE, to, 0, q, 1 << 20, MPI_BYTE, from, 0, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
        CHECK_PATTERN(q, 1 << 20, from);
        CHECK_MPI(MPI_Free_mem(q));
        CHECK_MPI(MPI_Free_mem(p));
    }
    void *z = NULL;
    CHECK_MPI(MPI_Alloc_mem(0, MPI_INFO_NULL, &z));
    CHECK_MPI(MPI_Free_mem(z));
    int rc = mt_finish("env_misc");
    MPI_Finalize();
    return rc;
}
