/* SPDX-License-Identifier: MIT */
/* Courier's MPI_T counters by name, for tests that check what a path did:
 * mt_pvars_open makes a session and a handle per name (counted from then;
 * mt_pvars_open_class: variables of another class, such as the collectives'
 * coll_<x>_algorithm states),
 * mt_pvar reads one, mt_pvars_close frees them and ends the tools
 * interface.  Include after mpitest.h. */
#ifndef COURIER_TESTS_MT_PVARS_H
#define COURIER_TESTS_MT_PVARS_H

enum { MT_PVARS_MAX = 8 };
typedef struct {
    MPI_T_pvar_session session;
    MPI_T_pvar_handle handle[MT_PVARS_MAX];
    int n;
} mt_pvars_t;

/* Variables of class cls (MPI_T_PVAR_CLASS_COUNTER, _STATE, ...). */
static inline void mt_pvars_open_class(mt_pvars_t *p, const char *const *names, int n, int cls)
{
    int provided;
    p->n = n < MT_PVARS_MAX ? n : MT_PVARS_MAX;
    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK_MPI(MPI_T_pvar_session_create(&p->session));
    for (int v = 0; v < p->n; v++) {
        int idx = -1, count = 0;
        CHECK_MPI(MPI_T_pvar_get_index(names[v], cls, &idx));
        CHECK_MPI(MPI_T_pvar_handle_alloc(p->session, idx, NULL, &p->handle[v], &count));
        CHECK_INT(count, 1);
    }
}

static inline void mt_pvars_open(mt_pvars_t *p, const char *const *names, int n)
{
    mt_pvars_open_class(p, names, n, MPI_T_PVAR_CLASS_COUNTER);
}

static inline unsigned long long mt_pvar(mt_pvars_t *p, int v)
{
    unsigned long long x = 0;
    CHECK_MPI(MPI_T_pvar_read(p->session, p->handle[v], &x));
    return x;
}

static inline void mt_pvars_close(mt_pvars_t *p)
{
    for (int v = 0; v < p->n; v++) CHECK_MPI(MPI_T_pvar_handle_free(p->session, &p->handle[v]));
    CHECK_MPI(MPI_T_pvar_session_free(&p->session));
    CHECK_MPI(MPI_T_finalize());
}
#endif
