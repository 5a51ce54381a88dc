/* SPDX-License-Identifier: MIT */
/* amdahl: a program with a serial fraction s, measured against Amdahl's law.
 *
 * The work is W units of a fixed arithmetic loop.  A fraction s of it is
 * serial: rank 0 does it alone while the others wait at a barrier; the rest
 * is split evenly over the P ranks.  The program measures
 *   T1  rank 0 doing all W units alone, and
 *   TP  the serial part on rank 0, then the parallel part on all P ranks,
 * each the best of three tries, and prints the measured speedup T1/TP and
 * efficiency next to Amdahl's prediction S(P) = 1 / (s + (1 - s) / P),
 * E(P) = S(P) / P, and Gustafson's scaled speedup (1 - s) P + s.  It also
 * answers the assignment's question: the largest P whose Amdahl efficiency
 * is at least --efficiency (0.7): for s = 0.1 that is P = 5.
 *
 *   mpiexec -n P amdahl [--serial S] [--work UNITS] [--efficiency E]
 *
 * Measured numbers are only meaningful with at least P free cores; the
 * program says so when there are fewer. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* units of work: a loop the compiler cannot drop, about a nanosecond each */
static double work(long first, long units)
{
    double x = 0.0;
    for (long i = first; i < first + units; i++) x += sqrt((double)i + 0.5);
    return x;
}

static double amdahl_speedup(double s, int p) { return 1.0 / (s + (1.0 - s) / p); }

int main(int argc, char **argv)
{
    int rank, size;
    double s = 0.1, e_min = 0.7;
    long w = 200000000;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        int ok = i + 1 < argc;
        if (ok && !strcmp(argv[i], "--serial")) s = atof(argv[++i]);
        else if (ok && !strcmp(argv[i], "--work")) w = atol(argv[++i]);
        else if (ok && !strcmp(argv[i], "--efficiency")) e_min = atof(argv[++i]);
        else ok = 0;
        if (!ok || s < 0 || s > 1 || w < 1 || e_min <= 0 || e_min > 1) {
            if (rank == 0)
                fprintf(stderr, "usage: amdahl [--serial S] [--work UNITS] [--efficiency E]\n");
            MPI_Finalize();
            return 2;
        }
    }
    long serial = (long)(s * (double)w), par = w - serial;
    double sum = 0.0, total = 0.0;

    /* Each time is the best of three tries, alternating, against noise from
     * other programs on the machine. */
    double t1 = INFINITY, tp = INFINITY;
    for (int rep = 0; rep < 3; rep++) {
        /* T1: everything on rank 0 */
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            double t = MPI_Wtime();
            sum = work(0, w);
            t = MPI_Wtime() - t;
            if (t < t1) t1 = t;
        }
        MPI_Barrier(MPI_COMM_WORLD);

        /* TP: serial part on rank 0, then the parallel part on everyone */
        double t = MPI_Wtime(), part = 0.0;
        if (rank == 0) part = work(0, serial);
        MPI_Barrier(MPI_COMM_WORLD);
        long q = par / size, rem = par % size;
        part += work(serial + rank * q + (rank < rem ? rank : rem), q + (rank < rem));
        MPI_Reduce(&part, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime() - t;
        if (t < tp) tp = t;
    }

    if (rank == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        /* Amdahl efficiency 1 / (s P + 1 - s) >= e_min  <=>  P <= (1/e_min - 1 + s) / s */
        double pbound = s > 0 ? (1.0 / e_min - 1.0 + s) / s : INFINITY;
        printf("amdahl: serial fraction s = %g, %ld work units, %d processes, %ld cores online\n",
               s, w, size, cores);
        printf("check: the split computation agrees with the serial one: %s (rel. diff %.1e)\n",
               fabs(total - sum) <= 1e-9 * fabs(sum) ? "yes" : "NO", fabs(total - sum) / fabs(sum));
        printf("\n%-4s %-10s %-10s %-10s\n", "P", "Amdahl-S", "Amdahl-E", "Gustafson");
        for (int p = 1; p <= (size > 8 ? size : 8); p++)
            printf("%-4d %-10.3f %-10.3f %-10.3f%s\n", p, amdahl_speedup(s, p),
                   amdahl_speedup(s, p) / p, (1.0 - s) * p + s, p == size ? "  <- this run" : "");
        if (isinf(pbound))
            printf("\nwith s = 0 the efficiency is 1 for every P\n");
        else
            printf("\nlargest P with Amdahl efficiency >= %g: P <= %.2f, so P_max = %d\n", e_min,
                   pbound, (int)floor(pbound + 1e-9));
        printf("upper bound on the speedup for any P: 1/s = %g\n", s > 0 ? 1.0 / s : INFINITY);
        printf("\nmeasured: T1 = %.4f s, T%d = %.4f s, speedup %.2f, efficiency %.2f "
               "(Amdahl: %.2f, %.2f)\n",
               t1, size, tp, t1 / tp, t1 / tp / size, amdahl_speedup(s, size),
               amdahl_speedup(s, size) / size);
        if (cores < size)
            printf("note: %d processes share %ld cores: the measured speedup cannot exceed %ld\n",
                   size, cores, cores);
    }
    MPI_Finalize();
    return 0;
}
