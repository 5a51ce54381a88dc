/* SPDX-License-Identifier: MIT */
/* bounce: our C version of the seeds' Fortran "bounce" program (AA220/CS238).
 * Ranks are paired (0-1, 2-3, ...); in every pair the even rank sends a
 * message to the odd one, which sends it back, for a series of message sizes,
 * each repeated.  Rank 0 reports, in the seed's format, the time of one
 * message (half the round trip) per size, then the latency (the time of the
 * smallest message, in microseconds) and the bandwidth (the largest message's
 * size over its time, in MB/s, 1 MB = 10^6 bytes).  All pairs run at once, as
 * in the seed.
 *
 *   mpiexec -n 2 bounce [-r REPEATS] [-w WARMUP] [-s SIZES] [--csv FILE|-]
 *
 * The default sizes are the seed's: 0 .. 1,000,000 doubles (0 .. 8,000,000
 * bytes); -s takes bytes, e.g. -s 0,8,1K,1M.  --csv writes one line per pair
 * and size (rank, partner, bytes, elapsed ms, latency us, bandwidth MB/s).
 * The data of every size's first round trip is checked; a wrong byte makes
 * the exit status 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 64

static unsigned char pat(size_t i, int who, size_t len)
{
    return (unsigned char)(i * 131u + (size_t)who * 17u + len * 7u + 1u);
}

static size_t parse_size(const char *s)
{
    char *end;
    size_t v = (size_t)strtoull(s, &end, 10);
    if (*end == 'K' || *end == 'k')
        v <<= 10;
    else if (*end == 'M' || *end == 'm')
        v <<= 20;
    return v;
}

int main(int argc, char **argv)
{
    size_t sizes[MAX_SIZES] = { 0, 80, 800, 8000, 80000, 800000, 8000000 };
    int nsizes = 7, repeats = 50, warmup = 5;
    const char *csv = NULL;
    int rank, np, bad = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-w") && i + 1 < argc) {
            warmup = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            csv = argv[++i];
        } else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
            char *copy = strdup(argv[++i]), *save = NULL;
            nsizes = 0;
            char *t = strtok_r(copy, ",", &save);
            for (; t && nsizes < MAX_SIZES; t = strtok_r(NULL, ",", &save))
                sizes[nsizes++] = parse_size(t);
            free(copy);
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: mpiexec -n <even> bounce [-r REPEATS] [-w WARMUP] [-s SIZES] "
                                "[--csv FILE|-]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (repeats < 1)
        repeats = 1;
    if (warmup < 0)
        warmup = 0;

    if (rank == 0)
        printf(" Number of processors = %d\n", np);
    if (np % 2 != 0) {
        if (rank == 0)
            printf("  you must specify an even number of nodes.\n");
        MPI_Finalize();
        return 1;
    }

    size_t maxlen = 1;
    for (int n = 0; n < nsizes; n++)
        if (sizes[n] > maxlen)
            maxlen = sizes[n];
    unsigned char *sbuf = calloc(maxlen, 1), *rbuf = calloc(maxlen, 1);
    double *elapsed = calloc((size_t)nsizes, sizeof(double)); /* seconds per message */
    if (!sbuf || !rbuf || !elapsed) {
        fprintf(stderr, "bounce: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int even = rank % 2 == 0, partner = even ? rank + 1 : rank - 1;

    for (int n = 0; n < nsizes; n++) {
        int len = (int)sizes[n];
        for (size_t i = 0; i < sizes[n]; i++)
            sbuf[i] = pat(i, rank, sizes[n]);
        /* warm-up round trips; the first one's data is checked */
        for (int r = 0; r < warmup + 1; r++) {
            memset(rbuf, 0, sizes[n]);
            if (even) {
                MPI_Send(sbuf, len, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
                MPI_Recv(rbuf, len, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rbuf, len, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, len, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
            }
            if (r == 0)
                for (size_t i = 0; i < sizes[n]; i++)
                    if (rbuf[i] != pat(i, partner, sizes[n])) {
                        bad++;
                        break;
                    }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        for (int r = 0; r < repeats; r++) {
            if (even) {
                MPI_Send(sbuf, len, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
                MPI_Recv(rbuf, len, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rbuf, len, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, len, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
            }
        }
        double t2 = MPI_Wtime();
        elapsed[n] = 0.5 * (t2 - t1) / repeats;
        if (rank == 0) {
            printf("msglen =%9zu bytes,          elapsed time =%10.4f msec\n", sizes[n], 1e3 * elapsed[n]);
            fflush(stdout);
        }
    }

    if (rank == 0) {
        double lat = 1e6 * elapsed[0];
        double bw = elapsed[nsizes - 1] > 0 ? (double)sizes[nsizes - 1] / (1e6 * elapsed[nsizes - 1]) : 0.0;
        printf(" latency = %10.3f microseconds\n", lat);
        printf(" bandwidth = %12.2f MBytes/sec\n", bw);
        printf(" (approximate values for MPI_Send/MPI_Recv)\n");
    }

    /* CSV: every even rank's pair, gathered on rank 0 in rank order */
    if (csv) {
        double *all = NULL;
        if (rank != 0) {
            MPI_Send(elapsed, nsizes, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
        } else {
            all = malloc(sizeof(double) * (size_t)nsizes * (size_t)np);
            memcpy(all, elapsed, sizeof(double) * (size_t)nsizes);
            for (int r = 1; r < np; r++)
                MPI_Recv(all + (size_t)r * nsizes, nsizes, MPI_DOUBLE, r, 2, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            FILE *f = strcmp(csv, "-") ? fopen(csv, "w") : stdout;
            if (!f) {
                perror(csv);
                bad++;
            } else {
                fprintf(f, "rank,partner,msglen_bytes,elapsed_ms,latency_us,bandwidth_MBps\n");
                for (int r = 0; r < np; r += 2)
                    for (int n = 0; n < nsizes; n++) {
                        double e = all[(size_t)r * nsizes + n];
                        fprintf(f, "%d,%d,%zu,%.6f,%.4f,%.3f\n", r, r + 1, sizes[n], 1e3 * e, 1e6 * e,
                                e > 0 ? (double)sizes[n] / (1e6 * e) : 0.0);
                    }
                if (f != stdout)
                    fclose(f);
            }
        }
        free(all);
    }

    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && anybad)
        printf(" data check FAILED on %d message size(s)\n", anybad);
    free(sbuf);
    free(rbuf);
    free(elapsed);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
