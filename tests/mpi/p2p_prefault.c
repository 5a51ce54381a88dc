/* SPDX-License-Identifier: MIT */
/* The shared-memory rings are mapped at start-up (COURIER_SHM_PREFAULT_BYTES,
 * docs/architecture.md): the first lap of a ring takes no page fault.  Ranks 0
 * and 1 exchange 1,000 short messages each way (1,000 cells of each ring: at
 * 4 ranks each ring's mapped prefix is about 2,700 cells) and count this
 * process's minor page faults meanwhile; with COURIER_SHM_PREFAULT_BYTES=0
 * (variant "lazy") the same exchange must fault, which shows the count sees
 * the ring's pages.  Every message's contents are checked. */
#include "mpitest.h"
#include <stdlib.h>
#include <sys/resource.h>

#define ROUNDS 1000

static long minor_faults(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *e = getenv("COURIER_SHM_PREFAULT_BYTES");
    int lazy = e && atol(e) == 0;
    int local = 1;
    {   /* the check holds for ranks that share a node */
        MPI_Comm node;
        CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
        int ns;
        MPI_Comm_size(node, &ns);
        local = ns == size;
        MPI_Comm_free(&node);
    }
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank, bad = 0;
        long buf[3];
        long f0 = minor_faults();
        for (long i = 0; i < ROUNDS; i++) {
            long want[3] = {i, -i, i * 7 + 1};
            if (rank == 0) {
                CHECK_MPI(MPI_Send(want, 3, MPI_LONG, peer, 5, MPI_COMM_WORLD));
                CHECK_MPI(MPI_Recv(buf, 3, MPI_LONG, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            } else {
                CHECK_MPI(MPI_Recv(buf, 3, MPI_LONG, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK_MPI(MPI_Send(want, 3, MPI_LONG, peer, 6, MPI_COMM_WORLD));
            }
            bad += buf[0] != want[0] || buf[1] != want[1] || buf[2] != want[2];
        }
        long faults = minor_faults() - f0;
        CHECK(bad == 0, "%d of %d messages arrived wrong", bad, ROUNDS);
        /* 1,000 cells of 64 bytes are 16 pages per ring, two rings per process */
#ifdef __SANITIZE_ADDRESS__
        local = 0; /* the sanitizer's own shadow pages fault as they please */
#endif
        if (local && lazy)
            CHECK(faults >= 16, "only %ld page faults with the rings mapped lazily", faults);
        else if (local)
            CHECK(faults <= 8, "%ld page faults in %d round trips over prefaulted rings", faults,
                  ROUNDS);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int rc = mt_finish("p2p_prefault");
    MPI_Finalize();
    return rc;
}
