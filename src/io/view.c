/* SPDX-License-Identifier: MIT */
/* File views: MPI_File_set_view / get_view, the layout tree of a filetype in
 * the file, and the two mappings everything else uses: a walk of a range of
 * the view's data stream that yields file run records, and the inverse, the
 * stream position of a file offset.
 *
 * The layout tree is a copy of the datatype engine's loop tree (for native
 * data the filetype's own; otherwise the tree of its file layout, datarep.c)
 * with the span of each repetition's data.  Walks skip whole subtrees in O(1)
 * like the engine's pack walk and emit one record per leaf visit (a vector of
 * blocks), so a strided view costs per leaf, not per block.  A view whose
 * instances continue one regular vector of blocks (every contiguous or
 * vector-like filetype, resized or not) is walked in O(1). */
#define _GNU_SOURCE
#include "io/io.h"
#include "core/datatype.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- layout trees ----------------------------------------------------------------- */
static void node_free(io_node_t *n)
{
    for (int k = 0; k < n->nkids; k++) node_free(&n->kids[k]);
    free(n->kids);
    n->kids = NULL;
    n->nkids = 0;
}

/* Span of all repetitions of n, from the parent's base. */
static void node_span(const io_node_t *n, int64_t *lo, int64_t *hi)
{
    int64_t reach = (int64_t)(n->count - 1) * n->stride;
    *lo = n->off + n->lo + (reach < 0 ? reach : 0);
    *hi = n->off + n->hi + (reach > 0 ? reach : 0);
}

/* Copy src into dst; clears *mono when data offsets ever go backwards. */
static int node_build(io_node_t *dst, const cr_dt_node_t *src, int *mono)
{
    memset(dst, 0, sizeof *dst);
    dst->off = src->off;
    dst->count = src->count;
    dst->stride = src->stride;
    dst->size = (MPI_Aint)src->size;
    if (src->nkids == 0 || src->dense) {
        dst->run = 1;
        dst->lo = src->nkids ? src->doff : 0;
        dst->hi = dst->lo + dst->size;
    } else {
        dst->kids = calloc((size_t)src->nkids, sizeof *dst->kids);
        if (!dst->kids) return -1;
        dst->nkids = src->nkids;
        int64_t prev_hi = INT64_MIN;
        int first = 1;
        for (int k = 0; k < src->nkids; k++) {
            if (node_build(&dst->kids[k], &src->kids[k], mono)) return -1;
            const io_node_t *c = &dst->kids[k];
            if (c->size == 0 || c->count == 0) continue;
            int64_t lo, hi;
            node_span(c, &lo, &hi);
            if (lo < prev_hi) *mono = 0;
            prev_hi = hi;
            if (first || lo < dst->lo) dst->lo = (MPI_Aint)lo;
            if (first || hi > dst->hi) dst->hi = (MPI_Aint)hi;
            first = 0;
        }
    }
    if (dst->count > 1 && dst->size > 0 && dst->stride < dst->hi - dst->lo) *mono = 0;
    return 0;
}

/* Whether the type map of n goes backwards (*dec) or lays data twice on
 * the same bytes (*ovl): its repetitions, and its children in order. */
static void node_order(const io_node_t *n, int *dec, int *ovl)
{
    if (n->count > 1 && n->size > 0) {
        if (n->stride < 0) *dec = 1;
        else if (n->stride < n->hi - n->lo) *ovl = 1;
    }
    int64_t prev_lo = INT64_MIN, prev_hi = INT64_MIN;
    for (int k = 0; k < n->nkids; k++) {
        const io_node_t *c = &n->kids[k];
        if (c->size == 0 || c->count == 0) continue;
        node_order(c, dec, ovl);
        int64_t lo, hi;
        node_span(c, &lo, &hi);
        if (lo < prev_lo) *dec = 1;
        else if (lo < prev_hi) *ovl = 1;
        prev_lo = lo;
        prev_hi = hi;
    }
}

/* MPI 4.0 14.3: the displacements of an etype's and a filetype's type maps
 * are non-negative and monotonically non-decreasing; a file open for
 * writing takes no filetype that overlaps itself.  MPI_ERR_IO as ROMIO. */
static int check_typemap(const cr_datatype_t *dt, const char *which, int writable, const char *fname)
{
    if (dt->size <= 0) return MPI_SUCCESS;
    if (dt->true_lb < 0)
        return cr_error(MPI_ERR_IO, "%s: %s=0x%08x has data at a negative displacement (%lld)", fname,
                        which, (unsigned)dt->handle, (long long)dt->true_lb);
    io_node_t root;
    int mono = 1, dec = 0, ovl = 0;
    if (node_build(&root, &cr_dt_desc(dt)->root, &mono)) {
        node_free(&root);
        return cr_error(MPI_ERR_NO_MEM, "%s: no memory to check %s's type map", fname, which);
    }
    node_order(&root, &dec, &ovl);
    node_free(&root);
    if (dec)
        return cr_error(MPI_ERR_IO, "%s: %s=0x%08x has displacements that decrease (they must be "
                        "monotonically non-decreasing)", fname, which, (unsigned)dt->handle);
    if (ovl && writable)
        return cr_error(MPI_ERR_IO, "%s: %s=0x%08x lays data twice on the same bytes, which a file "
                        "open for writing does not take", fname, which, (unsigned)dt->handle);
    return MPI_SUCCESS;
}

/* Blocks of one repetition... of every repetition of n. */
static int64_t node_blocks(const io_node_t *n)
{
    if (n->run) return n->count;
    int64_t b = 0;
    for (int k = 0; k < n->nkids; k++) b += node_blocks(&n->kids[k]);
    return b * n->count;
}

/* ---- views -------------------------------------------------------------------------- */
static void view_finish_layout(io_view_t *v)
{
    v->iblocks = node_blocks(&v->root);
    const io_node_t *r = &v->root;
    int64_t lo, hi;
    node_span(r, &lo, &hi);
    v->span_lo = lo;
    v->span_hi = hi;
    v->contig = 0;
    v->vec = 0;
    if (v->fsize > 0 && r->run && r->size > 0) {
        /* one block per repetition; the repetitions, then the instances,
         * continue one regular vector */
        if (r->count == 1) {
            v->vec = 1;
            v->blen = v->fsize;
            v->bstride = v->fext;
        } else if (v->fext == (int64_t)r->count * r->stride && r->stride >= r->size) {
            v->vec = 1;
            v->blen = r->size;
            v->bstride = r->stride;
        }
        v->off0 = r->off + r->lo;
        if (v->vec && v->blen == v->bstride) v->contig = 1;
    }
    if (v->fsize > 0 && v->fext < hi - lo) v->monotonic = 0;
    if (v->vec && v->bstride < v->blen) v->monotonic = 0, v->vec = 0, v->contig = 0;
}

void io_view_init_default(io_view_t *v)
{
    memset(v, 0, sizeof *v);
    v->etype = v->filetype = cr_datatype_ptr(MPI_BYTE);
    v->rep_kind = IO_REP_NATIVE;
    snprintf(v->datarep, sizeof v->datarep, "native");
    v->esize = v->fsize = v->fext = 1;
    v->monotonic = 1;
    v->root.count = 1;
    v->root.size = 1;
    v->root.run = 1;
    v->root.hi = 1;
    view_finish_layout(v);
}

void io_view_free(io_view_t *v)
{
    node_free(&v->root);
    if (v->etype) cr_dt_release(v->etype);
    if (v->filetype) cr_dt_release(v->filetype);
    v->etype = v->filetype = NULL;
}

int64_t io_view_type_size(const io_view_t *v, const cr_datatype_t *dt)
{
    if (v->rep_kind == IO_REP_NATIVE) return dt->size;
    if (v->rep_kind == IO_REP_EXTERNAL32) return cr_dt_ext32_size(dt);
    /* user representations: the layout type's size */
    MPI_Datatype lt;
    if (io_datarep_layout(v->rep_kind, v->rep, dt->handle, &lt, "size")) return -1;
    cr_datatype_t *l = cr_datatype_ptr(lt);
    int64_t s = l ? l->size : -1;
    PMPI_Type_free(&lt);
    return s;
}

int io_view_type_extent(const io_view_t *v, cr_datatype_t *dt, MPI_Count *extent, const char *fname)
{
    if (v->rep_kind == IO_REP_NATIVE) {
        *extent = dt->extent;
        return MPI_SUCCESS;
    }
    MPI_Datatype lt;
    int err = io_datarep_layout(v->rep_kind, v->rep, dt->handle, &lt, fname);
    if (err) return err;
    *extent = cr_datatype_ptr(lt)->extent;
    PMPI_Type_free(&lt);
    return MPI_SUCCESS;
}

static int is_committed(const cr_datatype_t *d)
{
    return d->builtin || d->committed;
}

int io_view_set(io_view_t *v, MPI_Offset disp, cr_datatype_t *etype, cr_datatype_t *filetype,
                const char *datarep, int writable, const char *fname)
{
    if (!is_committed(etype))
        return cr_error(MPI_ERR_TYPE, "%s: etype=0x%08x is not committed", fname, (unsigned)etype->handle);
    if (!is_committed(filetype))
        return cr_error(MPI_ERR_TYPE, "%s: filetype=0x%08x is not committed", fname,
                        (unsigned)filetype->handle);
    if (disp < 0)
        return cr_error(MPI_ERR_ARG, "%s: disp=%lld: a displacement may not be negative", fname,
                        (long long)disp);
    if (etype->size <= 0)
        return cr_error(MPI_ERR_ARG, "%s: etype=0x%08x has no data (size 0)", fname,
                        (unsigned)etype->handle);
    if (filetype->size % etype->size != 0)
        return cr_error(MPI_ERR_ARG, "%s: filetype=0x%08x (%lld bytes of data) is not made of "
                        "etypes of %lld bytes", fname, (unsigned)filetype->handle,
                        (long long)filetype->size, (long long)etype->size);
    /* both homogeneous: the filetype's elements must be the etype's */
    if (etype->basic != CR_B_NONE && filetype->basic != CR_B_NONE && etype->basic != filetype->basic &&
        etype->basic != CR_B_BYTE && etype->basic != CR_B_PACKED)
        return cr_error(MPI_ERR_ARG, "%s: filetype=0x%08x is not built from etype=0x%08x "
                        "(different element types)", fname, (unsigned)filetype->handle,
                        (unsigned)etype->handle);
    int err = check_typemap(etype, "etype", writable, fname);
    if (!err) err = check_typemap(filetype, "filetype", writable, fname);
    if (err) return err;
    io_view_t n;
    memset(&n, 0, sizeof n);
    n.disp = disp;
    n.monotonic = 1;
    if (!strcmp(datarep, "native") || !strcmp(datarep, "internal")) {
        n.rep_kind = IO_REP_NATIVE;
    } else if (!strcmp(datarep, "external32")) {
        n.rep_kind = IO_REP_EXTERNAL32;
    } else if ((n.rep = io_datarep_find(datarep)) != NULL) {
        n.rep_kind = IO_REP_USER;
    } else {
        return cr_error(MPI_ERR_UNSUPPORTED_DATAREP, "%s: datarep=\"%s\": no such data representation "
                        "(native, internal, external32 or one registered with MPI_Register_datarep)",
                        fname, datarep);
    }
    snprintf(n.datarep, sizeof n.datarep, "%s", datarep);
    const cr_datatype_t *layout = filetype;
    MPI_Datatype lt = MPI_DATATYPE_NULL;
    if (n.rep_kind != IO_REP_NATIVE) {
        err = io_datarep_layout(n.rep_kind, n.rep, filetype->handle, &lt, fname);
        if (err) return err;
        layout = cr_datatype_ptr(lt);
        n.esize = io_view_type_size(&n, etype);
        if (n.esize <= 0) {
            PMPI_Type_free(&lt);
            return cr_error(MPI_ERR_UNSUPPORTED_DATAREP, "%s: etype=0x%08x has no size under "
                            "data representation \"%s\"", fname, (unsigned)etype->handle, datarep);
        }
    } else {
        n.esize = etype->size;
    }
    n.fsize = layout->size;
    n.fext = layout->extent;
    int rc = node_build(&n.root, &cr_dt_desc(layout)->root, &n.monotonic);
    if (lt != MPI_DATATYPE_NULL) PMPI_Type_free(&lt);
    if (rc) {
        node_free(&n.root);
        return cr_error(MPI_ERR_NO_MEM, "%s: no memory for the view's layout", fname);
    }
    if (n.fsize > 0 && n.fext <= 0) n.monotonic = 0;
    view_finish_layout(&n);
    cr_dt_retain(etype);
    cr_dt_retain(filetype);
    n.etype = etype;
    n.filetype = filetype;
    io_view_free(v);
    *v = n;
    return MPI_SUCCESS;
}

/* ---- walking a range of the stream ---------------------------------------------------- */
typedef struct {
    io_sink_t *s;
    int64_t skip, left;
} walk_t;

static int walk_node(walk_t *w, const io_node_t *n, int64_t base)
{
    int64_t rep = n->size, total = rep * (int64_t)n->count;
    if (rep == 0) return 0;
    if (w->skip >= total) {
        w->skip -= total;
        return 0;
    }
    int64_t i = w->skip / rep;
    w->skip -= i * rep;
    int64_t b = base + n->off;
    if (n->run) {
        int64_t p = b + n->lo;
        int err;
        if (w->skip) {   /* the tail of a block */
            int64_t k = rep - w->skip;
            if (k > w->left) k = w->left;
            if ((err = io_sink_push(w->s, p + i * n->stride + w->skip, k, 0, 1))) return err;
            w->skip = 0;
            w->left -= k;
            i++;
            if (!w->left) return 0;
        }
        int64_t whole = n->count - i;
        if (whole > w->left / rep) whole = w->left / rep;
        if (whole > 0) {
            if ((err = io_sink_push(w->s, p + i * n->stride, rep, n->stride, whole))) return err;
            w->left -= whole * rep;
            i += whole;
        }
        if (i < n->count && w->left > 0) {
            if ((err = io_sink_push(w->s, p + i * n->stride, w->left, 0, 1))) return err;
            w->left = 0;
        }
        return 0;
    }
    for (; i < n->count; i++) {
        for (int k = 0; k < n->nkids; k++) {
            int err = walk_node(w, &n->kids[k], b + i * n->stride);
            if (err) return err;
            if (!w->left) return 0;
        }
    }
    return 0;
}

int io_view_walk(const io_view_t *v, int64_t pos, int64_t len, io_sink_t *sink)
{
    if (len <= 0) return 0;
    if (v->vec) {
        int64_t base = v->disp + v->off0;
        int64_t b = pos / v->blen, r = pos % v->blen;
        int err;
        if (v->contig) return io_sink_push(sink, base + pos, len, 0, 1);
        if (r) {
            int64_t k = v->blen - r < len ? v->blen - r : len;
            if ((err = io_sink_push(sink, base + b * v->bstride + r, k, 0, 1))) return err;
            len -= k;
            b++;
        }
        int64_t whole = len / v->blen;
        if (whole > 0) {
            if ((err = io_sink_push(sink, base + b * v->bstride, v->blen, v->bstride, whole))) return err;
            b += whole;
            len -= whole * v->blen;
        }
        if (len > 0) return io_sink_push(sink, base + b * v->bstride, len, 0, 1);
        return 0;
    }
    walk_t w = { sink, pos % v->fsize, len };
    for (int64_t k = pos / v->fsize; w.left > 0; k++) {
        int err = walk_node(&w, &v->root, v->disp + k * v->fext);
        if (err) return err;
        w.skip = 0;
    }
    return 0;
}

/* ---- positions ---------------------------------------------------------------------------- */
static int64_t map_node(const io_node_t *n, int64_t base, int64_t r)
{
    int64_t i = r / n->size;
    r -= i * n->size;
    int64_t b = base + n->off + i * n->stride;
    if (n->run) return b + n->lo + r;
    for (int k = 0; k < n->nkids; k++) {
        const io_node_t *c = &n->kids[k];
        int64_t t = (int64_t)c->size * c->count;
        if (r < t) return map_node(c, b, r);
        r -= t;
    }
    return b + n->hi;   /* not reached for r < size */
}

int64_t io_view_offset(const io_view_t *v, int64_t pos)
{
    if (v->vec) return v->disp + v->off0 + (pos / v->blen) * v->bstride + pos % v->blen;
    if (v->fsize <= 0) return v->disp;
    int64_t k = pos / v->fsize;
    return map_node(&v->root, v->disp + k * v->fext, pos % v->fsize);
}

/* Data bytes of n (every repetition) at file offsets below f. */
static int64_t before_node(const io_node_t *n, int64_t base, int64_t f)
{
    if (n->count == 0 || n->size == 0) return 0;
    int64_t b0 = base + n->off;
    if (f <= b0 + n->lo) return 0;
    int64_t full;
    if (n->count > 1 && n->stride > 0) {
        int64_t d = f - b0 - n->hi;
        full = d >= 0 ? d / n->stride + 1 : 0;
        if (full > n->count) full = n->count;
    } else {
        full = f >= b0 + n->hi ? n->count : 0;
    }
    int64_t bytes = full * (int64_t)n->size;
    if (full < n->count) {
        int64_t b = b0 + full * n->stride;
        if (n->run) {
            int64_t part = f - (b + n->lo);
            if (part > n->size) part = n->size;
            if (part > 0) bytes += part;
        } else {
            for (int k = 0; k < n->nkids; k++) bytes += before_node(&n->kids[k], b, f);
        }
    }
    return bytes;
}

int64_t io_view_pos(const io_view_t *v, int64_t off)
{
    if (v->fsize <= 0) return 0;
    if (v->vec) {
        int64_t rel = off - (v->disp + v->off0);
        if (rel <= 0) return 0;
        int64_t b = rel / v->bstride, r = rel % v->bstride;
        return b * v->blen + (r < v->blen ? r : v->blen);
    }
    int64_t rel = off - v->disp;
    int64_t full = 0;
    if (rel >= v->span_hi) full = (rel - v->span_hi) / v->fext + 1;
    return full * v->fsize + before_node(&v->root, v->disp + full * v->fext, off);
}

/* ---- MPI_File_set_view, get_view, get_type_extent ------------------------------------------ */
int core_file_set_view(cr_file_t *fh, MPI_Offset disp, cr_datatype_t *etype,
                       cr_datatype_t *filetype, const char *datarep, cr_info_t *info,
                       const char *fname)
{
    /* Operations still under way would see the view change under them (and
     * their internal collectives would interleave with ours): the standard
     * makes that the program's error, ROMIO finishes them first; so do we. */
    io_op_drain(fh);
    int err = MPI_SUCCESS;
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(fh->amode & MPI_MODE_SEQUENTIAL)) {
            err = cr_error(MPI_ERR_ARG, "%s: disp=MPI_DISPLACEMENT_CURRENT needs a file opened with "
                           "MPI_MODE_SEQUENTIAL", fname);
        } else {
            int64_t sp = 0;
            err = io_shfp_get(fh, &sp, fname);
            disp = io_view_offset(&fh->view, sp * fh->view.esize);
        }
    }
    io_view_t nv;
    io_view_init_default(&nv);
    if (!err) err = io_view_set(&nv, disp, etype, filetype, datarep ? datarep : "",
                                   !(fh->amode & MPI_MODE_RDONLY), fname);
    if (!err) err = io_hints_apply(&fh->hints, &fh->kept, info, fname);
    /* all or nothing: every rank's outcome, whether any rank has the
     * shared pointer's file open, and whether any rank's view is not
     * contiguous (only such a rank may sieve writes, so only then do
     * writes take byte-range locks against sieving) */
    int64_t v[4] = { err ? cr_error_class(err) : 0, fh->shfp_fd >= 0, nv.esize, !err && !nv.contig };
    int64_t neg = -nv.esize;
    int rc = io_coll_max(fh, v, 4);
    if (!rc) rc = io_coll_max(fh, &neg, 1);
    if (!err && rc) err = rc;
    if (!err && v[0])
        err = cr_error((int)v[0], "%s: another rank's arguments were not accepted", fname);
    if (!err && -neg != v[2])
        err = cr_error(MPI_ERR_NOT_SAME, "%s: ranks give etypes of different sizes in the file", fname);
    if (err) {
        io_view_free(&nv);
        return err;
    }
    if ((err = io_coll_bcast(fh, &fh->hints, sizeof fh->hints, 0))) {
        io_view_free(&nv);
        return err;
    }
    io_view_free(&fh->view);
    fh->view = nv;
    fh->any_noncontig = v[3] != 0;
    fh->fp_ind = 0;
    fh->shfp_init = 0;
    int64_t res = 0;
    if (v[1] && fh->rank == 0) {
        int e = io_shfp_set(fh, 0, fname);
        res = e ? cr_error_class(e) : 0;
    }
    if ((err = io_coll_bcast(fh, &res, sizeof res, 0))) return err;
    if (res) return cr_error((int)res, "%s: the shared file pointer could not be reset", fname);
    return io_file_update_aggregators(fh, fname);
}

static MPI_Datatype type_out(cr_datatype_t *t)
{
    if (t->builtin) return t->handle;
    MPI_Datatype d;
    if (PMPI_Type_dup(t->handle, &d) != MPI_SUCCESS) return MPI_DATATYPE_NULL;
    PMPI_Type_commit(&d);
    return d;
}

int core_file_get_view(cr_file_t *fh, MPI_Offset *disp, MPI_Datatype *etype,
                       MPI_Datatype *filetype, char *datarep)
{
    *disp = fh->view.disp;
    *etype = type_out(fh->view.etype);
    *filetype = type_out(fh->view.filetype);
    if (*etype == MPI_DATATYPE_NULL || *filetype == MPI_DATATYPE_NULL)
        return cr_error(MPI_ERR_NO_MEM, "MPI_File_get_view: no memory to copy the view's types");
    if (datarep) snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", fh->view.datarep);
    return MPI_SUCCESS;
}

int core_file_get_type_extent(cr_file_t *fh, cr_datatype_t *datatype, MPI_Count *extent,
                              const char *fname)
{
    return io_view_type_extent(&fh->view, datatype, extent, fname);
}
