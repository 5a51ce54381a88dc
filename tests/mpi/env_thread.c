/* SPDX-License-Identifier: MIT */
/* MPI_Init_thread reports what it provides: the level asked for (given as
 * an argument: single, funneled, serialized or multiple), at most
 * COURIER_THREAD_LEVEL_MAX when that is set (Courier only), MPI_Query_thread
 * agrees, MPI_Is_thread_main is true on the main thread and false on
 * another, and MPI_INFO_ENV's thread_level names the same level. */
#include "mpitest.h"
#include <pthread.h>

static int other_main = -1;
static void *other(void *arg)
{
    (void)arg;
    MPI_Is_thread_main(&other_main);
    return NULL;
}

int main(int argc, char **argv)
{
    int required = MPI_THREAD_MULTIPLE, provided = -1, q = -1, flag = -1;
    if (argc > 1) {
        if (!strcmp(argv[1], "single")) required = MPI_THREAD_SINGLE;
        else if (!strcmp(argv[1], "funneled")) required = MPI_THREAD_FUNNELED;
        else if (!strcmp(argv[1], "serialized")) required = MPI_THREAD_SERIALIZED;
    }
    MPI_Init_thread(&argc, &argv, required, &provided);
    int want = required;
#ifndef MT_REFERENCE_MPICH
    const char *cap = getenv("COURIER_THREAD_LEVEL_MAX");
    if (cap && atoi(cap) < want) want = atoi(cap);
#endif
    CHECK_INT(provided, want);
    MPI_Query_thread(&q);
    CHECK_INT(q, provided);
    MPI_Is_thread_main(&flag);
    CHECK_INT(flag, 1);
    pthread_t t;
    pthread_create(&t, NULL, other, NULL);
    pthread_join(t, NULL);
    CHECK_INT(other_main, 0);
    char v[64] = "";
    int has = 0;
    MPI_Info_get(MPI_INFO_ENV, "thread_level", sizeof v - 1, v, &has);
    static const char *const names[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                         "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
    if (has) CHECK(strcmp(v, names[provided]) == 0, "MPI_INFO_ENV thread_level %s, provided %d", v, provided);
    int rc = mt_finish("env_thread");
    MPI_Finalize();
    return rc;
}
