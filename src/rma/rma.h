/* SPDX-License-Identifier: MIT */
/* One-sided communication (MPI chapter 12): the window object and the
 * internals shared by the files of src/rma (see docs/rma.md).
 *
 * A window reaches each target through one path, chosen when it is made:
 * - RMA_DIRECT: the target's window memory is mapped in this process (the
 *   target itself; MPI_Win_allocate and MPI_Win_allocate_shared memory of
 *   every rank on this node, which lives in the window's node segment).  The
 *   origin does the operation itself with loads and stores.
 * - RMA_CMA: the target is on this node but its memory is its own
 *   (MPI_Win_create, MPI_Win_create_dynamic): single copies with the shared-
 *   memory transport's get/put (cross-memory attach).
 * - RMA_AM: any other target (another node, or one whose memory the kernel
 *   does not let us read): active messages that the target's progress engine
 *   executes (am.c); with `net` set, puts and gets go by the network
 *   transport's own RMA instead (net.c), the rest still by messages.
 * Every accumulate-class operation on a target holds that target's
 * accumulate lock (a word in the node segment, or taken by the target's own
 * handler), so accumulates are atomic per element across all origins and
 * paths; except on elements of rma_cpu_type on catomic windows, which every
 * origin of the target's node and the target's handler update with the
 * CPU's atomic instructions instead.  Passive-target locks are words in the
 * node segment too, so an origin on the node never needs the target to call
 * MPI.
 * On windows that span nodes where the network has atomics (cr_win.natomic,
 * cr_win.nlock; net.c): accumulates on the basic types the provider's
 * atomics cover, and the lock words, are operated on by network atomics from
 * the other nodes, and by the origins on the target's node with the CPU's
 * atomics where the provider's are the CPU's too (TR_CAP_ATOMIC_CPU:
 * catomic, clock), else with the network's as well (through the network
 * endpoint, the target itself included), so that every origin of a word
 * uses mechanisms atomic with each other. */
#ifndef COURIER_RMA_H
#define COURIER_RMA_H
#include "core/core.h"
#include "core/info.h"
#include "core/adapt.h"

enum { RMA_DIRECT = 1, RMA_CMA, RMA_AM };
/* cr_win.dstores */
enum { RMA_DSTORES = 1, RMA_DFENCE_ALWAYS = 2 };
/* Lock states (rma_target_t.lock) and the lock word's exclusive bit. */
enum { RMA_UNLOCKED = 0, RMA_SHARED = 1, RMA_EXCL = 2 };
#define RMA_LOCK_EXCL_BIT (1ull << 62)

/* The control block of one rank of a window, in the node segment (or private
 * memory when the rank is alone on its node).  posted[] follows it: posted[t]
 * counts the MPI_Win_post calls of window rank t that named this rank. */
typedef struct {
    volatile uint64_t lock;        /* passive target: RMA_LOCK_EXCL_BIT | shared holders */
    char pad0[56];
    volatile uint32_t acc;         /* accumulate lock: 0 free, 1 held */
    char pad1[60];
    volatile uint64_t complete;    /* MPI_Win_complete calls that reached this rank */
    volatile uint64_t ndyn;        /* dynamic windows: entries used in dyn[] */
    char pad2[48];
} rma_ctl_t;
_Static_assert(sizeof(rma_ctl_t) == 192, "three cache lines");

/* A region attached to a dynamic window (in the node segment, so that origins
 * on the node can check target addresses without the target). */
typedef struct {
    uint64_t base, size;           /* size 0: free slot */
} rma_dyn_t;

/* A region of a dynamic window registered with the network: this rank's
 * attached memory (cr_win.dyn_regs, by slot), or what an origin learnt of a
 * target's (rma_target_t.dkeys).  size 0: none. */
typedef struct {
    uint64_t base, size;
    tr_rkey_t key;
} rma_dkey_t;

/* What this process knows of one target rank of a window. */
typedef struct {
    uint8_t path;                  /* RMA_DIRECT, RMA_CMA, RMA_AM */
    uint8_t lock;                  /* the passive-target lock this process holds on it */
    uint8_t posted;                /* PSCW: in the current access group */
    uint8_t fast;                  /* the short ways (fast.h) may reach it: RMA_DIRECT on a
                                      window that is not dynamic and spans no nodes */
    int world;                     /* peer number */
    int local;                     /* index in the node segment, -1 when on another node */
    char *base;                    /* DIRECT: window memory in this process's address space;
                                      CMA/AM: its address in the target's */
    MPI_Aint size;
    MPI_Aint disp_unit;
    tr_rkey_t key;                 /* CMA: its memory, for the shm transport's get/put
                                      (offsets from base; dynamic: absolute addresses) */
    rma_ctl_t *ctl;                /* its control block (local targets), else NULL */
    volatile uint64_t *posted_to_me;   /* PSCW: my posted[] slot for it */
    uint64_t posts_seen;           /* PSCW: its posts this process consumed */
    uint64_t am_ops;               /* AM: operations sent since the last flush */
    /* AM targets whose memory the network transport reaches (net.c) */
    int net;                       /* 1: puts and gets go by the network's own RMA */
    tr_iface_t *ntr;               /* the network interface and its address of the target
                                      (NULL until the first operation that needs them) */
    uint64_t naddr;
    tr_rkey_t nkey;                /* its window memory, registered (offsets from its base) */
    uint64_t net_pending;          /* reads and writes started and not yet complete */
    int net_err;                   /* the first failed write since the last drain (tr_status_t) */
    /* natomic windows: nkey and ckey are set for every target (this node's
     * and this rank too: they are reached through the network as well, ntr
     * and naddr from the first operation on), and its control block is
     * registered */
    tr_rkey_t ckey;
    /* dynamic windows: 1 when puts and gets may go by the network's RMA to
     * the regions of it whose keys the target gave (dkeys, forgotten at the
     * start of each epoch) */
    int dnet;
    rma_dkey_t *dkeys;
    int ndkeys, dkeys_cap;
    /* net targets: accumulates by network atomics were started and not
     * waited for since the last drain (the next accumulate-class operation
     * to it drains them first: accumulate ordering; flush_local too: their
     * results land in the caller's buffers) */
    int nacc_open;
    /* CMA targets of windows with request rings (w->sam, shmam.c) */
    int shm_local;                 /* its index in the shared-memory transport */
    cr_adapt_t sam_adapt;          /* whether it is seen polling (core/adapt.h) */
    struct rma_sam_pend *sam_pend; /* requests of mine in its ring not yet settled */
    int sam_npend;
} rma_target_t;

/* What one rank of a window did, printed at MPI_Win_free with
 * COURIER_DEBUG=2 (win.c): where the time of one-sided operations across
 * nodes goes (each wait is about one network round trip). */
typedef struct {
    unsigned long acc_cpu;         /* accumulate-class calls done by the CPU's atomics */
    unsigned long acc_net;         /* ... by network atomics (calls, not pieces) */
    unsigned long acc_net_later;   /* ... of those, not waited for in the call */
    unsigned long word_net;        /* lock-word atomics over the network */
    unsigned long word_cpu;        /* lock-word atomics by the CPU */
    unsigned long am_msgs;         /* active-message requests sent */
    unsigned long waits;           /* times this rank waited for the network (round trips) */
    unsigned long sam_reqs;        /* small operations sent as requests to a target's ring */
    unsigned long sam_copies;      /* ... done by cross-memory copies instead (the target was
                                      seen not polling, or its ring was full) */
    unsigned long sam_back;        /* requests taken back (not looked at in time), done by copies */
    unsigned long sam_served;      /* requests of others this rank served */
} rma_stats_t;

/* What the core knows of every window: struct cr_win begins with it. */
struct cr_win {
    cr_win_head_t head;            /* handle, error handler */
    cr_comm_t *comm;               /* internal: the user's group, a context of its own */
    int rank, size;
    int flavor;                    /* MPI_WIN_FLAVOR_* */
    int model;                     /* MPI_WIN_UNIFIED */
    void *base;
    MPI_Aint wsize;
    int disp_unit_int;             /* for the MPI_WIN_DISP_UNIT attribute */
    MPI_Aint disp_unit;
    /* hints (info keys) */
    int no_locks, same_size, same_disp_unit, noncontig;
    int noncontig_hint;         /* alloc_shared_noncontig as last given (get_info): a
                                 * permission at allocation, so a later set_info changes
                                 * the hint reported, not the layout (noncontig) */
    char acc_ordering[64], acc_ops[32];
    char name[MPI_MAX_OBJECT_NAME];
    void *attrs;
    rma_target_t *t;               /* per window rank */
    /* the node segment */
    char *seg;
    size_t seg_bytes;
    int seg_shared;                /* 1: a shared file mapping, 0: private memory */
    int nlocal, my_local;
    size_t ctl_stride;             /* bytes per rank's control block + posted[] + dyn[] */
    rma_ctl_t *me;                 /* my control block */
    int dyn_max;
    /* epochs */
    int fence_open;                /* a fence opened an epoch (not MPI_MODE_NOSUCCEED); a lock,
                                    * lock_all or start ends it */
    int lock_all;                  /* MPI_Win_lock_all is in force */
    int nlocks;                    /* targets locked with MPI_Win_lock */
    int *start_ranks, nstart;      /* PSCW access group (window ranks); nstart -1: none */
    int exposed;                   /* PSCW exposure epoch open */
    uint64_t complete_expect;      /* PSCW: completes the waits so far expect */
    int am_targets;                /* targets reached through AM */
    int first_err;                 /* AM: an error a target reported, for the next sync */
    int win_id;                    /* AM: this window's context id (same at every rank) */
    struct cr_win *next;           /* the list of windows (AM lookup) */
    struct rma_am_win *am;         /* AM: this rank's listening state (am.c), or NULL */
    tr_rkey_t net_key;             /* net.c: this rank's window memory, registered */
    int net_keyed;                 /* net_key holds a registration to release */
    int net_targets;               /* targets with net set */
    /* net.c: network atomics (decided at creation, the same at every rank) */
    int natomic;                   /* accumulates on nat_types go by network atomics */
    int nlock;                     /* lock words are taken by network atomics */
    uint32_t nat_types;            /* bit per tr_atype_t */
    tr_rkey_t net_ckey;            /* this rank's control block, registered */
    int net_ckeyed;
    rma_dkey_t *dyn_regs;          /* dynamic: this rank's attached regions, registered (by
                                      slot; NULL when the network does not reach them) */
    /* CPU atomics on this node (decided at creation, the same at every rank
     * of the node; see rma_cpu_type) */
    int catomic;                   /* accumulates on rma_cpu_type elements of this node's
                                      targets by the CPU's atomic instructions, from every
                                      origin on the node and the targets' own handlers */
    int clock;                     /* nlock windows: the lock words of this node's ranks
                                      by the CPU's atomics (the network's are the CPU's) */
    int cself;                     /* natomic windows without catomic (MPI_Win_create memory
                                      that this node's other ranks reach by copies): this
                                      rank's accumulate-class operations on its own memory, on
                                      the types the network's atomics do, by the CPU's atomics
                                      (the network's are the CPU's), not through the network */
    /* what MPI_Win_flush's short way (fast.h) must fence: RMA_DSTORES, plain
     * stores into mapped target memory since the last fence (every
     * operation but gets and the accumulates by the CPU's atomics, which are
     * locked instructions, sets it); RMA_DFENCE_ALWAYS (MPI_Win_allocate_shared
     * windows, whose memory the ranks also load and store themselves) */
    uint8_t dstores;
    rma_stats_t stats;
    /* shmam.c: small operations to this node's CMA targets as requests in a
     * ring of each rank's control area that its progress engine serves */
    int sam;                       /* the rings exist (the same at every rank of the node) */
    size_t sam_off;                /* the ring's offset in a rank's control area */
    size_t sam_slot_bytes;         /* one slot: header and rma_shm_am_max bytes */
    size_t sam_res_bytes;          /* one origin's result area: header and rma_shm_am_max bytes */
    uint32_t sam_nslots;
    uint64_t sam_head;             /* my ring: the next ticket to serve ... */
    volatile uint64_t *sam_headw;  /* ... and its slot's word */
    struct cr_win *sam_next;       /* the windows whose rings this rank serves */
    uint64_t word_pending;         /* nlock: lock-word releases in flight (net.c) */
    int word_err;                  /* ... the first of them that failed (tr_status_t) */
};

/* Segment layout: the node's control blocks, then (allocate flavours) data. */
static inline rma_ctl_t *rma_ctl_at(cr_win_t *w, int local)
{
    return (rma_ctl_t *)(w->seg + 4096 + (size_t)local * w->ctl_stride);
}
static inline volatile uint64_t *rma_posted(cr_win_t *w, int local)
{
    return (volatile uint64_t *)((char *)rma_ctl_at(w, local) + sizeof(rma_ctl_t));
}
static inline rma_dyn_t *rma_dyn(cr_win_t *w, int local)
{
    return (rma_dyn_t *)((char *)rma_posted(w, local) + (size_t)w->size * 8);
}

/* 1 when [a, e) lies in the union of the first n regions of d (adjacent
 * attached regions together hold an operation that spans them). */
static inline int rma_dyn_covers(const rma_dyn_t *d, uint64_t n, uint64_t a, uint64_t e)
{
    for (int moved = 1; a < e && moved;) {
        moved = 0;
        for (uint64_t i = 0; i < n && a < e; i++) {
            uint64_t sz = __atomic_load_n(&d[i].size, __ATOMIC_ACQUIRE);
            if (sz && a >= d[i].base && a < d[i].base + sz) {
                a = d[i].base + sz;
                moved = 1;
            }
        }
    }
    return a >= e;
}

/* Basic types whose elements accumulate-class operations may update with the
 * CPU's atomic instructions (w->catomic): integers (C, fixed-size, Fortran,
 * MPI_AINT/OFFSET/COUNT, byte, char, bool and logicals) of 1, 2, 4 or 8
 * bytes, float and double (C and Fortran), the 2-byte floats; not long
 * double, complex types or pairs, which keep the accumulate lock. */
static inline int rma_cpu_type(cr_basic_t b)
{
    if (b == CR_B_NONE || b == CR_B_LDOUBLE || b == CR_B_PACKED || b >= CR_B_FLOAT_INT ||
        (b >= CR_B_FCOMPLEX && b <= CR_B_LDCOMPLEX) || b == CR_B_F_COMPLEX ||
        b == CR_B_F_DCOMPLEX || (b >= CR_B_F_COMPLEX8 && b <= CR_B_F_COMPLEX32) ||
        b == CR_B_F_COMPLEX4 || b == CR_B_F_CHARACTER)
        return 0;
    size_t n = cr_basic_size(b);
    return n == 1 || n == 2 || n == 4 || n == 8;
}

/* ---- win.c ---------------------------------------------------------------- */
/* The window that AM traffic names by id, or NULL. */
cr_win_t *rma_win_by_id(int id);

/* ---- sync.c ---------------------------------------------------------------- */
/* Accumulate lock of a target (local control block): spin with progress. */
void rma_acc_lock(rma_ctl_t *c);
void rma_acc_unlock(rma_ctl_t *c);
/* Try the passive-target lock word: 1 when taken. */
int rma_lock_try(volatile uint64_t *word, int type);
void rma_lock_release(volatile uint64_t *word, int type);

/* ---- ops.c ---------------------------------------------------------------- */
/* The contiguous runs of count elements of dt from their base, in type-map
 * order (so the runs' bytes in order are the packed stream): cb(arg, offset,
 * length) for each, adjacent runs merged. */
void rma_dt_runs(MPI_Aint count, const cr_datatype_t *dt,
                 void (*cb)(void *arg, MPI_Aint off, size_t len), void *arg);
/* Apply an accumulate-class operation to target memory at t (in this
 * process's address space): the old packed values go to old (may be NULL),
 * then the origin's packed values in are combined with op (MPI_REPLACE,
 * MPI_NO_OP included).  Caller holds the accumulate lock. */
void rma_acc_local(char *t, MPI_Aint tcount, cr_datatype_t *tdt, const cr_op_t *op,
                   const void *in, void *old);
/* Apply an accumulate-class operation to the n consecutive elements of basic
 * type b (of 1, 2, 4 or 8 bytes) at p, each by one of the CPU's atomic
 * instructions (a load for MPI_NO_OP, a store or an exchange for
 * MPI_REPLACE, fetch-and-add or -and/-or/-xor on integers, else a
 * compare-and-swap loop), as the software atomics of libfabric's providers
 * do: op with the packed operands in (NULL for MPI_NO_OP), or
 * compare-and-swap with the packed compare values cmp (op ignored); the old
 * values to old (may be NULL).  Atomic per element with the network's
 * atomics on the same memory and with other CPUs doing the same, without the
 * accumulate lock (origins on the target's node on catomic windows, and the
 * target's side of an accumulate that came by message, am.c). */
void rma_acc_atomic_elems(char *p, size_t n, cr_basic_t b, const cr_op_t *op, const char *in,
                          const char *cmp, char *old);

/* ---- net.c ------------------------------------------------------------------ */
/* Puts and gets over the network transport's own RMA for AM targets whose
 * window memory is registered (rma_target_t.net).  rma_net_init is collective
 * over the window (after the paths are chosen): registers this rank's memory
 * [mem, mem + bytes) and learns the others' keys; it does nothing where
 * COURIER_RMA_OFI_NATIVE=0, the network cannot do one-sided operations, or
 * the window is dynamic.  rma_net_fini releases the registration. */
int rma_net_init(cr_win_t *w, void *mem, size_t bytes);
void rma_net_fini(cr_win_t *w);
/* Move the packed stream (bytes bytes) to (write) or from the target's
 * (tcount, tdt) at byte offset `at` from its window base.  A put has copied
 * the stream when it returns and completes at the next rma_net_drain; a get
 * has its data when it returns.  MPI_SUCCESS or an error code. */
int rma_net_move(cr_win_t *w, int rank, MPI_Aint at, MPI_Aint tcount, cr_datatype_t *tdt,
                 void *stream, size_t bytes, int write, const tr_rkey_t *key);
/* Wait until every put and get to rank is complete at the target; reports a
 * put that failed since the last drain.  Nothing to do for non-net targets. */
int rma_net_drain(cr_win_t *w, int rank);
/* 1 when an operation on (tcount, tdt) to a target on another node is better
 * sent by active messages than done by the network itself: it would take
 * more than COURIER_RMA_NET_MAX_CALLS network calls (a read or a write per
 * contiguous run of the target datatype; for an accumulate, atomic 1, a
 * vector atomic per caps.atomic_segs runs).  Accumulates only where the
 * network's atomics are the CPU's (TR_CAP_ATOMIC_CPU), with which the
 * target's element-wise compare-and-swap (rma_acc_atomic_elems) is atomic. */
int rma_net_fragmented(MPI_Aint tcount, const cr_datatype_t *tdt, int atomic);
/* Network atomics.  rma_net_init also decides, collectively, w->natomic
 * (where COURIER_RMA_OFI_ATOMICS=1, the network has atomics, and every rank
 * could register its control block and can reach every rank, itself
 * included; the connection to a target is made at the first operation to it)
 * and w->nlock (natomic and 64-bit compare-and-swap and fetch-and-add).
 * rma_net_atomic_type: 1 when accumulate-class operations on basic type b
 * go by network atomics on w (every op MPI allows on it is covered).
 * rma_net_acc: the accumulate-class operation on the target's (tcount, tdt)
 * at byte offset `off` from its window base: op with the packed operands in
 * (NULL for MPI_NO_OP), or compare-and-swap when cmp is not NULL (op
 * ignored); the old values, packed, to old (may be NULL).  Complete at the
 * target when it returns; except, with defer (the caller's old is where the
 * results go, and may be filled as late as the next flush), to a net target
 * on another node: then in and cmp are copied and it completes at the next
 * rma_net_drain (t->nacc_open says so; the next accumulate-class operation
 * to the target, and flush_local, drain first); runs of the target datatype
 * go several to one vector atomic where the transport has them.
 * rma_net_lock / rma_net_unlock: take (with back-off) or release (not
 * waited for, see rma_net_quiesce) the passive-target lock word of rank by
 * network atomics (nlock windows; the caller completed the operations
 * before unlocking). */
int rma_net_atomic_type(cr_win_t *w, cr_basic_t b);
int rma_net_acc(cr_win_t *w, int rank, MPI_Aint off, MPI_Aint tcount, cr_datatype_t *tdt,
                const cr_op_t *op, const void *in, const void *cmp, void *old, int defer);
int rma_net_lock(cr_win_t *w, int rank, int type);
int rma_net_unlock(cr_win_t *w, int rank, int type);
/* MPI_Win_lock_all / unlock_all on nlock windows: the shared lock of every
 * rank taken with the atomics to all of them in flight at once, one round
 * trip rather than one per rank; released likewise (the caller completed
 * the operations first).  The lock words of this node's ranks by the CPU on
 * clock windows (as in rma_net_lock).  Releases (these and rma_net_unlock)
 * are not waited for: rma_net_quiesce waits for them all and reports a
 * failed one (MPI_Win_free calls it before its barrier). */
int rma_net_lock_all(cr_win_t *w);
int rma_net_unlock_all(cr_win_t *w);
int rma_net_quiesce(cr_win_t *w);
/* 1 when the network transport's atomics are done by the CPU's atomic
 * instructions in the target's process (TR_CAP_ATOMIC_CPU), so that this
 * node's origins may use the CPU's on the same words (w->catomic,
 * w->clock). */
int rma_net_atomic_cpu(void);
/* Dynamic windows over the network.  rma_net_dyn_attach registers the region
 * attached in slot (when it fails, origins use active messages for it);
 * rma_net_dyn_detach releases it.  rma_net_dyn_lookup (target side): the
 * registered region holding address a, as out = {base, size, key w[0],
 * key w[1]}, size 0 when none.  rma_net_dyn_find (origin side): the
 * target's registered region that holds [a, e), asked of the target on
 * first use (rma_am_key) and remembered until rma_net_dyn_forget (called
 * at the start of each epoch); *out NULL when there is none (use active
 * messages).  MPI_SUCCESS or an error code. */
void rma_net_dyn_attach(cr_win_t *w, int slot, void *base, size_t size);
void rma_net_dyn_detach(cr_win_t *w, int slot);
void rma_net_dyn_lookup(cr_win_t *w, uint64_t a, uint64_t out[4]);
int rma_net_dyn_find(cr_win_t *w, int rank, uint64_t a, uint64_t e, const rma_dkey_t **out);
void rma_net_dyn_forget(cr_win_t *w);

/* ---- shmam.c ---------------------------------------------------------------- */
/* Small operations to a target on this node whose memory is its own
 * (RMA_CMA: MPI_Win_create, dynamic) as requests in a ring of the target's
 * control area, which the target's progress engine serves while it polls;
 * where it does not (judged as core/adapt.h does for rendezvous), an origin
 * takes back what the target has not looked at and does it by cross-memory
 * copies, which need nothing of the target (docs/rma.md).
 * rma_sam_bytes: the ring's bytes in each control area (0: no rings; sets
 * w->sam and the ring's geometry; before the segment is laid out).
 * rma_sam_init: after the segment is mapped, before the window's barrier:
 * this rank's ring emptied, its serving started.  rma_sam_fini: stop. */
size_t rma_sam_bytes(cr_win_t *w, int flavor);
void rma_sam_init(cr_win_t *w);
void rma_sam_fini(cr_win_t *w);
/* Kinds of request. */
enum { RMA_SAM_PUT = 1, RMA_SAM_GET, RMA_SAM_ACC };
/* Try one operation on the contiguous bytes [at, at + bytes) of target rank
 * (at: offset from its key, as op_range gives for RMA_CMA): a put of in, a
 * get into out, or an accumulate-class operation (op with in, NULL for
 * MPI_NO_OP; compare-and-swap when cmp is not NULL, op ignored; old values to
 * out, may be NULL) on elements of basic type b.  Returns 1 when it went as
 * a request (data-returning ones are complete: out is filled; *err says how
 * it went), 0 when the caller must do it by copies (every earlier request to
 * rank is complete then). */
int rma_sam_op(cr_win_t *w, int rank, int kind, MPI_Aint at, size_t bytes, cr_basic_t b,
               const cr_op_t *op, const void *in, const void *cmp, void *out, int *err);
/* Complete every request of this process to rank (flush, unlock, fence,
 * complete; and before any copy to it, which must not overtake them). */
int rma_sam_settle_slow(cr_win_t *w, int rank);
static inline int rma_sam_settle(cr_win_t *w, int rank)
{
    return CR_UNLIKELY(w->t[rank].sam_npend) ? rma_sam_settle_slow(w, rank) : MPI_SUCCESS;
}

/* ---- am.c ------------------------------------------------------------------- */
/* 1 when the target's handler applies accumulates on basic type b element by
 * element with the CPU's atomics (the types other origins update so: network
 * atomics, or CPU atomics on catomic windows), 0 under its accumulate lock. */
int rma_am_acc_by_atomics(cr_win_t *w, cr_basic_t b);
/* Operations through active messages (RMA_AM targets).  Each returns
 * MPI_SUCCESS or an error code; data-returning ones complete when the reply
 * has arrived (done is set). */
/* Start / stop serving requests on w (collective; every rank of a window
 * that spans nodes listens). */
int rma_am_init(cr_win_t *w);
void rma_am_fini(cr_win_t *w);
int rma_am_put(cr_win_t *w, int target, const void *packed, size_t bytes, MPI_Aint disp,
               MPI_Aint tcount, cr_datatype_t *tdt);
int rma_am_get(cr_win_t *w, int target, void *packed, size_t bytes, MPI_Aint disp,
               MPI_Aint tcount, cr_datatype_t *tdt, volatile int *done);
int rma_am_acc(cr_win_t *w, int target, const void *packed, size_t bytes, void *old,
               MPI_Aint disp, MPI_Aint tcount, cr_datatype_t *tdt, const cr_op_t *op,
               int cas, volatile int *done);
/* Flush every operation sent to target (remote completion). */
int rma_am_flush(cr_win_t *w, int target);
/* Passive-target lock / unlock at a remote target (waits for the grant). */
int rma_am_lock(cr_win_t *w, int target, int type);
int rma_am_unlock(cr_win_t *w, int target, int type);
/* PSCW signals to a remote rank: a post (to an origin), a complete (to a target). */
int rma_am_post(cr_win_t *w, int origin);
int rma_am_complete(cr_win_t *w, int target);
/* Ask target for the registered region of its dynamic window that holds
 * address a: out as rma_net_dyn_lookup gives it. */
int rma_am_key(cr_win_t *w, int target, uint64_t a, uint64_t out[4]);
/* Wait, with progress, until *flag is set. */
void rma_wait_flag(volatile int *flag);
#endif
