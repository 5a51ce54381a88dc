/* SPDX-License-Identifier: MIT */
/* The tools interface (MPI_T): control variables read and written before and
 * after MPI_Init (a value written before MPI_Init wins over the environment),
 * the string and index rules every procedure shares, performance variables
 * that count exactly the messages and bytes this test sends (eager and
 * rendezvous, to itself and to another rank), the unexpected and posted
 * queue lengths, the algorithm a collective chose after a control variable
 * forced it, categories, and the error codes.  The generic checks hold
 * under any MPI (validated with MPICH); those of Courier's own variables run
 * where the variable exists. */
#include <unistd.h>
#include "mpitest.h"

static int rank, size;

static int cvar_index(const char *name)
{
    int i;
    return MPI_T_cvar_get_index(name, &i) == MPI_SUCCESS ? i : -1;
}

static int pvar_index(const char *name, int cls)
{
    int i;
    return MPI_T_pvar_get_index(name, cls, &i) == MPI_SUCCESS ? i : -1;
}

/* The generic rules for every control variable: lengths, truncation, NULLs. */
static void check_cvar_strings(void)
{
    int n = -1;
    CHECK_MPI(MPI_T_cvar_get_num(&n));
    CHECK(n >= 0, "%d control variables", n);
    for (int i = 0; i < n; i++) {
        char name[16], desc[16];
        int nl = 0, dl = 0, verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_MPI(MPI_T_cvar_get_info(i, NULL, &nl, &verb, &dt, &en, NULL, &dl, &bind, &scope));
        int full_n = nl, full_d = dl;
        CHECK(full_n >= 1 && full_d >= 1, "cvar %d: lengths %d %d", i, full_n, full_d);
        nl = dl = (int)sizeof name;
        CHECK_MPI(MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope));
        CHECK_INT((int)strlen(name) + 1, full_n < (int)sizeof name ? full_n : (int)sizeof name);
        CHECK_INT((int)strlen(desc) + 1, full_d < (int)sizeof desc ? full_d : (int)sizeof desc);
        int name_idx = -1;
        if (full_n <= (int)sizeof name) {       /* the whole name: it finds the variable */
            CHECK_MPI(MPI_T_cvar_get_index(name, &name_idx));
            CHECK_INT(name_idx, i);
        }
    }
    int verb, bind, scope, nl = 0;
    MPI_Datatype dt;
    MPI_T_enum en;
    CHECK_INT(MPI_T_cvar_get_info(n, NULL, &nl, &verb, &dt, &en, NULL, &nl, &bind, &scope),
              MPI_T_ERR_INVALID_INDEX);
    CHECK_INT(MPI_T_cvar_get_info(-1, NULL, &nl, &verb, &dt, &en, NULL, &nl, &bind, &scope),
              MPI_T_ERR_INVALID_INDEX);
    int idx;
    CHECK_INT(MPI_T_cvar_get_index("no such variable, surely", &idx), MPI_T_ERR_INVALID_NAME);
}

static int read_int_cvar(int idx)
{
    MPI_T_cvar_handle h;
    int count = 0;
    int v = -1;
    CHECK_MPI(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count));
    CHECK_INT(count, 1);
    CHECK_MPI(MPI_T_cvar_read(h, &v));
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle not nulled");
    return v;
}

/* stderr into a file between stderr_catch and stderr_release, which puts
 * what was written into buf (NUL-terminated, "" for nothing). */
static int stderr_saved = -1;
static FILE *stderr_file;

static void stderr_catch(void)
{
    fflush(stderr);
    stderr_file = tmpfile();
    CHECK(stderr_file != NULL, "tmpfile");
    if (!stderr_file) return;
    stderr_saved = dup(2);
    dup2(fileno(stderr_file), 2);
}

static void stderr_release(char *buf, size_t len)
{
    buf[0] = '\0';
    if (!stderr_file) return;
    fflush(stderr);
    dup2(stderr_saved, 2);
    close(stderr_saved);
    rewind(stderr_file);
    size_t n = fread(buf, 1, len - 1, stderr_file);
    buf[n] = '\0';
    fclose(stderr_file);
    stderr_file = NULL;
}

/* An MPI_Bcast of one int from rank 0 arrives and prints nothing on stderr. */
static void bcast_says_nothing(const char *what)
{
    char said[512];
    int v = rank;
    stderr_catch();
    CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
    stderr_release(said, sizeof said);
    CHECK_INT(v, 0);
    CHECK(said[0] == '\0', "%s: \"%s\"", what, said);
}

static int write_int_cvar(int idx, int v)
{
    MPI_T_cvar_handle h;
    int count;
    CHECK_MPI(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count));
    int rc = MPI_T_cvar_write(h, &v);
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    return rc;
}

static unsigned long read_size_cvar(int idx)
{
    MPI_T_cvar_handle h;
    int count;
    unsigned long v = 0;
    CHECK_MPI(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count));
    CHECK_MPI(MPI_T_cvar_read(h, &v));
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    return v;
}

static int write_size_cvar(int idx, unsigned long v)
{
    MPI_T_cvar_handle h;
    int count;
    CHECK_MPI(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count));
    int rc = MPI_T_cvar_write(h, &v);
    CHECK_MPI(MPI_T_cvar_handle_free(&h));
    return rc;
}

/* A counter's value through a handle of session s. */
static unsigned long long pvar_now(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    CHECK_MPI(MPI_T_pvar_read(s, h, &v));
    return v;
}

/* Messages sent now counted exactly, for a peer kind and protocol. */
static void check_sent(MPI_T_pvar_session s, const char *kind, const char *proto, int peer,
                       int nmsg, int bytes)
{
    char mname[64], bname[64];
    snprintf(mname, sizeof mname, "sent_messages_%s_%s", kind, proto);
    snprintf(bname, sizeof bname, "sent_bytes_%s_%s", kind, proto);
    int mi = pvar_index(mname, MPI_T_PVAR_CLASS_COUNTER);
    int bi = pvar_index(bname, MPI_T_PVAR_CLASS_COUNTER);
    CHECK(mi >= 0 && bi >= 0, "no counters %s, %s", mname, bname);
    if (mi < 0 || bi < 0) return;
    MPI_T_pvar_handle hm, hb;
    int count;
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, mi, NULL, &hm, &count));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, bi, NULL, &hb, &count));
    CHECK_INT(pvar_now(s, hm), 0);         /* a new handle of a counter starts at 0 */
    char *buf = mt_malloc((size_t)bytes);
    mt_fill(buf, (size_t)bytes, nmsg);
    MPI_Request rq[8];
    int nr = 0;
    if (peer == rank) {
        for (int i = 0; i < nmsg; i++)
            CHECK_MPI(MPI_Irecv(buf, bytes, MPI_CHAR, 0, 40 + i, MPI_COMM_SELF, &rq[nr++]));
        for (int i = 0; i < nmsg; i++)
            CHECK_MPI(MPI_Send(buf, bytes, MPI_CHAR, 0, 40 + i, MPI_COMM_SELF));
        CHECK_MPI(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
    } else {
        for (int i = 0; i < nmsg; i++)
            CHECK_MPI(MPI_Send(buf, bytes, MPI_CHAR, peer, 40 + i, MPI_COMM_WORLD));
    }
    CHECK_INT(pvar_now(s, hm), nmsg);
    CHECK_INT(pvar_now(s, hb), (long long)nmsg * bytes);
    unsigned long long v = 0;
    CHECK_MPI(MPI_T_pvar_readreset(s, hm, &v));
    CHECK_INT(v, nmsg);
    CHECK_INT(pvar_now(s, hm), 0);
    v = 5;
    CHECK_MPI(MPI_T_pvar_write(s, hm, &v));
    CHECK_INT(pvar_now(s, hm), 5);
    CHECK_MPI(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
    CHECK_INT(pvar_now(s, hm), 0);
    CHECK_INT(pvar_now(s, hb), 0);
    CHECK_MPI(MPI_T_pvar_handle_free(s, &hm));
    CHECK_MPI(MPI_T_pvar_handle_free(s, &hb));
    free(buf);
}

static void recv_sent(int from, int nmsg, int bytes)
{
    char *buf = mt_malloc((size_t)bytes);
    for (int i = 0; i < nmsg; i++) {
        CHECK_MPI(MPI_Recv(buf, bytes, MPI_CHAR, from, 40 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_PATTERN(buf, (size_t)bytes, nmsg);
    }
    free(buf);
}

static unsigned long long level(MPI_T_pvar_session s, int idx)
{
    MPI_T_pvar_handle h;
    int count;
    unsigned long long v = 0;
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count));
    CHECK_MPI(MPI_T_pvar_read(s, h, &v));
    CHECK_MPI(MPI_T_pvar_handle_free(s, &h));
    return v;
}

/* Courier's performance variables: exact counts and queue lengths. */
static void check_pvars(void)
{
    MPI_T_pvar_session s;
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    int eager_small = 64, rndv_big = 200000;

    /* to itself */
    check_sent(s, "self", "eager", rank, 3, eager_small);
    /* to another rank on this node: rank 0 sends to rank 1 */
    if (size >= 2) {
        if (rank == 0) {
            check_sent(s, "shm", "eager", 1, 4, eager_small);
            check_sent(s, "shm", "rndv", 1, 2, rndv_big);
        } else if (rank == 1) {
            recv_sent(0, 4, eager_small);
            recv_sent(0, 2, rndv_big);
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* queue lengths: rank 1 posts 2 receives, then rank 0 sends 3 it has not posted */
    int ux = pvar_index("unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    int po = pvar_index("posted_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    CHECK(ux >= 0 && po >= 0, "queue-length variables missing (%d, %d)", ux, po);
    if (size >= 2 && ux >= 0 && po >= 0) {
        int a[2], b[3];
        MPI_Request rq[2];
        if (rank == 1) {
            CHECK_INT(level(s, po), 0);
            for (int i = 0; i < 2; i++)
                CHECK_MPI(MPI_Irecv(&a[i], 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &rq[i]));
            CHECK_INT(level(s, po), 2);
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            for (int i = 0; i < 3; i++) {
                b[i] = 100 + i;
                CHECK_MPI(MPI_Send(&b[i], 1, MPI_INT, 1, 8, MPI_COMM_WORLD));
            }
            for (int i = 0; i < 2; i++) {
                a[i] = 200 + i;
                CHECK_MPI(MPI_Send(&a[i], 1, MPI_INT, 1, 9, MPI_COMM_WORLD));
            }
        } else if (rank == 1) {
            CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
            CHECK(a[0] == 200 && a[1] == 201, "posted receives got %d %d", a[0], a[1]);
            CHECK_INT(level(s, po), 0);
            /* the tag-8 messages came first on the ordered channel: all are waiting */
            CHECK_INT(level(s, ux), 3);
            for (int i = 0; i < 3; i++) {
                CHECK_MPI(MPI_Recv(&b[i], 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK_INT(b[i], 100 + i);
            }
            CHECK_INT(level(s, ux), 0);
        }
        /* nobody sends rank 1 anything (a barrier's message would be
         * unexpected there) until it has counted */
        int token = 1;
        if (rank == 1) {
            for (int r = 0; r < size; r++)
                if (r != 1) CHECK_MPI(MPI_Send(&token, 1, MPI_INT, r, 77, MPI_COMM_WORLD));
        } else {
            CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* the error codes of performance variables */
    MPI_T_pvar_handle h;
    int count;
    unsigned long long v;
    if (ux >= 0) {
        CHECK_MPI(MPI_T_pvar_handle_alloc(s, ux, NULL, &h, &count));
        CHECK_INT(MPI_T_pvar_start(s, h), MPI_T_ERR_PVAR_NO_STARTSTOP);   /* continuous */
        CHECK_INT(MPI_T_pvar_reset(s, h), MPI_T_ERR_PVAR_NO_WRITE);       /* read-only */
        v = 1;
        CHECK_INT(MPI_T_pvar_write(s, h, &v), MPI_T_ERR_PVAR_NO_WRITE);
        MPI_T_pvar_session other;
        CHECK_MPI(MPI_T_pvar_session_create(&other));
        CHECK_INT(MPI_T_pvar_read(other, h, &v), MPI_T_ERR_INVALID_HANDLE);
        CHECK_MPI(MPI_T_pvar_session_free(&other));
        CHECK_MPI(MPI_T_pvar_handle_free(s, &h));
    }
    CHECK_INT(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    int n;
    CHECK_MPI(MPI_T_pvar_get_num(&n));
    CHECK_INT(MPI_T_pvar_handle_alloc(s, n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    CHECK_MPI(MPI_T_pvar_session_free(&s));
    CHECK(s == MPI_T_PVAR_SESSION_NULL, "session not nulled");
    CHECK_INT(MPI_T_pvar_session_free(&s), MPI_T_ERR_INVALID_SESSION);
}

/* A control variable forces MPI_Bcast's algorithm at run time; the
 * performance variable says which one ran, and the data is right. */
static void check_coll_alg(void)
{
    int cv = cvar_index("COURIER_COLL_BCAST_ALG");
    int pv = pvar_index("coll_bcast_algorithm", MPI_T_PVAR_CLASS_STATE);
    CHECK(cv >= 0 && pv >= 0, "bcast variables missing (%d, %d)", cv, pv);
    if (cv < 0 || pv < 0) return;
    int old = read_int_cvar(cv);
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    int count;
    CHECK_MPI(MPI_T_pvar_session_create(&s));
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, pv, NULL, &h, &count));
    /* first a call with the default choice: on one node it makes the
     * communicator's shared area, after which the selection keeps its choice
     * per collective (coll_select.c, the memo), which each write below must
     * make stale */
    int first = -1;
    {
        int data[1000];
        for (int i = 0; i < 1000; i++) data[i] = rank == size - 1 ? i : -1;
        CHECK_MPI(MPI_Bcast(data, 1000, MPI_INT, size - 1, MPI_COMM_WORLD));
        for (int i = 0; i < 1000; i++) CHECK_INT(data[i], i);
        CHECK_MPI(MPI_T_pvar_read(s, h, &first));
    }
    for (int alg = 1; alg <= 2; alg++) {
        CHECK_MPI(write_int_cvar(cv, alg));
        CHECK_INT(read_int_cvar(cv), alg);
        int data[1000];
        for (int i = 0; i < 1000; i++) data[i] = rank == size - 1 ? i * alg : -1;
        CHECK_MPI(MPI_Bcast(data, 1000, MPI_INT, size - 1, MPI_COMM_WORLD));
        for (int i = 0; i < 1000; i++) CHECK_INT(data[i], i * alg);
        int chosen = -1;
        CHECK_MPI(MPI_T_pvar_read(s, h, &chosen));
        if (size > 1) CHECK_INT(chosen, alg);
    }
    /* a value outside the setting's range is kept and read back, as MPICH's
     * control variables do, and the library uses the default (automatic
     * choice), which the next collective says once on stderr */
    CHECK_MPI(write_int_cvar(cv, 99));
    CHECK_INT(read_int_cvar(cv), 99);
    char said[512];
    {   /* the default choice again, not the last forced one */
        int data[1000], chosen = -1;
        for (int i = 0; i < 1000; i++) data[i] = rank == size - 1 ? 3 * i : -1;
        stderr_catch();
        CHECK_MPI(MPI_Bcast(data, 1000, MPI_INT, size - 1, MPI_COMM_WORLD));
        stderr_release(said, sizeof said);
        for (int i = 0; i < 1000; i++) CHECK_INT(data[i], 3 * i);
        CHECK_MPI(MPI_T_pvar_read(s, h, &chosen));
        if (size > 1) CHECK_INT(chosen, first);
        /* (one rank selects no algorithm, so it says nothing yet) */
        if (size > 1)
            CHECK(strstr(said, "COURIER_COLL_BCAST_ALG is 99") && strstr(said, "uses 0"),
                  "no notice of the value in use: \"%s\"", said);
    }
    bcast_says_nothing("notice said twice");   /* said once: the next call is silent */
    /* put back in range before any use (MPICH's cvarwrite writes, reads and
     * restores): nothing is said */
    CHECK_MPI(write_int_cvar(cv, -1));
    CHECK_INT(read_int_cvar(cv), -1);
    CHECK_MPI(write_int_cvar(cv, old));
    CHECK_INT(read_int_cvar(cv), old);
    bcast_says_nothing("notice of a value put back");
    /* a BOOL takes any non-zero value as on, reads back what was written
     * and says nothing */
    int shm = cvar_index("COURIER_COLL_SHM");
    CHECK(shm >= 0, "COURIER_COLL_SHM missing");
    if (shm >= 0) {
        int was = read_int_cvar(shm);
        CHECK_MPI(write_int_cvar(shm, 123));
        CHECK_INT(read_int_cvar(shm), 123);
        int v = rank + 5, sum = -1;
        stderr_catch();
        CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        stderr_release(said, sizeof said);
        CHECK_INT(sum, size * 5 + size * (size - 1) / 2);
        CHECK(said[0] == '\0', "notice for a BOOL: \"%s\"", said);
        CHECK_MPI(write_int_cvar(shm, was));
    }
    CHECK_MPI(MPI_T_pvar_handle_free(s, &h));
    CHECK_MPI(MPI_T_pvar_session_free(&s));
}

/* Every variable is in exactly one category here, and the lists agree. */
static void check_categories(void)
{
    int ncat, ncv, npv, sum_cv = 0, sum_pv = 0;
    CHECK_MPI(MPI_T_category_get_num(&ncat));
    CHECK_MPI(MPI_T_cvar_get_num(&ncv));
    CHECK_MPI(MPI_T_pvar_get_num(&npv));
    for (int c = 0; c < ncat; c++) {
        char name[128];
        int nl = (int)sizeof name, cv, pv, sub, idx;
        CHECK_MPI(MPI_T_category_get_info(c, name, &nl, NULL, NULL, &cv, &pv, &sub));
        CHECK_MPI(MPI_T_category_get_index(name, &idx));
        CHECK_INT(idx, c);
        int *ids = mt_malloc(sizeof(int) * (size_t)(cv + pv + 1));
        CHECK_MPI(MPI_T_category_get_cvars(c, cv, ids));
        for (int i = 0; i < cv; i++) CHECK(ids[i] >= 0 && ids[i] < ncv, "cvar id %d", ids[i]);
        CHECK_MPI(MPI_T_category_get_pvars(c, pv, ids));
        for (int i = 0; i < pv; i++) CHECK(ids[i] >= 0 && ids[i] < npv, "pvar id %d", ids[i]);
        free(ids);
        sum_cv += cv;
        sum_pv += pv;
    }
    int cv, pv, sub;
    CHECK_INT(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, &cv, &pv, &sub),
              MPI_T_ERR_INVALID_INDEX);
    if (cvar_index("COURIER_EAGER_LIMIT") >= 0) {   /* Courier: a flat set of categories */
        CHECK_INT(sum_cv, ncv);
        CHECK_INT(sum_pv, npv);
    }
}

int main(int argc, char **argv)
{
    int provided, n;
    /* before MPI_T_init_thread nothing answers */
    CHECK_INT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));    /* nested */
    CHECK_MPI(MPI_T_finalize());
    check_cvar_strings();

    /* before MPI_Init a written setting wins over the environment */
    int eager = cvar_index("COURIER_EAGER_LIMIT");
    if (eager >= 0) {
        setenv("COURIER_EAGER_LIMIT", "16384", 1);
        /* outside the setting's range (0 .. 16777216): refused */
        CHECK_INT(write_size_cvar(eager, 99999999999ul), MPI_T_ERR_INVALID);
        CHECK_MPI(write_size_cvar(eager, 4096));
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_cvar_strings();
    if (eager >= 0) {
        CHECK_INT(read_size_cvar(eager), 4096);
        CHECK_INT(write_size_cvar(eager, 8192), MPI_T_ERR_CVAR_SET_NOT_NOW);
        int verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_MPI(MPI_T_cvar_get_info(eager, NULL, NULL, &verb, &dt, &en, NULL, NULL, &bind,
                                      &scope));
        CHECK_INT(scope, MPI_T_SCOPE_READONLY);
        CHECK(dt == MPI_UNSIGNED_LONG, "COURIER_EAGER_LIMIT is not MPI_UNSIGNED_LONG");
        check_pvars();
        check_coll_alg();
    }
    check_categories();
    CHECK_MPI(MPI_T_finalize());
    CHECK_INT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    int rc = mt_finish("tools_mpit");
    MPI_Finalize();
    return rc;
}
