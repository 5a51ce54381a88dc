/* SPDX-License-Identifier: MIT */
/* Sessions (MPI 4.0 chapter 11.3): MPI_Session_init / finalize, their info and
 * error handlers, and the process sets a session offers:
 *   mpi://WORLD    every process of the job
 *   mpi://SELF     this process
 *   mpix://SHARED  the processes on this process's node (shared memory)
 * A group made from a process set becomes a communicator with
 * MPI_Comm_create_from_group (comm_from_group.c).  The runtime under the
 * sessions is the world model's (session.h). */
#include "core/core.h"
#include "core/comm_priv.h"
#include "core/errh.h"
#include "core/session.h"
#include "core/api_session.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static cr_objtab_t session_tab;

cr_session_t *cr_session_ptr(MPI_Session h)
{
    if (CR_H_STORAGE(h) == CR_ST_USER && CR_H_KIND(h) == CR_K_SESSION) {
        cr_session_t *s = cr_objtab_get(&session_tab, CR_H_INDEX(h));
        return s && s->handle == h ? s : NULL;
    }
    return NULL;
}

/* The thread level named by an info value ("MPI_THREAD_MULTIPLE", ...), or -1. */
static int thread_level_of(const char *v)
{
    static const int levels[] = { MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                  MPI_THREAD_MULTIPLE };
    for (size_t i = 0; v && i < sizeof levels / sizeof levels[0]; i++)
        if (strcasecmp(v, cr_thread_level_name(levels[i])) == 0) return levels[i];
    return -1;
}

int core_session_init(cr_info_t *info, cr_errhandler_t *errhandler, MPI_Session *session)
{
    *session = MPI_SESSION_NULL;
    if (errhandler->kind != 0 && errhandler->kind != CR_K_SESSION)
        return cr_error(MPI_ERR_ARG, "errhandler=0x%08x: not a session error handler",
                        (unsigned)errhandler->handle);
    const char *tl = cr_info_get(info, "thread_level");
    int required = tl ? thread_level_of(tl) : MPI_THREAD_SINGLE;
    if (required < 0)
        return cr_error(MPI_ERR_INFO_VALUE, "info: thread_level=\"%s\": not a thread level "
                        "(MPI_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE)", tl);
    int err = cr_runtime_start(required);
    if (err) return err;
    cr_session_t *s = calloc(1, sizeof *s);
    int idx = s ? cr_objtab_add(&session_tab, s) : -1;
    if (idx < 0) {
        free(s);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a session");
    }
    if ((err = cr_info_copy(info, &s->info))) {
        cr_objtab_remove(&session_tab, idx);
        free(s);
        return err;
    }
    s->handle = CR_H_MAKE(CR_ST_USER, CR_K_SESSION, idx);
    s->errh = errhandler;
    cr_errhandler_retain(errhandler);
    s->thread_level = cr_thread_level_provided(required);
    cr_proc.nsessions++;
    *session = s->handle;
    ut_log(UT_LOG_EVENTS, "session", "session 0x%08x initialised (%d active), thread level %s",
           (unsigned)s->handle, cr_proc.nsessions, cr_thread_level_name(s->thread_level));
    return MPI_SUCCESS;
}

int core_session_finalize(cr_session_t *session)
{
    cr_objtab_remove(&session_tab, CR_H_INDEX(session->handle));
    cr_errhandler_release(session->errh);
    cr_info_destroy(session->info);
    ut_log(UT_LOG_EVENTS, "session", "session 0x%08x finalized (%d active)",
           (unsigned)session->handle, cr_proc.nsessions - 1);
    free(session);
    cr_proc.nsessions--;
    return MPI_SUCCESS;
}

int core_session_get_info(cr_session_t *session, MPI_Info *info_used)
{
    cr_info_t *in;
    int err = cr_info_copy(session->info, &in);
    if (err) return err;
    if (!in && (err = cr_info_new(&in))) return err;
    err = cr_info_put(in, "thread_level", cr_thread_level_name(session->thread_level));
    if (!err) err = cr_info_to_user(in, info_used);
    cr_info_destroy(in);
    return err;
}

/* ---- process sets ------------------------------------------------------------ */
enum { PSET_WORLD, PSET_SELF, PSET_SHARED, NPSETS };
static const char *const pset_names[NPSETS] = { "mpi://WORLD", "mpi://SELF", "mpix://SHARED" };

/* The index of a process set name (the names are case-insensitive), or -1. */
static int pset_find(const char *name)
{
    for (int i = 0; name && i < NPSETS; i++)
        if (strcasecmp(name, pset_names[i]) == 0) return i;
    return -1;
}

static int pset_unknown(const char *name)
{
    return cr_error(MPI_ERR_ARG, "pset_name=\"%s\": no such process set (Courier has "
                    "mpi://WORLD, mpi://SELF and mpix://SHARED)", name ? name : "(null)");
}

/* A new reference to the group of process set i. */
static int pset_group(int i, cr_group_t **out)
{
    if (i == PSET_WORLD || i == PSET_SELF) {
        *out = i == PSET_WORLD ? cr_group_world : cr_group_self;
        cr_group_retain(*out);
        return MPI_SUCCESS;
    }
    int n = 0;
    for (int w = 0; w < cr_proc.world_size; w++) n += cr_proc.local_of_world[w] >= 0;
    cr_group_t *g = cr_group_new(n);
    if (!g) return cr_error(MPI_ERR_NO_MEM, "no memory for a process set's group");
    for (int w = 0, k = 0; w < cr_proc.world_size; w++)
        if (cr_proc.local_of_world[w] >= 0) g->world[k++] = w;
    cr_group_set_rank(g);
    *out = g;
    return MPI_SUCCESS;
}

int core_session_get_num_psets(cr_session_t *session, cr_info_t *info, int *npset_names)
{
    (void)session;
    (void)info;
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}

int core_session_get_nth_pset(cr_session_t *session, cr_info_t *info, int n, int *pset_len,
                              char *pset_name)
{
    (void)session;
    (void)info;
    if (n < 0 || n >= NPSETS)
        return cr_error(MPI_ERR_ARG, "n=%d: the session has %d process sets (0 .. %d)", n, NPSETS,
                        NPSETS - 1);
    if (*pset_len < 0)
        return cr_error(MPI_ERR_ARG, "*pset_len=%d: must not be negative", *pset_len);
    int need = (int)strlen(pset_names[n]) + 1;
    if (*pset_len > 0) {
        if (!pset_name) return cr_error(MPI_ERR_ARG, "pset_name=NULL with *pset_len=%d", *pset_len);
        snprintf(pset_name, (size_t)*pset_len, "%s", pset_names[n]);
    }
    *pset_len = need;
    return MPI_SUCCESS;
}

int core_session_get_pset_info(cr_session_t *session, const char *pset_name, MPI_Info *info)
{
    (void)session;
    int i = pset_find(pset_name);
    if (i < 0) return pset_unknown(pset_name);
    cr_group_t *g;
    int err = pset_group(i, &g);
    if (err) return err;
    char size[32];
    snprintf(size, sizeof size, "%d", g->size);
    cr_group_release(g);
    cr_info_t *in;
    if ((err = cr_info_new(&in))) return err;
    err = cr_info_put(in, "mpi_size", size);
    if (!err) err = cr_info_to_user(in, info);
    cr_info_destroy(in);
    return err;
}

int core_group_from_session_pset(cr_session_t *session, const char *pset_name,
                                 MPI_Group *newgroup)
{
    (void)session;
    int i = pset_find(pset_name);
    if (i < 0) return pset_unknown(pset_name);
    cr_group_t *g;
    int err = pset_group(i, &g);
    return err ? err : cr_group_to_handle(g, newgroup);
}
