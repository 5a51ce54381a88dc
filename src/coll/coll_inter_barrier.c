/* SPDX-License-Identifier: MIT */
/* Barrier on an intercommunicator, with messages between the groups only:
 *   round 0: every process tells the remote leader it has entered; each
 *            leader hears from every process of the remote group;
 *   round 1: the leaders swap an "all of yours entered" message;
 *   round 2: each leader releases every process of the remote group.
 * A process leaves on its release from the remote leader, who sent it only
 * after hearing from all of this process's group (round 0 at the other
 * leader, passed on in round 1) and from all of its own group's remote side
 * (round 0 at itself): so everybody of both groups has entered.  Messages
 * between the two leaders use one tag and arrive in order. */
#include "coll/coll_inter.h"

int coll_inter_barrier(coll_sched_t *s, const coll_args_t *a)
{
    static char dummy;
    (void)a;
    cr_comm_t *c = s->comm;
    int nremote = c->remote->size;
    cr_datatype_t *byte = cr_datatype_ptr(MPI_BYTE);
    coll_sched_send(s, &dummy, 0, byte, 0);
    if (c->rank == 0) {
        for (int r = 0; r < nremote; r++) coll_sched_recv(s, &dummy, 0, byte, r);
        coll_sched_next_round(s);
        coll_sched_send(s, &dummy, 0, byte, 0);
        coll_sched_recv(s, &dummy, 0, byte, 0);
        coll_sched_next_round(s);
        for (int r = 0; r < nremote; r++) coll_sched_send(s, &dummy, 0, byte, r);
    } else {
        coll_sched_next_round(s);
    }
    coll_sched_recv(s, &dummy, 0, byte, 0);
    return s->err;
}
