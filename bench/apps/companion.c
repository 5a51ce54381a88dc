/* SPDX-License-Identifier: MIT */
/* The second MPI job of bench/apps/run's "job" condition: what another job on
 * the same node does while a proxy application is measured.  Standard MPI
 * only, built with each MPI in turn.  Every iteration each rank computes for a
 * while, exchanges a halo (COMPANION_HALO_BYTES, above every eager limit we
 * know of, like miniAMR's faces) with both neighbours on a ring, checks what
 * arrived, and joins an MPI_Allreduce that also carries rank 0's verdict on
 * whether to stop: when the file STOPFILE exists or MAX_SECONDS have passed.
 * After its first iteration rank 0 creates STOPFILE.ready, so that the harness
 * knows the job is running.
 *
 *   companion STOPFILE [MAX_SECONDS]
 *
 * Rank 0 prints "library: ..." (MPI_Get_library_version) first, and at the end
 * "PASS companion: N iterations" or "FAIL companion: ..."; the exit status is
 * 0 only on PASS. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COMPANION_HALO_BYTES (32 * 1024)
#define COMPANION_WORK 200000 /* multiply-adds per iteration, about 0.2 ms */
#define COMPANION_MAX_SECONDS 3600.0

static double companion_work(double seed)
{
    volatile double x = seed;
    double a = 1.0000001, s = 0.0;
    for (int i = 0; i < COMPANION_WORK; i++) s = s * a + x;
    return s;
}

static unsigned char companion_byte(int from, long iter, int i)
{
    return (unsigned char)(from * 31 + iter * 7 + i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: companion STOPFILE [MAX_SECONDS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *stop = argv[1];
    double max_s = argc > 2 ? atof(argv[2]) : COMPANION_MAX_SECONDS;
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(lib, &len);
        printf("library: %s\n", strtok(lib, "\n"));
        fflush(stdout);
    }
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    unsigned char *out = malloc(COMPANION_HALO_BYTES), *in_l = malloc(COMPANION_HALO_BYTES),
                  *in_r = malloc(COMPANION_HALO_BYTES);
    if (!out || !in_l || !in_r) MPI_Abort(MPI_COMM_WORLD, 1);
    double t0 = MPI_Wtime(), sink = 0.0;
    long iter = 0;
    int bad = 0, done = 0;
    while (!done) {
        sink += companion_work((double)iter);
        for (int i = 0; i < COMPANION_HALO_BYTES; i++) out[i] = companion_byte(rank, iter, i);
        MPI_Request rq[4];
        MPI_Irecv(in_l, COMPANION_HALO_BYTES, MPI_BYTE, left, 0, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(in_r, COMPANION_HALO_BYTES, MPI_BYTE, right, 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(out, COMPANION_HALO_BYTES, MPI_BYTE, right, 0, MPI_COMM_WORLD, &rq[2]);
        MPI_Isend(out, COMPANION_HALO_BYTES, MPI_BYTE, left, 1, MPI_COMM_WORLD, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        for (int i = 0; i < COMPANION_HALO_BYTES; i++)
            if (in_l[i] != companion_byte(left, iter, i) || in_r[i] != companion_byte(right, iter, i)) {
                bad++;
                break;
            }
        /* [0] errors seen, [1] rank 0's stop verdict */
        int mine[2] = {bad, 0}, all[2];
        if (rank == 0) mine[1] = access(stop, F_OK) == 0 || MPI_Wtime() - t0 > max_s;
        MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        done = all[1];
        bad = all[0];
        if (++iter == 1 && rank == 0) {
            char ready[4096];
            snprintf(ready, sizeof ready, "%s.ready", stop);
            FILE *f = fopen(ready, "w");
            if (f) fclose(f);
        }
    }
    if (rank == 0) {
        if (bad)
            printf("FAIL companion: wrong halo data after %ld iterations\n", iter);
        else
            printf("PASS companion: %ld iterations in %.1f s (%g)\n", iter, MPI_Wtime() - t0,
                   sink > 0 ? 1.0 : 0.0);
    }
    free(out);
    free(in_l);
    free(in_r);
    MPI_Finalize();
    return bad ? 1 : 0;
}
