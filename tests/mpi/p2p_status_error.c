/* SPDX-License-Identifier: MIT */
/* The MPI_ERROR field of a status (MPI 4.1 section 3.2.5): the calls that
 * complete one operation (MPI_Recv, MPI_Wait, MPI_Test, MPI_Probe, MPI_Iprobe,
 * MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Sendrecv, MPI_Request_get_status,
 * receives from MPI_PROC_NULL) leave it as it was, also when they fill the
 * other fields; the multiple-completion calls (MPI_Waitall, MPI_Testall,
 * MPI_Waitsome, MPI_Testsome) may set it to MPI_SUCCESS when they succeed
 * (MPICH and Courier do) and set it in every status (MPI_SUCCESS, the
 * request's error or MPI_ERR_PENDING) when they return MPI_ERR_IN_STATUS.  Small (eager) and large (rendezvous) messages, around a
 * ring, so that np=1 sends to itself. */
#include "mpitest.h"

#define MARK 4711          /* what the test puts in MPI_ERROR beforehand */
#define BIG 40000          /* ints: beyond every eager limit */

static void mark(MPI_Status *st, int n)
{
    for (int i = 0; i < n; i++) {
        memset(&st[i], 0xab, sizeof st[i]);
        st[i].MPI_ERROR = MARK;
    }
}

/* Receive `count` ints from `from` with tag `tag` by each single-completion
 * call in turn, and check data, envelope and MPI_ERROR. */
static void single(int rank, int to, int from, int count, int tag)
{
    int *out = mt_malloc(sizeof(int) * (size_t)count), *in = mt_malloc(sizeof(int) * (size_t)count);
    MPI_Status st;
    MPI_Request sr, rr;
    MPI_Message msg;
    int flag, cnt;
    for (int i = 0; i < count; i++) out[i] = rank * 1000 + i;

    for (int way = 0; way < 7; way++) {
        memset(in, 0xff, sizeof(int) * (size_t)count);
        CHECK_MPI(MPI_Isend(out, count, MPI_INT, to, tag + way, MPI_COMM_WORLD, &sr));
        mark(&st, 1);
        switch (way) {
        case 0:     /* MPI_Recv */
            CHECK_MPI(MPI_Recv(in, count, MPI_INT, from, tag + way, MPI_COMM_WORLD, &st));
            break;
        case 1:     /* MPI_Irecv + MPI_Wait */
            CHECK_MPI(MPI_Irecv(in, count, MPI_INT, from, tag + way, MPI_COMM_WORLD, &rr));
            CHECK_MPI(MPI_Wait(&rr, &st));
            break;
        case 2:     /* MPI_Irecv + MPI_Test */
            CHECK_MPI(MPI_Irecv(in, count, MPI_INT, MPI_ANY_SOURCE, tag + way, MPI_COMM_WORLD, &rr));
            flag = 0;
            while (!flag) CHECK_MPI(MPI_Test(&rr, &flag, &st));
            break;
        case 3:     /* MPI_Probe, then MPI_Recv */
            CHECK_MPI(MPI_Probe(from, tag + way, MPI_COMM_WORLD, &st));
#ifndef MT_REFERENCE_MPICH  /* MPICH 4.0 sets it in MPI_Probe of a self message */
            CHECK_INT(st.MPI_ERROR, MARK);
#endif
            CHECK_INT(st.MPI_SOURCE, from);
            mark(&st, 1);
            CHECK_MPI(MPI_Recv(in, count, MPI_INT, from, tag + way, MPI_COMM_WORLD, &st));
            break;
        case 4:     /* MPI_Iprobe, then MPI_Mprobe + MPI_Mrecv */
            flag = 0;
            while (!flag) CHECK_MPI(MPI_Iprobe(from, tag + way, MPI_COMM_WORLD, &flag, &st));
#ifndef MT_REFERENCE_MPICH  /* MPICH 4.0 sets MPI_ERROR in MPI_Iprobe, and in MPI_(I)mprobe of a self message */
            CHECK_INT(st.MPI_ERROR, MARK);
#endif
            mark(&st, 1);
            CHECK_MPI(MPI_Mprobe(from, tag + way, MPI_COMM_WORLD, &msg, &st));
#ifndef MT_REFERENCE_MPICH
            CHECK_INT(st.MPI_ERROR, MARK);
#endif
            CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
            CHECK_INT(cnt, count);
            mark(&st, 1);
            CHECK_MPI(MPI_Mrecv(in, count, MPI_INT, &msg, &st));
            CHECK_INT(msg, MPI_MESSAGE_NULL);
            break;
        case 5:     /* MPI_Improbe + MPI_Imrecv + MPI_Wait */
            flag = 0;
            while (!flag) CHECK_MPI(MPI_Improbe(from, tag + way, MPI_COMM_WORLD, &flag, &msg, &st));
#ifndef MT_REFERENCE_MPICH
            CHECK_INT(st.MPI_ERROR, MARK);
#endif
            mark(&st, 1);
            CHECK_MPI(MPI_Imrecv(in, count, MPI_INT, &msg, &rr));
            CHECK_MPI(MPI_Wait(&rr, &st));
            break;
        case 6:     /* MPI_Irecv + MPI_Request_get_status, then MPI_Wait */
            CHECK_MPI(MPI_Irecv(in, count, MPI_INT, from, tag + way, MPI_COMM_WORLD, &rr));
            flag = 0;
            while (!flag) CHECK_MPI(MPI_Request_get_status(rr, &flag, &st));
            CHECK_INT(st.MPI_ERROR, MARK);
            CHECK_INT(st.MPI_TAG, tag + way);
            mark(&st, 1);
            CHECK_MPI(MPI_Wait(&rr, &st));
            break;
        }
        CHECK_INT(st.MPI_ERROR, MARK);
        CHECK_INT(st.MPI_SOURCE, from);
        CHECK_INT(st.MPI_TAG, tag + way);
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK_INT(cnt, count);
        for (int i = 0; i < count; i++)
            if (in[i] != from * 1000 + i) { CHECK_INT(in[i], from * 1000 + i); break; }
        /* a send's status too */
        mark(&st, 1);
        CHECK_MPI(MPI_Wait(&sr, &st));
        CHECK_INT(st.MPI_ERROR, MARK);
    }

    /* MPI_Sendrecv */
    mark(&st, 1);
    memset(in, 0xff, sizeof(int) * (size_t)count);
    CHECK_MPI(MPI_Sendrecv(out, count, MPI_INT, to, tag + 10, in, count, MPI_INT, from, tag + 10,
                           MPI_COMM_WORLD, &st));
    CHECK_INT(st.MPI_ERROR, MARK);
    CHECK_INT(st.MPI_SOURCE, from);
    CHECK_INT(in[count - 1], from * 1000 + count - 1);
    free(out);
    free(in);
}

/* The multiple-completion calls: untouched on success, every status set when
 * one receive is truncated (MPI_ERR_IN_STATUS). */
static void multiple(int rank, int to, int from, int count, int tag)
{
    int *out = mt_malloc(sizeof(int) * (size_t)count), *in = mt_malloc(sizeof(int) * 2 * (size_t)count);
    MPI_Request r[4];
    MPI_Status st[4];
    int idx[4], n, flag;
    for (int i = 0; i < count; i++) out[i] = rank + i;

    for (int way = 0; way < 4; way++) {
        int t = tag + 10 * way;
        CHECK_MPI(MPI_Irecv(in, count, MPI_INT, from, t, MPI_COMM_WORLD, &r[0]));
        CHECK_MPI(MPI_Irecv(in + count, count, MPI_INT, from, t + 1, MPI_COMM_WORLD, &r[1]));
        CHECK_MPI(MPI_Isend(out, count, MPI_INT, to, t, MPI_COMM_WORLD, &r[2]));
        CHECK_MPI(MPI_Isend(out, count, MPI_INT, to, t + 1, MPI_COMM_WORLD, &r[3]));
        mark(st, 4);
        int rc = MPI_SUCCESS, done = 0;
        switch (way) {
        case 0: rc = MPI_Waitall(4, r, st); done = 4; break;
        case 1:
            flag = 0;
            while (!flag && rc == MPI_SUCCESS) rc = MPI_Testall(4, r, &flag, st);
            done = 4;
            break;
        case 2: case 3:
            /* each status filled by one call: check, then mark again */
            while (done < 4 && rc == MPI_SUCCESS) {
                rc = way == 2 ? MPI_Waitsome(4, r, &n, idx, st) : MPI_Testsome(4, r, &n, idx, st);
                for (int k = 0; k < n && n != MPI_UNDEFINED; k++) {
                    CHECK(st[k].MPI_ERROR == MARK || st[k].MPI_ERROR == MPI_SUCCESS,
                          "MPI_ERROR %d", st[k].MPI_ERROR);
                    if (idx[k] < 2) CHECK_INT(st[k].MPI_TAG, t + idx[k]);
                }
                if (n != MPI_UNDEFINED) done += n;
                mark(st, 4);
            }
            break;
        }
        CHECK_MPI(rc);
        CHECK_INT(done, 4);
        if (way < 2) {
            for (int k = 0; k < 4; k++)
                CHECK(st[k].MPI_ERROR == MARK || st[k].MPI_ERROR == MPI_SUCCESS,
                      "MPI_ERROR %d", st[k].MPI_ERROR);
            CHECK_INT(st[0].MPI_TAG, t);
            CHECK_INT(st[1].MPI_TAG, t + 1);
            CHECK_INT(st[1].MPI_SOURCE, from);
        }
        CHECK_INT(in[count - 1], from + count - 1);
        CHECK_INT(in[2 * count - 1], from + count - 1);
    }

    /* a truncated receive among four requests: MPI_ERR_IN_STATUS, every status
     * set: MPI_SUCCESS for a completed request, or MPI_ERR_PENDING for one
     * left active (MPICH stops at the failure; Courier completes them all) */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (int way = 0; way < 2; way++) {
        int t = tag + 50 + 10 * way;
        CHECK_MPI(MPI_Isend(out, count, MPI_INT, to, t, MPI_COMM_WORLD, &r[2]));
        CHECK_MPI(MPI_Isend(out, count, MPI_INT, to, t + 1, MPI_COMM_WORLD, &r[3]));
        CHECK_MPI(MPI_Irecv(in, count, MPI_INT, from, t, MPI_COMM_WORLD, &r[0]));
        CHECK_MPI(MPI_Irecv(in + count, count - 1, MPI_INT, from, t + 1, MPI_COMM_WORLD, &r[1]));
        mark(st, 4);
        int rc;
        if (way == 0) {
            rc = MPI_Waitall(4, r, st);
        } else {
            flag = 0;
            do rc = MPI_Testall(4, r, &flag, st); while (rc == MPI_SUCCESS && !flag);
        }
        CHECK_CLASS(rc, MPI_ERR_IN_STATUS);
        CHECK_CLASS(st[1].MPI_ERROR, MPI_ERR_TRUNCATE);
        CHECK_INT(r[1], MPI_REQUEST_NULL);
        for (int k = 0; k < 4; k++) {
            if (k == 1) continue;
            if (st[k].MPI_ERROR == MPI_ERR_PENDING) {
                CHECK(r[k] != MPI_REQUEST_NULL, "request %d pending but freed", k);
                CHECK_MPI(MPI_Wait(&r[k], &st[k]));
            } else {
                CHECK_INT(st[k].MPI_ERROR, MPI_SUCCESS);
                CHECK_INT(r[k], MPI_REQUEST_NULL);
            }
        }
        CHECK_INT(st[0].MPI_TAG, t);
        CHECK_INT(in[count - 1], from + count - 1);
        CHECK_INT(in[2 * count - 2], from + count - 2);
    }
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    free(out);
    free(in);
}

/* Receives and probes of MPI_PROC_NULL. */
static void proc_null(void)
{
    MPI_Status st;
    MPI_Request r;
    MPI_Message msg;
    int x = 17, flag = 0, cnt = -1;
    mark(&st, 1);
    CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    CHECK_INT(st.MPI_ERROR, MARK);
    CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_INT(x, 17);
    mark(&st, 1);
    CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    CHECK_INT(st.MPI_ERROR, MARK);
    CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_INT(st.MPI_TAG, MPI_ANY_TAG);
    mark(&st, 1);
    CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &st));
    CHECK_INT(flag, 1);
    CHECK_INT(st.MPI_ERROR, MARK);
    mark(&st, 1);
    CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &msg, &st));
    CHECK_INT(msg, MPI_MESSAGE_NO_PROC);
    CHECK_INT(st.MPI_ERROR, MARK);
    CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK_INT(cnt, 0);
    mark(&st, 1);
    CHECK_MPI(MPI_Mrecv(&x, 1, MPI_INT, &msg, &st));
    CHECK_INT(st.MPI_ERROR, MARK);
    CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_INT(st.MPI_TAG, MPI_ANY_TAG);
    CHECK_INT(x, 17);
    mark(&st, 1);
    flag = 0;
    CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK_INT(flag, 1);
    CHECK_INT(st.MPI_ERROR, MARK);
    CHECK_MPI(MPI_Imrecv(&x, 1, MPI_INT, &msg, &r));
    mark(&st, 1);
    flag = 0;
    while (!flag) CHECK_MPI(MPI_Test(&r, &flag, &st));
    CHECK_INT(st.MPI_ERROR, MARK);
    CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK_INT(cnt, 0);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;

    single(rank, to, from, 2, 100);
    single(rank, to, from, BIG, 200);
    multiple(rank, to, from, 3, 300);
    multiple(rank, to, from, BIG, 400);
    proc_null();

    int rc = mt_finish("p2p_status_error");
    MPI_Finalize();
    return rc;
}
