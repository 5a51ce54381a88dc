/* SPDX-License-Identifier: MIT */
/* Small helpers shared by Courier's MPI-level tests (tests/mpi/).
 *
 * Every test is a standard C MPI program: it must pass under any correct MPI
 * (we validate them with Debian's MPICH) and prints one line
 *   "PASS <test name> (np=N)"
 * from rank 0 when every check on every rank held.  A failed check prints the
 * rank, file, line, the expression and the wrong value, and the test exits
 * non-zero (through MPI_Abort if the rank is still inside MPI, so that the
 * whole job ends). */
#ifndef COURIER_MPITEST_H
#define COURIER_MPITEST_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <time.h>

static int mt_rank_ = -1;
static int mt_errors_ = 0;

static inline int mt_rank(void)
{
    int init = 0, fin = 0;
    if (mt_rank_ >= 0) return mt_rank_;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank_);
    return mt_rank_;
}

/* Record a failure; the test continues so that one run shows every wrong datum
 * of a small loop, but gives up after many. */
static inline void mt_fail_(const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline void mt_fail_(const char *file, int line, const char *expr, const char *fmt, ...)
{
    char msg[1024];
    int len;
    va_list ap;
    len = snprintf(msg, sizeof msg, "FAIL rank %d %s:%d: %s: ", mt_rank(), file, line, expr);
    va_start(ap, fmt);
    if (len >= 0 && len < (int)sizeof msg) vsnprintf(msg + len, sizeof msg - len, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", msg); /* one write per line, so ranks do not interleave */
    fflush(stderr);
    if (++mt_errors_ > 20) {
        fprintf(stderr, "FAIL rank %d: too many errors, aborting\n", mt_rank());
        MPI_Abort(MPI_COMM_WORLD, 1);
        exit(1);
    }
}

/* CHECK(cond, "fmt", args...): cond must hold; otherwise print the values. */
#define CHECK(cond, ...) \
    do { if (!(cond)) mt_fail_(__FILE__, __LINE__, #cond, __VA_ARGS__); } while (0)
/* CHECK_INT(got, want): two integers must be equal. */
#define CHECK_INT(got, want) \
    do { long long g_ = (long long)(got), w_ = (long long)(want); \
         if (g_ != w_) mt_fail_(__FILE__, __LINE__, #got " == " #want, \
                                "got %lld, expected %lld", g_, w_); } while (0)
/* CHECK_MPI(call): an MPI call must return MPI_SUCCESS. */
#define CHECK_MPI(call) \
    do { int rc_ = (call); \
         if (rc_ != MPI_SUCCESS) { char s_[MPI_MAX_ERROR_STRING]; int l_ = 0; \
             s_[0] = 0; MPI_Error_string(rc_, s_, &l_); \
             mt_fail_(__FILE__, __LINE__, #call, "returned %d (%s)", rc_, s_); } } while (0)
/* CHECK_CLASS(rc, CLASS): an MPI return code must have the given error class. */
#define CHECK_CLASS(rc, cls) \
    do { int rc_ = (rc), c_ = -1; MPI_Error_class(rc_, &c_); \
         if (c_ != (cls)) mt_fail_(__FILE__, __LINE__, #rc " has class " #cls, \
                                   "returned %d, class %d, expected class %d", rc_, c_, (int)(cls)); } while (0)

/* The byte expected at offset i of a message identified by (seed). */
static inline unsigned char mt_pattern(long seed, size_t i)
{
    return (unsigned char)((i * 7u + (size_t)seed * 13u + (i >> 8) * 3u + 1u) & 0xffu);
}
static inline void mt_fill(void *buf, size_t n, long seed)
{
    unsigned char *b = buf;
    for (size_t i = 0; i < n; i++) b[i] = mt_pattern(seed, i);
}
/* Check a received buffer; reports the first wrong byte. */
#define CHECK_PATTERN(buf, n, seed) \
    do { const unsigned char *b_ = (const unsigned char *)(buf); size_t n_ = (n); \
         for (size_t i_ = 0; i_ < n_; i_++) \
             if (b_[i_] != mt_pattern((seed), i_)) { \
                 mt_fail_(__FILE__, __LINE__, "pattern " #buf, \
                          "byte %zu of %zu is %u, expected %u (seed %ld)", i_, n_, \
                          (unsigned)b_[i_], (unsigned)mt_pattern((seed), i_), (long)(seed)); \
                 break; } } while (0)

static inline void *mt_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) { fprintf(stderr, "FAIL rank %d: out of memory (%zu bytes)\n", mt_rank(), n); MPI_Abort(MPI_COMM_WORLD, 2); }
    return p;
}

/* Seconds on a monotonic clock (for durations). */
static inline double mt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds (user + system) this process used so far, all its threads. */
static inline double mt_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* Run body on two windows of `bytes` bytes (displacement unit disp) over
 * MPI_COMM_WORLD in turn: kind 0 made by MPI_Win_allocate, kind 1 by
 * MPI_Win_create on memory of the test's own.  The memory is zeroed and
 * every rank has passed a barrier before body runs; after it come a
 * barrier and MPI_Win_free. */
static inline void mt_each_window(MPI_Aint bytes, int disp,
                                  void (*body)(MPI_Win w, void *mem, int kind))
{
    for (int kind = 0; kind < 2; kind++) {
        void *mem, *own = mt_malloc((size_t)bytes);
        MPI_Win w;
        if (kind == 0) {
            CHECK_MPI(MPI_Win_allocate(bytes, disp, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w));
        } else {
            mem = own;
            CHECK_MPI(MPI_Win_create(own, bytes, disp, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
        }
        memset(mem, 0, (size_t)bytes);
        MPI_Barrier(MPI_COMM_WORLD);
        body(w, mem, kind);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MPI(MPI_Win_free(&w));
        free(own);
    }
}

/* The set-up of the multi-threaded tests: MPI_Init_thread asking for
 * MPI_THREAD_MULTIPLE (checked that it is provided), this process's rank and
 * the size of MPI_COMM_WORLD, and the thread count from argv[1]: dflt when
 * it is missing or outside [lo, hi]. */
static inline int mt_init_multiple(int *argc, char ***argv, int *rank, int *size,
                                   int lo, int hi, int dflt)
{
    int provided = -1;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    mt_rank();
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    int n = *argc > 1 ? atoi((*argv)[1]) : dflt;
    return n < lo || n > hi ? dflt : n;
}

/* Print the PASS line (rank 0) after agreeing on the result of every rank;
 * returns the exit status for main().  Call before MPI_Finalize. */
static inline int mt_finish(const char *name)
{
    int mine = mt_errors_, total = 0, size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (mt_rank() == 0) {
        if (total == 0) printf("PASS %s (np=%d)\n", name, size);
        else printf("FAIL %s (np=%d): %d failed checks\n", name, size, total);
        fflush(stdout);
    }
    return total == 0 ? 0 : 1;
}
#endif
