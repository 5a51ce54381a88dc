/* SPDX-License-Identifier: MIT */
/* The schedule: building (steps grouped into rounds) and the interpreter that
 * drives cr_isend / cr_irecv requests through the rounds (see coll.h). */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "core/datatype.h"

void coll_sched_init(coll_sched_t *s, cr_comm_t *comm, int tag)
{
    memset(s, 0, sizeof(*s));
    s->comm = comm;
    s->tag = tag;
}

static coll_step_t *add_step(coll_sched_t *s, coll_step_kind_t kind)
{
    if (s->err) return NULL;
    if (s->nsteps == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        coll_step_t *n = realloc(s->steps, (size_t)cap * sizeof(*n));
        if (!n) {
            s->err = cr_error(MPI_ERR_NO_MEM, "out of memory building a collective schedule");
            return NULL;
        }
        s->steps = n;
        s->cap = cap;
    }
    coll_step_t *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof(*st));
    st->kind = kind;
    st->round = s->round;
    return st;
}

/* Steps hold references to their datatypes: the user may free a type while a
 * non-blocking collective that uses it is still running. */
static cr_datatype_t *hold(cr_datatype_t *dt)
{
    if (dt) cr_dt_retain(dt);
    return dt;
}

void coll_sched_send_tag(coll_sched_t *s, const void *buf, MPI_Aint count, cr_datatype_t *dt,
                         int peer, int tag)
{
    coll_step_t *st = add_step(s, COLL_STEP_SEND);
    if (!st) return;
    st->src = buf;
    st->count = count;
    st->dt = hold(dt);
    st->peer = peer;
    st->tag = tag;
}

void coll_sched_recv_tag(coll_sched_t *s, void *buf, MPI_Aint count, cr_datatype_t *dt,
                         int peer, int tag)
{
    coll_step_t *st = add_step(s, COLL_STEP_RECV);
    if (!st) return;
    st->dst = buf;
    st->count = count;
    st->dt = hold(dt);
    st->peer = peer;
    st->tag = tag;
}

void coll_sched_send(coll_sched_t *s, const void *buf, MPI_Aint count, cr_datatype_t *dt,
                     int peer)
{
    coll_sched_send_tag(s, buf, count, dt, peer, 0);
}

void coll_sched_recv(coll_sched_t *s, void *buf, MPI_Aint count, cr_datatype_t *dt, int peer)
{
    coll_sched_recv_tag(s, buf, count, dt, peer, 0);
}

void coll_sched_reduce(coll_sched_t *s, const cr_op_t *op, const void *in, void *inout,
                       MPI_Aint count, cr_datatype_t *dt)
{
    coll_step_t *st = add_step(s, COLL_STEP_REDUCE);
    if (!st) return;
    st->op = (cr_op_t *)op;
    cr_op_retain(st->op);    /* the user may free the op while the schedule runs */
    st->src = in;
    st->dst = inout;
    st->count = count;
    st->dt = hold(dt);
}

void coll_sched_copy(coll_sched_t *s, const void *src, MPI_Aint scount, cr_datatype_t *sdt,
                     void *dst, MPI_Aint dcount, cr_datatype_t *ddt)
{
    if (src == dst && sdt == ddt) return;
    coll_step_t *st = add_step(s, COLL_STEP_COPY);
    if (!st) return;
    st->src = src;
    st->count = scount;
    st->dt = hold(sdt);
    st->dst = dst;
    st->dcount = dcount;
    st->ddt = hold(ddt);
}

void coll_sched_next_round(coll_sched_t *s)
{
    s->round++;
}

void *coll_sched_tmp(coll_sched_t *s, MPI_Aint count, const cr_datatype_t *dt)
{
    if (s->err) return NULL;
    if (s->ntmp == COLL_MAX_TMP) {
        s->err = cr_error(MPI_ERR_INTERN, "collective schedule needs too many temporaries");
        return NULL;
    }
    /* span of count elements: from true_lb to the last element's true ub */
    MPI_Aint ext = dt->extent < 0 ? -dt->extent : dt->extent;
    size_t span = count > 0 ? (size_t)(count - 1) * (size_t)ext + (size_t)dt->true_extent : 1;
    char *raw = malloc(span ? span : 1);
    if (!raw) {
        s->err = cr_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte collective temporary",
                          span);
        return NULL;
    }
    s->tmp[s->ntmp++] = raw;
    /* a negative extent puts element count-1 lowest */
    MPI_Aint shift = dt->extent < 0 ? (count - 1) * ext : 0;
    return raw + shift - dt->true_lb;
}

void coll_copy(const void *src, void *dst, MPI_Aint count, const cr_datatype_t *dt)
{
    if (count <= 0 || src == dst) return;
    if (dt->contig) {
        memcpy((char *)dst + dt->true_lb, (const char *)src + dt->true_lb,
               (size_t)count * (size_t)dt->size);
        return;
    }
    size_t bytes = (size_t)count * (size_t)dt->size;
    void *t = malloc(bytes ? bytes : 1);
    if (!t) cr_abort_job(1, "out of memory copying a collective buffer");
    cr_dt_pack(src, count, dt, t);
    cr_dt_unpack(t, bytes, dst, count, dt);
    free(t);
}

/* COPY between possibly different datatypes of the same type signature. */
static void run_copy(const coll_step_t *st)
{
    const cr_datatype_t *sd = st->dt, *dd = st->ddt;
    if (sd == dd && st->count == st->dcount) {
        coll_copy(st->src, st->dst, st->count, sd);
        return;
    }
    size_t bytes = (size_t)st->count * (size_t)sd->size;
    if (!bytes) return;
    if (sd->contig && dd->contig) {
        memcpy((char *)st->dst + dd->true_lb, (const char *)st->src + sd->true_lb, bytes);
    } else if (dd->contig) {
        cr_dt_pack(st->src, st->count, sd, (char *)st->dst + dd->true_lb);
    } else if (sd->contig) {
        cr_dt_unpack((const char *)st->src + sd->true_lb, bytes, st->dst, st->dcount, dd);
    } else {
        void *t = malloc(bytes);
        if (!t) cr_abort_job(1, "out of memory copying a collective buffer");
        cr_dt_pack(st->src, st->count, sd, t);
        cr_dt_unpack(t, bytes, st->dst, st->dcount, dd);
        free(t);
    }
}

/* Start the next round: run its local steps and start its messages. */
static void start_round(coll_sched_t *s)
{
    int r = s->steps[s->next].round;
    s->nreqs = 0;
    for (; s->next < s->nsteps && s->steps[s->next].round == r; s->next++) {
        coll_step_t *st = &s->steps[s->next];
        cr_request_t *req = NULL;
        int e = MPI_SUCCESS;
        switch (st->kind) {
        case COLL_STEP_SEND:
            /* after an error (a message of the wrong length, say) the sends go
             * on, so that no peer waits forever, but empty: the receivers see
             * a message shorter than they expect and fail too (round_done) */
            e = cr_isend(st->src, s->err ? 0 : st->count, st->dt, st->peer,
                         st->tag ? st->tag : s->tag, s->comm, CR_CTX_COLL, CR_MODE_STD, &req);
            break;
        case COLL_STEP_RECV:
            e = cr_irecv(st->dst, st->count, st->dt, st->peer, st->tag ? st->tag : s->tag,
                         s->comm, CR_CTX_COLL, &req);
            break;
        case COLL_STEP_REDUCE:
            cr_op_apply(st->op, st->src, st->dst, st->count, st->dt);
            break;
        case COLL_STEP_COPY:
            run_copy(st);
            break;
        }
        if (e) {
            if (!s->err) s->err = e;
        } else if (req) {
            s->reqs[s->nreqs++] = req;
        }
    }
}

int coll_sched_start(coll_sched_t *s)
{
    s->next = 0;
    s->nreqs = 0;
    if (s->err) return s->err;
    /* at most every step is a message of one round; kept for a restart */
    if (!s->reqs) s->reqs = malloc((size_t)(s->nsteps ? s->nsteps : 1) * sizeof(*s->reqs));
    if (!s->reqs)
        return s->err = cr_error(MPI_ERR_NO_MEM, "out of memory starting a collective");
    if (s->nsteps) start_round(s);
    return MPI_SUCCESS;
}

/* A receive of a schedule got `got` bytes from `src` where it expects `want`:
 * in a correct program the type signatures of the two sides match, so every
 * message of a collective has exactly the length its receiver expects (one
 * that is longer is MPI_ERR_TRUNCATE already, from point-to-point). */
static int short_message(int src, MPI_Count got, size_t want)
{
    return cr_error(MPI_ERR_OTHER, "a collective's message from rank %d has %lld bytes where "
                    "this process expects %zu: the processes' counts or datatypes (type "
                    "signatures) differ", src, (long long)got, want);
}

/* Collect the finished requests of the round; 1 when all are done. */
static int round_done(coll_sched_t *s, int block)
{
    for (int i = 0; i < s->nreqs; i++) {
        cr_request_t *r = s->reqs[i];
        if (!r) continue;
        if (!block && !__atomic_load_n(&r->complete, __ATOMIC_ACQUIRE)) return 0;
        int recv = r->kind == CR_REQ_RECV;
        size_t want = r->bytes;
        MPI_Status st;
        int e = cr_wait(r, &st);
        if (!e && recv && st.MPI_SOURCE != MPI_PROC_NULL &&
            cr_status_bytes(&st) != (MPI_Count)want)
            e = short_message(st.MPI_SOURCE, cr_status_bytes(&st), want);
        if (e && !s->err) s->err = e;
        s->reqs[i] = NULL;
    }
    s->nreqs = 0;
    return 1;
}

int coll_sched_advance(coll_sched_t *s)
{
    if (!s->reqs) return 1;
    while (round_done(s, 0)) {
        if (s->next >= s->nsteps) return 1;
        start_round(s);
    }
    return 0;
}

int coll_sched_poll(coll_sched_t *s)
{
    if (!s->reqs) return 1;
    cr_progress();
    return coll_sched_advance(s);
}

int coll_sched_run(coll_sched_t *s)
{
    int e = coll_sched_start(s);
    if (e) return e;
    for (;;) {
        round_done(s, 1);
        if (s->next >= s->nsteps) break;
        start_round(s);
    }
    return s->err;
}

void coll_sched_free(coll_sched_t *s)
{
    for (int i = 0; i < s->nsteps; i++) {
        if (s->steps[i].dt) cr_dt_release(s->steps[i].dt);
        if (s->steps[i].ddt) cr_dt_release(s->steps[i].ddt);
        if (s->steps[i].op) cr_op_release(s->steps[i].op);
    }
    free(s->steps);
    free(s->reqs);
    for (int i = 0; i < s->ntmp; i++) free(s->tmp[i]);
    memset(s, 0, sizeof(*s));
}
