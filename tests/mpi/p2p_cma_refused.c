/* SPDX-License-Identifier: MIT */
/* Rendezvous with a peer whose memory cannot be read: every odd rank makes
 * itself non-dumpable (prctl(PR_SET_DUMPABLE, 0)) and every rank gives up
 * CAP_SYS_PTRACE (which would let root read it anyway), so process_vm_readv
 * into an odd rank fails.  Receivers from an odd rank must fall back to the
 * pipeline for that peer alone, and a split copy whose put into an odd rank is
 * refused must be finished by the receiver; every message's data is checked,
 * both directions, blocking and non-blocking, eager and rendezvous sizes.  The
 * test first confirms (with process_vm_readv of its own) that the kernel does
 * refuse, and says so.  MPICH 4.0 (ch4:ucx) aborts in UCX's CMA transport on
 * this test, so it is not validated against MPICH. */
#define _GNU_SOURCE
#include "mpitest.h"
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static const size_t sizes[] = { 8, 8192, 8193, 40000, 1 << 20 };
#define NS (int)(sizeof sizes / sizeof sizes[0])

static int drop_ptrace_cap(void)
{
    struct __user_cap_header_struct hd = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[2];
    if (syscall(SYS_capget, &hd, d) != 0) return -1;
    d[CAP_SYS_PTRACE / 32].effective &= ~(1u << (CAP_SYS_PTRACE % 32));
    d[CAP_SYS_PTRACE / 32].permitted &= ~(1u << (CAP_SYS_PTRACE % 32));
    return syscall(SYS_capset, &hd, d) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(drop_ptrace_cap() == 0, "cannot drop CAP_SYS_PTRACE");
    if (rank % 2) prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Does the kernel refuse?  Rank 0 tries to read a word of rank 1. */
    static long probe_word = 42;
    long addr_pid[2] = { (long)(uintptr_t)&probe_word, (long)getpid() };
    if (size > 1) {
        if (rank == 1) MPI_Send(addr_pid, 2, MPI_LONG, 0, 99, MPI_COMM_WORLD);
        if (rank == 0) {
            long ap[2], got = 0;
            MPI_Recv(ap, 2, MPI_LONG, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            struct iovec l = { &got, sizeof got }, r = { (void *)(uintptr_t)ap[0], sizeof got };
            ssize_t k = process_vm_readv((pid_t)ap[1], &l, 1, &r, 1, 0);
            printf("process_vm_readv of non-dumpable rank 1: %s\n",
                   k < 0 ? "refused (the fallback is exercised)" : "allowed (fallback not exercised)");
        }
    }

    unsigned char *sb = mt_malloc(1 << 20), *rb = mt_malloc(1 << 20);
    for (int round = 0; round < 3; round++) {
        for (int s = 0; s < NS; s++) {
            size_t n = sizes[s];
            /* every pair (i, j), i < j: i sends to j, then j to i */
            for (int i = 0; i < size; i++)
                for (int j = i + 1; j < size; j++) {
                    long seed = round * 1000 + s * 100 + i * 10 + j;
                    if (rank == i) {
                        mt_fill(sb, n, seed);
                        CHECK_MPI(MPI_Send(sb, (int)n, MPI_BYTE, j, s, MPI_COMM_WORLD));
                        memset(rb, 0, n);
                        CHECK_MPI(MPI_Recv(rb, (int)n, MPI_BYTE, j, s, MPI_COMM_WORLD,
                                           MPI_STATUS_IGNORE));
                        CHECK_PATTERN(rb, n, seed + 1);
                    } else if (rank == j) {
                        memset(rb, 0, n);
                        CHECK_MPI(MPI_Recv(rb, (int)n, MPI_BYTE, i, s, MPI_COMM_WORLD,
                                           MPI_STATUS_IGNORE));
                        CHECK_PATTERN(rb, n, seed);
                        mt_fill(sb, n, seed + 1);
                        CHECK_MPI(MPI_Send(sb, (int)n, MPI_BYTE, i, s, MPI_COMM_WORLD));
                    }
                }
            /* everyone at once, non-blocking, around a ring */
            if (size > 1) {
                int right = (rank + 1) % size, left = (rank + size - 1) % size;
                MPI_Request rq[2];
                mt_fill(sb, n, 7 * rank + s);
                memset(rb, 0, n);
                CHECK_MPI(MPI_Irecv(rb, (int)n, MPI_BYTE, left, 50 + s, MPI_COMM_WORLD, &rq[0]));
                CHECK_MPI(MPI_Isend(sb, (int)n, MPI_BYTE, right, 50 + s, MPI_COMM_WORLD, &rq[1]));
                CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
                CHECK_PATTERN(rb, n, 7 * left + s);
            }
        }
    }
    free(sb);
    free(rb);
    int rc = mt_finish("p2p_cma_refused");
    MPI_Finalize();
    return rc;
}
