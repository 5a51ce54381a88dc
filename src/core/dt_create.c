/* SPDX-License-Identifier: MIT */
/* Datatype constructors, envelopes and contents, dup, commit and free,
 * MPI_Type_match_size, MPI_Type_get_value_index and the Fortran 90
 * parameterised types.
 *
 * Every constructor is reduced to one of two builders: a vector (count blocks
 * of bl old elements, a fixed stride apart: contiguous, vector, hvector) and a
 * block list (indexed, hindexed, the block forms, struct).  Subarray and darray
 * are grids built from block lists and resized types.  A builder computes the
 * bounds, the size, the basic kind and the loop tree of the new type; the
 * public functions then record their arguments for MPI_Type_get_contents and
 * give the type a handle. */
#include "core/core.h"
#include "core/datatype.h"
#include "core/attr.h"
#include "core/api_dt.h"
#include "core/threads.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NOMEM() cr_error(MPI_ERR_NO_MEM, "no memory for a datatype")

/* ---- objects --------------------------------------------------------------------- */
static cr_datatype_t *dt_alloc(void)
{
    cr_datatype_t *d = calloc(1, sizeof *d);
    cr_dt_desc_t *x = calloc(1, sizeof *x);
    if (!d || !x) {
        free(d);
        free(x);
        return NULL;
    }
    d->refcount = 1;
    d->desc = x;
    return d;
}

static void env_clear(cr_dt_env_t *e)
{
    for (int i = 0; i < e->nd; i++)
        if (e->types && e->types[i]) cr_dt_release(e->types[i]);
    free(e->ints);
    free(e->aints);
    free(e->counts);
    free(e->types);
    memset(e, 0, sizeof *e);
}

static void dt_destroy(cr_datatype_t *d)
{
    cr_dt_desc_t *x = d->desc;
    if (d->handle) cr_objtab_remove(&cr_datatype_tab, CR_H_INDEX(d->handle));
    if (x) {
        cr_dt_node_free(&x->root);
        env_clear(&x->env);
        free(x);
    }
    free(d);
}

/* Requests of different channels hold datatypes under their own channels'
 * locks only (pt2pt.c), so with threads the count changes atomically; a
 * single-threaded process keeps the plain increment. */
void cr_dt_retain(cr_datatype_t *dt)
{
    if (dt->builtin) return;
    if (CR_UNLIKELY(cr_threaded)) __atomic_add_fetch(&dt->refcount, 1, __ATOMIC_RELAXED);
    else dt->refcount++;
}

void cr_dt_release(cr_datatype_t *dt)
{
    if (dt->builtin) return;
    int left = CR_UNLIKELY(cr_threaded) ? __atomic_sub_fetch(&dt->refcount, 1, __ATOMIC_ACQ_REL)
                                        : --dt->refcount;
    if (left == 0) dt_destroy(dt);
}

static int max_align(const cr_dt_node_t *n)
{
    int a = n->nkids ? 1 : cr_dt_basic_align(n->basic);
    for (int k = 0; k < n->nkids; k++) {
        int b = max_align(&n->kids[k]);
        if (b > a) a = b;
    }
    return a;
}

int cr_dt_builtin_desc(cr_datatype_t *dt, const cr_dt_node_t *kids, int n)
{
    cr_dt_desc_t *x = calloc(1, sizeof *x);
    if (!x) return -1;
    x->env.combiner = MPI_COMBINER_NAMED;
    if (n == 1) {
        x->root = kids[0];
    } else {
        x->root.count = 1;
        x->root.kids = calloc((size_t)n, sizeof *x->root.kids);
        if (!x->root.kids) {
            free(x);
            return -1;
        }
        x->root.nkids = n;
        memcpy(x->root.kids, kids, (size_t)n * sizeof *kids);
        for (int k = 0; k < n; k++) cr_dt_node_normalize(&x->root.kids[k]);
    }
    cr_dt_node_normalize(&x->root);
    x->lb_mark = dt->basic == CR_B_LB;
    x->ub_mark = dt->basic == CR_B_UB;
    x->align = max_align(&x->root);
    dt->desc = x;
    return 0;
}

static int dt_register(cr_datatype_t *d, MPI_Datatype *out)
{
    int idx = cr_objtab_add(&cr_datatype_tab, d);
    if (idx < 0) {
        dt_destroy(d);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a datatype handle");
    }
    d->handle = CR_H_MAKE(CR_ST_USER, CR_K_DATATYPE, idx);
    *out = d->handle;
    return MPI_SUCCESS;
}

/* ---- bounds, size and kind of a new type ------------------------------------------ */
typedef struct {
    MPI_Count size, nbasic;
    cr_basic_t basic;
    int nkinds;                 /* 0 none seen, 1 one kind (basic), 2 mixed */
    int has_data;
    MPI_Aint tlb, tub;          /* data bounds */
    int lbm, ubm;               /* explicit bounds seen */
    MPI_Aint mlb, mub;
    int nat_lb, nat_ub;         /* bounds of entries without explicit ones */
    MPI_Aint nlb, nub;
    int align;
} acc_t;

static inline void lower(int *set, MPI_Aint *v, MPI_Aint x)
{
    if (!*set || x < *v) *v = x;
    *set = 1;
}
static inline void raise_(int *set, MPI_Aint *v, MPI_Aint x)
{
    if (!*set || x > *v) *v = x;
    *set = 1;
}

/* The bounds of bl consecutive elements of o placed at byte d. */
static void acc_bounds(acc_t *a, MPI_Aint d, MPI_Aint bl, const cr_datatype_t *o)
{
    if (bl <= 0) return;
    const cr_dt_desc_t *x = cr_dt_desc(o);
    MPI_Aint span = (bl - 1) * o->extent;
    MPI_Aint lo = span < 0 ? span : 0, hi = span > 0 ? span : 0;
    if (o->size > 0) {
        int s = a->has_data;
        lower(&s, &a->tlb, d + o->true_lb + lo);
        s = a->has_data;
        raise_(&s, &a->tub, d + o->true_lb + o->true_extent + hi);
        a->has_data = 1;
    }
    /* A bound is explicit where o has a marker for it, else natural where o
     * has data; a marker only ever sets its own bound (as in MPICH: a struct
     * of just an MPI_LB at 10 has lb 10, ub 0 and extent -10). */
    MPI_Aint l = d + o->lb + lo, u = d + o->lb + o->extent + hi;
    bool data = o->size > 0;
    if (x->lb_mark) lower(&a->lbm, &a->mlb, l);
    else if (data) lower(&a->nat_lb, &a->nlb, l);
    if (x->ub_mark) raise_(&a->ubm, &a->mub, u);
    else if (data) raise_(&a->nat_ub, &a->nub, u);
}

/* The data of n elements of o (the bounds come from acc_bounds). */
static void acc_data(acc_t *a, MPI_Count n, const cr_datatype_t *o)
{
    if (n <= 0 || o->size == 0) return;
    a->size += n * o->size;
    a->nbasic += n * o->nbasic;
    if (a->nkinds == 0) {
        a->basic = o->basic;
        a->nkinds = o->basic == CR_B_NONE ? 2 : 1;
    } else if (a->basic != o->basic) {
        a->nkinds = 2;
    }
    int al = cr_dt_desc(o)->align;
    if (al > a->align) a->align = al;
}

/* Fill in d from the accumulated numbers and its (normalised) tree. */
static void dt_finish(cr_datatype_t *d, const acc_t *a, bool pad_to_align)
{
    cr_dt_desc_t *x = cr_dt_desc(d);
    d->size = a->size;
    d->nbasic = a->nbasic;
    d->basic = a->nkinds == 1 ? a->basic : CR_B_NONE;
    MPI_Aint lb = a->lbm ? a->mlb : a->nat_lb ? a->nlb : 0;
    MPI_Aint ub = a->ubm ? a->mub : a->nat_ub ? a->nub : 0;
    if (!a->lbm && !a->nat_lb && a->nat_ub) lb = ub < 0 ? ub : 0;
    if (!a->ubm && !a->nat_ub && a->nat_lb) ub = lb;
    /* Like C's struct layout, a struct type's extent is rounded up to the
     * alignment of its most aligned member, unless an upper bound was set. */
    if (pad_to_align && !a->ubm && a->align > 1 && ub > lb && (ub - lb) % a->align)
        ub += a->align - (ub - lb) % a->align;
    d->lb = lb;
    d->extent = ub - lb;
    d->true_lb = a->has_data ? a->tlb : 0;
    d->true_extent = a->has_data ? a->tub - a->tlb : 0;
    x->lb_mark = a->lbm;
    x->ub_mark = a->ubm;
    x->align = a->align ? a->align : 1;
    const cr_dt_node_t *r = &x->root;
    bool run = r->dense && (r->count <= 1 || r->stride == (MPI_Aint)r->size);
    d->contig = d->size == 0 ? d->extent == 0
                             : run && d->size == d->extent && d->lb == d->true_lb &&
                                   d->true_extent == d->size;
}

/* A node of bl consecutive elements of o at byte d. */
static int block_node(cr_dt_node_t *n, MPI_Aint d, MPI_Aint bl, const cr_datatype_t *o)
{
    memset(n, 0, sizeof *n);
    n->off = d;
    n->count = bl;
    n->stride = o->extent;
    n->kids = calloc(1, sizeof *n->kids);
    if (!n->kids || cr_dt_node_copy(&n->kids[0], &cr_dt_desc(o)->root)) {
        free(n->kids);
        n->kids = NULL;
        return -1;
    }
    n->nkids = 1;
    cr_dt_node_normalize(n);
    return 0;
}

/* count blocks of bl elements of o, the i-th at byte i * stride. */
static int mk_vector(MPI_Aint count, MPI_Aint bl, MPI_Aint stride, cr_datatype_t *o,
                     cr_datatype_t **out)
{
    cr_datatype_t *d = dt_alloc();
    if (!d) return NOMEM();
    cr_dt_node_t *r = &cr_dt_desc(d)->root;
    r->count = count;
    r->stride = stride;
    r->kids = calloc(1, sizeof *r->kids);
    if (!r->kids || block_node(&r->kids[0], 0, bl, o)) {
        dt_destroy(d);
        return NOMEM();
    }
    r->nkids = 1;
    cr_dt_node_normalize(r);
    acc_t a = { 0 };
    if (count > 0) {
        acc_bounds(&a, 0, bl, o);
        acc_bounds(&a, (count - 1) * stride, bl, o);
        acc_data(&a, count * bl, o);
    }
    dt_finish(d, &a, false);
    *out = d;
    return MPI_SUCCESS;
}

/* n blocks: bl[i] elements of types[i] (or of `type`) at byte disp[i]. */
static int mk_blocks(MPI_Aint n, const MPI_Aint *bl, const MPI_Aint *disp,
                     cr_datatype_t *const *types, cr_datatype_t *type, bool is_struct,
                     cr_datatype_t **out)
{
    cr_datatype_t *d = dt_alloc();
    if (!d) return NOMEM();
    cr_dt_node_t *r = &cr_dt_desc(d)->root;
    r->count = 1;
    if (n > 0) {
        r->kids = calloc((size_t)n, sizeof *r->kids);
        if (!r->kids) {
            dt_destroy(d);
            return NOMEM();
        }
    }
    acc_t a = { 0 };
    for (MPI_Aint i = 0; i < n; i++) {
        cr_datatype_t *o = types ? types[i] : type;
        if (block_node(&r->kids[i], disp[i], bl[i], o)) {
            r->nkids = (int)i;
            dt_destroy(d);
            return NOMEM();
        }
        r->nkids = (int)(i + 1);
        acc_bounds(&a, disp[i], bl[i], o);
        acc_data(&a, bl[i], o);
    }
    cr_dt_node_normalize(r);
    dt_finish(d, &a, is_struct);
    *out = d;
    return MPI_SUCCESS;
}

static int mk_resized(cr_datatype_t *o, MPI_Aint lb, MPI_Aint extent, cr_datatype_t **out)
{
    cr_datatype_t *d = dt_alloc();
    if (!d) return NOMEM();
    cr_dt_desc_t *x = cr_dt_desc(d), *ox = cr_dt_desc(o);
    if (cr_dt_node_copy(&x->root, &ox->root)) {
        dt_destroy(d);
        return NOMEM();
    }
    d->size = o->size;
    d->nbasic = o->nbasic;
    d->basic = o->basic;
    d->true_lb = o->true_lb;
    d->true_extent = o->true_extent;
    d->lb = lb;
    d->extent = extent;
    x->lb_mark = x->ub_mark = 1;   /* resized bounds are explicit, as MPI_LB/MPI_UB were */
    x->align = ox->align;
    const cr_dt_node_t *r = &x->root;
    bool run = r->dense && (r->count <= 1 || r->stride == (MPI_Aint)r->size);
    d->contig = d->size == 0 ? extent == 0
                             : run && d->size == extent && lb == d->true_lb &&
                                   d->true_extent == d->size;
    *out = d;
    return MPI_SUCCESS;
}

/* ---- envelopes -------------------------------------------------------------------- */
static int env_alloc(cr_datatype_t *d, int combiner, MPI_Count ni, MPI_Count na, MPI_Count nc,
                     MPI_Count nd)
{
    cr_dt_env_t *e = &cr_dt_desc(d)->env;
    if (ni > INT_MAX || na > INT_MAX || nc > INT_MAX || nd > INT_MAX)
        return cr_error(MPI_ERR_COUNT, "datatype constructor: too many arguments to record "
                        "for MPI_Type_get_contents");
    e->combiner = combiner;
    e->ints = ni ? malloc((size_t)ni * sizeof *e->ints) : NULL;
    e->aints = na ? malloc((size_t)na * sizeof *e->aints) : NULL;
    e->counts = nc ? malloc((size_t)nc * sizeof *e->counts) : NULL;
    e->types = nd ? calloc((size_t)nd, sizeof *e->types) : NULL;
    if ((ni && !e->ints) || (na && !e->aints) || (nc && !e->counts) || (nd && !e->types))
        return NOMEM();
    e->ni = (int)ni;
    e->na = (int)na;
    e->nc = (int)nc;
    e->nd = (int)nd;
    return MPI_SUCCESS;
}

static void env_type(cr_datatype_t *d, int i, cr_datatype_t *t)
{
    cr_dt_retain(t);
    cr_dt_desc(d)->env.types[i] = t;
}

/* Record and register: the last step of every public constructor. */
static int dt_publish(cr_datatype_t *d, int err, MPI_Datatype *newtype)
{
    if (err) {
        dt_destroy(d);
        return err;
    }
    return dt_register(d, newtype);
}

/* ---- the public constructors -------------------------------------------------------- */
int core_type_contiguous(MPI_Count count, cr_datatype_t *oldtype, MPI_Datatype *newtype,
                         int large)
{
    cr_datatype_t *d;
    int err = mk_vector(1, (MPI_Aint)count, 0, oldtype, &d);
    if (err) return err;
    err = env_alloc(d, MPI_COMBINER_CONTIGUOUS, !large, 0, large, 1);
    if (!err) {
        cr_dt_env_t *e = &cr_dt_desc(d)->env;
        if (large) e->counts[0] = count;
        else e->ints[0] = (int)count;
        env_type(d, 0, oldtype);
    }
    return dt_publish(d, err, newtype);
}

/* vector (stride in elements) and hvector (in bytes); MPI-1's MPI_Type_hvector
 * records MPI_COMBINER_HVECTOR too, as in MPICH. */
static int type_vector(MPI_Count count, MPI_Count bl, MPI_Count stride, cr_datatype_t *o,
                       MPI_Datatype *newtype, bool bytes, int large)
{
    cr_datatype_t *d;
    if (bl < 0)
        return cr_error(MPI_ERR_ARG, "blocklength=%lld: must be >= 0", (long long)bl);
    MPI_Aint sb = bytes ? (MPI_Aint)stride : (MPI_Aint)stride * o->extent;
    int err = mk_vector((MPI_Aint)count, (MPI_Aint)bl, sb, o, &d);
    if (err) return err;
    int comb = bytes ? MPI_COMBINER_HVECTOR : MPI_COMBINER_VECTOR;
    if (large) err = env_alloc(d, comb, 0, 0, 3, 1);
    else err = env_alloc(d, comb, bytes ? 2 : 3, bytes ? 1 : 0, 0, 1);
    if (!err) {
        cr_dt_env_t *e = &cr_dt_desc(d)->env;
        if (large) {
            e->counts[0] = count;
            e->counts[1] = bl;
            e->counts[2] = stride;
        } else {
            e->ints[0] = (int)count;
            e->ints[1] = (int)bl;
            if (bytes) e->aints[0] = (MPI_Aint)stride;
            else e->ints[2] = (int)stride;
        }
        env_type(d, 0, o);
    }
    return dt_publish(d, err, newtype);
}

int core_type_vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                     cr_datatype_t *oldtype, MPI_Datatype *newtype, int large)
{
    return type_vector(count, blocklength, stride, oldtype, newtype, false, large);
}

int core_type_create_hvector(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                             cr_datatype_t *oldtype, MPI_Datatype *newtype, int large)
{
    return type_vector(count, blocklength, stride, oldtype, newtype, true, large);
}

enum { DISP_ELEMS, DISP_BYTES };

/* Block k's length: from the array, or the _block forms' one blocklength. */
static inline MPI_Count block_len(cr_vec_t bl, MPI_Count one, MPI_Count k)
{
    return bl.p ? cr_vec_get(bl, (MPI_Aint)k) : one;
}

/* indexed, hindexed, indexed_block, hindexed_block, struct (and their _c and
 * MPI-1 forms).  bl is CR_VEC_NONE for the _block forms (one blocklength);
 * types is NULL except for struct. */
static int type_blocks(int combiner, MPI_Count count, cr_vec_t bl, MPI_Count one, cr_vec_t disp,
                       int disp_unit, cr_datatype_t *const *types, cr_datatype_t *o,
                       MPI_Datatype *newtype, int large)
{
    bool block = combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
    bool is_struct = combiner == MPI_COMBINER_STRUCT;   /* types[] (NULL when count is 0) */
    if (count > 0 && !block && !bl.p)
        return cr_error(MPI_ERR_ARG, "array_of_blocklengths=NULL: null array for count=%lld",
                        (long long)count);
    if (count > 0 && !disp.p)
        return cr_error(MPI_ERR_ARG, "array_of_displacements=NULL: null array for count=%lld",
                        (long long)count);
    if (block && one < 0)
        return cr_error(MPI_ERR_ARG, "blocklength=%lld: must be >= 0", (long long)one);
    MPI_Aint *blv = malloc((size_t)(count ? count : 1) * sizeof *blv);
    MPI_Aint *dv = malloc((size_t)(count ? count : 1) * sizeof *dv);
    int err = blv && dv ? MPI_SUCCESS : NOMEM();
    for (MPI_Count k = 0; !err && k < count; k++) {
        blv[k] = (MPI_Aint)block_len(bl, one, k);
        if (blv[k] < 0) {
            err = cr_error(MPI_ERR_ARG, "array_of_blocklengths[%lld]=%lld: must be >= 0",
                           (long long)k, (long long)blv[k]);
            break;
        }
        MPI_Aint ext = is_struct ? types[k]->extent : o->extent;
        dv[k] = (MPI_Aint)cr_vec_get(disp, (MPI_Aint)k) * (disp_unit == DISP_ELEMS ? ext : 1);
    }
    cr_datatype_t *d = NULL;
    if (!err)
        err = mk_blocks((MPI_Aint)count, blv, dv, types, o, is_struct, &d);
    free(blv);
    free(dv);
    if (err) return err;
    /* record the arguments as MPI_Type_get_contents returns them */
    MPI_Count nbl = block ? 1 : count;
    MPI_Count nd = is_struct ? count : 1;
    bool disp_is_int = disp_unit == DISP_ELEMS;
    if (large)
        err = env_alloc(d, combiner, 0, 0, 1 + nbl + count, nd);
    else
        err = env_alloc(d, combiner, 1 + nbl + (disp_is_int ? count : 0), disp_is_int ? 0 : count,
                        0, nd);
    if (!err) {
        cr_dt_env_t *e = &cr_dt_desc(d)->env;
        for (MPI_Count k = 0; k < 1 + nbl + count; k++) {
            MPI_Count v = k == 0 ? count : k <= nbl ? block_len(bl, one, k - 1)
                                                    : cr_vec_get(disp, (MPI_Aint)(k - 1 - nbl));
            if (large) e->counts[k] = v;
            else if (k <= nbl || disp_is_int) e->ints[k] = (int)v;
            else e->aints[k - 1 - nbl] = (MPI_Aint)v;
        }
        for (MPI_Count k = 0; k < nd; k++) env_type(d, (int)k, is_struct ? types[k] : o);
    }
    return dt_publish(d, err, newtype);
}

int core_type_indexed(MPI_Count count, cr_vec_t array_of_blocklengths,
                      cr_vec_t array_of_displacements, cr_datatype_t *oldtype,
                      MPI_Datatype *newtype, int large)
{
    return type_blocks(MPI_COMBINER_INDEXED, count, array_of_blocklengths, 0,
                       array_of_displacements, DISP_ELEMS, NULL, oldtype, newtype, large);
}

int core_type_create_hindexed(MPI_Count count, cr_vec_t array_of_blocklengths,
                              cr_vec_t array_of_displacements, cr_datatype_t *oldtype,
                              MPI_Datatype *newtype, int large)
{
    return type_blocks(MPI_COMBINER_HINDEXED, count, array_of_blocklengths, 0,
                       array_of_displacements, DISP_BYTES, NULL, oldtype, newtype, large);
}

int core_type_create_indexed_block(MPI_Count count, MPI_Count blocklength,
                                   cr_vec_t array_of_displacements, cr_datatype_t *oldtype,
                                   MPI_Datatype *newtype, int large)
{
    return type_blocks(MPI_COMBINER_INDEXED_BLOCK, count, CR_VEC_NONE, blocklength,
                       array_of_displacements, DISP_ELEMS, NULL, oldtype, newtype, large);
}

int core_type_create_hindexed_block(MPI_Count count, MPI_Count blocklength,
                                    cr_vec_t array_of_displacements, cr_datatype_t *oldtype,
                                    MPI_Datatype *newtype, int large)
{
    return type_blocks(MPI_COMBINER_HINDEXED_BLOCK, count, CR_VEC_NONE, blocklength,
                       array_of_displacements, DISP_BYTES, NULL, oldtype, newtype, large);
}

int core_type_create_struct(MPI_Count count, cr_vec_t array_of_blocklengths,
                            cr_vec_t array_of_displacements,
                            cr_datatype_t *const array_of_types[], MPI_Datatype *newtype,
                            int large)
{
    if (count > 0 && !array_of_types)
        return cr_error(MPI_ERR_ARG, "array_of_types=NULL: null array for count=%lld",
                        (long long)count);
    return type_blocks(MPI_COMBINER_STRUCT, count, array_of_blocklengths, 0,
                       array_of_displacements, DISP_BYTES, array_of_types, NULL, newtype, large);
}

int core_type_create_resized(cr_datatype_t *oldtype, MPI_Count lb, MPI_Count extent,
                             MPI_Datatype *newtype, int large)
{
    cr_datatype_t *d;
    int err = mk_resized(oldtype, (MPI_Aint)lb, (MPI_Aint)extent, &d);
    if (err) return err;
    err = env_alloc(d, MPI_COMBINER_RESIZED, 0, large ? 0 : 2, large ? 2 : 0, 1);
    if (!err) {
        cr_dt_env_t *e = &cr_dt_desc(d)->env;
        if (large) {
            e->counts[0] = lb;
            e->counts[1] = extent;
        } else {
            e->aints[0] = (MPI_Aint)lb;
            e->aints[1] = (MPI_Aint)extent;
        }
        env_type(d, 0, oldtype);
    }
    return dt_publish(d, err, newtype);
}

/* ---- grids: subarray and darray ------------------------------------------------------ */
/* The index runs [start, start + len) one dimension keeps. */
typedef struct {
    MPI_Aint n;
    MPI_Aint *start, *len;
} runs_t;

/* An array of gsizes (order C or Fortran) of o, holding in each dimension the
 * listed runs; lb 0 and the extent of the whole array, as the standard says. */
static int mk_grid(int ndims, const MPI_Aint *gsizes, const runs_t *runs, int order,
                   cr_datatype_t *o, cr_datatype_t **out)
{
    cr_datatype_t *t = o;
    MPI_Aint stride = o->extent;
    int err = MPI_SUCCESS;
    for (int k = 0; k < ndims && !err; k++) {
        int dim = order == MPI_ORDER_C ? ndims - 1 - k : k;
        /* one step of this dimension moves by stride bytes: the slice built so
         * far, placed at the array's origin, with that extent */
        cr_datatype_t *step = t, *nt = NULL;
        if (t != o) err = mk_resized(t, 0, stride, &step);
        MPI_Aint *disp = malloc((size_t)(runs[dim].n ? runs[dim].n : 1) * sizeof *disp);
        if (!err && !disp) err = NOMEM();
        for (MPI_Aint r = 0; !err && r < runs[dim].n; r++) disp[r] = runs[dim].start[r] * stride;
        if (!err) err = mk_blocks(runs[dim].n, runs[dim].len, disp, NULL, step, false, &nt);
        free(disp);
        if (step != t) cr_dt_release(step);
        if (t != o) cr_dt_release(t);
        t = nt;
        stride *= gsizes[dim];
    }
    if (err) return err;
    if (ndims == 0) return mk_resized(o, 0, 0, out);   /* not reached: ndims >= 1 */
    err = mk_resized(t, 0, stride, out);
    cr_dt_release(t);
    return err;
}


int core_type_create_subarray(int ndims, cr_vec_t array_of_sizes, cr_vec_t array_of_subsizes,
                              cr_vec_t array_of_starts, int order, cr_datatype_t *oldtype,
                              MPI_Datatype *newtype, int large)
{
    if (ndims <= 0)
        return cr_error(MPI_ERR_DIMS, "ndims=%d: must be positive", ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return cr_error(MPI_ERR_ARG, "order=%d: not MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    if (!array_of_sizes.p || !array_of_subsizes.p || !array_of_starts.p)
        return cr_error(MPI_ERR_ARG, "array_of_%s=NULL: null array",
                        !array_of_sizes.p ? "sizes" : !array_of_subsizes.p ? "subsizes" : "starts");
    MPI_Aint *buf = malloc(3 * (size_t)ndims * sizeof *buf);
    runs_t *runs = malloc((size_t)ndims * sizeof *runs);
    if (!buf || !runs) {
        free(buf);
        free(runs);
        return NOMEM();
    }
    MPI_Aint *g = buf, *st = buf + ndims, *ln = buf + 2 * ndims;
    int err = MPI_SUCCESS;
    for (int i = 0; i < ndims; i++) {
        g[i] = (MPI_Aint)cr_vec_get(array_of_sizes, i);
        ln[i] = (MPI_Aint)cr_vec_get(array_of_subsizes, i);
        st[i] = (MPI_Aint)cr_vec_get(array_of_starts, i);
        if (g[i] <= 0 || ln[i] < 0 || ln[i] > g[i] || st[i] < 0 || st[i] > g[i] - ln[i]) {
            err = cr_error(MPI_ERR_ARG, "dimension %d: size=%lld subsize=%lld start=%lld: "
                           "need 0 < size, 0 <= subsize <= size, 0 <= start <= size - subsize",
                           i, (long long)g[i], (long long)ln[i], (long long)st[i]);
            break;
        }
        runs[i] = (runs_t){ .n = 1, .start = &st[i], .len = &ln[i] };
    }
    cr_datatype_t *d = NULL;
    if (!err) err = mk_grid(ndims, g, runs, order, oldtype, &d);
    free(buf);
    free(runs);
    if (err) return err;
    err = env_alloc(d, MPI_COMBINER_SUBARRAY, large ? 2 : 3 * (MPI_Count)ndims + 2, 0,
                    large ? 3 * (MPI_Count)ndims : 0, 1);
    if (!err) {
        cr_dt_env_t *e = &cr_dt_desc(d)->env;
        e->ints[0] = ndims;
        for (int i = 0; i < ndims; i++) {
            MPI_Count v[3] = { cr_vec_get(array_of_sizes, i), cr_vec_get(array_of_subsizes, i),
                               cr_vec_get(array_of_starts, i) };
            for (int j = 0; j < 3; j++) {
                if (large) e->counts[j * ndims + i] = v[j];
                else e->ints[1 + j * ndims + i] = (int)v[j];
            }
        }
        e->ints[large ? 1 : 1 + 3 * ndims] = order;
        env_type(d, 0, oldtype);
    }
    return dt_publish(d, err, newtype);
}

/* The runs of one darray dimension for process coordinate c of p. */
static int darray_runs(int dim, MPI_Aint g, int distrib, int darg, int p, int c, runs_t *r)
{
    MPI_Aint b;
    switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
        if (p != 1)
            return cr_error(MPI_ERR_ARG, "dimension %d: MPI_DISTRIBUTE_NONE needs "
                            "psize 1, not %d", dim, p);
        b = g;
        break;
    case MPI_DISTRIBUTE_BLOCK:
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        if (b <= 0 || b * p < g)
            return cr_error(MPI_ERR_ARG, "dimension %d: block size %lld x %d processes "
                            "does not cover %lld elements", dim, (long long)b, p,
                            (long long)g);
        break;
    case MPI_DISTRIBUTE_CYCLIC:
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        if (b <= 0)
            return cr_error(MPI_ERR_ARG, "dimension %d: darg=%d: must be positive", dim, darg);
        break;
    default:
        return cr_error(MPI_ERR_ARG, "dimension %d: distrib=%d: not a distribution", dim, distrib);
    }
    /* cyclic(b) over p processes; block and none are its one-round cases */
    MPI_Aint round = b * p, n = 0;
    for (MPI_Aint s = c * b; s < g; s += round) n++;
    r->n = n;
    r->start = malloc((size_t)(n ? n : 1) * sizeof *r->start);
    r->len = malloc((size_t)(n ? n : 1) * sizeof *r->len);
    if (!r->start || !r->len) return NOMEM();
    n = 0;
    for (MPI_Aint s = c * b; s < g; s += round, n++) {
        r->start[n] = s;
        r->len[n] = g - s < b ? g - s : b;
    }
    return MPI_SUCCESS;
}


int core_type_create_darray(int size, int rank, int ndims, cr_vec_t array_of_gsizes,
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, cr_datatype_t *oldtype,
                            MPI_Datatype *newtype, int large)
{
    const int *distribs = array_of_distribs, *dargs = array_of_dargs, *psizes = array_of_psizes;
    if (ndims <= 0)
        return cr_error(MPI_ERR_DIMS, "ndims=%d: must be positive", ndims);
    if (size <= 0 || rank < 0 || rank >= size)
        return cr_error(MPI_ERR_ARG, "size=%d rank=%d: need 0 <= rank < size", size, rank);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return cr_error(MPI_ERR_ARG, "order=%d: not MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
    if (!array_of_gsizes.p || !distribs || !dargs || !psizes)
        return cr_error(MPI_ERR_ARG, "array_of_%s=NULL: null array",
                        !array_of_gsizes.p ? "gsizes" : !distribs ? "distribs"
                        : !dargs ? "dargs" : "psizes");
    long long nprocs = 1;
    for (int i = 0; i < ndims; i++) {
        if (psizes[i] <= 0 || cr_vec_get(array_of_gsizes, i) <= 0)
            return cr_error(MPI_ERR_ARG, "dimension %d: gsize=%lld psize=%d: must be positive",
                            i, (long long)cr_vec_get(array_of_gsizes, i), psizes[i]);
        nprocs *= psizes[i];
    }
    if (nprocs != size)
        return cr_error(MPI_ERR_ARG, "the product of array_of_psizes is %lld, not size=%d",
                        nprocs, size);
    MPI_Aint *g = malloc((size_t)ndims * sizeof *g);
    runs_t *runs = calloc((size_t)ndims, sizeof *runs);
    int err = g && runs ? MPI_SUCCESS : NOMEM();
    /* the process grid is row-major whatever the array's order */
    int r = rank;
    for (int i = ndims - 1; !err && i >= 0; i--) {
        int c = r % psizes[i];
        r /= psizes[i];
        g[i] = (MPI_Aint)cr_vec_get(array_of_gsizes, i);
        err = darray_runs(i, g[i], distribs[i], dargs[i], psizes[i], c, &runs[i]);
    }
    cr_datatype_t *d = NULL;
    if (!err) err = mk_grid(ndims, g, runs, order, oldtype, &d);
    for (int i = 0; runs && i < ndims; i++) {
        free(runs[i].start);
        free(runs[i].len);
    }
    free(runs);
    free(g);
    if (err) return err;
    MPI_Count n4 = 4 * (MPI_Count)ndims;
    err = env_alloc(d, MPI_COMBINER_DARRAY, large ? n4 - ndims + 4 : n4 + 4, 0,
                    large ? ndims : 0, 1);
    if (!err) {
        cr_dt_env_t *e = &cr_dt_desc(d)->env;
        int *p = e->ints;
        *p++ = size;
        *p++ = rank;
        *p++ = ndims;
        for (int i = 0; i < ndims; i++) {
            if (large) e->counts[i] = cr_vec_get(array_of_gsizes, i);
            else *p++ = (int)cr_vec_get(array_of_gsizes, i);
        }
        for (int i = 0; i < ndims; i++) *p++ = distribs[i];
        for (int i = 0; i < ndims; i++) *p++ = dargs[i];
        for (int i = 0; i < ndims; i++) *p++ = psizes[i];
        *p = order;
        env_type(d, 0, oldtype);
    }
    return dt_publish(d, err, newtype);
}

/* ---- dup, commit, free ----------------------------------------------------------------- */
/* A new type with the layout, bounds and kind of o (no envelope yet). */
static int dt_clone(cr_datatype_t *o, cr_datatype_t **out)
{
    cr_datatype_t *d = dt_alloc();
    if (!d) return NOMEM();
    cr_dt_desc_t *x = cr_dt_desc(d), *ox = cr_dt_desc(o);
    if (cr_dt_node_copy(&x->root, &ox->root)) {
        dt_destroy(d);
        return NOMEM();
    }
    d->basic = o->basic;
    d->size = o->size;
    d->lb = o->lb;
    d->extent = o->extent;
    d->true_lb = o->true_lb;
    d->true_extent = o->true_extent;
    d->nbasic = o->nbasic;
    d->contig = o->contig;
    x->lb_mark = ox->lb_mark;
    x->ub_mark = ox->ub_mark;
    x->align = ox->align;
    *out = d;
    return MPI_SUCCESS;
}

/* How a type is named in messages. */
static const char *dt_label(const cr_datatype_t *d)
{
    return d->name[0] ? d->name : d->name_builtin ? d->name_builtin : "(unnamed)";
}

int core_type_dup(cr_datatype_t *oldtype, MPI_Datatype *newtype)
{
    cr_datatype_t *o = oldtype, *d;
    int err = dt_clone(o, &d);
    if (err) return err;
    d->committed = o->committed || o->builtin;   /* the standard: the copy is committed too */
    err = env_alloc(d, MPI_COMBINER_DUP, 0, 0, 0, 1);
    if (!err) env_type(d, 0, o);
    err = dt_publish(d, err, newtype);
    if (err) return err;
    err = cr_attr_copy_all(CR_K_DATATYPE, o->handle, &o->attrs, d->handle, &d->attrs);
    if (err) {
        cr_dt_release(d);
        *newtype = MPI_DATATYPE_NULL;
    }
    return err;
}

int core_type_commit(cr_datatype_t *datatype)
{
    /* The loop tree was built by the constructor, so there is nothing left to
     * flatten here. */
    datatype->committed = 1;
    return MPI_SUCCESS;
}

int core_type_free(cr_datatype_t *datatype)
{
    cr_datatype_t *d = datatype;
    if (d->builtin)
        return cr_error(MPI_ERR_TYPE, "datatype=%s: predefined datatypes cannot be freed",
                        dt_label(d));
    int err = cr_attr_delete_all(CR_K_DATATYPE, d->handle, &d->attrs);   /* a failing delete callback fails the free */
    if (err) return err;
    /* The handle stays valid while a pending operation or an enclosing type
     * (through MPI_Type_get_contents) still holds a reference. */
    cr_dt_release(d);
    return MPI_SUCCESS;
}

/* ---- envelope and contents --------------------------------------------------------------- */
int core_type_get_envelope(cr_datatype_t *datatype, MPI_Count *num_integers,
                           MPI_Count *num_addresses, MPI_Count *num_large_counts,
                           MPI_Count *num_datatypes, int *combiner)
{
    const cr_dt_env_t *e = &cr_dt_desc(datatype)->env;
    if (e->nc && !num_large_counts)
        return cr_error(MPI_ERR_TYPE, "datatype=%s: made by a large-count constructor; use "
                        "MPI_Type_get_envelope_c", dt_label(datatype));
    *combiner = e->combiner;
    *num_integers = e->ni;
    *num_addresses = e->na;
    if (num_large_counts) *num_large_counts = e->nc;
    *num_datatypes = e->nd;
    return MPI_SUCCESS;
}

int core_type_get_contents(cr_datatype_t *datatype, MPI_Count max_integers,
                           MPI_Count max_addresses, MPI_Count max_large_counts,
                           MPI_Count max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                           MPI_Datatype array_of_datatypes[])
{
    const cr_dt_env_t *e = &cr_dt_desc(datatype)->env;
    if (e->combiner == MPI_COMBINER_NAMED)
        return cr_error(MPI_ERR_TYPE, "datatype=%s: a predefined datatype has no contents",
                        dt_label(datatype));
    if (e->nc && !array_of_large_counts)
        return cr_error(MPI_ERR_TYPE, "datatype=%s: made by a large-count constructor; use "
                        "MPI_Type_get_contents_c", dt_label(datatype));
    if (max_integers < e->ni || max_addresses < e->na || max_large_counts < e->nc ||
        max_datatypes < e->nd)
        return cr_error(MPI_ERR_ARG, "the arrays hold (%lld, %lld, %lld, %lld) entries; the "
                        "envelope needs (%d, %d, %d, %d)", (long long)max_integers,
                        (long long)max_addresses, (long long)max_large_counts,
                        (long long)max_datatypes, e->ni, e->na, e->nc, e->nd);
    if ((e->ni && !array_of_integers) || (e->na && !array_of_addresses) ||
        (e->nd && !array_of_datatypes))
        return cr_error(MPI_ERR_ARG, "array_of_%s=NULL: null array",
                        e->ni && !array_of_integers ? "integers"
                        : e->na && !array_of_addresses ? "addresses" : "datatypes");
    if (e->ni) memcpy(array_of_integers, e->ints, (size_t)e->ni * sizeof *e->ints);
    if (e->na) memcpy(array_of_addresses, e->aints, (size_t)e->na * sizeof *e->aints);
    if (e->nc) memcpy(array_of_large_counts, e->counts, (size_t)e->nc * sizeof *e->counts);
    /* derived types come back as handles the caller frees: one more reference */
    for (int i = 0; i < e->nd; i++) {
        cr_dt_retain(e->types[i]);
        array_of_datatypes[i] = e->types[i]->handle;
    }
    return MPI_SUCCESS;
}

/* ---- MPI_Type_match_size ------------------------------------------------------------------ */
int core_type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const struct { int cls; MPI_Datatype t; } cands[] = {
        { MPI_TYPECLASS_INTEGER, MPI_SIGNED_CHAR }, { MPI_TYPECLASS_INTEGER, MPI_SHORT },
        { MPI_TYPECLASS_INTEGER, MPI_INT }, { MPI_TYPECLASS_INTEGER, MPI_LONG },
        { MPI_TYPECLASS_INTEGER, MPI_LONG_LONG_INT },
        { MPI_TYPECLASS_INTEGER, CR_H_MAKE(CR_ST_BUILTIN, CR_K_DATATYPE, 0x1032) },  /* INTEGER16 */
        { MPI_TYPECLASS_REAL, MPIX_C_FLOAT16 },
        { MPI_TYPECLASS_REAL, MPI_FLOAT }, { MPI_TYPECLASS_REAL, MPI_DOUBLE },
        { MPI_TYPECLASS_REAL, MPI_LONG_DOUBLE },
        { MPI_TYPECLASS_COMPLEX, MPI_COMPLEX4 },
        { MPI_TYPECLASS_COMPLEX, MPI_C_FLOAT_COMPLEX }, { MPI_TYPECLASS_COMPLEX, MPI_C_DOUBLE_COMPLEX },
        { MPI_TYPECLASS_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX },
    };
    if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL &&
        typeclass != MPI_TYPECLASS_COMPLEX)
        return cr_error(MPI_ERR_ARG, "typeclass=%d: not MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX",
                        typeclass);
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++)
        if (cands[i].cls == typeclass && cr_datatype_ptr(cands[i].t)->size == size) {
            *datatype = cands[i].t;
            return MPI_SUCCESS;
        }
    return cr_error(MPI_ERR_ARG, "size=%d: no predefined type of class %d has that size", size,
                    typeclass);
}

/* ---- MPI 4.1: MPI_Type_get_value_index ----------------------------------------------------- */
int core_type_get_value_index(cr_datatype_t *value_type, cr_datatype_t *index_type,
                              MPI_Datatype *pair_type)
{
    static const struct { MPI_Datatype v, i, pair; } pairs[] = {
        { MPI_FLOAT, MPI_INT, MPI_FLOAT_INT }, { MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT },
        { MPI_LONG, MPI_INT, MPI_LONG_INT }, { MPI_SHORT, MPI_INT, MPI_SHORT_INT },
        { MPI_INT, MPI_INT, MPI_2INT }, { MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT },
        { MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER }, { MPI_REAL, MPI_REAL, MPI_2REAL },
        { MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION },
    };
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        if (value_type->handle == pairs[k].v && index_type->handle == pairs[k].i)
            *pair_type = pairs[k].pair;
    return MPI_SUCCESS;
}

/* ---- Fortran 90 parameterised types --------------------------------------------------------
 * MPI_Type_create_f90_integer(r) is the type of selected_int_kind(r), _real and
 * _complex(p, r) that of selected_real_kind(p, r), as gfortran on x86-64 has
 * them: REAL(10) is the x87 extended format C's long double also uses.  Each
 * distinct (combiner, p, r) gets one type, made on first use and kept until the
 * process ends: it has its own envelope (MPI_COMBINER_F90_*, the arguments as
 * integers, no datatypes) and is otherwise the predefined type it stands for
 * (communication, reductions); like a predefined type it cannot be freed. */
typedef struct {
    int p, r;                 /* largest precision and range of the kind */
    MPI_Datatype real, cplx;
} f90_real_kind_t;

static const struct { int r; MPI_Datatype t; } f90_int_kinds[] = {
    { 2, MPI_INTEGER1 }, { 4, MPI_INTEGER2 }, { 9, MPI_INTEGER4 }, { 18, MPI_INTEGER8 },
    { 38, CR_H_MAKE(CR_ST_BUILTIN, CR_K_DATATYPE, 0x1032) },   /* MPI_INTEGER16 */
};
static const f90_real_kind_t f90_real_kinds[] = {
    { 6, 37, MPI_REAL4, MPI_COMPLEX8 },
    { 15, 307, MPI_REAL8, MPI_COMPLEX16 },
    { 18, 4931, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX },
    { 33, 4931, MPI_REAL16, MPI_COMPLEX32 },
};

typedef struct {
    int combiner, p, r;
    cr_datatype_t *type;
} f90_cached_t;
static f90_cached_t *f90_cache;
static int f90_ncached, f90_cap;

static int f90_type(int combiner, int p, int r, MPI_Datatype base, MPI_Datatype *newtype)
{
    for (int k = 0; k < f90_ncached; k++)
        if (f90_cache[k].combiner == combiner && f90_cache[k].p == p && f90_cache[k].r == r) {
            *newtype = f90_cache[k].type->handle;
            return MPI_SUCCESS;
        }
    if (f90_ncached == f90_cap) {
        int cap = f90_cap ? 2 * f90_cap : 8;
        f90_cached_t *c = realloc(f90_cache, (size_t)cap * sizeof *c);
        if (!c) return NOMEM();
        f90_cache = c;
        f90_cap = cap;
    }
    cr_datatype_t *o = cr_datatype_ptr(base), *d;
    int err = dt_clone(o, &d);
    if (err) return err;
    bool integer = combiner == MPI_COMBINER_F90_INTEGER;
    err = env_alloc(d, combiner, integer ? 1 : 2, 0, 0, 0);
    if (!err) {
        cr_dt_env_t *e = &cr_dt_desc(d)->env;
        e->ints[0] = integer ? r : p;
        if (!integer) e->ints[1] = r;
    }
    d->builtin = 1;       /* predefined: never freed, committed, no reference counting */
    d->committed = 1;
    d->name_builtin = o->name_builtin;   /* for messages; MPI_Type_get_name gives "" */
    err = dt_publish(d, err, newtype);
    if (err) return err;
    f90_cache[f90_ncached++] = (f90_cached_t){ combiner, p, r, d };
    return MPI_SUCCESS;
}

int core_type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    for (size_t k = 0; k < sizeof f90_int_kinds / sizeof f90_int_kinds[0]; k++)
        if (r <= f90_int_kinds[k].r)
            return f90_type(MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, f90_int_kinds[k].t,
                            newtype);
    return cr_error(MPI_ERR_ARG, "r=%d: no Fortran integer kind has a decimal range of %d", r, r);
}

static int f90_real(int combiner, int p, int r, MPI_Datatype *newtype)
{
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return cr_error(MPI_ERR_ARG, "p=MPI_UNDEFINED r=MPI_UNDEFINED: give at least one");
    int pp = p == MPI_UNDEFINED ? 0 : p, rr = r == MPI_UNDEFINED ? 0 : r;
    for (size_t k = 0; k < sizeof f90_real_kinds / sizeof f90_real_kinds[0]; k++) {
        const f90_real_kind_t *m = &f90_real_kinds[k];
        if (pp <= m->p && rr <= m->r)
            return f90_type(combiner, p, r,
                            combiner == MPI_COMBINER_F90_REAL ? m->real : m->cplx, newtype);
    }
    return cr_error(MPI_ERR_ARG, "p=%d r=%d: no Fortran real kind has that precision and range",
                    p, r);
}

int core_type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90_real(MPI_COMBINER_F90_REAL, p, r, newtype);
}

int core_type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90_real(MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}
