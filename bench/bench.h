/* SPDX-License-Identifier: MIT */
/* mpibench: an OSU-style MPI micro-benchmark suite written for Courier, in
 * standard MPI only, so the same sources build with any MPI (the comparison
 * harness bench/compare builds them with Courier, MPICH and Open MPI).
 *
 * Method, for every test and message size:
 *   1. one verified exchange: buffers filled with a pattern that depends on
 *      (rank, size, test), the received data checked;
 *   2. calibration, which is also the warm-up: the kernel runs 1, 2, 4, ...
 *      iterations until a run takes a tenth of the sample time, then the
 *      number of iterations per sample is set so that one sample lasts about
 *      --sample-time seconds; one whole sample is then run and discarded;
 *   3. --samples timed samples; a sample's time is the largest of the ranks'
 *      times (MPI_Allreduce MAX), so every rank takes the same decisions;
 *   4. min, median and max of the per-sample metric are reported.
 * --smoke skips 2 and runs one sample of a few iterations: it checks data,
 * it does not measure.
 */
#ifndef BENCH_H
#define BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_MAX_SIZES 64

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON } bench_fmt_t;

typedef struct {
    bench_fmt_t fmt;
    int smoke;              /* quick run of everything, every result checked */
    int progress;           /* progress lines on stderr */
    int samples;            /* timed samples per size */
    double sample_time;     /* seconds one sample should last */
    long max_iters;         /* cap on iterations per sample */
    int window;             /* outstanding sends in bw/bibw/msgrate */
    size_t window_bytes;    /* cap on window * size (receive buffers are distinct) */
    int nsizes;
    size_t sizes[BENCH_MAX_SIZES];
    int user_sizes;         /* sizes came from --sizes */
    int win_create;         /* rma tests: MPI_Win_create on our own memory, not MPI_Win_allocate */
    int rank, np;
    int errors;             /* data check failures seen by this rank */
} bench_opts_t;

/* One test: a kernel that runs `iters` iterations on every rank and returns
 * this rank's elapsed seconds (0 on ranks that do not take part), and a check
 * that does one iteration with patterned data and returns the number of wrong
 * bytes seen by this rank (-1 for an MPI error, whose text is in errbuf). */
typedef struct bench_test bench_test_t;
typedef struct {
    const bench_opts_t *o;
    const bench_test_t *t;
    size_t bytes;           /* message size of this run */
    int window;             /* effective window for this size */
    char *sbuf, *rbuf;      /* sized by the test's setup */
    size_t sbuf_len, rbuf_len;
    char errbuf[MPI_MAX_ERROR_STRING + 64];
    /* the rma tests' window (made by the test's setup, freed by its teardown) */
    MPI_Win win;            /* MPI_WIN_NULL when there is none */
    char *wbase;            /* this rank's window memory */
    size_t wlen;
    void *wmem;             /* memory of our own under an MPI_Win_create window */
    MPI_Comm comm;          /* a communicator of the test's own, or MPI_COMM_NULL */
    void *peer_base;        /* shm_store: rank 1's segment as rank 0 maps it */
    int locked_all;
} bench_ctx_t;

typedef enum { METRIC_LAT, METRIC_BW, METRIC_RATE } bench_metric_t;

struct bench_test {
    const char *name;
    const char *group;      /* "pt2pt", "coll", "rma" or "thread" */
    bench_metric_t metric;
    int min_np;
    int reduction;          /* sizes must be multiples of sizeof(int) */
    int unit;               /* sizes must be multiples of this (0: any) */
    int sizeless;           /* one run only, at size 0 (barrier) */
    int windowed;           /* uses a window of non-blocking operations */
    /* bytes needed for the send and receive buffers */
    void (*bufsize)(const bench_ctx_t *c, size_t *s, size_t *r);
    int (*run)(bench_ctx_t *c, long iters, double *secs);
    long (*check)(bench_ctx_t *c);
    /* metric value from the sample's seconds and iterations */
    double (*value)(const bench_ctx_t *c, double secs, long iters);
    /* optional, collective over MPI_COMM_WORLD: run after the buffers are
     * made and before the check (an MPI error code, the text in errbuf),
     * and after the last sample (also when setup failed) */
    int (*setup)(bench_ctx_t *c);
    void (*teardown)(bench_ctx_t *c);
};

extern const bench_test_t bench_p2p_tests[];
extern const int bench_n_p2p_tests;
extern const bench_test_t bench_coll_tests[];
extern const int bench_n_coll_tests;
extern const bench_test_t bench_icoll_tests[];   /* bench_coll.c, group "icoll" */
extern const int bench_n_icoll_tests;
extern const bench_test_t bench_rma_tests[];   /* bench_rma.c, group "rma" */
extern const int bench_n_rma_tests;
/* bench_mt.c: the multi-threaded tests (group "thread": latency_mt,
 * msgrate_mt, msgrate_mt_shared), bench_mt_threads threads per rank
 * (--threads); bench_mt_free frees their communicators (collective). */
#define BENCH_MT_MAX_THREADS 64
extern const bench_test_t bench_mt_tests[];
extern const int bench_n_mt_tests;
extern int bench_mt_threads;
void bench_mt_free(void);

/* bench_util.c */
void bench_fill(char *buf, size_t n, unsigned seed);
long bench_verify(const char *buf, size_t n, unsigned seed);
unsigned bench_seed(int rank, size_t bytes, int salt);
double bench_median(double *v, int n);
/* "64", "4K", "1M", "1GB", ...: a byte count with an optional binary suffix; *ok = 0 when
 * the text is not one */
size_t bench_parse_size(const char *s, int *ok);
void *bench_alloc(size_t n);
/* rc's error text, "what: text", into buf; returns rc != MPI_SUCCESS (buf is
 * untouched on success) */
int bench_err_text(char *buf, size_t n, int rc, const char *what);
/* bench_err_text into c->errbuf */
int bench_mpi_err(bench_ctx_t *c, int rc, const char *what);
/* replaces quotes, backslashes, commas and control characters by blanks (for CSV and JSON) */
void bench_clean_text(char *s);
/* collective on MPI_COMM_WORLD: the text of the first rank whose `mine` is set
 * (the lowest such rank) is copied into rank 0's buf (n bytes), cleaned */
void bench_share_text(char *buf, int n, int mine);
/* "prog: msg: arg" and the usage on rank 0's stderr, then MPI_Finalize and exit(2) */
void bench_usage_fail(const char *prog, void (*usage)(FILE *), const char *msg, const char *arg);
const char *bench_metric_unit(bench_metric_t m);
/* /proc/self/status fields in KiB (-1 when unavailable) */
long bench_status_kib(const char *field);
/* shared mappings of this process (not shared libraries) from /proc/self/smaps */
void bench_shm_kib(long *size, long *rss, long *pss);
/* total KiB of files under /dev/shm changed since `since` (seconds since the epoch) */
long bench_devshm_kib(double since, int *nfiles);
void bench_library_version(char *out, size_t n);
/* Every thread of this process as "name:cpus" (its /proc/self/task/<tid>/comm
 * and the Cpus_allowed_list it may run on), blank-separated, into out (n
 * bytes, cleaned for CSV and JSON); "" where /proc cannot be read. */
void bench_thread_cpus(char *out, size_t n);

/* bench_ovlp.c, the overlap mode (`mpibench overlap ...`): non-blocking
 * operations around a computation, OSU's overlap figure.  bench_ovlp_find
 * returns an operation's index (or -1), bench_ovlp_name its name;
 * bench_ovlp_run measures one operation at o's sizes, prints its results
 * (o->errors counts sizes with wrong data) and returns 1 when an MPI error
 * stopped it, else 0; collective over MPI_COMM_WORLD. */
extern const int bench_n_ovlp_ops;
int bench_ovlp_find(const char *name);
const char *bench_ovlp_name(int i);
int bench_ovlp_run(bench_opts_t *o, int which);
void bench_ovlp_csv_header(void);

#endif
