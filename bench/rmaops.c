/* SPDX-License-Identifier: MIT */
/* rmaops: a fixed number of one-sided operations + MPI_Win_flush of 8 bytes
 * from rank 0 to rank 1 on an MPI_Win_allocate window, for counting the
 * instructions of one operation under callgrind (docs/performance.md, "RMA
 * (issue 13): method"):
 *
 *   mpiexec -n 2 valgrind --tool=callgrind --toggle-collect=rmaops_loop \
 *       --callgrind-out-file=cg.%p bench/rmaops put 10000
 *
 * rank 0's Ir over the iterations is the cost of one operation + flush (the
 * loop's own few instructions included).  Operations: put get acc fop cas;
 * lock: an empty MPI_Win_lock(MPI_LOCK_SHARED) + MPI_Win_unlock instead (no
 * operation, no flush, no lock around the loop); --create for an
 * MPI_Win_create window.  Standard MPI only. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* not inlined: callgrind's --toggle-collect names it */
__attribute__((noinline)) int rmaops_loop(const char *op, long iters, MPI_Win win, int peer, char *src,
                                          char *dst);

__attribute__((noinline)) int rmaops_loop(const char *op, long iters, MPI_Win win, int peer, char *src,
                                          char *dst)
{
    int rc = MPI_SUCCESS;
    char k = op[0] == 'p' ? 'p' : op[0] == 'g' ? 'g' : op[0] == 'a' ? 'a' : op[0] == 'f' ? 'f'
             : op[0] == 'l' ? 'l' : 'c';
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++) {
        switch (k) {
        case 'p': rc = MPI_Put(src, 8, MPI_BYTE, peer, 0, 8, MPI_BYTE, win); break;
        case 'g': rc = MPI_Get(dst, 8, MPI_BYTE, peer, 0, 8, MPI_BYTE, win); break;
        case 'a': rc = MPI_Accumulate(src, 1, MPI_DOUBLE, peer, 0, 1, MPI_DOUBLE, MPI_SUM, win); break;
        case 'f': rc = MPI_Fetch_and_op(src, dst, MPI_INT64_T, peer, 0, MPI_SUM, win); break;
        case 'l':
            rc = MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
            if (rc == MPI_SUCCESS) rc = MPI_Win_unlock(peer, win);
            continue;   /* no flush: nothing to complete */
        default: rc = MPI_Compare_and_swap(src, src + 8, dst, MPI_INT64_T, peer, 0, win); break;
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_flush(peer, win);
    }
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np, create = 0;
    const char *op = "put";
    long iters = 1000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--create"))
            create = 1;
        else if (argv[i][0] >= '0' && argv[i][0] <= '9')
            iters = atol(argv[i]);
        else
            op = argv[i];
    }
    if (!strchr("pgafcl", op[0])) {
        fprintf(stderr, "rmaops: operation put, get, acc, fop, cas or lock\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int peer = np > 1 ? 1 : 0;
    char *base, *mem = NULL;
    MPI_Win win;
    if (create) {
        mem = calloc(1, 64);
        base = mem;
        MPI_Win_create(mem, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    }
    int64_t src[2] = { 1, 0 }, dst[2] = { 0, 0 };
    int rc = MPI_SUCCESS;
    int locked = op[0] != 'l';   /* the lock loop takes its own locks */
    if (me == 0) {
        if (locked) MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win);
        rc = rmaops_loop(op, iters, win, peer, (char *)src, (char *)dst);
        if (locked) MPI_Win_unlock(peer, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(mem);
    if (me == 0)
        printf("rmaops: %ld x %s%s: %s\n", iters, op, locked ? " + flush" : "",
               rc == MPI_SUCCESS ? "ok" : "error");
    MPI_Finalize();
    return rc == MPI_SUCCESS ? 0 : 1;
}
