/* SPDX-License-Identifier: MIT */
/* Generalized requests (MPI_Grequest_start / MPI_Grequest_complete): requests
 * of kind CR_REQ_GREQ that the user completes, with the query, free and cancel
 * callbacks called where MPI 4.1 section 13.2 says (the completion calls in
 * p2p_api.c call cr_greq_finish, MPI_Request_get_status cr_greq_query,
 * MPI_Request_free cr_greq_user_free, MPI_Cancel cr_greq_cancel). */
#include "core/pt2pt.h"
#include "core/api.h"

#include <stdlib.h>

typedef struct {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
    int freed;                 /* the free callback ran */
} greq_t;

static void greq_on_free(cr_request_t *r)
{
    free(r->sched);
    r->sched = NULL;
}

int core_grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    greq_t *g = malloc(sizeof *g);
    cr_request_t *r = g ? cr_request_new(CR_REQ_GREQ, 1) : NULL;
    if (!r) {
        free(g);
        return cr_error(MPI_ERR_NO_MEM, "out of memory for a generalized request");
    }
    *g = (greq_t){ query_fn, free_fn, cancel_fn, extra_state, 0 };
    r->sched = g;
    r->on_free = greq_on_free;
    *request = r->handle;
    return MPI_SUCCESS;
}

/* The free callback, at most once per request. */
static int greq_call_free(cr_request_t *r)
{
    greq_t *g = r->sched;
    if (g->freed) return MPI_SUCCESS;
    g->freed = 1;
    return g->free ? g->free(g->extra) : MPI_SUCCESS;
}

int core_grequest_complete(cr_request_t *request)
{
    cr_request_t *r = request;
    if (!r || r->kind != CR_REQ_GREQ)
        return cr_error(MPI_ERR_REQUEST, "request=0x%x: not a generalized request",
                        r ? (unsigned)r->handle : (unsigned)MPI_REQUEST_NULL);
    if (r->complete)
        return cr_error(MPI_ERR_REQUEST, "request=0x%x: MPI_Grequest_complete was already "
                        "called for this generalized request", (unsigned)r->handle);
    if (r->detached) {
        /* MPI_Request_free came first: the request ends here. */
        int err = greq_call_free(r);
        cr_request_free(r);
        return err;
    }
    __atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

/* Fill status through the query callback (a complete request). */
int cr_greq_query(cr_request_t *r, MPI_Status *status)
{
    greq_t *g = r->sched;
    MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    st->MPI_ERROR = MPI_SUCCESS;
    st->count_lo = 0;
    st->count_hi_and_cancelled = 0;
    return g->query ? g->query(g->extra, st) : MPI_SUCCESS;
}

/* A completed request handed back by a wait or test: query, then free. */
int cr_greq_finish(cr_request_t *r, MPI_Status *status)
{
    int err = cr_greq_query(r, status);
    int e2 = greq_call_free(r);
    return err ? err : e2;
}

/* MPI_Request_free: a complete request goes now (free callback), another one
 * when MPI_Grequest_complete is called; the handle stays valid for that call. */
int cr_greq_user_free(cr_request_t *r)
{
    if (!r->complete) {
        r->detached = 1;
        return MPI_SUCCESS;
    }
    int err = greq_call_free(r);
    cr_request_free(r);
    return err;
}

/* MPI_Cancel: the cancel callback, told whether the request is complete. */
int cr_greq_cancel(cr_request_t *r)
{
    greq_t *g = r->sched;
    return g->cancel ? g->cancel(g->extra, r->complete) : MPI_SUCCESS;
}
