/* SPDX-License-Identifier: MIT */
/* Generalized requests: MPI_Grequest_start/complete, with the query, free and
 * cancel callbacks called where MPI 4.1 section 13.2 says: query and then free
 * in Wait/Test, query alone in MPI_Request_get_status, free alone after
 * MPI_Request_free (at MPI_Grequest_complete when that comes later), cancel
 * with the completion state; mixed with real receives in Waitall/Waitany, and
 * a query callback's error reported through MPI_ERR_IN_STATUS. */
#include "mpitest.h"

typedef struct {
    int queries, frees, cancels, cancel_complete;
    int cancelled;          /* the cancel callback ran before completion */
    int value;              /* what the query reports as source and tag */
    int fail;               /* query returns this error code */
} state_t;

static int query_fn(void *extra, MPI_Status *st)
{
    state_t *s = extra;
    s->queries++;
    MPI_Status_set_elements(st, MPI_INT, 5);
    MPI_Status_set_cancelled(st, s->cancelled);
    st->MPI_SOURCE = s->value;
    st->MPI_TAG = s->value + 1;
    return s->fail;
}

static int free_fn(void *extra)
{
    ((state_t *)extra)->frees++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    state_t *s = extra;
    s->cancels++;
    s->cancel_complete = complete;
    if (!complete) s->cancelled = 1;
    return MPI_SUCCESS;
}

static void check_status(const MPI_Status *st, int value)
{
    int n = -1;
    CHECK_INT(st->MPI_SOURCE, value);
    CHECK_INT(st->MPI_TAG, value + 1);
    MPI_Get_count(st, MPI_INT, &n);
    CHECK_INT(n, 5);
}

int main(int argc, char **argv)
{
    int rank, size, flag, idx;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Status st;
    MPI_Request r;

    /* complete at once, then Wait: query then free, once each */
    {
        state_t s = { .value = rank + 10 };
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
        CHECK_INT(s.queries + s.frees + s.cancels, 0);
        CHECK_MPI(MPI_Grequest_complete(r));
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECK(r == MPI_REQUEST_NULL, "request not nulled");
        CHECK_INT(s.queries, 1);
        CHECK_INT(s.frees, 1);
        check_status(&st, rank + 10);
        flag = -1;
        MPI_Test_cancelled(&st, &flag);
        CHECK_INT(flag, 0);
    }
    /* Test before completion, get_status, then completion */
    {
        state_t s = { .value = 3 };
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
        flag = -1;
        CHECK_MPI(MPI_Test(&r, &flag, &st));
        CHECK_INT(flag, 0);
        CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
        CHECK_INT(flag, 0);
        CHECK_INT(s.queries, 0);
        CHECK_MPI(MPI_Grequest_complete(r));
        CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
        CHECK_INT(flag, 1);
        CHECK_INT(s.queries, 1);
        CHECK_INT(s.frees, 0);
        check_status(&st, 3);
        CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        CHECK_INT(flag, 1);
        CHECK_INT(s.queries, 2);
        CHECK_INT(s.frees, 1);
        CHECK(r == MPI_REQUEST_NULL, "request not nulled");
    }
    /* MPI_Request_free before completion: free runs at completion, no query */
    {
        state_t s = { .value = 4 };
        MPI_Request keep;
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
        keep = r;
        CHECK_MPI(MPI_Request_free(&r));
        CHECK(r == MPI_REQUEST_NULL, "request not nulled");
#ifndef MT_REFERENCE_MPICH
        /* MPI 4.1 13.2: free_fn runs at whichever of MPI_Request_free and
         * MPI_Grequest_complete comes last; MPICH 4.0 runs it at once. */
        CHECK_INT(s.frees, 0);
#endif
        CHECK_MPI(MPI_Grequest_complete(keep));
        CHECK_INT(s.frees, 1);
        CHECK_INT(s.queries, 0);
    }
    /* MPI_Request_free after completion: free at once */
    {
        state_t s = { .value = 5 };
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
        CHECK_MPI(MPI_Grequest_complete(r));
        CHECK_MPI(MPI_Request_free(&r));
        CHECK_INT(s.frees, 1);
        CHECK_INT(s.queries, 0);
    }
    /* cancel before and after completion */
    {
        state_t s = { .value = 6 };
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
        CHECK_MPI(MPI_Cancel(&r));
        CHECK_INT(s.cancels, 1);
        CHECK_INT(s.cancel_complete, 0);
        CHECK_MPI(MPI_Grequest_complete(r));
        CHECK_MPI(MPI_Wait(&r, &st));
        flag = 0;
        MPI_Test_cancelled(&st, &flag);
        CHECK_INT(flag, 1);
        state_t t = { .value = 7 };
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &t, &r));
        CHECK_MPI(MPI_Grequest_complete(r));
        CHECK_MPI(MPI_Cancel(&r));
        CHECK_INT(t.cancels, 1);
        CHECK_INT(t.cancel_complete, 1);
        CHECK_MPI(MPI_Wait(&r, &st));
        MPI_Test_cancelled(&st, &flag);
        CHECK_INT(flag, 0);
        CHECK_INT(t.frees, 1);
    }
    /* with real receives in Waitall and Waitany: the generalized request is
     * completed once the ring's message arrived */
    {
        int to = (rank + 1) % size, from = (rank + size - 1) % size;
        int in = -1, out = 1000 + rank;
        state_t s = { .value = 8 };
        MPI_Request rs[3];
        MPI_Status sts[3];
        CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, from, 77, MPI_COMM_WORLD, &rs[0]));
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &rs[1]));
        rs[2] = MPI_REQUEST_NULL;
        MPI_Request sr;
        CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, to, 77, MPI_COMM_WORLD, &sr));
        CHECK_MPI(MPI_Waitany(3, rs, &idx, &st));
        CHECK_INT(idx, 0);          /* the generalized request is not complete */
        CHECK_INT(in, 1000 + from);
        CHECK_INT(st.MPI_SOURCE, from);
        CHECK_MPI(MPI_Grequest_complete(rs[1]));
        CHECK_MPI(MPI_Waitall(3, rs, sts));
        check_status(&sts[1], 8);
        CHECK_INT(s.frees, 1);
        CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    }
    /* a failing query: Wait returns its error, Waitall MPI_ERR_IN_STATUS */
    {
        state_t s = { .value = 9, .fail = MPI_ERR_OTHER };
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
        CHECK_MPI(MPI_Grequest_complete(r));
        int rc = MPI_Wait(&r, &st);
        CHECK_CLASS(rc, MPI_ERR_OTHER);
        CHECK_INT(s.frees, 1);
        state_t t = { .value = 10, .fail = MPI_ERR_OTHER };
        MPI_Request rs[2];
        MPI_Status sts[2];
        CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &t, &rs[0]));
        CHECK_MPI(MPI_Grequest_complete(rs[0]));
        rs[1] = MPI_REQUEST_NULL;
        rc = MPI_Waitall(2, rs, sts);
        CHECK_CLASS(rc, MPI_ERR_IN_STATUS);
        CHECK_CLASS(sts[0].MPI_ERROR, MPI_ERR_OTHER);
        CHECK_INT(t.frees, 1);
    }
    return mt_finish("p2p_greq") + (MPI_Finalize() != MPI_SUCCESS);
}
