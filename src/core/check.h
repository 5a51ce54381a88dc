/* SPDX-License-Identifier: MIT */
/* Argument checks used by the generated bindings (src/binding/bind_*.c).
 *
 * Each cr_chk_x returns 0 when its argument is valid, else an error code made
 * by cr_error() whose message names the argument and its value, e.g.
 * "dest=7: invalid rank (communicator size is 4)".  The valid case is inline
 * and costs a compare or two; the message is built out of line (check.c) only
 * when a check fails.  `arg` is the parameter's name in the C binding.
 */
#ifndef COURIER_CORE_CHECK_H
#define COURIER_CORE_CHECK_H

#include <limits.h>
#include <stdlib.h>
#include "core/core.h"
#include "core/info.h"
#include "core/topo.h"

/* The value of the MPI_TAG_UB attribute: every non-negative int is a valid tag. */
#define CR_TAG_UB INT_MAX

/* Specials a rank argument may also take (cr_chk_rank). */
enum { CR_RANK_PROC_NULL = 1, CR_RANK_ANY_SOURCE = 2 };

/* Out-of-line failure paths: they build the error code and message.  They are
 * noinline rather than cold: with `cold`, GCC 12's block partitioning moved
 * the whole valid path of MPI_Send (after the datatype and buffer checks) into
 * .text.unlikely; the CR_UNLIKELY hints at the call sites keep them off the
 * straight-line path anyway. */
int cr_chk_init_error(const char *fname) __attribute__((noinline));
int cr_chk_comm_fail(MPI_Comm h, const char *arg) __attribute__((noinline));
int cr_chk_count_fail(MPI_Count n, const char *arg) __attribute__((noinline));
int cr_chk_datatype_fail(MPI_Datatype h, const cr_datatype_t *dt, const char *arg) __attribute__((noinline));
int cr_chk_buffer_fail(MPI_Count n, const char *arg) __attribute__((noinline));
int cr_chk_rank_fail(const cr_comm_t *c, int r, const char *arg) __attribute__((noinline));
int cr_chk_root_fail(const cr_comm_t *c, int r, const char *arg) __attribute__((noinline));
int cr_chk_tag_fail(int tag, const char *arg) __attribute__((noinline));
int cr_chk_handle_fail(int cls, int h, const char *what, const char *arg) __attribute__((noinline));
int cr_chk_ptr_fail(const char *arg) __attribute__((noinline));
int cr_chk_file_fail(MPI_File h, const char *arg) __attribute__((noinline));
int cr_chk_alias_fail(const void *p, const char *arg, const char *other) __attribute__((noinline));
int cr_chk_in_place_fail(const char *arg) __attribute__((noinline));

/* A live communicator; *out receives its object. */
static inline __attribute__((always_inline)) int cr_chk_comm(MPI_Comm h, const char *arg,
                                                         cr_comm_t **out)
{
    cr_comm_t *c = cr_comm_ptr(h);
    if (CR_LIKELY(c != NULL)) {
        *out = c;
        return 0;
    }
    return cr_chk_comm_fail(h, arg);
}

/* A count (of elements, requests, ...) must not be negative. */
static inline int cr_chk_count(MPI_Count n, const char *arg)
{
    return CR_LIKELY(n >= 0) ? 0 : cr_chk_count_fail(n, arg);
}

/* A valid datatype; committed when need_commit (communication, packing). */
static inline __attribute__((always_inline)) int cr_chk_datatype(MPI_Datatype h, const char *arg, int need_commit,
                                  cr_datatype_t **out)
{
    cr_datatype_t *dt = cr_datatype_ptr(h);
    if (CR_LIKELY(dt != NULL && (!need_commit || dt->committed || dt->builtin))) {
        *out = dt;
        return 0;
    }
    return cr_chk_datatype_fail(h, dt, arg);
}

/* As cr_chk_datatype, for the point-to-point calls: MPI_DATATYPE_NULL is
 * also taken for an empty buffer (count n == 0), as MPICH takes it, and then
 * stands for MPI_BYTE.  That is decided only after the fast check failed, so
 * the valid case costs what cr_chk_datatype costs. */
static inline __attribute__((always_inline)) int cr_chk_datatype_or_empty(MPI_Datatype h,
    MPI_Count n, const char *arg, int need_commit, cr_datatype_t **out)
{
    cr_datatype_t *dt = cr_datatype_ptr(h);
    if (CR_LIKELY(dt != NULL && (!need_commit || dt->committed || dt->builtin))) {
        *out = dt;
        return 0;
    }
    if (h == MPI_DATATYPE_NULL && n == 0) {
        *out = cr_datatype_ptr(MPI_BYTE);
        return 0;
    }
    return cr_chk_datatype_fail(h, dt, arg);
}

/* A NULL buffer is an error when it holds data of a predefined datatype
 * (derived types may address memory absolutely, from MPI_BOTTOM). */
static inline int cr_chk_buffer(const void *buf, MPI_Count n, const cr_datatype_t *dt,
                                const char *arg)
{
    if (CR_UNLIKELY(buf == NULL) && n > 0 && dt != NULL && dt->builtin)
        return cr_chk_buffer_fail(n, arg);
    return 0;
}

/* The address of block `index` of a buffer of datatype dt (the receive
 * address a collective's send data must not be, cr_chk_alias). */
static inline const void *cr_chk_block(const void *buf, MPI_Aint index, const cr_datatype_t *dt)
{
    return dt ? (const char *)buf + index * dt->extent : buf;
}

/* A collective's send data must not lie where it receives (`other` says
 * where that is: "recvbuf", "this process's block of recvbuf"): MPI_IN_PLACE
 * says so.  MPI_ERR_BUFFER when data == recv and n (the elements, or a
 * condition under which the two may overlap) is not 0; NULL (MPI_BOTTOM:
 * addresses in the datatypes) is not compared. */
static inline int cr_chk_alias(const void *data, const void *recv, MPI_Count n, const char *arg,
                               const char *other)
{
    if (CR_UNLIKELY(data == recv) && n != 0 && data != MPI_IN_PLACE && data != NULL)
        return cr_chk_alias_fail(data, arg, other);
    return 0;
}

/* A buffer that may not be MPI_IN_PLACE (MPI_Reduce_local's). */
static inline int cr_chk_not_in_place(const void *buf, const char *arg)
{
    return CR_UNLIKELY(buf == MPI_IN_PLACE) ? cr_chk_in_place_fail(arg) : 0;
}

/* Size of the group a rank argument of communicator c points into (the remote
 * group of an intercommunicator). */
static inline int cr_chk_peer_size(const cr_comm_t *c)
{
    return CR_UNLIKELY(c->remote != NULL) ? c->remote->size : c->size;
}

/* A peer rank of c, or one of the specials allowed by flags (CR_RANK_*). */
static inline int cr_chk_rank(const cr_comm_t *c, int r, int flags, const char *arg)
{
    if (CR_LIKELY((unsigned)r < (unsigned)cr_chk_peer_size(c))) return 0;
    if (r == MPI_PROC_NULL && (flags & CR_RANK_PROC_NULL)) return 0;
    if (r == MPI_ANY_SOURCE && (flags & CR_RANK_ANY_SOURCE)) return 0;
    return cr_chk_rank_fail(c, r, arg);
}

/* The root of a collective: a rank of c; for an intercommunicator a rank of the
 * remote group, MPI_ROOT or MPI_PROC_NULL. */
static inline int cr_chk_root(const cr_comm_t *c, int r, const char *arg)
{
    if (CR_LIKELY((unsigned)r < (unsigned)cr_chk_peer_size(c))) return 0;
    if (c->remote && (r == MPI_ROOT || r == MPI_PROC_NULL)) return 0;
    return cr_chk_root_fail(c, r, arg);
}

/* Is this process the root (whose root-only arguments are significant)? */
static inline int cr_chk_is_root(const cr_comm_t *c, int root)
{
    return c->remote ? root == MPI_ROOT : root == c->rank;
}

/* Are a rooted collective's non-root arguments significant here?  Always on an
 * intracommunicator; on an intercommunicator not at the processes of the
 * root's group that are not the root (root == MPI_PROC_NULL), nor, unless
 * root_data (MPI_Bcast's buffer), at the root itself (root == MPI_ROOT). */
static inline int cr_chk_contributes(const cr_comm_t *c, int root, int root_data)
{
    if (!c->remote) return 1;
    return root != MPI_PROC_NULL && (root_data || root != MPI_ROOT);
}

/* 0 .. CR_TAG_UB, and MPI_ANY_TAG where any_tag is set (receives, probes). */
static inline int cr_chk_tag(int tag, int any_tag, const char *arg)
{
    if (CR_LIKELY(tag >= 0) || (any_tag && tag == MPI_ANY_TAG)) return 0;
    return cr_chk_tag_fail(tag, arg);
}

/* An array of n datatype handles, each valid (and committed when need_commit):
 * *out receives their objects, in stack when n <= CR_DT_ARRAY_STACK, else in
 * a new array that cr_dt_array_free releases. */
enum { CR_DT_ARRAY_STACK = 16 };
int cr_chk_datatypes(int n, const MPI_Datatype h[], const char *arg, int need_commit,
                     cr_datatype_t **stack, cr_datatype_t ***out);
static inline void cr_dt_array_free(cr_datatype_t **a, cr_datatype_t **stack)
{
    if (a != stack) free(a);
}

static inline int cr_chk_op(MPI_Op h, const char *arg, cr_op_t **out)
{
    cr_op_t *o = cr_op_ptr(h);
    if (CR_LIKELY(o != NULL)) {
        *out = o;
        return 0;
    }
    return cr_chk_handle_fail(MPI_ERR_OP, h, "operation", arg);
}

/* A request handle passed by value: live (*out its request) or
 * MPI_REQUEST_NULL (*out NULL). */
static inline int cr_chk_request(MPI_Request h, const char *arg, cr_request_t **out)
{
    if (h == MPI_REQUEST_NULL) {
        *out = NULL;
        return 0;
    }
    cr_request_t *r = cr_request_ptr(h);
    if (CR_LIKELY(r != NULL)) {
        *out = r;
        return 0;
    }
    return cr_chk_handle_fail(MPI_ERR_REQUEST, h, "request", arg);
}

/* An array of n request handles, each live or MPI_REQUEST_NULL. */
int cr_chk_requests_fail(MPI_Request h, int i, const char *arg) __attribute__((noinline));
static inline int cr_chk_requests(int n, const MPI_Request reqs[], const char *arg)
{
    if (CR_UNLIKELY(reqs == NULL) && n > 0) return cr_chk_ptr_fail(arg);
    for (int i = 0; i < n; i++)
        if (CR_UNLIKELY(reqs[i] != MPI_REQUEST_NULL && cr_request_ptr(reqs[i]) == NULL))
            return cr_chk_requests_fail(reqs[i], i, arg);
    return 0;
}

/* A pointer to a request handle that is live or MPI_REQUEST_NULL. */
static inline int cr_chk_request_ptr(const MPI_Request *p, const char *arg)
{
    cr_request_t *r;
    if (CR_UNLIKELY(p == NULL)) return cr_chk_ptr_fail(arg);
    return cr_chk_request(*p, arg, &r);
}

/* A live group (MPI_GROUP_EMPTY included); *out receives it. */
static inline int cr_chk_group(MPI_Group h, const char *arg, cr_group_t **out)
{
    cr_group_t *g = cr_group_ptr(h);
    if (CR_LIKELY(g != NULL)) {
        *out = g;
        return 0;
    }
    return cr_chk_handle_fail(MPI_ERR_GROUP, h, "group", arg);
}

/* A live info object (*out it) or MPI_INFO_NULL (*out NULL). */
static inline int cr_chk_info(MPI_Info h, const char *arg, cr_info_t **out)
{
    if (h == MPI_INFO_NULL) {
        *out = NULL;
        return 0;
    }
    cr_info_t *i = cr_info_ptr(h);
    if (CR_LIKELY(i != NULL)) {
        *out = i;
        return 0;
    }
    return cr_chk_handle_fail(MPI_ERR_INFO, h, "info", arg);
}

static inline int cr_chk_errhandler(MPI_Errhandler h, const char *arg, cr_errhandler_t **out)
{
    cr_errhandler_t *e = cr_errhandler_ptr(h);
    if (CR_LIKELY(e != NULL)) {
        *out = e;
        return 0;
    }
    return cr_chk_handle_fail(MPI_ERR_ERRHANDLER, h, "error handler", arg);
}

static inline int cr_chk_win(MPI_Win h, const char *arg, cr_win_t **out)
{
    cr_win_t *w = cr_win_ptr(h);
    if (CR_LIKELY(w != NULL)) {
        *out = w;
        return 0;
    }
    return cr_chk_handle_fail(MPI_ERR_WIN, h, "window", arg);
}

static inline int cr_chk_file(MPI_File h, const char *arg, cr_file_t **out)
{
    cr_file_t *f = cr_file_ptr(h);
    if (CR_LIKELY(f != NULL)) {
        *out = f;
        return 0;
    }
    return cr_chk_file_fail(h, arg);
}

static inline int cr_chk_session(MPI_Session h, const char *arg, cr_session_t **out)
{
    cr_session_t *s = cr_session_ptr(h);
    if (CR_LIKELY(s != NULL)) {
        *out = s;
        return 0;
    }
    return cr_chk_handle_fail(MPI_ERR_SESSION, h, "session", arg);
}

/* Neighbour counts of a process topology (0 without one), the lengths of the
 * per-neighbour arrays of the neighbourhood collectives. */
static inline int cr_chk_indegree(const cr_comm_t *c)
{
    const cr_topo_t *t = cr_topo_of(c);
    return t ? t->nin : 0;
}
static inline int cr_chk_outdegree(const cr_comm_t *c)
{
    const cr_topo_t *t = cr_topo_of(c);
    return t ? t->nout : 0;
}

/* An output count narrowed to int: MPI_UNDEFINED when it does not fit. */
static inline int cr_count_to_int(MPI_Count n)
{
    return n >= INT_MIN && n <= INT_MAX ? (int)n : MPI_UNDEFINED;
}

/* An output (or handle in-out) argument must point somewhere. */
static inline int cr_chk_ptr(const void *p, const char *arg)
{
    return CR_LIKELY(p != NULL) ? 0 : cr_chk_ptr_fail(arg);
}

#endif
