/* SPDX-License-Identifier: MIT */
/* Courier's core: MPI objects and the internal interfaces between the layers.
 *
 * Conventions
 * - Every MPI function MPI_X is generated in src/binding/ (by maint/gen_bindings.py).
 *   The generated PMPI_X checks its arguments, turns handles into objects and
 *   calls the core entry that the core declares in src/<layer>/api*.h (see
 *   src/core/api.h for the conventions).  An entry returns MPI_SUCCESS or an
 *   error code made by cr_error(); the binding hands a non-zero code to the
 *   object's error handler.
 * - Handles follow the MPICH ABI: bits 31-30 storage (1 builtin, 3 user object),
 *   bits 29-26 object kind, bits 25-0 index.
 */
#ifndef COURIER_CORE_H
#define COURIER_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include "mpi.h"
#include "transport/transport.h"

#define CR_LIKELY(x) __builtin_expect_with_probability(!!(x), 1, 0.9999)
#define CR_UNLIKELY(x) __builtin_expect_with_probability(!!(x), 0, 0.9999)
#define CR_HIDDEN __attribute__((visibility("hidden")))

/* ---- the form of a call ----------------------------------------------------
 * One core entry serves a family of MPI procedures (MPI_Bcast, MPI_Ibcast,
 * MPI_Bcast_init and their _c forms all call core_bcast): `how` says which. */
typedef enum { CR_BLOCKING = 0, CR_NONBLOCKING = 1, CR_PERSISTENT = 2 } cr_how_t;

/* An array argument of either width (int for the int forms; MPI_Aint or
 * MPI_Count for displacements and the large-count forms), read with
 * cr_vec_get.  CR_VEC(a) wraps an array, CR_VEC_NONE is the absent one. */
typedef struct {
    const void *p;
    int wide;                  /* 8-byte elements */
} cr_vec_t;
#define CR_VEC(a) ((cr_vec_t){ (const void *)(a), sizeof(*(a)) == 8 })
#define CR_VEC_NONE ((cr_vec_t){ NULL, 0 })
static inline MPI_Count cr_vec_get(cr_vec_t v, MPI_Aint i)
{
    return v.wide ? (MPI_Count)((const int64_t *)v.p)[i] : (MPI_Count)((const int *)v.p)[i];
}

/* ---- handles ------------------------------------------------------------ */
enum { CR_ST_INVALID = 0, CR_ST_BUILTIN = 1, CR_ST_DIRECT = 2, CR_ST_USER = 3 };
enum {
    CR_K_COMM = 1, CR_K_GROUP = 2, CR_K_DATATYPE = 3, CR_K_FILE = 4, CR_K_ERRHANDLER = 5,
    CR_K_OP = 6, CR_K_INFO = 7, CR_K_WIN = 8, CR_K_KEYVAL = 9, CR_K_ATTR = 10,
    CR_K_REQUEST = 11, CR_K_SESSION = 14
};
#define CR_H_STORAGE(h) ((int)(((uint32_t)(h)) >> 30))
#define CR_H_KIND(h) ((int)((((uint32_t)(h)) >> 26) & 0xf))
#define CR_H_INDEX(h) ((int)(((uint32_t)(h)) & 0x03ffffff))
#define CR_H_MAKE(storage, kind, idx) \
    ((int)(((uint32_t)(storage) << 30) | ((uint32_t)(kind) << 26) | (uint32_t)(idx)))

/* A growable table of user objects of one kind: index -> pointer in two loads.
 * Its storage never moves: a fixed directory of fixed-size chunks, a chunk
 * allocated when first needed and kept until the process ends.  So a thread
 * may look an object up (cr_objtab_get: the argument checks of the bindings
 * do, before the library lock is taken) while another thread adds or removes
 * other objects under the lock.  Those writers publish with release stores
 * (next last), the reader loads with acquire, which on x86 are the plain
 * loads the single-threaded path always made. */
#define CR_OBJTAB_CHUNK 1024
#define CR_OBJTAB_MAXCHUNKS 4096
typedef struct {
    void **chunks[CR_OBJTAB_MAXCHUNKS];
    int next;         /* first never-used index */
    int *free_list;   /* stack of released indices (under the library lock) */
    int nfree, free_cap;
} cr_objtab_t;
/* Store obj and return its index (>= 0), or -1 when out of memory.  Under the
 * one lock that all of the table's writers take: the library lock, or for
 * cr_request_tab, whose slots the channel path adds beside it, request.c's
 * leaf lock (or without threads). */
int cr_objtab_add(cr_objtab_t *t, void *obj);
/* The object at idx, or NULL when idx is not a live entry.  Safe without the
 * lock while other threads add and remove other entries.  Always inlined
 * (with cr_request_ptr and cr_chk_comm): GCC's LTO had made it a call, which
 * cost every MPI_Wait 20 instructions and MPI_Waitall 28 per request checked. */
static inline __attribute__((always_inline)) void *cr_objtab_get(const cr_objtab_t *t, int idx)
{
    if (CR_UNLIKELY(idx < 0 || idx >= __atomic_load_n(&t->next, __ATOMIC_ACQUIRE))) return NULL;
    void **c = __atomic_load_n(&t->chunks[idx / CR_OBJTAB_CHUNK], __ATOMIC_ACQUIRE);
    return c ? __atomic_load_n(&c[idx % CR_OBJTAB_CHUNK], __ATOMIC_ACQUIRE) : NULL;
}
/* Release idx for reuse (under the library lock, or without threads). */
void cr_objtab_remove(cr_objtab_t *t, int idx);

/* ---- error handlers and errors (src/core/error.c) ------------------------ */
typedef struct cr_errhandler {
    int handle;
    int refcount;        /* the user's handle (until freed) + one per object using it */
    int urefs;           /* the user's references (create, every get) until freed */
    int kind;            /* CR_K_COMM, CR_K_WIN, CR_K_FILE, CR_K_SESSION; 0: predefined */
    void (*fn)(void);    /* user function, cast to its kind's type at the call */
    int fortran;         /* a Fortran file handler: fn(INTEGER file, INTEGER code) */
} cr_errhandler_t;

/* Make an error code of class cls that carries a formatted message (kept in a
 * small ring, so MPI_Error_string(code) returns it later).  Returns the code;
 * MPI_Error_class(code) gives cls back. */
int cr_error(int cls, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand an error code to an error handler.  For MPI_ERRORS_ARE_FATAL and
 * MPI_ERRORS_ABORT it prints one line on stderr naming this rank, the call
 * (fname), the error class and the message, then ends the job; otherwise it
 * calls the user's function (if any) and returns code, whose MPI_Error_string
 * then names the call too (the first call a code was raised in). */
int cr_raise_comm(MPI_Comm comm, int code, const char *fname);
int cr_raise_win(MPI_Win win, int code, const char *fname);
int cr_raise_file(MPI_File file, int code, const char *fname);
/* Errors not tied to an object: after MPI_Init MPI_COMM_SELF's handler once the
 * program set one, else MPI_COMM_WORLD's (the MPI 3.1 rule); fatal before
 * MPI_Init, after MPI_Finalize and in the sessions model alone.  An invalid
 * communicator or window handle counts as no object. */
int cr_raise_none(int code, const char *fname);
/* The error class of a code. */
int cr_error_class(int code);
/* Abort the whole job (through the launcher) after printing msg (may be NULL). */
void cr_abort_job(int exitcode, const char *msg) __attribute__((noreturn));
cr_errhandler_t *cr_errhandler_ptr(MPI_Errhandler h);   /* NULL if invalid */
/* References: every object whose handler e is holds one (no-ops on the
 * predefined handlers). */
void cr_errhandler_retain(cr_errhandler_t *e);
/* A new user error handler of kind (CR_K_COMM, CR_K_WIN, CR_K_FILE) calling fn. */
int cr_errhandler_create(int kind, void (*fn)(void), MPI_Errhandler *out);
/* The same for a Fortran procedure (MPI_FILE_CREATE_ERRHANDLER from Fortran,
 * kind CR_K_FILE): it is called with the Fortran file handle (MPI_File_c2f)
 * and the error code, both INTEGERs by reference. */
int cr_errhandler_create_fortran(int kind, void (*fn)(void), MPI_Errhandler *out);
void cr_errhandler_release(cr_errhandler_t *e);

/* ---- objects of other files and later layers ------------------------------------
 * Info objects (info.h), sessions (session.h), windows (RMA) and files
 * (MPI-IO): their handles are looked up here so that the binding layer can
 * check them like every other handle. */
typedef struct cr_info cr_info_t;
typedef struct cr_win cr_win_t;
typedef struct cr_file cr_file_t;
/* What the core knows of a window (src/rma): struct cr_win begins with it, so
 * that the core raises a window's errors on the window's own handler. */
typedef struct {
    int handle;
    cr_errhandler_t *errh;     /* NULL: MPI_ERRORS_ARE_FATAL */
} cr_win_head_t;
typedef struct cr_session cr_session_t;
/* The window for a handle, or NULL when the handle is not a live window
 * (src/rma/win.c keeps the table).  Inline: every one-sided call looks its
 * window up, and MPI_Put + MPI_Win_flush of 8 bytes is some 30 instructions
 * on their short ways (docs/rma.md); storage and kind are the handle's top
 * six bits, tested at once. */
extern cr_objtab_t cr_win_tab;
static inline __attribute__((always_inline)) cr_win_t *cr_win_ptr(MPI_Win h)
{
    if (CR_LIKELY(((uint32_t)h >> 26) == ((uint32_t)CR_ST_USER << 4 | (uint32_t)CR_K_WIN)))
        return (cr_win_t *)cr_objtab_get(&cr_win_tab, CR_H_INDEX(h));
    return NULL;
}
cr_file_t *cr_file_ptr(MPI_File h);          /* NULL if invalid (src/io/file.c) */
/* The I/O layer keeps each file's error handler; the core reaches it here
 * (src/io/file.c): the slot holding it (one reference), and the handle. */
cr_errhandler_t **cr_file_errh_slot(cr_file_t *f);
MPI_File cr_file_handle(const cr_file_t *f);
/* MPI_FILE_NULL's error handler, which a new file takes, with a reference
 * for the caller (src/core/error.c). */
cr_errhandler_t *cr_file_errh_default(void);
cr_session_t *cr_session_ptr(MPI_Session h); /* NULL if invalid */
int cr_raise_session(MPI_Session session, int code, const char *fname);

/* ---- groups and communicators (src/core/group.c, comm.c) ----------------- */
typedef struct cr_group {
    int handle;          /* MPI_GROUP_NULL while the user holds no handle to it */
    int refcount;        /* every holder: communicators, sessions, the user's handles */
    int urefs;           /* how many of those references the user's handle holds */
    int size;
    int rank;            /* this process's rank in the group, or MPI_UNDEFINED */
    int *world;          /* world rank of each group rank */
} cr_group_t;

/* Context ids.  Each communicator has a base id; pt2pt traffic uses ctx+CR_CTX_PT2PT
 * and collective traffic ctx+CR_CTX_COLL, so the two never match each other. */
enum { CR_CTX_PT2PT = 0, CR_CTX_COLL = 1, CR_CTX_STRIDE = 2 };

typedef struct cr_comm {
    int handle;
    int refcount;
    int rank, size;
    uint32_t ctx;            /* base context id (even) */
    cr_group_t *group;       /* local group */
    cr_group_t *remote;      /* remote group of an intercommunicator, else NULL */
    cr_errhandler_t *errh;
    char name[MPI_MAX_OBJECT_NAME];
    void *attrs;             /* attribute list (issue: attributes) */
    void *topo;              /* topology (issue: topologies) */
    void *coll;              /* per-communicator collective state / selections */
    unsigned coll_seq;       /* sequence number of non-blocking and persistent collectives, for tags */
    unsigned coll_bseq;      /* sequence number of blocking collectives run as schedules, for tags */
    /* An intercommunicator's intracommunicator over its local group (no handle,
     * its own context), where the intercomm collectives run their local steps;
     * NULL for intracommunicators. */
    struct cr_comm *local_comm;
    cr_info_t *info;         /* hints from Comm_set_info / dup_with_info (a copy), or NULL */
    unsigned idup_seq;       /* MPI_Comm_idup calls started on this communicator */
    /* The node's shared-memory collective area of this communicator and its
     * state (src/coll/coll_shm.c); NULL until a collective first needs it. */
    void *coll_shm;
    /* How its traffic picks a channel (src/core/pt2pt.c), 0 until first used. */
    unsigned chan_sel;
    /* Set with chan_sel when all its traffic takes one channel (no hint
     * spreads it by tag or source): that channel (pt2pt.h, cr_chan_of). */
    struct cr_chan *chan_fixed;
    /* CR_COMM_ASSERT_*: the MPI 4 assertions its hints make (comm.c) */
    unsigned asserts;
} cr_comm_t;
enum { CR_COMM_ASSERT_NO_ANY_TAG = 1, CR_COMM_ASSERT_NO_ANY_SOURCE = 2 };

/* The node layer of an intracommunicator c, for hierarchical collectives
 * (src/coll/coll_hier.c); collective over c.  Every rank learns which node
 * each rank of c is on: node_of[r] (c->size entries, filled by the caller's
 * array) is the index of rank r's node, nodes numbered in the order of their
 * lowest rank in c; *nnodes is their number.  *node is a new internal
 * communicator (no handle, one reference for the caller) of the ranks of c
 * on this node, in c's rank order (so its rank 0 is the node's lowest rank
 * in c, the node's leader); *leaders is one over the leaders, in c's rank
 * order (rank k is node k's leader), on the leaders only (NULL elsewhere).
 * Nodes are those of MPI_Comm_split_type(MPI_COMM_TYPE_SHARED).  On error
 * nothing is made and *node, *leaders are NULL. */
int cr_comm_node_split(cr_comm_t *c, int *node_of, int *nnodes, cr_comm_t **node,
                       cr_comm_t **leaders);

/* Called by cr_comm_release for a communicator whose coll_shm is set: src/coll
 * sets it when it first makes such state, and it unmaps and frees it. */
extern void (*cr_comm_coll_shm_free)(cr_comm_t *c);

extern cr_comm_t cr_comm_world, cr_comm_self;
extern cr_objtab_t cr_comm_tab;
/* The communicator for a handle, or NULL when the handle is not a live communicator. */
static inline cr_comm_t *cr_comm_ptr(MPI_Comm h)
{
    if (CR_LIKELY(h == MPI_COMM_WORLD)) return &cr_comm_world;
    if (h == MPI_COMM_SELF) return &cr_comm_self;
    if (CR_H_STORAGE(h) == CR_ST_USER && CR_H_KIND(h) == CR_K_COMM)
        return (cr_comm_t *)cr_objtab_get(&cr_comm_tab, CR_H_INDEX(h));
    return NULL;
}
/* World rank of rank r of comm (r must be valid). */
static inline int cr_comm_world_rank(const cr_comm_t *c, int r)
{
    return (CR_UNLIKELY(c->remote != NULL) ? c->remote : c->group)->world[r];
}
cr_group_t *cr_group_ptr(MPI_Group h);   /* NULL if invalid; MPI_GROUP_EMPTY valid */

/* References.  A communicator or group lives while anything holds a
 * reference: the user's handle (MPI_Comm_free / MPI_Group_free drop it and
 * make the handle invalid at once), and every pending operation that keeps a
 * pointer to it (a non-blocking or persistent request, a collective schedule,
 * a communicator that uses the group).  Whoever stores the pointer retains
 * the object and releases it when done; the last release frees it.  The
 * predefined communicators and groups are never freed. */
void cr_comm_retain(cr_comm_t *c);
void cr_comm_release(cr_comm_t *c);
void cr_group_retain(cr_group_t *g);
void cr_group_release(cr_group_t *g);

/* ---- datatypes (src/core/datatype.c) ------------------------------------- */
/* Basic element kinds, for reductions and for MPI_Get_elements. */
typedef enum {
    CR_B_NONE = 0,
    CR_B_CHAR, CR_B_SCHAR, CR_B_UCHAR, CR_B_BYTE, CR_B_WCHAR, CR_B_SHORT, CR_B_USHORT,
    CR_B_INT, CR_B_UINT, CR_B_LONG, CR_B_ULONG, CR_B_LLONG, CR_B_ULLONG,
    CR_B_FLOAT, CR_B_DOUBLE, CR_B_LDOUBLE,
    CR_B_INT8, CR_B_INT16, CR_B_INT32, CR_B_INT64,
    CR_B_UINT8, CR_B_UINT16, CR_B_UINT32, CR_B_UINT64,
    CR_B_BOOL, CR_B_FCOMPLEX, CR_B_DCOMPLEX, CR_B_LDCOMPLEX,
    CR_B_AINT, CR_B_OFFSET, CR_B_COUNT, CR_B_PACKED,
    /* Fortran */
    CR_B_F_INTEGER, CR_B_F_REAL, CR_B_F_DOUBLE, CR_B_F_LOGICAL, CR_B_F_CHARACTER,
    CR_B_F_COMPLEX, CR_B_F_DCOMPLEX,
    CR_B_F_INTEGER1, CR_B_F_INTEGER2, CR_B_F_INTEGER4, CR_B_F_INTEGER8,
    CR_B_F_REAL4, CR_B_F_REAL8, CR_B_F_REAL16, CR_B_F_COMPLEX8, CR_B_F_COMPLEX16,
    CR_B_F_COMPLEX32,
    /* half precision and the later MPICH ABI's Fortran types */
    CR_B_FLOAT16, CR_B_BFLOAT16, CR_B_F_REAL2, CR_B_F_COMPLEX4, CR_B_F_INTEGER16,
    CR_B_F_LOGICAL1, CR_B_F_LOGICAL2, CR_B_F_LOGICAL4, CR_B_F_LOGICAL8, CR_B_F_LOGICAL16,
    /* value-index pairs for MINLOC/MAXLOC */
    CR_B_FLOAT_INT, CR_B_DOUBLE_INT, CR_B_LONG_INT, CR_B_SHORT_INT, CR_B_2INT,
    CR_B_LDOUBLE_INT, CR_B_F_2INTEGER, CR_B_F_2REAL, CR_B_F_2DOUBLE,
    CR_B_LB, CR_B_UB,
    CR_B_COUNT_OF_KINDS
} cr_basic_t;

typedef struct cr_datatype {
    int handle;
    int refcount;
    int committed;
    int builtin;              /* 1 for predefined types */
    cr_basic_t basic;         /* the one basic kind all elements share, else CR_B_NONE */
    MPI_Count size;           /* bytes of data in one element */
    MPI_Aint lb, extent;      /* (ub = lb + extent) */
    MPI_Aint true_lb, true_extent;
    MPI_Count nbasic;         /* number of basic elements in one element */
    int contig;               /* one element is `size` contiguous bytes at lb, extent == size */
    const char *name_builtin;
    char name[MPI_MAX_OBJECT_NAME];
    void *desc;               /* flattened layout of non-contiguous types (issue: datatypes) */
    void *attrs;
} cr_datatype_t;

/* The datatype for a handle (predefined or user), or NULL when invalid.  The
 * predefined types are looked up inline (every send and receive does this). */
cr_datatype_t *cr_datatype_ptr_slow(MPI_Datatype h);
extern cr_datatype_t *cr_builtin_by_index[256];
static inline cr_datatype_t *cr_datatype_ptr(MPI_Datatype h)
{
    uint32_t u = (uint32_t)h;
    if (CR_LIKELY(CR_H_STORAGE(u) == CR_ST_BUILTIN && CR_H_KIND(u) == CR_K_DATATYPE)) {
        cr_datatype_t *d = cr_builtin_by_index[u & 0xff];
        return d && d->handle == h ? d : NULL;
    }
    return cr_datatype_ptr_slow(h);
}
/* The predefined datatypes whose element is `size` contiguous bytes from
 * its base (true_lb 0, true extent = size: every basic type, not the pairs
 * with padding), by the handle's low byte as cr_builtin_by_index: the handle
 * in the high 32 bits and the size in the low ones, 0 for the others.  One
 * load and one compare take a handle to its size on the short ways of the
 * one-sided calls (src/rma/fast.h). */
extern uint64_t cr_builtin_plain[256];
/* Size in bytes of a basic kind (0 for CR_B_NONE). */
size_t cr_basic_size(cr_basic_t b);

/* Copy count elements of dt from buf into the contiguous bytes at out (pack),
 * or from in into buf (unpack).  For contiguous types this is one memcpy. */
void cr_dt_pack(const void *buf, MPI_Aint count, const cr_datatype_t *dt, void *out);
/* Unpack stops after `bytes` packed bytes (a short message): the elements and
 * basic elements they cover are written, the rest of buf is untouched. */
void cr_dt_unpack(const void *in, size_t bytes, void *buf, MPI_Aint count, const cr_datatype_t *dt);
/* Segment-wise (resumable) forms, for pipelined transfers: move bytes
 * [offset, offset + max_bytes) of the packed stream of count elements of dt,
 * clipped at the stream's end, between the user buffer and out / in (which
 * holds exactly those bytes).  Any split of the stream into segments gives the
 * same bytes as one cr_dt_pack.  Return the number of bytes moved.  Cost: a
 * seek of one division and one binary search over a node's kids per level of
 * the type's loop tree (docs/datatypes.md), then the copy. */
size_t cr_dt_pack_seg(const void *buf, MPI_Aint count, const cr_datatype_t *dt, size_t offset,
                      void *out, size_t max_bytes);
size_t cr_dt_unpack_seg(void *buf, MPI_Aint count, const cr_datatype_t *dt, size_t offset,
                        const void *in, size_t bytes);
/* References: a pending operation or another object that keeps a pointer to
 * a derived type takes a reference, so MPI_Type_free only drops the user's
 * one; the last release frees the type.  No-ops on predefined types. */
void cr_dt_retain(cr_datatype_t *dt);
void cr_dt_release(cr_datatype_t *dt);

/* ---- reduction operations (src/core/op.c) -------------------------------- */
typedef struct cr_op {
    int handle;
    int refcount;
    int commute;
    int builtin;
    MPI_User_function *user_fn;        /* user ops */
    MPI_User_function_c *user_fn_c;    /* large-count user ops */
} cr_op_t;
cr_op_t *cr_op_ptr(MPI_Op h);           /* NULL if invalid */
/* References held by pending operations (no-ops on predefined ops): the last
 * release frees a user op that MPI_Op_free already dropped. */
void cr_op_retain(cr_op_t *o);
void cr_op_release(cr_op_t *o);
/* Is op defined on datatype? 0 yes, else an MPI_ERR_OP error code (via cr_error). */
int cr_op_check(const cr_op_t *op, const cr_datatype_t *dt);
/* inout[i] = in[i] op inout[i] for count elements of dt (MPI's order: in is the
 * earlier rank's operand). */
void cr_op_apply(const cr_op_t *op, const void *in, void *inout, MPI_Aint count,
                 const cr_datatype_t *dt);
/* out[i] = in[i] op in2[i] in one pass (what copying in2 to out and then
 * cr_op_apply(op, in, out) give, bit for bit), for the predefined ops and
 * kinds that have a three-operand kernel on a dense dt: 1 when done, else 0
 * and nothing is written (the caller copies and applies).  out must not
 * overlap in or in2. */
int cr_op_apply3(const cr_op_t *op, const void *in, const void *in2, void *out,
                 MPI_Aint count, const cr_datatype_t *dt);
/* The same for a predefined op (MPI_REPLACE and MPI_NO_OP included) on packed
 * streams of `bytes` bytes of basic elements of kind b (pairs unpadded). */
void cr_op_apply_packed(const cr_op_t *op, cr_basic_t b, const void *in, void *inout,
                        size_t bytes);

/* ---- requests and point-to-point (src/core/request.c, pt2pt.c) ----------- */
typedef enum {
    CR_REQ_SEND = 1, CR_REQ_RECV, CR_REQ_PREQ_SEND, CR_REQ_PREQ_RECV, CR_REQ_COLL,
    CR_REQ_GREQ, CR_REQ_MPROBE
} cr_req_kind_t;
enum { CR_MODE_STD = 0, CR_MODE_SYNC = 1, CR_MODE_READY = 2, CR_MODE_BUFFERED = 3 };

typedef struct cr_request cr_request_t;
struct cr_request {
    int handle;                /* MPI_REQUEST_NULL for internal requests with no handle */
    int slot;                  /* its index in cr_request_tab once it had a handle, else -1 */
    cr_req_kind_t kind;
    volatile int complete;     /* set (release) by the progress engine */
    int persistent, active;    /* persistent requests: active between Start and completion */
    int mode;                  /* CR_MODE_* for sends */
    int cancelled;             /* send: MPI_Cancel asked the receiver (pt2pt.c) */
    MPI_Status status;         /* for receives: source, tag, count, error */
    cr_comm_t *comm;
    uint32_t ctx;              /* context of the traffic (comm->ctx + CR_CTX_*) */
    int peer;                  /* comm rank of destination / source (may be MPI_ANY_SOURCE) */
    int tag;
    uint32_t wire_gen;         /* send: the generation in its message's id (pt2pt.c) */
    void *buf;
    MPI_Aint count;
    cr_datatype_t *dt;
    size_t bytes;              /* packed size of the message */
    void *tmp;                 /* packed copy for non-contiguous data */
    /* protocol state, owned by pt2pt.c */
    int proto_state;
    void *proto;               /* MPROBE: the cr_unexp_t; receive under memcheck: its
                                  buffer's saved definedness (pt2pt.c); persistent: unused */
    size_t done_bytes;         /* rendezvous: bytes moved so far */
    size_t msg_bytes;          /* receive: size of the matched message */
    int vpeer;                 /* peer number the protocol talks to, -1 before it knows */
    int detached;              /* free on completion (buffered sends, Request_free) */
    int err;                   /* error code to report at completion */
    int pending;               /* protocol steps still to finish (acks, transfers) */
    int src_rank;              /* send: this process's rank in comm (the message's source),
                                  so that a queued send needs no comm (it may be freed) */
    uint64_t remote_req;       /* the peer's request (rendezvous, sync ack) */
    uint64_t rts_seen_ns;      /* rendezvous receive: when its RTS arrived (pt2pt.h) */
    int rts_flags;             /* rendezvous receive: CR_RTS_* of its RTS */
    tr_rkey_t remote_key;      /* rendezvous: the peer's buffer */
    struct cr_chan *chan;      /* the channel that carries it */
    tr_comp_t comp;            /* completion of its transport operations */
    cr_request_t *child;       /* persistent: the operation started by MPI_Start;
                                  a buffered send's user request: the send that carries
                                  its message (an id only: it may be gone, pt2pt.c) */
    cr_request_t *next, *prev; /* queue links */
    /* collective schedule for CR_REQ_COLL (owned by src/coll) */
    void *sched;
    int (*poll)(cr_request_t *);   /* CR_REQ_COLL / GREQ: advance, return 1 when done */
    void (*on_free)(cr_request_t *);
    /* persistent requests of other layers (collectives): MPI_Start calls it to
     * start one run; it returns the run's request in *child */
    int (*start)(cr_request_t *, cr_request_t **child);
    struct cr_chan *home;      /* the channel whose pool it returns to, NULL: the global one */
} __attribute__((aligned(16)));   /* request.c clears it in 16-byte words */

extern cr_objtab_t cr_request_tab;
/* Allocate a request; with_handle!=0 gives it an MPI_Request handle. */
cr_request_t *cr_request_new(cr_req_kind_t kind, int with_handle);
/* Give it an MPI_Request handle (MPI_SUCCESS, or MPI_ERR_NO_MEM): an object
 * from the pool has its table slot already, a new one takes one
 * (cr_request_attach_slot, out of line). */
int cr_request_attach_slot(cr_request_t *r);
static inline int cr_request_attach_handle(cr_request_t *r)
{
    if (CR_UNLIKELY(r->slot < 0)) return cr_request_attach_slot(r);
    r->handle = CR_H_MAKE(CR_ST_USER, CR_K_REQUEST, r->slot);
    return MPI_SUCCESS;
}
void cr_request_free(cr_request_t *r);
/* A persistent point-to-point request (kind CR_REQ_PREQ_*) or an MPI_Message
 * (CR_REQ_MPROBE) takes a reference on its communicator here, so that
 * MPI_Comm_free may come first; cr_request_free releases it. */
void cr_request_hold_comm(cr_request_t *r, cr_comm_t *comm);
/* A request keeps its slot in cr_request_tab for its whole life in the pool
 * (no table update per operation); the slot is live while r->handle names it. */
static inline __attribute__((always_inline)) cr_request_t *cr_request_ptr(MPI_Request h)
{
    if (CR_H_STORAGE(h) == CR_ST_USER && CR_H_KIND(h) == CR_K_REQUEST) {
        cr_request_t *r = (cr_request_t *)cr_objtab_get(&cr_request_tab, CR_H_INDEX(h));
        return r && r->handle == h ? r : NULL;
    }
    return NULL;
}
/* The request goes on without its MPI_Request handle (Request_free of an
 * active request, a started buffered send). */
static inline void cr_request_drop_handle(cr_request_t *r)
{
    r->handle = MPI_REQUEST_NULL;
}

/* Internal point-to-point for collectives and other layers.  ctx_off is
 * CR_CTX_PT2PT or CR_CTX_COLL.  Counts are in elements of dt. */
int cr_isend(const void *buf, MPI_Aint count, cr_datatype_t *dt, int dest, int tag,
             cr_comm_t *comm, int ctx_off, int mode, cr_request_t **req);
int cr_irecv(void *buf, MPI_Aint count, cr_datatype_t *dt, int src, int tag,
             cr_comm_t *comm, int ctx_off, cr_request_t **req);
/* Wait for completion, fill status (may be MPI_STATUS_IGNORE), free the request
 * (internal requests) and return the request's error code. */
int cr_wait(cr_request_t *req, MPI_Status *status);
int cr_waitall(int n, cr_request_t **reqs);
int cr_send(const void *buf, MPI_Aint count, cr_datatype_t *dt, int dest, int tag,
            cr_comm_t *comm, int ctx_off);
int cr_recv(void *buf, MPI_Aint count, cr_datatype_t *dt, int src, int tag,
            cr_comm_t *comm, int ctx_off, MPI_Status *status);
int cr_sendrecv(const void *sbuf, MPI_Aint scount, cr_datatype_t *sdt, int dest, int stag,
                void *rbuf, MPI_Aint rcount, cr_datatype_t *rdt, int src, int rtag,
                cr_comm_t *comm, int ctx_off, MPI_Status *status);

/* Fast paths of MPI_Send, MPI_Isend and MPI_Recv for contiguous data, and of
 * MPI_Irecv for any (pt2pt.c): cr_send_fast and cr_recv_fast return 0 when
 * done, 1 when the caller must take the general path; cr_isend_fast returns a
 * complete request with a handle, cr_irecv_fast a started receive with a
 * handle (as MPI_Irecv's general path would make it), or NULL for the
 * general path. */
int cr_send_fast(const void *data, size_t bytes, int dest, int tag, cr_comm_t *comm);
cr_request_t *cr_isend_fast(const void *data, size_t bytes, int dest, int tag, cr_comm_t *comm);
cr_request_t *cr_irecv_fast(void *buf, MPI_Aint count, cr_datatype_t *dt, int src, int tag,
                            cr_comm_t *comm);
int cr_recv_fast(void *dst, size_t cap, int src, int tag, cr_comm_t *comm, MPI_Status *status);

/* ---- progress (src/core/progress.c) --------------------------------------- */
/* A poller: something the progress engine advances on every cr_progress()
 * (a channel and its transports, the non-blocking collectives; later RMA and
 * I/O).  poll returns how many events it handled (0: nothing happened).
 * can_sleep (may be NULL: always yes) says whether the process may sleep
 * until a peer's message wakes it, i.e. whether nothing in this poller moves
 * on without such a message.  active (set by its owner) says that the poller
 * has work under way; the MPI_Recv fast path only runs when no poller but
 * the channel's is active. */
typedef struct cr_poller {
    const char *name;
    int (*poll)(void *arg);
    int (*can_sleep)(void *arg);
    void *arg;
    int active;
    int registered;
} cr_poller_t;
/* Add p to the engine (once; again is a no-op) / take it out. */
void cr_progress_register(cr_poller_t *p);
void cr_progress_unregister(cr_poller_t *p);
/* Set p->active and keep the engine's count of active pollers. */
void cr_poller_set_active(cr_poller_t *p, int active);
/* Pollers other than the channels' with work under way (see active). */
extern int cr_progress_nactive;
/* Work that comes without a message, which a blocking wait must still see
 * where it polls only one peer's ring (MPI_Recv's fast path): requests that
 * origins put into the rings of this process's MPI_Win_create and dynamic
 * windows (src/rma/shmam.c sets it while it serves such rings).  NULL when
 * there is none: the wait pays one load and one well-predicted test per
 * idle poll, nothing when its message is there.  Else it returns nonzero
 * when such work waits, and the wait leaves for the general path, whose
 * polls run every poller. */
extern int (*cr_wait_side)(void);
/* Poll every poller once; returns how many events they handled. */
int cr_progress(void);

/* The waiting policy, one for every blocking loop in the library: spin for
 * COURIER_SPIN_COUNT idle polls (COURIER_SPIN_COUNT_OVERSUBSCRIBED when ranks
 * outnumber cores), then yield the core on every idle poll, and once idle for
 * COURIER_WAIT_SLEEP_US, sleep until a peer's message rings this process's
 * doorbell (where the transports can wake it and nothing else is pending).
 * A blocking loop keeps a cr_wait_t (CR_WAIT_INIT) and calls cr_wait_poll()
 * (progress, then the policy when nothing happened) until its condition holds. */
typedef struct {
    unsigned polls;          /* idle polls since the last event */
    int yielding;            /* past the spin phase */
    uint64_t idle_since_ns;  /* when the yield phase began */
    uint64_t sleep_ns;       /* how long the yield phase lasts before a sleep;
                                0: COURIER_WAIT_SLEEP_US (a loop that knows its
                                peer is descheduled sets it shorter; the phase
                                always has one yield) */
} cr_wait_t;
#define CR_WAIT_INIT { 0, 0, 0, 0 }
extern unsigned cr_wait_spin_limit;     /* polls before yielding (set at init) */
/* The slow part of cr_wait_idle: yield or sleep.  Returns the events a
 * last poll before sleeping found (0 when it yielded or slept). */
int cr_wait_idle_slow(cr_wait_t *w);
/* Call after a poll that found nothing; returns events found by the policy's
 * own poll (only when it considered sleeping; the caller then re-checks). */
static inline int cr_wait_idle(cr_wait_t *w)
{
    if (CR_LIKELY(++w->polls < cr_wait_spin_limit)) return 0;
    return cr_wait_idle_slow(w);
}
/* Leave the yield phase: clears w->yielding and publishes (shm_publish_idle,
 * through cr_wait_publish) that this process spins or works again. */
void cr_wait_leave(cr_wait_t *w);
/* What the policy calls when the process enters (1) or leaves (0) its yield
 * phase: init.c points it at shared memory's waiting word, which senders read
 * to tell a descheduled peer from a busy one (core/adapt.h); NULL: nothing. */
extern void (*cr_wait_publish)(int idle);
/* Call after a poll that did something: back to spinning. */
static inline void cr_wait_busy(cr_wait_t *w)
{
    w->polls = 0;
    if (CR_UNLIKELY(w->yielding)) cr_wait_leave(w);
}
/* Call when a blocking loop ends (its condition holds): a loop that ended in
 * its yield phase publishes that the process runs again. */
static inline void cr_wait_end(cr_wait_t *w)
{
    if (CR_UNLIKELY(w->yielding)) cr_wait_leave(w);
}
/* One round of a blocking loop: progress, and the policy when it found nothing. */
static inline void cr_wait_poll(cr_wait_t *w)
{
    if (cr_progress() > 0 || cr_wait_idle(w) > 0) cr_wait_busy(w);
}
/* Events all cr_progress() calls handled so far. */
extern unsigned long cr_progress_events;
/* A blocking loop whose poll happens inside another call (MPI_Testany,
 * MPI_Iprobe): before is cr_progress_events read before that call. */
static inline void cr_wait_after(cr_wait_t *w, unsigned long before)
{
    if (cr_progress_events != before || cr_wait_idle(w) > 0) cr_wait_busy(w);
}
/* The test calls (MPI_Test and its family, MPI_Iprobe, MPI_Improbe) share one
 * waiting state: a user's loop of test calls that find nothing, back to back
 * (less than COURIER_WAIT_TEST_GAP_US from one call's return to the next),
 * goes through the policy like a blocking call: past the spin phase each call
 * yields, and once idle for COURIER_WAIT_SLEEP_US it sleeps on the doorbell
 * for at most COURIER_WAIT_TEST_SLEEP_MAX_US.  A caller that works between its
 * calls never yields there (past the spin phase, one clock read per call; it
 * spins again after working longer than COURIER_WAIT_SLEEP_US). */
extern cr_wait_t cr_test_wait;
void cr_wait_test_slow(void);
/* Call at the end of a test call: before is cr_progress_events read before
 * its poll, done 1 when it found what it tested for. */
static inline void cr_wait_test(unsigned long before, int done)
{
    if (done || cr_progress_events != before) {
        if (CR_UNLIKELY(cr_test_wait.polls)) cr_wait_busy(&cr_test_wait);
        return;
    }
    if (CR_LIKELY(++cr_test_wait.polls < cr_wait_spin_limit)) return;
    cr_wait_test_slow();
}
/* Make progress until *flag becomes non-zero, with the waiting policy. */
void cr_progress_wait(volatile int *flag);

/* ---- process state (src/core/init.c) -------------------------------------- */
enum { CR_STATE_PRE_INIT = 0, CR_STATE_INIT = 1, CR_STATE_FINALIZED = 2 };
typedef struct {
    int state;               /* CR_STATE_*: the runtime, which the world model
                                (MPI_Init) or any session (MPI_Session_init) starts */
    int world_state;         /* CR_STATE_*: the world model alone (MPI_Initialized,
                                MPI_Finalized) */
    int nsessions;           /* sessions initialised and not yet finalized */
    int world_rank, world_size;
    int thread_level;
    int appnum;
    int universe_size;            /* MPI_UNIVERSE_SIZE, as the launcher states it */
    int universe_stated;          /* 0: the launcher did not say (the attribute is absent) */
    int job_id;                   /* this job, among jobs that dynamic processes connect
                                     (a hash of its PMI name) */
    int local_rank, local_size;   /* among the ranks on this node */
    int *local_of_world;          /* world rank -> local index, -1 when remote */
    int oversubscribed;           /* local_size > node_cpus (or forced) */
    int node_cpus;                /* CPUs the node's ranks may run on, together
                                   * (init.c, find_local_ranks) */
    uint32_t next_ctx;            /* next free context id, local view */
    char hostname[MPI_MAX_PROCESSOR_NAME];
} cr_proc_t;
extern cr_proc_t cr_proc;
/* The local index of a peer (a world rank, or a process of another job that
 * dynamic processes connected: never on this node's shared memory), -1 when
 * it is not on this node. */
static inline int cr_peer_local(int peer)
{
    return peer < cr_proc.world_size ? cr_proc.local_of_world[peer] : -1;
}

/* The job's name (its PMI key-value space): shared-memory names start with it. */
const char *cr_job_name(void);

/* Agree on a fresh base context id among the members of comm (collective over
 * comm); returns it. */
int cr_ctx_alloc(cr_comm_t *comm, uint32_t *ctx);

#endif
