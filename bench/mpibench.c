/* SPDX-License-Identifier: MIT */
/* mpibench: the driver of the OSU-style suite (see bench.h for the method and
 * docs/benchmarks.md for the use).
 *
 *   mpiexec -n 2 mpibench [options] [test|group ...]
 *   mpiexec -n 2 mpibench overlap [options] [operation ...]
 *
 * Tests: latency bw bibw msgrate (group pt2pt), barrier bcast reduce allreduce
 * gather scatter allgather alltoall reduce_scatter (group coll), put_lat
 * get_lat put_lat_fence get_lat_fence put_bw get_bw acc_lat get_acc_lat fop_lat
 * cas_lat fence lock_unlock shm_store mem_store (group rma, bench_rma.c), memory; `all` (the
 * default) is every one of them.  The multi-threaded tests latency_mt,
 * msgrate_mt, msgrate_mt_shared and allreduce_mt (group thread, bench_mt.c) run only when
 * named; naming one makes mpibench ask for MPI_THREAD_MULTIPLE.  The overlap mode (bench_ovlp.c)
 * measures non-blocking operations around a computation instead.  Results
 * go to stdout (table, CSV or JSON lines), progress to stderr.  An MPI
 * error in a test is reported as a record with an "error" field and the
 * suite goes on with the next test.
 * Exit status: 0, or 1 when a data check failed (or, without --allow-errors,
 * when an MPI call failed). */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const size_t smoke_sizes[] = { 0, 1, 7, 8, 1024, 4096, 8192, 8193, 16384, 16385, 65536, 1048576 };
/* the overlap mode: its default sizes (64 KiB .. 4 MiB) and its smoke sizes
 * (eager and rendezvous on every MPI) */
#define OVLP_MIN_SIZE ((size_t)64 << 10)
static const size_t ovlp_smoke_sizes[] = { 0, 8, 65536, 1048576 };

static bench_opts_t opt;
static char libver[256];
static int header_done;
static int mpi_failures;     /* tests that stopped on an MPI error */
static long rss_before_init = -1;
static double start_time;
static int allow_errors;
static int ovlp_mode;        /* `mpibench overlap ...` */
static int thread_provided = -1;   /* MPI_Init_thread's answer with --thread-multiple */

static void usage(FILE *f)
{
    fputs("usage: mpiexec -n N mpibench [options] [test|group ...]\n"
          "tests:  latency bw bibw msgrate | barrier bcast reduce allreduce gather scatter\n"
          "        allgather alltoall reduce_scatter | ibarrier ibcast ireduce iallreduce igather\n"
          "        iallgather (start + wait) pbcast pallreduce (persistent: start + wait) | put_lat get_lat put_lat_fence get_lat_fence\n"
          "        put_bw get_bw acc_lat get_acc_lat fop_lat cas_lat fence lock_unlock shm_store mem_store\n"
          "        | memory\n"
          "        latency_mt msgrate_mt msgrate_mt_shared allreduce_mt (T threads per rank, --threads)\n"
          "groups: pt2pt coll rma all (default: all; all leaves out the groups thread and icoll),\n"
          "        thread, icoll\n"
          "   or: mpiexec -n N mpibench overlap [options] [operation ...]\n"
          "operations: isendrecv iallreduce ialltoall ibcast iallgather ireduce (default: all);\n"
          "        each timed alone (t_pure), around a computation of about t_pure (t_total),\n"
          "        and the computation alone; overlap %% as OSU reports it (default sizes 64K..4M)\n"
          "options:\n"
          "  --smoke             quick run of the given tests (default all), every result checked;\n"
          "                      prints PASS or FAIL\n"
          "  --format F          table (default), csv or json (one object per line)\n"
          "  --sizes LIST        message sizes, e.g. 0,8,1K,64K,4M (default 0 and 1 B .. 4 MiB, x2)\n"
          "  --min-size S / --max-size S   limit the default sizes\n"
          "  --samples N         timed samples per size (default 11)\n"
          "  --sample-time S     seconds per sample (default 0.02)\n"
          "  --max-iters N       cap on iterations per sample (default 1000000)\n"
          "  --window N          non-blocking operations in flight in bw/bibw/msgrate (default 64)\n"
          "  --window-bytes S    cap on window x size, the receive slots being distinct (default 16M)\n"
          "  --win KIND          rma tests' window: allocate (MPI_Win_allocate, default) or create\n"
          "                      (MPI_Win_create on memory of our own)\n"
          "  --allow-errors      an MPI error does not make the exit status non-zero\n"
          "  --thread-multiple   MPI_Init_thread with MPI_THREAD_MULTIPLE (MPICH's progress thread\n"
          "                      needs it; implied by naming a test of the group thread); the level\n"
          "                      provided is printed\n"
          "  --threads N         threads per rank in the group thread (default 2, at most 64); thread t\n"
          "                      of rank 0 talks to thread t of rank 1\n"
          "  --progress / --quiet   force progress lines on stderr on / off (default: on a terminal)\n",
          f);
}

static void fail_usage(const char *msg, const char *arg)
{
    bench_usage_fail("mpibench", usage, msg, arg);
}

/* ---- output ---------------------------------------------------------------- */

static void out_header(void)
{
    if (header_done || opt.rank != 0)
        return;
    header_done = 1;
    static const char *const levels[] = { "single", "funneled", "serialized", "multiple" };
    const char *thr = thread_provided >= MPI_THREAD_SINGLE && thread_provided <= MPI_THREAD_MULTIPLE
                          ? levels[thread_provided - MPI_THREAD_SINGLE] : "";
    if (opt.fmt == FMT_JSON)
        printf("{\"test\":\"info\",\"library\":\"%s\",\"np\":%d,\"mode\":\"%s\"%s%s%s}\n", libver,
               opt.np, opt.smoke ? "smoke" : "full", *thr ? ",\"thread_provided\":\"" : "", thr,
               *thr ? "\"" : "");
    else if (opt.fmt == FMT_CSV && ovlp_mode)
        bench_ovlp_csv_header();
    else if (opt.fmt == FMT_CSV)
        printf("test,np,bytes,window,iters,samples,unit,min,median,max,check,error\n");
    else
        printf("# mpibench%s, np=%d, %s%s%s\n# %s\n", ovlp_mode ? " overlap" : "", opt.np,
               opt.smoke ? "smoke mode" : "full mode", *thr ? ", MPI_THREAD_MULTIPLE asked, provided " : "",
               thr, libver);
}

/* Where every thread of every rank may run (the overlap mode: a progress
 * thread's placement decides its figures); rank 0 prints them all. */
static void out_placement(void)
{
    enum { LEN = 1024 };
    char mine[LEN];
    bench_thread_cpus(mine, sizeof mine);
    char *all = opt.rank == 0 ? malloc((size_t)LEN * (size_t)opt.np) : NULL;
    MPI_Gather(mine, LEN, MPI_CHAR, all, LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (opt.rank != 0)
        return;
    for (int r = 0; r < opt.np; r++) {
        const char *t = all + (size_t)r * LEN;
        if (opt.fmt == FMT_JSON)
            printf("{\"test\":\"placement\",\"np\":%d,\"rank\":%d,\"threads\":\"%s\"}\n", opt.np, r, t);
        else if (opt.fmt == FMT_TABLE)
            printf("# rank %d threads (name:cpus allowed): %s\n", r, t);
    }
    fflush(stdout);
    free(all);
}

static void out_test_title(const bench_test_t *t)
{
    if (opt.rank != 0 || opt.fmt != FMT_TABLE)
        return;
    const char *win = strcmp(t->group, "rma") || !strcmp(t->name, "mem_store") ? "" :
                      !strcmp(t->name, "shm_store") ?
                      ", MPI_Win_allocate_shared window" : opt.win_create ? ", MPI_Win_create window" :
                      ", MPI_Win_allocate window";
    const char *what = t->metric == METRIC_LAT ? "time per operation" :
                       t->metric == METRIC_BW ? "bandwidth, 1 MB = 10^6 bytes" : "messages per second";
    if (!strcmp(t->group, "thread"))
        printf("\n# %s (%d threads per rank; %s, %s)\n", t->name, bench_mt_threads,
               !strcmp(t->name, "allreduce_mt") ? "time per call of the slowest thread"
               : t->metric == METRIC_LAT ? "one-way time of the slowest pair" : "messages per second, all threads",
               bench_metric_unit(t->metric));
    else
        printf("\n# %s (%s, %s%s)\n", t->name, what, bench_metric_unit(t->metric), win);
    if (t->metric == METRIC_LAT)
        printf("%12s %12s %12s %12s %10s %6s\n", "bytes", "min", "median", "max", "iters", "check");
    else
        printf("%12s %12s %12s %12s %10s %6s %6s\n", "bytes", "max", "median", "min", "iters", "window",
               "check");
}

static void out_result(const bench_test_t *t, const bench_ctx_t *c, long iters, int ns, double mn,
                       double med, double mx, long bad)
{
    const char *chk = bad ? "FAIL" : "ok";
    if (opt.rank != 0)
        return;
    if (opt.fmt == FMT_JSON) {
        char thr[32] = "";
        if (!strcmp(t->group, "thread"))
            snprintf(thr, sizeof thr, ",\"threads\":%d", bench_mt_threads);
        printf("{\"test\":\"%s\",\"group\":\"%s\",\"np\":%d%s,\"bytes\":%zu,\"window\":%d,\"iters\":%ld,"
               "\"samples\":%d,\"unit\":\"%s\",\"min\":%.6g,\"median\":%.6g,\"max\":%.6g,\"check\":\"%s\"}\n",
               t->name, t->group, opt.np, thr, c->bytes, c->window, iters, ns, bench_metric_unit(t->metric),
               mn, med, mx, chk);
    } else if (opt.fmt == FMT_CSV) {
        printf("%s,%d,%zu,%d,%ld,%d,%s,%.6g,%.6g,%.6g,%s,\n", t->name, opt.np, c->bytes, c->window,
               iters, ns, bench_metric_unit(t->metric), mn, med, mx, chk);
    } else if (t->metric == METRIC_LAT) {
        printf("%12zu %12.3f %12.3f %12.3f %10ld %6s\n", c->bytes, mn, med, mx, iters, chk);
    } else {
        printf("%12zu %12.1f %12.1f %12.1f %10ld %6d %6s\n", c->bytes, mx, med, mn, iters, c->window, chk);
    }
    fflush(stdout);
}

static void out_error(const bench_test_t *t, size_t bytes, const char *err)
{
    if (opt.rank != 0)
        return;
    if (opt.fmt == FMT_JSON)
        printf("{\"test\":\"%s\",\"group\":\"%s\",\"np\":%d,\"bytes\":%zu,\"error\":\"%s\"}\n", t->name,
               t->group, opt.np, bytes, err);
    else if (opt.fmt == FMT_CSV)
        printf("%s,%d,%zu,,,,,,,,,%s\n", t->name, opt.np, bytes, err);
    else
        printf("%12zu  n/a (error: %s)\n", bytes, err);
    fflush(stdout);
}

/* ---- running one test -------------------------------------------------------- */

/* Every rank: run the kernel, then agree on the slowest rank's time and on
 * whether any rank saw an MPI error.  Returns 0 when all went well. */
static int timed(bench_ctx_t *c, long iters, double *secs)
{
    double mine[2], all[2];
    int rc = c->t->run(c, iters, &mine[0]);
    mine[1] = rc != MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        bench_mpi_err(c, rc, c->t->name);
    MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *secs = all[0];
    return all[1] != 0.0;
}

/* Share the first error text seen by any rank with rank 0. */
static void agree_error(bench_ctx_t *c, int mine)
{
    bench_share_text(c->errbuf, (int)sizeof c->errbuf, mine);
}

static void run_test(const bench_test_t *t)
{
    int nsizes = t->sizeless ? 1 : opt.nsizes;
    double *v = malloc(sizeof(double) * (size_t)(opt.samples > 0 ? opt.samples : 1));

    if (opt.np < t->min_np) {
        if (opt.rank == 0 && opt.fmt == FMT_TABLE)
            printf("\n# %s: needs at least %d ranks; skipped\n", t->name, t->min_np);
        free(v);
        return;
    }
    out_test_title(t);
    for (int si = 0; si < nsizes; si++) {
        bench_ctx_t c;
        memset(&c, 0, sizeof c);
        c.o = &opt;
        c.t = t;
        c.bytes = t->sizeless ? 0 : opt.sizes[si];
        if (t->reduction && c.bytes % sizeof(int))
            continue;
        if (t->unit && c.bytes % (size_t)t->unit)
            continue;
        if (c.bytes > (size_t)0x7fffffff)
            continue;
        c.window = 1;
        if (t->windowed) {
            c.window = opt.window;
            if (c.bytes > 0 && c.bytes * (size_t)c.window > opt.window_bytes)
                c.window = (int)(opt.window_bytes / c.bytes) > 0 ? (int)(opt.window_bytes / c.bytes) : 1;
        }
        if (opt.progress && opt.rank == 0)
            fprintf(stderr, "mpibench: %s %zu B (%d/%d)\n", t->name, c.bytes, si + 1, nsizes);
        t->bufsize(&c, &c.sbuf_len, &c.rbuf_len);
        c.sbuf = bench_alloc(c.sbuf_len);
        c.rbuf = bench_alloc(c.rbuf_len);
        c.win = MPI_WIN_NULL;
        c.comm = MPI_COMM_NULL;

        /* 0. the test's own objects (rma: the window), then
         * 1. one verified exchange */
        long bad = 0;
        if (t->setup && t->setup(&c) != MPI_SUCCESS) {
            if (!c.errbuf[0])
                snprintf(c.errbuf, sizeof c.errbuf, "%s: setup failed", t->name);
            bad = -1;
        }
        int setup_bad = bad < 0, any_setup_bad = 0;
        MPI_Allreduce(&setup_bad, &any_setup_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (!any_setup_bad)
            bad = t->check(&c);
        long worst[2], mine[2] = { bad < 0 ? 1 : 0, bad > 0 ? bad : 0 };
        MPI_Allreduce(mine, worst, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
        if (worst[0]) {
            agree_error(&c, bad < 0);
            out_error(t, c.bytes, c.errbuf);
            mpi_failures++;
            if (t->teardown)
                t->teardown(&c);
            free(c.sbuf);
            free(c.rbuf);
            break;
        }
        MPI_Barrier(MPI_COMM_WORLD);

        /* 2. calibration and warm-up (not in smoke mode): double the iterations
         * until a run takes a tenth of a sample, size the samples from that,
         * then run one sample and discard it */
        long k = 1;
        double s = 0.0;
        int err = 0;
        while (!opt.smoke) {
            if ((err = timed(&c, k, &s)))
                break;
            if (s >= opt.sample_time / 10.0 || k >= opt.max_iters)
                break;
            k *= 2;
        }
        long iters = opt.smoke ? opt.max_iters : k;
        if (!opt.smoke && !err && s > 0.0 && k < opt.max_iters) {
            double want = (double)k * opt.sample_time / s;
            iters = want > (double)opt.max_iters ? opt.max_iters : (long)want;
            if (iters < 1)
                iters = 1;
        }
        if (!err && !opt.smoke)
            err = timed(&c, iters, &s);

        /* 3. the samples */
        int ns = 0;
        for (int i = 0; i < opt.samples && !err; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            if ((err = timed(&c, iters, &s)))
                break;
            v[ns++] = t->value(&c, s > 1e-12 ? s : 1e-12, iters);
        }
        if (err) {
            agree_error(&c, c.errbuf[0] != 0);
            out_error(t, c.bytes, c.errbuf);
            mpi_failures++;
            if (t->teardown)
                t->teardown(&c);
            free(c.sbuf);
            free(c.rbuf);
            break;
        }
        if (t->teardown)
            t->teardown(&c);
        double med = bench_median(v, ns); /* sorts v */
        out_result(t, &c, iters, ns, v[0], med, v[ns - 1], worst[1]);
        if (worst[1]) {
            opt.errors++;
            if (opt.rank == 0)
                fprintf(stderr, "mpibench: %s %zu B: received data is wrong (%ld bytes at the worst rank)\n",
                        t->name, c.bytes, worst[1]);
        }
        free(c.sbuf);
        free(c.rbuf);
    }
    free(v);
}

/* ---- memory ----------------------------------------------------------------- */

/* Touch every pair's channel (8 B and 1 MiB each way), then report each
 * rank's resident set and shared mappings, and the files under /dev/shm. */
static void run_memory(void)
{
    size_t big = 1 << 20;
    char *s = bench_alloc(big), *r = bench_alloc(big);
    for (int d = 1; d < opt.np; d++) {
        int to = (opt.rank + d) % opt.np, from = (opt.rank - d + opt.np) % opt.np;
        MPI_Sendrecv(s, 8, MPI_BYTE, to, 21, r, 8, MPI_BYTE, from, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(s, (int)big, MPI_BYTE, to, 22, r, (int)big, MPI_BYTE, from, 22, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(s);
    free(r);

    long m[7];
    m[0] = rss_before_init;
    m[1] = bench_status_kib("VmRSS");
    m[2] = bench_status_kib("VmHWM");
    bench_shm_kib(&m[3], &m[4], &m[5]);
    int nfiles = 0;
    m[6] = opt.rank == 0 ? bench_devshm_kib(start_time, &nfiles) : 0;
    /* point-to-point rather than MPI_Gather, so that the report does not
     * depend on a collective the MPI under test may lack */
    if (opt.rank != 0) {
        MPI_Send(m, 7, MPI_LONG, 0, 23, MPI_COMM_WORLD);
        return;
    }
    long *all = malloc(sizeof(long) * 7 * (size_t)opt.np);
    memcpy(all, m, sizeof m);
    for (int i = 1; i < opt.np; i++)
        MPI_Recv(all + 7 * i, 7, MPI_LONG, i, 23, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    long rss_sum = 0, hwm_max = 0, pss_sum = 0, size_max = 0;
    if (opt.fmt == FMT_TABLE)
        printf("\n# memory (KiB): per rank after init and traffic to every peer (8 B and 1 MiB)\n"
               "%6s %12s %10s %10s %12s %12s %12s\n", "rank", "rss_at_start", "VmRSS", "VmHWM",
               "shm_mapped", "shm_rss", "shm_pss");
    else if (opt.fmt == FMT_CSV)
        printf("\nmemory,np,rank,rss_at_start_kib,vmrss_kib,vmhwm_kib,shm_size_kib,shm_rss_kib,"
               "shm_pss_kib\n");
    for (int i = 0; i < opt.np; i++) {
        long *x = all + 7 * i;
        rss_sum += x[1];
        hwm_max = x[2] > hwm_max ? x[2] : hwm_max;
        pss_sum += x[5];
        size_max = x[3] > size_max ? x[3] : size_max;
        if (opt.fmt == FMT_JSON)
            printf("{\"test\":\"memory\",\"np\":%d,\"rank\":%d,\"rss_at_start_kib\":%ld,\"vmrss_kib\":%ld,"
                   "\"vmhwm_kib\":%ld,\"shm_size_kib\":%ld,\"shm_rss_kib\":%ld,\"shm_pss_kib\":%ld}\n",
                   opt.np, i, x[0], x[1], x[2], x[3], x[4], x[5]);
        else if (opt.fmt == FMT_CSV)
            printf("memory,%d,%d,%ld,%ld,%ld,%ld,%ld,%ld\n", opt.np, i, x[0], x[1], x[2], x[3], x[4], x[5]);
        else
            printf("%6d %12ld %10ld %10ld %12ld %12ld %12ld\n", i, x[0], x[1], x[2], x[3], x[4], x[5]);
    }
    if (opt.fmt == FMT_JSON)
        printf("{\"test\":\"memory_total\",\"np\":%d,\"vmrss_kib_sum\":%ld,\"vmrss_kib_mean\":%ld,"
               "\"vmhwm_kib_max\":%ld,\"shm_pss_kib_sum\":%ld,\"shm_size_kib_max\":%ld,"
               "\"devshm_kib\":%ld,\"devshm_files\":%d}\n",
               opt.np, rss_sum, rss_sum / opt.np, hwm_max, pss_sum, size_max, m[6], nfiles);
    else if (opt.fmt == FMT_CSV)
        printf("memory_total,%d,,,%ld,%ld,%ld,,%ld\n", opt.np, rss_sum, hwm_max, size_max, pss_sum);
    else
        printf("# total: VmRSS %ld KiB (mean %ld per rank), VmHWM max %ld KiB, shared memory resident "
               "%ld KiB (sum of Pss), /dev/shm files of this run %ld KiB in %d file(s)\n",
               rss_sum, rss_sum / opt.np, hwm_max, pss_sum, m[6], nfiles);
    fflush(stdout);
    free(all);
}

/* ---- main ------------------------------------------------------------------- */

static const bench_test_t *find_test(const char *name)
{
    for (int i = 0; i < bench_n_p2p_tests; i++)
        if (!strcmp(name, bench_p2p_tests[i].name))
            return &bench_p2p_tests[i];
    for (int i = 0; i < bench_n_coll_tests; i++)
        if (!strcmp(name, bench_coll_tests[i].name))
            return &bench_coll_tests[i];
    for (int i = 0; i < bench_n_icoll_tests; i++)
        if (!strcmp(name, bench_icoll_tests[i].name))
            return &bench_icoll_tests[i];
    for (int i = 0; i < bench_n_rma_tests; i++)
        if (!strcmp(name, bench_rma_tests[i].name))
            return &bench_rma_tests[i];
    for (int i = 0; i < bench_n_mt_tests; i++)
        if (!strcmp(name, bench_mt_tests[i].name))
            return &bench_mt_tests[i];
    return NULL;
}

int main(int argc, char **argv)
{
    const bench_test_t *sel[64];
    int sel_ovlp[32];
    int nsel = 0, nsel_ovlp = 0, want_memory = 0, any_named = 0, quiet = 0, force_progress = 0;
    int min_set = 0;
    size_t min_size = 0, max_size = (size_t)4 << 20;
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    start_time = (double)ts.tv_sec;
    rss_before_init = bench_status_kib("VmRSS");
    int want_multiple = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--thread-multiple") || !strcmp(argv[i], "thread"))
            want_multiple = 1;
        for (int j = 0; j < bench_n_mt_tests; j++)
            if (!strcmp(argv[i], bench_mt_tests[j].name))
                want_multiple = 1;
    }
    if (want_multiple)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &thread_provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &opt.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &opt.np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    bench_library_version(libver, sizeof libver);

    opt.fmt = FMT_TABLE;
    opt.samples = 11;
    opt.sample_time = 0.02;
    opt.max_iters = 1000000;
    opt.window = 64;
    opt.window_bytes = (size_t)16 << 20;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1, inl = 0;
        if (!strncmp(a, "--", 2) && strchr(a, '=')) {
            /* --name=value */
            static char name[64];
            size_t l = (size_t)(strchr(a, '=') - a);
            if (l >= sizeof name)
                fail_usage("option too long", a);
            memcpy(name, a, l);
            name[l] = 0;
            val = strchr(a, '=') + 1;
            a = name;
            inl = 1; /* the value is not a separate word */
        }
#define NEEDVAL()                                      \
    do {                                               \
        if (!val)                                      \
            fail_usage("missing value for option", a); \
        if (!inl)                                      \
            i++;                                       \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (opt.rank == 0)
                usage(stdout);
            MPI_Finalize();
            return 0;
        } else if (!strcmp(a, "--smoke")) {
            opt.smoke = 1;
        } else if (!strcmp(a, "--progress")) {
            force_progress = 1;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "--allow-errors")) {
            allow_errors = 1;
        } else if (!strcmp(a, "--thread-multiple")) {
            /* taken before MPI_Init_thread */
        } else if (!strcmp(a, "--format")) {
            NEEDVAL();
            if (!strcmp(val, "table")) opt.fmt = FMT_TABLE;
            else if (!strcmp(val, "csv")) opt.fmt = FMT_CSV;
            else if (!strcmp(val, "json")) opt.fmt = FMT_JSON;
            else fail_usage("unknown format", val);
        } else if (!strcmp(a, "--sizes")) {
            NEEDVAL();
            char *copy = strdup(val), *save = NULL;
            opt.nsizes = 0;
            for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (opt.nsizes == BENCH_MAX_SIZES)
                    fail_usage("too many sizes", val);
                opt.sizes[opt.nsizes++] = bench_parse_size(tok, &ok);
                if (!ok)
                    fail_usage("bad size", tok);
            }
            free(copy);
            opt.user_sizes = 1;
        } else if (!strcmp(a, "--min-size")) {
            NEEDVAL();
            min_size = bench_parse_size(val, &ok);
            min_set = 1;
        } else if (!strcmp(a, "--max-size")) {
            NEEDVAL();
            max_size = bench_parse_size(val, &ok);
        } else if (!strcmp(a, "--window-bytes")) {
            NEEDVAL();
            opt.window_bytes = bench_parse_size(val, &ok);
        } else if (!strcmp(a, "--win")) {
            NEEDVAL();
            if (!strcmp(val, "allocate")) opt.win_create = 0;
            else if (!strcmp(val, "create")) opt.win_create = 1;
            else fail_usage("unknown window kind (allocate or create)", val);
        } else if (!strcmp(a, "--samples")) {
            NEEDVAL();
            opt.samples = atoi(val);
            ok = opt.samples >= 1;
        } else if (!strcmp(a, "--sample-time")) {
            NEEDVAL();
            opt.sample_time = atof(val);
            ok = opt.sample_time > 0.0;
        } else if (!strcmp(a, "--max-iters")) {
            NEEDVAL();
            opt.max_iters = atol(val);
            ok = opt.max_iters >= 1;
        } else if (!strcmp(a, "--threads")) {
            NEEDVAL();
            bench_mt_threads = atoi(val);
            ok = bench_mt_threads >= 1 && bench_mt_threads <= BENCH_MT_MAX_THREADS;
        } else if (!strcmp(a, "--window")) {
            NEEDVAL();
            opt.window = atoi(val);
            ok = opt.window >= 1 && opt.window <= 1024;
        } else if (a[0] == '-') {
            fail_usage("unknown option", a);
        } else if (!strcmp(a, "overlap") && !any_named && !ovlp_mode) {
            ovlp_mode = 1;
        } else if (ovlp_mode) {
            int k = bench_ovlp_find(a);
            any_named = 1;
            if (k >= 0 && nsel_ovlp < 32)
                sel_ovlp[nsel_ovlp++] = k;
            else if (!strcmp(a, "all"))
                for (int j = 0; j < bench_n_ovlp_ops && nsel_ovlp < 32; j++)
                    sel_ovlp[nsel_ovlp++] = j;
            else
                fail_usage("unknown overlap operation", a);
        } else {
            any_named = 1;
            const bench_test_t *t = find_test(a);
            int p2p = !strcmp(a, "pt2pt") || !strcmp(a, "all");
            int coll = !strcmp(a, "coll") || !strcmp(a, "all");
            int rma = !strcmp(a, "rma") || !strcmp(a, "all");
            if (t && nsel < 64) {
                sel[nsel++] = t;
            } else if (p2p || coll || rma) {
                for (int j = 0; p2p && j < bench_n_p2p_tests && nsel < 64; j++)
                    sel[nsel++] = &bench_p2p_tests[j];
                for (int j = 0; coll && j < bench_n_coll_tests && nsel < 64; j++)
                    sel[nsel++] = &bench_coll_tests[j];
                for (int j = 0; rma && j < bench_n_rma_tests && nsel < 64; j++)
                    sel[nsel++] = &bench_rma_tests[j];
                if (!strcmp(a, "all"))
                    want_memory = 1;
            } else if (!strcmp(a, "icoll")) {
                for (int j = 0; j < bench_n_icoll_tests && nsel < 64; j++)
                    sel[nsel++] = &bench_icoll_tests[j];
            } else if (!strcmp(a, "memory")) {
                want_memory = 1;
            } else if (!strcmp(a, "thread")) {
                for (int j = 0; j < bench_n_mt_tests && nsel < 64; j++)
                    sel[nsel++] = &bench_mt_tests[j];
            } else {
                fail_usage("unknown test", a);
            }
        }
        if (!ok)
            fail_usage("bad value for option", a);
    }
    if (ovlp_mode && !any_named) {
        for (int j = 0; j < bench_n_ovlp_ops; j++)
            sel_ovlp[nsel_ovlp++] = j;
    } else if (!any_named) {
        for (int j = 0; j < bench_n_p2p_tests; j++)
            sel[nsel++] = &bench_p2p_tests[j];
        for (int j = 0; j < bench_n_coll_tests; j++)
            sel[nsel++] = &bench_coll_tests[j];
        for (int j = 0; j < bench_n_rma_tests; j++)
            sel[nsel++] = &bench_rma_tests[j];
        want_memory = 1;
    }
    if (opt.smoke) {
        /* every path once, quickly: few iterations, one sample */
        if (!opt.user_sizes && ovlp_mode) {
            opt.nsizes = (int)(sizeof ovlp_smoke_sizes / sizeof ovlp_smoke_sizes[0]);
            memcpy(opt.sizes, ovlp_smoke_sizes, sizeof ovlp_smoke_sizes);
            opt.user_sizes = 1;
        } else if (!opt.user_sizes) {
            opt.nsizes = (int)(sizeof smoke_sizes / sizeof smoke_sizes[0]);
            memcpy(opt.sizes, smoke_sizes, sizeof smoke_sizes);
            opt.user_sizes = 1;
        }
        opt.samples = 1;
        opt.sample_time = 1e-4;
        opt.max_iters = 3;
        if (opt.window > 8)
            opt.window = 8;
    }
    if (ovlp_mode && !min_set)
        min_size = OVLP_MIN_SIZE;
    if (!opt.user_sizes) {
        opt.nsizes = 0;
        if (min_size == 0)
            opt.sizes[opt.nsizes++] = 0;
        for (size_t s = 1; s <= max_size && opt.nsizes < BENCH_MAX_SIZES; s *= 2)
            if (s >= min_size)
                opt.sizes[opt.nsizes++] = s;
    }
    opt.progress = quiet ? 0 : (force_progress || isatty(2));

    out_header();
    if (ovlp_mode)
        out_placement();
    for (int i = 0; i < nsel_ovlp; i++)
        mpi_failures += bench_ovlp_run(&opt, sel_ovlp[i]);
    for (int i = 0; i < nsel; i++)
        run_test(sel[i]);
    if (want_memory)
        run_memory();
    bench_mt_free();

    int mine[2] = { opt.errors, mpi_failures }, tot[2];
    MPI_Allreduce(mine, tot, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int failed = tot[0] > 0 || (!allow_errors && tot[1] > 0);
    if (opt.rank == 0 && opt.smoke) {
        const char *what = ovlp_mode ? "mpibench overlap smoke" : "mpibench smoke";
        if (failed)
            printf("FAIL %s (np=%d): %d size(s) with wrong data, "
                   "%d test(s) stopped by an MPI error\n", what, opt.np, tot[0], tot[1]);
        else
            printf("PASS %s (np=%d)%s\n", what, opt.np,
                   tot[1] ? " (some tests stopped by MPI errors, allowed)" : "");
    }
    fflush(stdout);
    MPI_Finalize();
    return failed ? 1 : 0;
}
