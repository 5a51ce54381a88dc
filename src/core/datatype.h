/* SPDX-License-Identifier: MIT */
/* Datatype internals shared by the core (see core.h for cr_datatype_t and
 * docs/datatypes.md for the design).
 *
 * The layout of one element of a type is a small loop tree of cr_dt_node_t.
 * A node describes `count` repetitions, `stride` bytes apart, of a body that
 * starts `off` bytes after the parent's base.  The body is either one
 * contiguous block of `size` bytes of one basic kind (a leaf) or the node's
 * kids, in type-map order.  A vector of doubles is therefore one leaf
 * {count, stride, size 8}; a contiguous run of anything is a leaf with count 1;
 * a count of 1e6 never becomes 1e6 records.  Every node also knows the packed
 * size and the number of basic elements of one repetition, and each kid where
 * its packed bytes start in its parent's repetition, so a position in the
 * packed stream is found by division and binary search, without walking what
 * comes before it. */
#ifndef COURIER_CORE_DATATYPE_H
#define COURIER_CORE_DATATYPE_H
#include "core/core.h"

typedef struct cr_dt_node cr_dt_node_t;
struct cr_dt_node {
    MPI_Aint off;         /* first repetition, from the parent's base */
    MPI_Aint count;       /* repetitions (>= 1 in a normalised tree) */
    MPI_Aint stride;      /* bytes from one repetition to the next */
    MPI_Count size;       /* packed bytes of one repetition */
    MPI_Count nelem;      /* basic elements in one repetition (MPI_Get_elements) */
    int nkids;            /* 0 for a leaf */
    int dense;            /* one repetition is `size` bytes in a row, starting at doff */
    MPI_Aint doff;        /* where that run starts, from the repetition's base */
    MPI_Count pos;        /* packed bytes of the parent's repetition before this kid
                           * (kids are in type-map order, so a seek into a node with
                           * many kids is a binary search over pos) */
    cr_basic_t basic;     /* leaf: the kind of its elements */
    int esize;            /* leaf: bytes of one element of that kind */
    cr_dt_node_t *kids;   /* the body when nkids > 0 */
};

/* What MPI_Type_get_envelope / MPI_Type_get_contents return for a type: the
 * constructor's arguments as it got them. */
typedef struct {
    int combiner;
    int ni, na, nc, nd;      /* integers, addresses, large counts, datatypes */
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    cr_datatype_t **types;   /* each holds a reference */
} cr_dt_env_t;

/* The private part of every datatype (cr_datatype_t.desc). */
typedef struct {
    cr_dt_node_t root;      /* one element */
    int lb_mark, ub_mark;   /* bounds set explicitly (MPI_LB / MPI_UB, resized) */
    int align;              /* largest alignment of a basic element inside */
    cr_dt_env_t env;
} cr_dt_desc_t;

static inline cr_dt_desc_t *cr_dt_desc(const cr_datatype_t *dt)
{
    return (cr_dt_desc_t *)dt->desc;
}

extern cr_objtab_t cr_datatype_tab;
void cr_datatype_init(void);
MPI_Count cr_status_bytes(const MPI_Status *st);
void cr_status_set_bytes(MPI_Status *st, MPI_Count bytes);

/* ---- the engine (dt_engine.c) --------------------------------------------- */
/* Direction of a copy between user memory and the packed stream. */
enum { CR_DT_PACK = 0, CR_DT_UNPACK = 1 };
/* Copy bytes [offset, offset + max) of the packed stream of count elements of dt
 * (clipped to the stream's end) between user memory at buf and the contiguous
 * bytes at stream; returns how many bytes it copied. */
size_t cr_dt_copy_seg(int dir, void *buf, MPI_Aint count, const cr_datatype_t *dt,
                      size_t offset, void *stream, size_t max);
/* Basic elements in the first `bytes` bytes of the packed stream of elements
 * of dt, or -1 when those bytes end inside a basic element. */
MPI_Count cr_dt_count_elements(const cr_datatype_t *dt, MPI_Count bytes);
/* Packed bytes of the first `elems` basic elements of a stream of dt
 * (MPI_Status_set_elements). */
MPI_Count cr_dt_elements_bytes(const cr_datatype_t *dt, MPI_Count elems);
/* external32 (big-endian, the standard's sizes): packed size of one element,
 * and conversion of count elements in either direction.  Returns the bytes
 * written (pack) or read (unpack). */
MPI_Count cr_dt_ext32_size(const cr_datatype_t *dt);
size_t cr_dt_ext32_copy(int dir, void *buf, MPI_Aint count, const cr_datatype_t *dt,
                        void *stream);
/* Tree helpers for the constructors. */
void cr_dt_node_free(cr_dt_node_t *n);          /* the kids, not n itself */
int cr_dt_node_copy(cr_dt_node_t *dst, const cr_dt_node_t *src);   /* 0 or -1 */
void cr_dt_node_normalize(cr_dt_node_t *n);
int cr_dt_basic_align(cr_basic_t b);

/* ---- objects (dt_create.c) ------------------------------------------------- */
/* Build the private description of a predefined type (at init). */
int cr_dt_builtin_desc(cr_datatype_t *dt, const cr_dt_node_t *pair_kids, int npair);
#endif
