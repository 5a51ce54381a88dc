/* SPDX-License-Identifier: MIT */
/* Running out of communicators (MPICH's errors/comm/too_many_comms*,
 * too_many_icomms*): communicators are made until the call fails, in six
 * ways: MPI_Comm_dup, MPI_Comm_create over groups {0..k} (rank 0 is in
 * all), MPI_Comm_create over one rank each (every rank in a few),
 * MPI_Comm_split, MPI_Comm_idup and MPI_Intercomm_create.  Each way must end
 * in MPI_ERR_OTHER, on every rank at the same call (the agreement is
 * collective: a rank that went on would wait for the others forever), with
 * a message that says why; after the communicators are freed a new one
 * works (an allreduce on it, checked).  comm.list runs it with
 * COURIER_MAX_COMMS=64, where MPI_Comm_dup must fail at exactly the 65th
 * communicator; under MPICH the limit is its context ids (about 2000). */
#include "mpitest.h"

enum { MAXN = 100000, KINDS = 6 };
static const char *const kind_name[KINDS] = { "dup", "create_prefix", "create_single",
                                              "split", "idup", "intercomm_create" };

static int rank, size;
static MPI_Comm half = MPI_COMM_NULL;   /* for intercomm_create: the lower and upper half */

/* Make communicator number i of a kind; the call's return code. */
static int make(int kind, int i, MPI_Comm *out)
{
    MPI_Group world, g;
    int rc, r;
    MPI_Request req;
    *out = MPI_COMM_NULL;
    switch (kind) {
    case 0:
        return MPI_Comm_dup(MPI_COMM_WORLD, out);
    case 1:
    case 2: {
        int *ranks = mt_malloc((size_t)size * sizeof(int)), n;
        if (kind == 1) {
            n = i % size + 1;
            for (r = 0; r < n; r++) ranks[r] = r;
        } else {
            n = 1;
            ranks[0] = i % size;
        }
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, n, ranks, &g);
        rc = MPI_Comm_create(MPI_COMM_WORLD, g, out);
        MPI_Group_free(&g);
        MPI_Group_free(&world);
        free(ranks);
        return rc;
    }
    case 3:
        return MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, out);
    case 4:
        rc = MPI_Comm_idup(MPI_COMM_WORLD, out, &req);
        if (rc != MPI_SUCCESS) return rc;
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) *out = MPI_COMM_NULL;   /* undefined after an error */
        return rc;
    default: {
        int low = rank < size / 2;
        return MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 77, out);
    }
    }
}

static void run(int kind, long limit)
{
    MPI_Comm *c = mt_malloc(MAXN * sizeof(MPI_Comm));
    int n = 0, rc = MPI_SUCCESS;
    while (n < MAXN && (rc = make(kind, n, &c[n])) == MPI_SUCCESS) n++;
    CHECK(n < MAXN, "%s: %d communicators made without an error", kind_name[kind], n);
    if (n < MAXN) {
        CHECK_CLASS(rc, MPI_ERR_OTHER);
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, s, &len);
#ifndef MT_REFERENCE_MPICH
        CHECK(strstr(s, "too many communicators") != NULL, "%s: message \"%s\"", kind_name[kind], s);
        if (kind == 0 && limit > 0) CHECK_INT(n, limit);
        if (limit > 0) CHECK(n >= limit / size && n <= limit * size, "%s: failed at %d, limit %ld",
                             kind_name[kind], n, limit);
#else
        (void)limit;
#endif
    }
    /* every rank failed at the same call */
    int lo = 0, hi = 0;
    MPI_Allreduce(&n, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&n, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi, "%s: ranks failed at calls %d .. %d", kind_name[kind], lo, hi);
    for (int i = 0; i < n; i++)
        if (c[i] != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&c[i]));
    /* room again: a new communicator works */
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    int one = rank + 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d));
    CHECK_INT(sum, size * (size + 1) / 2);
    CHECK_MPI(MPI_Comm_free(&d));
    free(c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *env = getenv("COURIER_MAX_COMMS");
    long limit = env ? strtol(env, NULL, 10) : 0;
    for (int kind = 0; kind < KINDS - 1; kind++) run(kind, limit);
    if (size >= 2) {
        MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
        MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
        run(KINDS - 1, limit > 0 ? limit - 1 : 0);   /* half is one of them */
        MPI_Comm_free(&half);
    }
    int rc = mt_finish("comm_too_many");
    MPI_Finalize();
    return rc;
}
