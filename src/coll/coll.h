/* SPDX-License-Identifier: MIT */
/* Collectives: schedules, algorithms and their selection.
 *
 * An algorithm is a function that *builds* a schedule: a list of steps
 * (send, receive, local reduction, local copy), each tagged with a round.
 * The interpreter (sched.c) runs the rounds in order:
 *   - within a round, steps run in the order they were added: a local step
 *     (reduce, copy) runs at once, a send or receive is started;
 *   - a round ends when every send and receive it started has completed.
 * So data that a receive delivers may be used by a local step of a later
 * round, and a buffer that a send of round r reads may be overwritten from
 * round r+1 on.  Builders must keep that rule; nothing else is checked.
 * The same schedule can be run to completion (blocking collectives) or
 * started and advanced by the progress engine (the non-blocking forms,
 * coll_nbc.c).
 *
 * Messages use ctx_off = CR_CTX_COLL and one tag per collective call, taken
 * from the communicator's collective sequence number (every rank calls the
 * collectives of a communicator in the same order, so the numbers agree):
 * outstanding non-blocking collectives never match each other's messages.
 * Between two processes the messages of one schedule are received in the
 * order they were sent (MPI's non-overtaking rule on (ctx, source, tag)).
 *
 * Buffers inside a schedule always have the user datatype's own layout (temp
 * buffers from coll_sched_tmp() too), so sends and receives pass the
 * datatype to pt2pt and reductions run on it with cr_op_apply().
 */
#ifndef COURIER_COLL_H
#define COURIER_COLL_H
#include "core/core.h"

/* ---- schedules ---------------------------------------------------------- */
typedef enum { COLL_STEP_SEND = 1, COLL_STEP_RECV, COLL_STEP_REDUCE, COLL_STEP_COPY } coll_step_kind_t;

typedef struct {
    coll_step_kind_t kind;
    int round;
    int peer;                   /* SEND / RECV: comm rank */
    const void *src;            /* SEND: data; REDUCE: the earlier operand; COPY: source */
    void *dst;                  /* RECV: buffer; REDUCE: the later operand and result; COPY */
    MPI_Aint count;             /* elements of dt (COPY: of the source) */
    cr_datatype_t *dt;
    MPI_Aint dcount;            /* COPY: elements of ddt at dst */
    cr_datatype_t *ddt;
    cr_op_t *op;                /* REDUCE: dst = src op dst (held) */
    int tag;                    /* SEND / RECV: its own tag, or 0 for the schedule's */
} coll_step_t;

enum { COLL_MAX_TMP = 8 };
typedef struct coll_sched {
    cr_comm_t *comm;
    int tag;
    coll_step_t *steps;
    int nsteps, cap;
    int round;                  /* round that new steps go into */
    void *tmp[COLL_MAX_TMP];    /* temporaries (raw pointers), freed with the schedule */
    int ntmp;
    int err;                    /* first error while building or running */
    /* execution state */
    int next;                   /* first step not yet started */
    cr_request_t **reqs;        /* requests of the current round */
    int nreqs;
} coll_sched_t;

void coll_sched_init(coll_sched_t *s, cr_comm_t *comm, int tag);
/* Steps go into the current round; coll_sched_next_round() opens a new one. */
void coll_sched_send(coll_sched_t *s, const void *buf, MPI_Aint count, cr_datatype_t *dt,
                     int peer);
void coll_sched_recv(coll_sched_t *s, void *buf, MPI_Aint count, cr_datatype_t *dt, int peer);
void coll_sched_reduce(coll_sched_t *s, const cr_op_t *op, const void *in, void *inout,
                       MPI_Aint count, cr_datatype_t *dt);
/* A send or receive with a tag of its own (the neighbourhood collectives name
 * directions by tags); the other steps use the schedule's tag. */
void coll_sched_send_tag(coll_sched_t *s, const void *buf, MPI_Aint count, cr_datatype_t *dt,
                         int peer, int tag);
void coll_sched_recv_tag(coll_sched_t *s, void *buf, MPI_Aint count, cr_datatype_t *dt,
                         int peer, int tag);
void coll_sched_copy(coll_sched_t *s, const void *src, MPI_Aint scount, cr_datatype_t *sdt,
                     void *dst, MPI_Aint dcount, cr_datatype_t *ddt);
void coll_sched_next_round(coll_sched_t *s);
/* A temporary for count elements of dt in dt's layout (NULL and s->err set
 * when out of memory); the pointer is what the user would pass as `buf`. */
void *coll_sched_tmp(coll_sched_t *s, MPI_Aint count, const cr_datatype_t *dt);
/* Start the schedule (again, for a persistent collective: a finished
 * schedule can be started any number of times); then coll_sched_poll() until
 * it returns 1. */
int coll_sched_start(coll_sched_t *s);
int coll_sched_poll(coll_sched_t *s);
/* Advance without polling the transports (the caller has just done so);
 * returns 1 when the schedule is complete. */
int coll_sched_advance(coll_sched_t *s);
/* Run to completion (blocking).  Returns MPI_SUCCESS or the first error. */
int coll_sched_run(coll_sched_t *s);
void coll_sched_free(coll_sched_t *s);

/* A local copy of count elements of dt from src to dst, both in dt's layout. */
void coll_copy(const void *src, void *dst, MPI_Aint count, const cr_datatype_t *dt);

/* ---- collectives, algorithms, selection ----------------------------------- */
typedef enum {
    COLL_BARRIER = 0, COLL_BCAST, COLL_REDUCE, COLL_ALLREDUCE,
    COLL_GATHER, COLL_GATHERV, COLL_SCATTER, COLL_SCATTERV,
    COLL_ALLGATHER, COLL_ALLGATHERV, COLL_ALLTOALL, COLL_ALLTOALLV, COLL_ALLTOALLW,
    COLL_REDUCE_SCATTER, COLL_REDUCE_SCATTER_BLOCK, COLL_SCAN, COLL_EXSCAN,
    COLL_NCOLL
} coll_kind_t;

/* Arguments of one collective call, as the algorithms see them.  Fields a
 * collective does not have stay zero.  MPI_IN_PLACE is passed through as
 * sbuf (or rbuf for Scatter/Scatterv at the root) where the standard allows it;
 * datatype pointers of arguments the standard says to ignore may be NULL. */
typedef struct {
    const void *sbuf;
    void *rbuf;                 /* Bcast: the buffer */
    /* reductions, Bcast, Scan: count elements of dt */
    MPI_Aint count;
    cr_datatype_t *dt;
    const cr_op_t *op;
    int root;
    /* Gather/Scatter/Allgather/Alltoall: one block per rank */
    MPI_Aint scount, rcount;
    cr_datatype_t *sdt, *rdt;
    /* v and w forms: per-rank counts and displacements (elements of the
     * datatype's extent; bytes for Alltoallw); Reduce_scatter: rcounts */
    cr_vec_t scounts, sdispls, rcounts, rdispls;  /* .p NULL where absent */
    cr_datatype_t *const *sdts, *const *rdts;   /* Alltoallw: per-rank types */
    /* what the selection rules compare (see coll_select.c): bytes of one
     * rank's block, or of the whole vector for reductions */
    size_t bytes;
} coll_args_t;

typedef int (*coll_build_fn)(coll_sched_t *s, const coll_args_t *a);
/* A direct algorithm runs a blocking call itself (the node's shared memory,
 * coll_shm.h) instead of building a schedule; `fits` (NULL: always) says
 * whether it can take this call; it must answer the same on every rank. */
typedef int (*coll_run_fn)(cr_comm_t *c, const coll_args_t *a);
typedef int (*coll_fits_fn)(const cr_comm_t *c, const coll_args_t *a);

/* Algorithm flags. */
enum {
    COLL_ALG_COMMUTATIVE = 1,   /* only for commutative ops */
    COLL_ALG_INTER = 2,         /* for intercommunicators (else intracommunicators only) */
    COLL_ALG_SHM = 4,           /* direct, through the node's shared memory: blocking calls
                                 * on an intracommunicator whose ranks share this node */
    COLL_ALG_CMA = 8,           /* with COLL_ALG_SHM: also single copy between every pair */
    COLL_ALG_HIER = 16,         /* direct, hierarchical: blocking calls on an intracommunicator
                                 * whose ranks span nodes (coll_hier.h); `fits` asked after
                                 * the node layer exists */
    COLL_ALG_NB = 32,           /* with COLL_ALG_SHM: also runs non-blocking and persistent
                                 * calls, as a state machine of the progress engine
                                 * (coll_nbshm.c), once the communicator's area exists */
};

typedef struct {
    coll_kind_t coll;
    int id;                     /* 1.. within the collective; the COURIER_COLL_<X>_ALG value */
    const char *name;
    unsigned flags;
    coll_build_fn build;        /* schedule algorithms */
    coll_run_fn run;            /* direct algorithms (COLL_ALG_SHM) */
    coll_fits_fn fits;
} coll_alg_t;

/* The builders, one per file.  Each works for any communicator size
 * (1 included), any root, zero counts and MPI_IN_PLACE where the collective
 * allows it. */
int coll_barrier_dissemination(coll_sched_t *s, const coll_args_t *a);
int coll_bcast_binomial(coll_sched_t *s, const coll_args_t *a);
int coll_bcast_scatter_allgather(coll_sched_t *s, const coll_args_t *a);
int coll_reduce_binomial(coll_sched_t *s, const coll_args_t *a);
int coll_allreduce_recdbl(coll_sched_t *s, const coll_args_t *a);
int coll_allreduce_reduce_bcast(coll_sched_t *s, const coll_args_t *a);
int coll_gather_binomial(coll_sched_t *s, const coll_args_t *a);
int coll_gather_linear(coll_sched_t *s, const coll_args_t *a);
int coll_gatherv_linear(coll_sched_t *s, const coll_args_t *a);
int coll_scatter_binomial(coll_sched_t *s, const coll_args_t *a);
int coll_scatter_linear(coll_sched_t *s, const coll_args_t *a);
int coll_scatterv_linear(coll_sched_t *s, const coll_args_t *a);
int coll_allgather_ring(coll_sched_t *s, const coll_args_t *a);
int coll_allgather_bruck(coll_sched_t *s, const coll_args_t *a);
int coll_allgatherv_ring(coll_sched_t *s, const coll_args_t *a);
int coll_alltoall_pairwise(coll_sched_t *s, const coll_args_t *a);   /* also v and w */
int coll_alltoall_bruck(coll_sched_t *s, const coll_args_t *a);
int coll_reduce_scatter_reduce_scatterv(coll_sched_t *s, const coll_args_t *a);
int coll_reduce_scatter_ring(coll_sched_t *s, const coll_args_t *a);
int coll_scan_recdbl(coll_sched_t *s, const coll_args_t *a);
int coll_exscan_recdbl(coll_sched_t *s, const coll_args_t *a);

/* The algorithm for one call (coll_select.c): a forced one from the settings
 * if it applies, else the first matching row of the table; NULL when no
 * algorithm exists for this kind of communicator (Scan and Exscan on an
 * intercommunicator, which the standard does not define). */
const coll_alg_t *coll_select(coll_kind_t coll, const cr_comm_t *comm, const coll_args_t *a);
/* coll_select's memo of its last choice for one collective on one
 * communicator (coll_select.c): what the choice depended on, and the choice. */
typedef struct {
    unsigned long serial;       /* ut_settings_serial when chosen; 0: empty */
    size_t bytes;
    MPI_Aint count;
    MPI_Aint ext, text, size;   /* of a->dt (0 without) */
    unsigned bits;              /* COLL_MEMO_* of the call */
    const coll_alg_t *alg;
} coll_memo_t;
/* The same for a call that cannot use a direct algorithm: a trivial blocking
 * call's check, and the fallback below (schedules only). */
const coll_alg_t *coll_select_sched(coll_kind_t coll, const cr_comm_t *comm,
                                    const coll_args_t *a);
/* The same for a non-blocking or persistent call: a schedule, or a shared-memory
 * algorithm with a state machine (COLL_ALG_NB) where coll_nbshm_ready(comm). */
const coll_alg_t *coll_select_nb(coll_kind_t coll, const cr_comm_t *comm, const coll_args_t *a);
/* Run a blocking call with the schedule algorithm coll_select_sched picks
 * (a new tag): what a direct algorithm does when it finds that it cannot run
 * (every rank finds the same). */
int coll_fallback(coll_kind_t coll, cr_comm_t *c, const coll_args_t *a);
/* The next collective tag of c (coll.c); every rank takes it in the same call. */
/* The tag of a non-blocking or persistent collective's schedule, and of a
 * blocking one's (coll.c: odd and even tags, two sequences). */
int coll_next_tag(cr_comm_t *c);
int coll_blocking_tag(cr_comm_t *c);

/* Direct algorithms through the node's shared memory (coll_<x>_shm.c,
 * coll_<x>_cma.c; coll_shm.h) and what each can take (_fits). */
int coll_barrier_shm(cr_comm_t *c, const coll_args_t *a);
int coll_bcast_shm(cr_comm_t *c, const coll_args_t *a);
int coll_bcast_shm_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_bcast_cma(cr_comm_t *c, const coll_args_t *a);
int coll_bcast_pipe(cr_comm_t *c, const coll_args_t *a);
int coll_bcast_pipe_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_reduce_shm(cr_comm_t *c, const coll_args_t *a);
int coll_reduce_shm_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_reduce_cma(cr_comm_t *c, const coll_args_t *a);
int coll_reduce_cma_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_reduce_pipe(cr_comm_t *c, const coll_args_t *a);
int coll_reduce_pipe_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_allreduce_pipe(cr_comm_t *c, const coll_args_t *a);
int coll_allreduce_shm(cr_comm_t *c, const coll_args_t *a);
int coll_allreduce_shm_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_allreduce_cma(cr_comm_t *c, const coll_args_t *a);
int coll_allreduce_cma_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_gather_shm(cr_comm_t *c, const coll_args_t *a);
int coll_gather_shm_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_gather_cma(cr_comm_t *c, const coll_args_t *a);
int coll_scatter_shm(cr_comm_t *c, const coll_args_t *a);
int coll_scatter_shm_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_scatter_cma(cr_comm_t *c, const coll_args_t *a);
int coll_allgather_shm(cr_comm_t *c, const coll_args_t *a);
int coll_allgather_shm_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_allgather_cma(cr_comm_t *c, const coll_args_t *a);
int coll_alltoall_shm(cr_comm_t *c, const coll_args_t *a);
int coll_alltoall_shm_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_alltoall_cma(cr_comm_t *c, const coll_args_t *a);
int coll_alltoallv_cma(cr_comm_t *c, const coll_args_t *a);
int coll_alltoallv_cma_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_reduce_scatter_shm(cr_comm_t *c, const coll_args_t *a);
int coll_reduce_scatter_shm_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_reduce_scatter_cma(cr_comm_t *c, const coll_args_t *a);
int coll_reduce_scatter_cma_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_scan_shm(cr_comm_t *c, const coll_args_t *a);
int coll_exscan_shm(cr_comm_t *c, const coll_args_t *a);
int coll_scan_shm_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_scan_cma(cr_comm_t *c, const coll_args_t *a);
int coll_scan_cma_fits(const cr_comm_t *c, const coll_args_t *a);
/* Through the ranks' staging buffers (coll_stage.c), where ranks do not
 * outnumber cores: contiguous types. */
int coll_allreduce_stage(cr_comm_t *c, const coll_args_t *a);
int coll_allreduce_stage_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_reduce_scatter_stage(cr_comm_t *c, const coll_args_t *a);
int coll_reduce_scatter_stage_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_allgather_stage(cr_comm_t *c, const coll_args_t *a);
int coll_allgather_stage_fits(const cr_comm_t *c, const coll_args_t *a);
int coll_alltoall_stage(cr_comm_t *c, const coll_args_t *a);
int coll_alltoall_stage_fits(const cr_comm_t *c, const coll_args_t *a);
/* Hierarchical algorithms (coll_hier.c): a phase on each node plus one among
 * the nodes' leaders; reduce and allreduce for commutative ops only. */
int coll_barrier_hier(cr_comm_t *c, const coll_args_t *a);
int coll_bcast_hier(cr_comm_t *c, const coll_args_t *a);
int coll_reduce_hier(cr_comm_t *c, const coll_args_t *a);
int coll_allreduce_hier(cr_comm_t *c, const coll_args_t *a);
int coll_gather_hier(cr_comm_t *c, const coll_args_t *a);
int coll_allgather_hier(cr_comm_t *c, const coll_args_t *a);
int coll_scatter_hier(cr_comm_t *c, const coll_args_t *a);
/* ... alltoall (small blocks), reduce_scatter(_block) (commutative ops), and
 * scan / exscan where every node is a run of consecutive ranks (_fits). */
int coll_alltoall_hier(cr_comm_t *c, const coll_args_t *a);
int coll_reduce_scatter_hier(cr_comm_t *c, const coll_args_t *a);
int coll_scan_hier(cr_comm_t *c, const coll_args_t *a);
int coll_exscan_hier(cr_comm_t *c, const coll_args_t *a);
int coll_scan_hier_fits(const cr_comm_t *c, const coll_args_t *a);
/* The forced algorithm id of a collective (0 = automatic). */
int coll_forced_alg(coll_kind_t coll);
/* The algorithm (id) coll_select chose last for each collective, 0 before
 * the first call: a performance variable of the tools interface. */
extern int coll_last_alg[COLL_NCOLL];
/* The MPI name of each collective ("MPI_Bcast"). */
extern const char *const coll_names[COLL_NCOLL];

/* Non-blocking collectives (coll_nbc.c): build the schedule with alg, start it
 * and return a request (*out) that the progress engine completes. */
int coll_nbc_start(cr_comm_t *comm, int tag, const coll_alg_t *alg, const coll_args_t *a,
                   MPI_Request *out);
/* Persistent collectives (coll_nbc.c): build the schedule once and return an
 * inactive persistent request; each MPI_Start runs the schedule again. */
int coll_persist_init(cr_comm_t *comm, int tag, const coll_alg_t *alg, const coll_args_t *a,
                      MPI_Request *out);
/* Non-blocking or persistent (persistent set) call of a COLL_ALG_NB algorithm:
 * the shared-memory state machine (coll_nbshm.c) under a request that the
 * progress engine completes; persistent: set up once, run at each MPI_Start. */
int coll_nbc_start_shm(cr_comm_t *comm, coll_kind_t coll, const coll_args_t *a, int persistent,
                       MPI_Request *out);
/* The state machines (coll_nbshm.c).  ready: comm's area exists, the call
 * comes after every call counted when it was made (count: coll_nbc.c counts
 * each non-blocking call and persistent init of an intracommunicator after
 * its selection), and COURIER_COLL_NB_SHM allows them (the same answer on
 * every rank for the same call, whatever the order of blocking and
 * non-blocking calls around it).  new:
 * a call's machine, holding the arguments' datatypes and op (NULL: out of
 * memory); begin: take the call's sequence number (the call starts, in
 * collective order); advance: move it on as far as the peers allow, *moved
 * set when it did; 1 once it finished. */
typedef struct coll_nbshm coll_nbshm_t;
int coll_nbshm_ready(const cr_comm_t *c);
void coll_nbshm_count(cr_comm_t *c);
/* Can the machine take this call (fits: the algorithm's own test)?  Bcast
 * takes every length where single copy works (its root then publishes its
 * buffer, coll_bcast_cma.c's protocol). */
int coll_nbshm_fits(coll_kind_t coll, const cr_comm_t *c, const coll_args_t *a, coll_fits_fn fits);
coll_nbshm_t *coll_nbshm_new(cr_comm_t *c, coll_kind_t coll, const coll_args_t *a);
void coll_nbshm_free(coll_nbshm_t *m);
void coll_nbshm_begin(coll_nbshm_t *m);
int coll_nbshm_advance(coll_nbshm_t *m, int *moved);
int coll_nbshm_err(const coll_nbshm_t *m);
int coll_nbshm_pending(const coll_nbshm_t *m);
/* Sleeping (coll_nbc.c's can_sleep and poll): announce that this rank is
 * about to sleep waiting for m's peer, so that its post rings the doorbell
 * (0: m cannot say whom it waits for; do not sleep); polled: called at every
 * poll, takes the announcements back after the sleep. */
int coll_nbshm_announce(coll_nbshm_t *m);
void coll_nbshm_polled(void);
/* The same for a schedule built by the caller (neighbourhood collectives):
 * *s is moved into the request. */
int coll_nbc_start_sched(coll_sched_t *s, int persistent, MPI_Request *out);

/* Small helpers shared by the builders. */
static inline int coll_lowbit(int x) { return x & -x; }
static inline size_t coll_bytes(const coll_args_t *a)
{
    return (size_t)a->count * (size_t)a->dt->size;
}
/* Address of element i of buf in dt's layout. */
static inline void *coll_elem(const void *buf, MPI_Aint i, const cr_datatype_t *dt)
{
    return (char *)buf + i * dt->extent;
}
/* (x mod n) in [0, n) for any x */
static inline int coll_mod(int x, int n) { return ((x % n) + n) % n; }

/* One side (send or receive) of an all-to-all.  The three forms differ only in
 * where block i is: uniform (count, dt, at i * count elements), v (counts[i],
 * dt, at displs[i] elements) or w (counts[i], dts[i], at displs[i] bytes). */
typedef struct {
    const char *buf;
    MPI_Aint count;          /* uniform form */
    cr_datatype_t *dt;
    cr_vec_t counts, displs;
    cr_datatype_t *const *dts;
} coll_side_t;

static inline coll_side_t coll_send_side(const coll_args_t *a)
{
    return (coll_side_t){ a->sbuf, a->scount, a->sdt, a->scounts, a->sdispls, a->sdts };
}
static inline coll_side_t coll_recv_side(const coll_args_t *a)
{
    return (coll_side_t){ a->rbuf, a->rcount, a->rdt, a->rcounts, a->rdispls, a->rdts };
}
/* Block i of a side: its address, count and datatype. */
static inline void coll_block(const coll_side_t *sd, int i, char **p, MPI_Aint *count,
                              cr_datatype_t **dt)
{
    if (sd->dts) {   /* w: displacements in bytes */
        *dt = sd->dts[i];
        *count = cr_vec_get(sd->counts, i);
        *p = (char *)sd->buf + cr_vec_get(sd->displs, i);
    } else if (sd->counts.p) {
        *dt = sd->dt;
        *count = cr_vec_get(sd->counts, i);
        *p = coll_elem(sd->buf, cr_vec_get(sd->displs, i), sd->dt);
    } else {
        *dt = sd->dt;
        *count = sd->count;
        *p = coll_elem(sd->buf, (MPI_Aint)i * sd->count, sd->dt);
    }
}
#endif
