/* SPDX-License-Identifier: MIT */
/* MPI_Cancel of sends (MPI 4.1 section 3.8.4), around a ring (np=1: to
 * itself), for eager and rendezvous sizes and every way a send is made:
 * MPI_Isend, MPI_Issend, MPI_Ibsend, persistent MPI_Send_init and
 * MPI_Bsend_init.
 *  - unmatched: the receiver has posted nothing, so the cancel succeeds
 *    (MPI_Test_cancelled says so) and the data never arrives: the next
 *    message with the same envelope (a marker) is the one received;
 *  - matched: the receiver got the message first, so the cancel fails and the
 *    data is what was sent;
 *  - reused request: a message is sent and completed (its request freed),
 *    then a second one with the same envelope is sent and cancelled: the
 *    first must arrive intact and the second must not (the cancel names the
 *    right one, though the request object may be the same).
 * The sender tells the receiver the outcome, so the test also holds under an
 * MPI that declines to cancel (MT_REFERENCE_MPICH relaxes "must cancel"). */
#include "mpitest.h"

enum { M_ISEND, M_ISSEND, M_IBSEND, M_SEND_INIT, M_BSEND_INIT, NMODES };
static const char *const mode_name[] = { "Isend", "Issend", "Ibsend", "Send_init", "Bsend_init" };
static const int sizes[] = { 1, 100, 10000, 1000000 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define TAG_INFO 999

static void start_send(int mode, const void *buf, int n, int to, int tag, MPI_Request *r)
{
    switch (mode) {
    case M_ISEND: CHECK_MPI(MPI_Isend(buf, n, MPI_CHAR, to, tag, MPI_COMM_WORLD, r)); break;
    case M_ISSEND: CHECK_MPI(MPI_Issend(buf, n, MPI_CHAR, to, tag, MPI_COMM_WORLD, r)); break;
    case M_IBSEND: CHECK_MPI(MPI_Ibsend(buf, n, MPI_CHAR, to, tag, MPI_COMM_WORLD, r)); break;
    case M_SEND_INIT:
        CHECK_MPI(MPI_Send_init(buf, n, MPI_CHAR, to, tag, MPI_COMM_WORLD, r));
        CHECK_MPI(MPI_Start(r));
        break;
    default:
        CHECK_MPI(MPI_Bsend_init(buf, n, MPI_CHAR, to, tag, MPI_COMM_WORLD, r));
        CHECK_MPI(MPI_Start(r));
        break;
    }
}

/* Wait for a cancelled send; returns Test_cancelled's flag.  Persistent
 * requests are freed after. */
static int finish_send(int mode, MPI_Request *r)
{
    MPI_Status st;
    int flag = -1;
    CHECK_MPI(MPI_Wait(r, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    if (mode == M_SEND_INIT || mode == M_BSEND_INIT) CHECK_MPI(MPI_Request_free(r));
    CHECK_INT(*r, MPI_REQUEST_NULL);
    return flag;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int maxn = sizes[NSIZES - 1];
    char *out = mt_malloc((size_t)maxn), *out2 = mt_malloc((size_t)maxn);
    char *in = mt_malloc((size_t)maxn);
    int bsize = 2 * (maxn + MPI_BSEND_OVERHEAD);
    char *bbuf = mt_malloc((size_t)bsize);
    CHECK_MPI(MPI_Buffer_attach(bbuf, bsize));

    int tag = 1;
    for (int mode = 0; mode < NMODES; mode++) {
        for (int si = 0; si < NSIZES; si++, tag += 3) {
            int n = sizes[si];
            long seed = tag * 31 + rank;
            long seed_from = tag * 31 + from;
            MPI_Request r;
            int flag, info[2];

            /* unmatched: cancelled, never delivered */
            mt_fill(out, (size_t)n, seed);
            start_send(mode, out, n, to, tag, &r);
            CHECK_MPI(MPI_Cancel(&r));
            flag = finish_send(mode, &r);
#ifndef MT_REFERENCE_MPICH
            CHECK(flag == 1, "%s of %d bytes, unmatched: not cancelled", mode_name[mode], n);
#endif
            /* the marker: same envelope, other data, 8 bytes */
            mt_fill(out2, 8, seed + 7);
            info[0] = flag;
            info[1] = n;
            /* non-blocking: every message may go by rendezvous (EAGER_LIMIT=0) */
            MPI_Request ir[2];
            int got[2];
            CHECK_MPI(MPI_Isend(info, 2, MPI_INT, to, TAG_INFO, MPI_COMM_WORLD, &ir[0]));
            CHECK_MPI(MPI_Isend(out2, 8, MPI_CHAR, to, tag, MPI_COMM_WORLD, &ir[1]));
            CHECK_MPI(MPI_Recv(got, 2, MPI_INT, from, TAG_INFO, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
            MPI_Status st;
            int cnt = -1;
            if (!got[0]) {
                /* not cancelled: the message comes, then the marker */
                CHECK_MPI(MPI_Recv(in, maxn, MPI_CHAR, from, tag, MPI_COMM_WORLD, &st));
                MPI_Get_count(&st, MPI_CHAR, &cnt);
                CHECK_INT(cnt, got[1]);
                CHECK_PATTERN(in, (size_t)got[1], seed_from);
            }
            CHECK_MPI(MPI_Recv(in, maxn, MPI_CHAR, from, tag, MPI_COMM_WORLD, &st));
            MPI_Get_count(&st, MPI_CHAR, &cnt);
            CHECK(cnt == 8, "%s of %d bytes: after the cancel came %d bytes, not the 8-byte "
                  "marker", mode_name[mode], n, cnt);
            CHECK_PATTERN(in, 8, seed_from + 7);
            CHECK_MPI(MPI_Waitall(2, ir, MPI_STATUSES_IGNORE));
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

            /* matched: the receive completes first, the cancel fails */
            MPI_Request rr;
            CHECK_MPI(MPI_Irecv(in, maxn, MPI_CHAR, from, tag + 1, MPI_COMM_WORLD, &rr));
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));        /* every receive is posted */
            mt_fill(out, (size_t)n, seed + 1);
            start_send(mode, out, n, to, tag + 1, &r);
            CHECK_MPI(MPI_Wait(&rr, &st));
            MPI_Get_count(&st, MPI_CHAR, &cnt);
            CHECK_INT(cnt, n);
            CHECK_PATTERN(in, (size_t)n, seed_from + 1);
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));        /* every message was received */
            CHECK_MPI(MPI_Cancel(&r));
            flag = finish_send(mode, &r);
            CHECK(flag == 0, "%s of %d bytes: cancelled after it was received", mode_name[mode],
                  n);

            /* reused request: the first of two equal envelopes arrives, the
             * cancelled second does not */
            {
                mt_fill(out, (size_t)n, seed + 2);
                start_send(mode, out, n, to, tag + 2, &r);
                /* it completes when matched (synchronous, rendezvous), which
                 * comes later: let it go; an eager send's request is freed at
                 * once, so the next send may well reuse it */
                CHECK_MPI(MPI_Request_free(&r));
                mt_fill(out2, (size_t)n, seed + 3);
                start_send(mode, out2, n, to, tag + 2, &r);
                CHECK_MPI(MPI_Cancel(&r));
                flag = finish_send(mode, &r);
#ifndef MT_REFERENCE_MPICH
                CHECK(flag == 1, "%s of %d bytes, second of two: not cancelled",
                      mode_name[mode], n);
#endif
                info[0] = flag;
                CHECK_MPI(MPI_Isend(info, 2, MPI_INT, to, TAG_INFO, MPI_COMM_WORLD, &ir[0]));
                CHECK_MPI(MPI_Recv(got, 2, MPI_INT, from, TAG_INFO, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
                CHECK_MPI(MPI_Recv(in, maxn, MPI_CHAR, from, tag + 2, MPI_COMM_WORLD, &st));
                MPI_Get_count(&st, MPI_CHAR, &cnt);
                CHECK_INT(cnt, n);
                CHECK_PATTERN(in, (size_t)n, seed_from + 2);
                if (!got[0]) {
                    CHECK_MPI(MPI_Recv(in, maxn, MPI_CHAR, from, tag + 2, MPI_COMM_WORLD, &st));
                    CHECK_PATTERN(in, (size_t)n, seed_from + 3);
                }
                CHECK_MPI(MPI_Wait(&ir[0], MPI_STATUS_IGNORE));
                int pending = 1;
                CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
                CHECK_MPI(MPI_Iprobe(from, tag + 2, MPI_COMM_WORLD, &pending, MPI_STATUS_IGNORE));
                CHECK(!pending, "%s of %d bytes: a cancelled message arrived", mode_name[mode],
                      n);
            }
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        }
    }
    /* the attached buffer holds nothing any more: detach does not wait */
    void *b;
    int bs;
    CHECK_MPI(MPI_Buffer_detach(&b, &bs));
    CHECK_INT(bs, bsize);
    free(bbuf);
    free(out);
    free(out2);
    free(in);
    int rc = mt_finish("p2p_cancel_send");
    MPI_Finalize();
    return rc;
}
