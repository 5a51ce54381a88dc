/* SPDX-License-Identifier: MIT */
/* Non-blocking collectives: the blocking forms' schedules, started and then
 * advanced by the progress engine.
 *
 * Each call builds its schedule at once (so the user's count and
 * displacement arrays are read during the call and may change afterwards),
 * starts the first round and returns a CR_REQ_COLL request.  Every started
 * schedule sits on one list; coll_nbc_progress() is a poller of the progress
 * engine (registered when the first schedule starts, active while the list
 * is not empty), which moves every listed schedule on as far as its messages
 * allow and completes its request at the end.  Advancing all of
 * them, not only the one being waited for, is what lets several outstanding
 * collectives finish in any order (rank 0 may wait for A then B while rank 1
 * waits for B then A) and lets a blocking pt2pt wait drive them too.
 *
 * The request has no poll function: MPI_Wait then waits on its complete flag
 * with the waiting policy, and MPI_Test's cr_progress() call advances it.
 *
 * Messages of different outstanding collectives never match: each call has
 * its own tag from the communicator's collective sequence number (coll.c).
 *
 * Persistent collectives (MPI_X_init) build the schedule once, in a persistent
 * request that owns it.  Each MPI_Start starts the schedule again under a new
 * internal request (the run, completed like a non-blocking collective's);
 * MPI_Wait/Test finish the run and leave the persistent request inactive.  A
 * persistent request freed while a run is going leaves the schedule to be
 * freed when the run ends.
 *
 * Calls that selected a shared-memory algorithm with a state machine
 * (COLL_ALG_NB, coll_nbshm.c) sit on the same list with a machine instead of
 * a schedule (an empty one that only holds the communicator); a persistent
 * one keeps its machine and begins it again at each MPI_Start. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "core/pt2pt.h"

typedef struct coll_nbc {
    coll_sched_t s;
    cr_request_t *req;          /* the request the run completes */
    struct coll_nbc *next, *prev;
    int listed;
    int persistent;             /* owned by a persistent request, not by req */
    int orphan;                 /* its persistent request is gone: free at the end */
    coll_nbshm_t *shm;          /* the shm state machine, or NULL: the schedule */
} coll_nbc_t;

static coll_nbc_t *active;   /* started, not yet complete */
/* Freed entries kept for the next call: malloc and free were a third of the
 * instructions of an 8-byte MPI_Ibcast + MPI_Wait through the area (callgrind,
 * coll7).  Guarded like the list (the library's lock). */
enum { NBC_CACHE = 8 };
static coll_nbc_t *cache[NBC_CACHE];
static int ncache;

static coll_nbc_t *nbc_alloc(void)
{
    if (ncache == 0) return calloc(1, sizeof(coll_nbc_t));
    coll_nbc_t *nb = cache[--ncache];
    memset(nb, 0, sizeof *nb);
    return nb;
}
static void nbc_release(coll_nbc_t *nb)
{
    if (ncache < NBC_CACHE) cache[ncache++] = nb;
    else free(nb);
}
static int busy;             /* guards against re-entry through cr_progress() */
static int nshm;             /* listed calls with a shm state machine */
static int coll_nbc_progress(void *arg);
/* A shm call's peers post in shared memory and ring this process's doorbell
 * only for a rank that announced itself as waiting for them: the oldest call
 * of each area does so (coll_nbshm_announce), or the policy must not sleep. */
static int coll_nbc_can_sleep(void *arg)
{
    (void)arg;
    if (nshm == 0) return 1;
    for (coll_nbc_t *nb = active; nb; nb = nb->next)
        if (nb->shm && !coll_nbshm_announce(nb->shm)) return 0;
    return 1;
}
static cr_poller_t nbc_poller = { .name = "coll", .poll = coll_nbc_progress,
                                  .can_sleep = coll_nbc_can_sleep };

static void unlink_nbc(coll_nbc_t *nb)
{
    if (!nb->listed) return;
    if (nb->prev) nb->prev->next = nb->next;
    else active = nb->next;
    if (nb->next) nb->next->prev = nb->prev;
    nb->next = nb->prev = NULL;
    nb->listed = 0;
    if (nb->shm) nshm--;
    if (!active) cr_poller_set_active(&nbc_poller, 0);
}

static void nbc_destroy(coll_nbc_t *nb)
{
    unlink_nbc(nb);
    cr_comm_t *comm = nb->s.comm;
    coll_sched_free(&nb->s);
    coll_nbshm_free(nb->shm);
    nbc_release(nb);
    cr_comm_release(comm);      /* the schedule's reference (coll_nbc_start_sched) */
}

/* Move one schedule on; complete its request when it is done.  Returns 1 if
 * it completed. */
static int advance(coll_nbc_t *nb, int *moved)
{
    if (nb->shm) {
        if (!coll_nbshm_advance(nb->shm, moved)) return 0;
        nb->s.err = coll_nbshm_err(nb->shm);
    } else {
        int before = nb->s.next;
        if (!coll_sched_advance(&nb->s)) {
            *moved = nb->s.next != before;   /* a new round started */
            return 0;
        }
    }
    cr_request_t *r = nb->req;
    unlink_nbc(nb);
    r->err = nb->s.err;
    r->status.MPI_ERROR = nb->s.err;
    nb->req = NULL;
    if (nb->orphan) nbc_destroy(nb);
    cr_req_complete(r);   /* may free r (and a non-persistent nb) if it was detached */
    return 1;
}

static int coll_nbc_progress(void *arg)
{
    (void)arg;
    coll_nbshm_polled();
    if (busy || !active) return 0;
    busy = 1;
    int events = 0;
    for (coll_nbc_t *nb = active, *next; nb; nb = next) {
        next = nb->next;
        int moved = 0;
        if (advance(nb, &moved) || moved) events++;
    }
    busy = 0;
    return events;
}

/* Start nb's schedule under request r and list it. */
static int run(coll_nbc_t *nb, cr_request_t *r)
{
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    nb->req = r;
    nb->s.err = MPI_SUCCESS;      /* a persistent schedule was built without error */
    if (nb->shm) {
        coll_nbshm_begin(nb->shm);   /* takes the call's place in the sequence */
        nshm++;
    } else {
        int e = coll_sched_start(&nb->s);
        if (e) return e;
    }
    cr_progress_register(&nbc_poller);
    cr_poller_set_active(&nbc_poller, 1);
    nb->next = active;
    if (active) active->prev = nb;
    active = nb;
    nb->listed = 1;
    /* local-only schedules (size 1, zero counts) finish here */
    if (!busy) {
        busy = 1;
        int moved;
        advance(nb, &moved);
        busy = 0;
    }
    return MPI_SUCCESS;
}

static void nbc_free(cr_request_t *r)
{
    coll_nbc_t *nb = r->sched;
    if (!nb) return;
    r->sched = NULL;
    if (!nb->persistent) {
        nbc_destroy(nb);
    } else if (nb->req) {
        nb->orphan = 1;          /* a run is going: it frees the schedule */
    } else {
        nbc_destroy(nb);
    }
}

/* MPI_Start of a persistent collective. */
static int persist_start(cr_request_t *p, cr_request_t **child)
{
    coll_nbc_t *nb = p->sched;
    cr_request_t *r = cr_request_new(CR_REQ_COLL, 0);
    if (!r) return cr_error(MPI_ERR_NO_MEM, "out of memory starting a persistent collective");
    r->comm = p->comm;
    int e = run(nb, r);
    if (e) {
        nb->req = NULL;
        cr_request_free(r);
        return e;
    }
    *child = r;
    return MPI_SUCCESS;
}

/* The request of a started or persistent call (nb takes over *s). */
static int start_nbc(coll_sched_t *s, coll_nbshm_t *shm, int persistent, MPI_Request *out)
{
    coll_nbc_t *nb = nbc_alloc();
    cr_request_t *r = nb ? cr_request_new(CR_REQ_COLL, 1) : NULL;
    if (!r) {
        if (nb) nbc_release(nb);
        coll_sched_free(s);
        coll_nbshm_free(shm);
        return cr_error(MPI_ERR_NO_MEM, "out of memory starting a collective");
    }
    nb->s = *s;
    nb->shm = shm;
    nb->persistent = persistent;
    /* MPI_Comm_free may come while the schedule still runs (or, persistent,
     * before MPI_Request_free): the communicator lives until nbc_destroy */
    cr_comm_retain(nb->s.comm);
    r->comm = nb->s.comm;
    r->sched = nb;
    r->on_free = nbc_free;
    int e = nb->s.err;
    if (!e && persistent) {
        r->persistent = 1;
        r->start = persist_start;
        r->status.MPI_SOURCE = MPI_ANY_SOURCE;
        r->status.MPI_TAG = MPI_ANY_TAG;
    } else if (!e) {
        e = run(nb, r);
    }
    if (e) {
        cr_request_free(r);
        return e;
    }
    *out = r->handle;
    return MPI_SUCCESS;
}

int coll_nbc_start_sched(coll_sched_t *s, int persistent, MPI_Request *out)
{
    return start_nbc(s, NULL, persistent, out);
}

int coll_nbc_start_shm(cr_comm_t *comm, coll_kind_t coll, const coll_args_t *a, int persistent,
                       MPI_Request *out)
{
    coll_nbshm_count(comm);   /* selected: the next call is the next one (coll_nbshm_ready) */
    coll_sched_t s;
    coll_sched_init(&s, comm, 0);   /* no steps: holds the communicator */
    coll_nbshm_t *m = coll_nbshm_new(comm, coll, a);
    if (!m) {
        coll_sched_free(&s);
        return cr_error(MPI_ERR_NO_MEM, "out of memory starting a collective");
    }
    return start_nbc(&s, m, persistent, out);
}

static int start_alg(cr_comm_t *comm, int tag, const coll_alg_t *alg, const coll_args_t *a,
                     int persistent, MPI_Request *out)
{
    coll_nbshm_count(comm);   /* as coll_nbc_start_shm: every path counts */
    coll_sched_t s;
    coll_sched_init(&s, comm, tag);
    int e = alg->build(&s, a);
    if (e && !s.err) s.err = e;
    return coll_nbc_start_sched(&s, persistent, out);
}

int coll_nbc_start(cr_comm_t *comm, int tag, const coll_alg_t *alg, const coll_args_t *a,
                   MPI_Request *out)
{
    return start_alg(comm, tag, alg, a, 0, out);
}

int coll_persist_init(cr_comm_t *comm, int tag, const coll_alg_t *alg, const coll_args_t *a,
                      MPI_Request *out)
{
    return start_alg(comm, tag, alg, a, 1, out);
}
