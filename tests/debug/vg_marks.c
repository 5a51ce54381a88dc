/* SPDX-License-Identifier: MIT */
/* What memcheck sees of receive buffers (tests/debug/test_debug.sh vgmarks;
 * docs/usage.md, "Valgrind").  Rank 0 sends to every other rank; each
 * receiver checks the data that arrived, then:
 *   vg_marks tail    receives 100 ints into a malloc'd buffer of 200 that it
 *                    never initialised (MPI_Irecv + MPI_Wait, and MPI_Recv),
 *                    then reads element 150 in vg_read_tail: memcheck must
 *                    report an uninitialised value there
 *   vg_marks posted  initialises a buffer, posts MPI_Irecv into it and reads
 *                    it before MPI_Wait in vg_read_posted: memcheck must report
 *                    an uninitialised value there
 *   vg_marks clean   must give no report: single-copy (CMA) sized receives
 *                    into uninitialised memory, posted before and after the
 *                    message arrives, contiguous and strided (holes set before
 *                    the receive keep their values), two pending strided
 *                    receives into the even and odd ints of one uninitialised
 *                    array; short receives into
 *                    initialised buffers whose tail is read afterwards; a
 *                    1 MiB MPI_Gather and MPI_Reduce into an uninitialised
 *                    buffer at the root (test_debug.sh forces single copy);
 *                    every byte received is branched on
 * Prints "PASS vg_marks MODE (np=N)" from rank 0 when the data was right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHORT_N 100           /* ints sent in the short messages */
#define CAP_N 200             /* ints the short receives can hold */
#define BIG_N (256 * 1024)    /* ints in the single-copy messages: 1 MiB, well above
                                 COURIER_CMA_MIN and COURIER_CMA_SPLIT_MIN */

static int rank, size, errors;

static void check(int ok, const char *what, long i, long got, long want)
{
    if (ok) return;
    if (errors++ < 10)
        printf("FAIL rank %d: %s[%ld] = %ld, expected %ld\n", rank, what, i, got, want);
}

static int value(int i, int peer)
{
    return i * 7 + peer * 1000003 + 1;
}

/* Branches on *v (a call on one side, so no conditional move), so memcheck
 * reports an uninitialised *v here. */
__attribute__((noinline)) int vg_read_tail(const int *v)
{
    if (*v == 12345) {
        puts("vg_read_tail: 12345");
        return 1;
    }
    return 0;
}

__attribute__((noinline)) int vg_read_posted(const int *v)
{
    if (*v == 12345) {
        puts("vg_read_posted: 12345");
        return 1;
    }
    return 0;
}

static void send_to_all(const int *buf, int n, int tag)
{
    for (int p = 1; p < size; p++) MPI_Send(buf, n, MPI_INT, p, tag, MPI_COMM_WORLD);
}

static void check_short(const int *buf, MPI_Status *st, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    check(n == SHORT_N, what, -1, n, SHORT_N);
    for (int i = 0; i < SHORT_N; i++) check(buf[i] == value(i, 0), what, i, buf[i], value(i, 0));
}

static void mode_tail(void)
{
    int data[SHORT_N];
    for (int i = 0; i < SHORT_N; i++) data[i] = value(i, 0);
    if (rank == 0) {
        send_to_all(data, SHORT_N, 1);
        send_to_all(data, SHORT_N, 2);
        return;
    }
    int *a = malloc(CAP_N * sizeof *a), *b = malloc(CAP_N * sizeof *b);
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(a, CAP_N, MPI_INT, 0, 1, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st);
    check_short(a, &st, "irecv");
    MPI_Recv(b, CAP_N, MPI_INT, 0, 2, MPI_COMM_WORLD, &st);
    check_short(b, &st, "recv");
    /* the user's bug: elements past the message were never written */
    volatile int sink = vg_read_tail(&a[150]) + vg_read_tail(&b[150]);
    (void)sink;
    free(a);
    free(b);
}

static void mode_posted(void)
{
    int data[SHORT_N];
    for (int i = 0; i < SHORT_N; i++) data[i] = value(i, 0);
    if (rank == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        send_to_all(data, SHORT_N, 1);
        return;
    }
    int *a = malloc(CAP_N * sizeof *a);
    memset(a, 0, CAP_N * sizeof *a);
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(a, CAP_N, MPI_INT, 0, 1, MPI_COMM_WORLD, &r);
    /* the user's bug: the buffer of a pending receive is read */
    volatile int sink = vg_read_posted(&a[5]);
    (void)sink;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&r, &st);
    check_short(a, &st, "posted");
    free(a);
}

static void check_big(const int *buf, int stride, const char *what)
{
    for (int i = 0; i < BIG_N; i++)
        check(buf[(long)i * stride] == value(i, 0), what, (long)i * stride, buf[(long)i * stride],
              value(i, 0));
    for (int i = 0; stride > 1 && i < BIG_N; i++)
        for (int k = 1; k < stride; k++)
            check(buf[(long)i * stride + k] == -k, what, (long)i * stride + k,
                  buf[(long)i * stride + k], -k);
}

/* Gather and reduce of 1 MiB per rank into an uninitialised buffer at the
 * root; test_debug.sh forces the single-copy algorithms, in which the other
 * ranks write into the root's buffer. */
static void clean_colls(void)
{
    int *mine = malloc(BIG_N * sizeof *mine), *all = NULL;
    for (int i = 0; i < BIG_N; i++) mine[i] = value(i, rank);
    if (rank == 0) all = malloc((size_t)size * BIG_N * sizeof *all);
    MPI_Gather(mine, BIG_N, MPI_INT, all, BIG_N, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < size; r++)
        for (int i = 0; i < BIG_N; i++)
            check(all[(long)r * BIG_N + i] == value(i, r), "gather", (long)r * BIG_N + i,
                  all[(long)r * BIG_N + i], value(i, r));
    for (int i = 0; i < BIG_N; i++) mine[i] = i + rank;
    MPI_Reduce(mine, all, BIG_N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int i = 0; rank == 0 && i < BIG_N; i++) {
        long want = (long)size * i + (long)size * (size - 1) / 2;
        check(all[i] == want, "reduce", i, all[i], want);
    }
    free(mine);
    free(all);
}

static void mode_clean(void)
{
    clean_colls();
    int *big = malloc(BIG_N * sizeof *big);
    for (int i = 0; i < BIG_N; i++) big[i] = value(i, 0);
    int data[SHORT_N];
    for (int i = 0; i < SHORT_N; i++) data[i] = value(i, 0);
    if (rank == 0) {
        send_to_all(big, BIG_N, 1);             /* may arrive before the receive */
        MPI_Barrier(MPI_COMM_WORLD);
        send_to_all(big, BIG_N, 2);             /* the receive is posted by now */
        send_to_all(big, BIG_N, 3);             /* strided receive */
        send_to_all(data, SHORT_N, 4);          /* short, into initialised memory */
        send_to_all(data, SHORT_N, 5);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < BIG_N; i++) big[i] = value(i, 1);
        send_to_all(big, BIG_N, 7);             /* interleaved receives, odd first */
        for (int i = 0; i < BIG_N; i++) big[i] = value(i, 0);
        send_to_all(big, BIG_N, 6);
        free(big);
        return;
    }
    int *a = malloc(BIG_N * sizeof *a), *b = malloc(BIG_N * sizeof *b);
    MPI_Request r;
    MPI_Status st;
    MPI_Recv(a, BIG_N, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
    check_big(a, 1, "cma-recv");
    MPI_Irecv(b, BIG_N, MPI_INT, 0, 2, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&r, &st);
    check_big(b, 1, "cma-irecv");
    /* strided: every other int, the holes set before the receive */
    int *c = malloc(2 * (size_t)BIG_N * sizeof *c);
    for (long i = 0; i < BIG_N; i++) c[2 * i + 1] = -1;
    MPI_Datatype vec;
    MPI_Type_vector(BIG_N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Recv(c, 1, vec, 0, 3, MPI_COMM_WORLD, &st);
    check_big(c, 2, "cma-strided");
    /* two pending receives into the even and the odd ints of one uninitialised
     * array: each one's marks leave the other's bytes alone */
    int *d = malloc(2 * (size_t)BIG_N * sizeof *d);
    MPI_Request rr[2];
    MPI_Irecv(d, 1, vec, 0, 6, MPI_COMM_WORLD, &rr[0]);
    MPI_Irecv(d + 1, 1, vec, 0, 7, MPI_COMM_WORLD, &rr[1]);
    MPI_Type_free(&vec);
    /* a short message leaves the rest of an initialised buffer as it was */
    int *s = malloc(CAP_N * sizeof *s);
    for (int i = 0; i < CAP_N; i++) s[i] = -1;
    MPI_Irecv(s, CAP_N, MPI_INT, 0, 4, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st);
    check_short(s, &st, "short-irecv");
    for (int i = SHORT_N; i < CAP_N; i++) check(s[i] == -1, "short-irecv tail", i, s[i], -1);
    MPI_Recv(s, CAP_N, MPI_INT, 0, 5, MPI_COMM_WORLD, &st);
    check_short(s, &st, "short-recv");
    for (int i = SHORT_N; i < CAP_N; i++) check(s[i] == -1, "short-recv tail", i, s[i], -1);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Status sts[2];
    MPI_Waitall(2, rr, sts);
    for (long i = 0; i < 2L * BIG_N; i++) {
        int want = value((int)(i / 2), (int)(i % 2));
        check(d[i] == want, "interleaved", i, d[i], want);
    }
    free(d);
    free(a);
    free(b);
    free(c);
    free(s);
    free(big);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "clean";
    if (strcmp(mode, "tail") == 0) mode_tail();
    else if (strcmp(mode, "posted") == 0) mode_posted();
    else mode_clean();
    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0) printf("PASS vg_marks %s (np=%d)\n", mode, size);
    MPI_Finalize();
    return all != 0;
}
