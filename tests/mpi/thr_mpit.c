/* SPDX-License-Identifier: MIT */
/* The tools interface from several threads (as MPICH's
 * threads/mpi_t/mpit_threading): MPI_T_init_thread(MPI_THREAD_MULTIPLE)
 * must provide it; then T threads at once, before MPI_Init and again after
 * it while the main thread passes messages around the ring (so that the
 * queue-length variables change under the readers), each: nest an
 * MPI_T_init_thread / MPI_T_finalize pair, walk every control variable
 * (information, index by name, a handle, a read), every performance
 * variable bound to no object (a session, a handle, start, read, stop) and
 * every category, and compare what it saw (a hash of the names and the
 * counts) with what the main thread saw alone.  Argument: T (default 4). */
#include "mpitest.h"
#include <pthread.h>

#define MAXT 8
#define RING 200

typedef struct {
    int ncvar, npvar, ncat, nread;
    unsigned long names;     /* FNV-1a over every name seen, in index order */
} seen_t;

static int nthreads;
static seen_t ref;

static unsigned long hash_str(unsigned long h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ul;
    return h;
}

static void walk(seen_t *w)
{
    *w = (seen_t){ .names = 1469598103934665603ul };
    int provided = -1;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);

    CHECK_MPI(MPI_T_cvar_get_num(&w->ncvar));
    for (int i = 0; i < w->ncvar; i++) {
        char name[256];
        int nl = sizeof name, verb, bind, scope, idx = -1, count = 0;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_MPI(MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &en, NULL, NULL, &bind, &scope));
        w->names = hash_str(w->names, name);
        if (nl <= (int)sizeof name) {
            CHECK_MPI(MPI_T_cvar_get_index(name, &idx));
            CHECK_INT(idx, i);
        }
        if (bind != MPI_T_BIND_NO_OBJECT) continue;
        MPI_T_cvar_handle h;
        CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
        char *buf = mt_malloc((size_t)(count > 0 ? count : 1) * 16);
        CHECK_MPI(MPI_T_cvar_read(h, buf));
        CHECK_MPI(MPI_T_cvar_handle_free(&h));
        free(buf);
        w->nread++;
    }

    CHECK_MPI(MPI_T_pvar_get_num(&w->npvar));
    MPI_T_pvar_session ps;
    CHECK_MPI(MPI_T_pvar_session_create(&ps));
    for (int i = 0; i < w->npvar; i++) {
        char name[256];
        int nl = sizeof name, verb, cls, bind, ro, cont, atomic, count = 0;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_MPI(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &en, NULL, NULL, &bind, &ro,
                                      &cont, &atomic));
        w->names = hash_str(w->names, name);
        if (bind != MPI_T_BIND_NO_OBJECT) continue;
        MPI_T_pvar_handle h;
        if (MPI_T_pvar_handle_alloc(ps, i, NULL, &h, &count) != MPI_SUCCESS) continue;
        char *buf = mt_malloc((size_t)(count > 0 ? count : 1) * 16);
        if (!cont) CHECK_MPI(MPI_T_pvar_start(ps, h));
        CHECK_MPI(MPI_T_pvar_read(ps, h, buf));
        if (!cont) CHECK_MPI(MPI_T_pvar_stop(ps, h));
        CHECK_MPI(MPI_T_pvar_handle_free(ps, &h));
        free(buf);
        w->nread++;
    }
    CHECK_MPI(MPI_T_pvar_session_free(&ps));

    CHECK_MPI(MPI_T_category_get_num(&w->ncat));
    for (int i = 0; i < w->ncat; i++) {
        char name[256];
        int nl = sizeof name, nc, np, nk;
        CHECK_MPI(MPI_T_category_get_info(i, name, &nl, NULL, NULL, &nc, &np, &nk));
        w->names = hash_str(w->names, name);
    }
    CHECK_MPI(MPI_T_finalize());
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int k = 0; k < 3; k++) {
        seen_t w;
        walk(&w);
        CHECK(w.ncvar == ref.ncvar && w.npvar == ref.npvar && w.ncat == ref.ncat &&
              w.nread == ref.nread && w.names == ref.names,
              "thread %d: saw %d cvars, %d pvars, %d categories, %d reads, names %lx; alone: "
              "%d, %d, %d, %d, %lx", t, w.ncvar, w.npvar, w.ncat, w.nread, w.names, ref.ncvar,
              ref.npvar, ref.ncat, ref.nread, ref.names);
    }
    return NULL;
}

static void in_threads(void)
{
    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
}

int main(int argc, char **argv)
{
    int provided = -1;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    nthreads = argc > 1 ? atoi(argv[1]) : 4;
    if (nthreads < 1 || nthreads > MAXT) nthreads = 4;

    /* before MPI_Init: the variables as the environment sets them */
    walk(&ref);
    in_threads();

    int rank, size;
    nthreads = mt_init_multiple(&argc, &argv, &rank, &size, 1, MAXT, nthreads);
    walk(&ref);     /* after MPI_Init, some variables' binding or count may differ */
    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    /* messages around the ring meanwhile: the queues the readers count */
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    for (int i = 0; i < RING; i++) {
        int got = -1;
        CHECK_MPI(MPI_Sendrecv(&i, 1, MPI_INT, to, i, &got, 1, MPI_INT, from, i, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
        CHECK_INT(got, i);
    }
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    CHECK_MPI(MPI_T_finalize());
    int rc = mt_finish("thr_mpit");
    MPI_Finalize();
    return rc;
}
