/* SPDX-License-Identifier: MIT */
/* MPI_Comm_split_type: MPI_COMM_TYPE_SHARED (one node: everybody),
 * MPI_COMM_TYPE_HW_GUIDED with mpi_hw_resource_type (mpi_shared_memory,
 * machine, and with every process bound to one processor: core and pu split
 * by the processor; unknown kinds, a missing key and MPI_INFO_NULL give
 * MPI_COMM_NULL), MPI_COMM_TYPE_HW_UNGUIDED (a strict subset, its kind
 * returned in the info argument), MPI_UNDEFINED, the key's order, and the
 * split of an intercommunicator (each group splits; MPI 4.0).
 * The binding is done here with sched_setaffinity: rank r runs on processor
 * r mod (processors it may use). */
#define _GNU_SOURCE
#include "mpitest.h"
#include <sched.h>

/* Bind this process to the k-th processor of its affinity mask; returns that
 * processor's number, or -1. */
static int bind_to(int k)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    int n = CPU_COUNT(&set), cpu = -1;
    for (int c = 0, seen = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set) && seen++ == k % n) cpu = c;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
}

static MPI_Comm split_hw(const char *kind, int key)
{
    MPI_Info info;
    MPI_Comm c;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_hw_resource_type", kind);
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, key, info, &c));
    MPI_Info_free(&info);
    return c;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, n, r;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm c;

    /* one node: the shared-memory communicator is everybody, ordered by key */
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL, &c));
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &r);
    CHECK(n == size && r == size - 1 - rank, "shared: size %d rank %d", n, r);
    MPI_Comm_free(&c);
    c = split_hw("mpi_shared_memory", 0);
    MPI_Comm_size(c, &n);
    CHECK_INT(n, size);
    char v[64] = "";
    int flag = 0;
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 does not record the kind of a split in the new communicator's hints */
    MPI_Info used;
    MPI_Comm_get_info(c, &used);
    MPI_Info_get(used, "mpi_hw_resource_type", sizeof v - 1, v, &flag);
    CHECK(flag && strcmp(v, "mpi_shared_memory") == 0, "kind in the hints: \"%s\"", v);
    MPI_Info_free(&used);
#endif
    MPI_Comm_free(&c);
#ifndef MT_REFERENCE_MPICH   /* Debian's MPICH 4.0 knows only mpi_shared_memory */
    c = split_hw("machine", 0);
    MPI_Comm_size(c, &n);
    CHECK_INT(n, size);
    MPI_Comm_free(&c);
#endif
    /* unknown kinds, no key, no info: MPI_COMM_NULL */
    c = split_hw("no-such-hardware", 0);
    CHECK(c == MPI_COMM_NULL, "unknown kind gave a communicator");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "shmem_topo", "core");
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c));
    CHECK(c == MPI_COMM_NULL, "no mpi_hw_resource_type gave a communicator");
    MPI_Info_free(&info);
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c));
    CHECK(c == MPI_COMM_NULL, "MPI_INFO_NULL gave a communicator");
    /* MPI_UNDEFINED at the odd ranks */
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                                  MPI_INFO_NULL, &c));
    if (rank % 2) CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
    else {
        MPI_Comm_size(c, &n);
        CHECK_INT(n, (size + 1) / 2);
        MPI_Comm_free(&c);
    }
    CHECK_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    CHECK_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c), MPI_ERR_ARG);

#ifndef MT_REFERENCE_MPICH   /* Debian's MPICH 4.0 knows no hardware levels (no hwloc) */
    /* bound to one processor each: core and pu split by processor */
    int cpu = bind_to(rank);
    CHECK(cpu >= 0, "cannot bind to a processor");
    int *cpus = mt_malloc((size_t)size * sizeof(int));
    MPI_Allgather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, MPI_COMM_WORLD);
    int same = 0;
    for (int i = 0; i < size; i++) same += cpus[i] == cpu;
    static const char *const kinds[] = { "core", "pu", "hwthread" };
    for (int k = 0; k < 3; k++) {
        c = split_hw(kinds[k], rank);
        CHECK(c != MPI_COMM_NULL, "%s: MPI_COMM_NULL for a bound process", kinds[k]);
        if (c == MPI_COMM_NULL) continue;
        MPI_Comm_size(c, &n);
        CHECK(n == same, "%s: %d processes share my processor, the communicator has %d", kinds[k],
              same, n);
        /* every member is on my processor */
        int *theirs = mt_malloc((size_t)n * sizeof(int));
        MPI_Allgather(&cpu, 1, MPI_INT, theirs, 1, MPI_INT, c);
        for (int i = 0; i < n; i++) CHECK(theirs[i] == cpu, "%s: member %d on cpu %d", kinds[k], i, theirs[i]);
        free(theirs);
        MPI_Comm_free(&c);
    }
    /* HW_UNGUIDED: a strict subset where the processes are on several
     * processors, the kind it chose in the info argument */
    MPI_Info_create(&info);
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, info, &c));
    int spread = same < size;
    if (spread) {
        CHECK(c != MPI_COMM_NULL, "unguided: MPI_COMM_NULL although processors differ");
        if (c != MPI_COMM_NULL) {
            MPI_Comm_size(c, &n);
            CHECK(n < size && n >= 1, "unguided: size %d of %d", n, size);
            flag = 0;
            MPI_Info_get(info, "mpi_hw_resource_type", sizeof v - 1, v, &flag);
            CHECK(flag && v[0], "unguided: no mpi_hw_resource_type in the info argument");
            MPI_Comm_free(&c);
        }
    } else {
        CHECK(c == MPI_COMM_NULL, "unguided: a communicator that is not a strict subset");
        if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    }
    MPI_Info_free(&info);
    free(cpus);
#else
    (void)v, (void)flag, (void)bind_to;
#endif

    /* an intercommunicator: each group splits by node (everybody) */
    if (size > 1) {
        MPI_Comm half, ic, s;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 31, &ic);
        CHECK_MPI(MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &s));
        int inter = 0, ls, rs, ils, irs;
        MPI_Comm_test_inter(s, &inter);
        MPI_Comm_size(s, &ls);
        MPI_Comm_remote_size(s, &rs);
        MPI_Comm_size(ic, &ils);
        MPI_Comm_remote_size(ic, &irs);
        CHECK(inter && ls == ils && rs == irs, "intercomm split: inter %d sizes %d/%d of %d/%d", inter,
              ls, rs, ils, irs);
        int one = 1, tot = -1;
        MPI_Allreduce(&one, &tot, 1, MPI_INT, MPI_SUM, s);
        CHECK_INT(tot, rs);
        MPI_Comm_free(&s);
        MPI_Comm_free(&ic);
        MPI_Comm_free(&half);
    }

    int rc = mt_finish("comm_split_type");
    MPI_Finalize();
    return rc;
}
