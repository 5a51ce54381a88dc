/* SPDX-License-Identifier: MIT */
/* Data representations: "native" and "internal" (the same: memory bytes as
 * they are), "external32" (the datatype engine's big-endian conversion) and
 * the ones registered with MPI_Register_datarep.
 *
 * Under a representation other than native, a type's layout in the file
 * differs from memory: every predefined type takes its file size, counts and
 * strides in elements scale with it, byte displacements stay as given (MPI
 * 4.0, 14.5.1).  io_datarep_layout rebuilds a type that way from its
 * envelope and contents through the public constructors, with each
 * predefined type replaced by a block of MPI_BYTE of its file size; the view
 * then walks that type's loop tree like any other. */
#define _GNU_SOURCE
#include "io/io.h"
#include "core/datatype.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static io_datarep_t *reps;

io_datarep_t *io_datarep_find(const char *name)
{
    for (io_datarep_t *r = reps; r; r = r->next)
        if (!strcmp(r->name, name)) return r;
    return NULL;
}

int core_register_datarep(const char *datarep,
                          MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_conversion_function_c *read_conversion_fn_c,
                          MPI_Datarep_conversion_function_c *write_conversion_fn_c,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    static const char fname[] = "MPI_Register_datarep";
    if (!datarep || !*datarep || strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        return cr_error(MPI_ERR_ARG, "%s: datarep must be a name of 1 to %d characters", fname,
                        MPI_MAX_DATAREP_STRING - 1);
    if (!strcmp(datarep, "native") || !strcmp(datarep, "internal") ||
        !strcmp(datarep, "external32") || io_datarep_find(datarep))
        return cr_error(MPI_ERR_DUP_DATAREP, "%s: datarep=\"%s\" is already defined", fname, datarep);
    if (!dtype_file_extent_fn)
        return cr_error(MPI_ERR_ARG, "%s: dtype_file_extent_fn is NULL", fname);
    io_datarep_t *r = calloc(1, sizeof *r);
    if (!r) return cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    snprintf(r->name, sizeof r->name, "%s", datarep);
    r->read_fn = read_conversion_fn;
    r->write_fn = write_conversion_fn;
    r->read_fn_c = read_conversion_fn_c;
    r->write_fn_c = write_conversion_fn_c;
    r->extent_fn = dtype_file_extent_fn;
    r->extra_state = extra_state;
    r->next = reps;
    reps = r;
    return MPI_SUCCESS;
}

int io_datarep_basic_size(io_rep_kind_t kind, io_datarep_t *rep, cr_datatype_t *dt, int64_t *out)
{
    if (kind == IO_REP_NATIVE) {
        *out = dt->size;
        return MPI_SUCCESS;
    }
    if (kind == IO_REP_EXTERNAL32) {
        *out = cr_dt_ext32_size(dt);
        return MPI_SUCCESS;
    }
    MPI_Aint ext = 0;
    int rc = rep->extent_fn(dt->handle, &ext, rep->extra_state);
    if (rc != MPI_SUCCESS || ext < 0)
        return cr_error(MPI_ERR_CONVERSION, "data representation \"%s\": its extent function "
                        "failed for datatype 0x%08x", rep->name, (unsigned)dt->handle);
    *out = ext;
    return MPI_SUCCESS;
}

/* ---- layouts -------------------------------------------------------------------------- */
/* The layout of h in *out; *owned says whether *out must be freed. */
static int layout(io_rep_kind_t kind, io_datarep_t *rep, MPI_Datatype h, MPI_Datatype *out,
                  int *owned, const char *fname, int depth)
{
    cr_datatype_t *d = cr_datatype_ptr(h);
    if (!d) return cr_error(MPI_ERR_TYPE, "%s: datatype 0x%08x is not valid", fname, (unsigned)h);
    if (depth > 64) return cr_error(MPI_ERR_TYPE, "%s: datatype nested too deeply", fname);
    int ni, na, nd, comb;
    int rc = PMPI_Type_get_envelope(h, &ni, &na, &nd, &comb);
    if (rc) return cr_error(MPI_ERR_UNSUPPORTED_DATAREP, "%s: the layout of datatype 0x%08x "
                            "under a non-native representation is not known (a large-count type?)",
                            fname, (unsigned)h);
    *owned = 0;
    if (comb == MPI_COMBINER_NAMED) {
        if (d->size == 0) {     /* MPI_LB / MPI_UB markers */
            *out = h;
            return MPI_SUCCESS;
        }
        int64_t fs;
        int err = io_datarep_basic_size(kind, rep, d, &fs);
        if (err) return err;
        if (fs > INT_MAX) return cr_error(MPI_ERR_TYPE, "%s: file size of a type too large", fname);
        *owned = 1;
        return PMPI_Type_contiguous((int)fs, MPI_BYTE, out) ? cr_error(MPI_ERR_INTERN, "%s: layout", fname)
                                                           : MPI_SUCCESS;
    }
    int *ints = malloc(((size_t)ni + 1) * sizeof *ints);
    MPI_Aint *aints = malloc(((size_t)na + 1) * sizeof *aints);
    MPI_Datatype *types = malloc(((size_t)nd + 1) * sizeof *types);
    MPI_Datatype *lt = calloc((size_t)nd + 1, sizeof *lt);
    int *lown = calloc((size_t)nd + 1, sizeof *lown);
    int err = MPI_SUCCESS;
    if (!ints || !aints || !types || !lt || !lown) {
        err = cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
        goto out;
    }
    if (PMPI_Type_get_contents(h, ni, na, nd, ints, aints, types)) {
        err = cr_error(MPI_ERR_INTERN, "%s: contents of datatype 0x%08x", fname, (unsigned)h);
        nd = 0;
        goto out;
    }
    for (int i = 0; i < nd && !err; i++) err = layout(kind, rep, types[i], &lt[i], &lown[i], fname, depth + 1);
    if (err) goto out;
    *owned = 1;
    switch (comb) {
    case MPI_COMBINER_DUP: rc = PMPI_Type_dup(lt[0], out); break;
    case MPI_COMBINER_CONTIGUOUS: rc = PMPI_Type_contiguous(ints[0], lt[0], out); break;
    case MPI_COMBINER_VECTOR: rc = PMPI_Type_vector(ints[0], ints[1], ints[2], lt[0], out); break;
    case MPI_COMBINER_HVECTOR: rc = PMPI_Type_create_hvector(ints[0], ints[1], aints[0], lt[0], out); break;
    case MPI_COMBINER_INDEXED:
        rc = PMPI_Type_indexed(ints[0], ints + 1, ints + 1 + ints[0], lt[0], out);
        break;
    case MPI_COMBINER_HINDEXED:
        rc = PMPI_Type_create_hindexed(ints[0], ints + 1, aints, lt[0], out);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        rc = PMPI_Type_create_indexed_block(ints[0], ints[1], ints + 2, lt[0], out);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        rc = PMPI_Type_create_hindexed_block(ints[0], ints[1], aints, lt[0], out);
        break;
    case MPI_COMBINER_STRUCT:
        rc = PMPI_Type_create_struct(ints[0], ints + 1, aints, lt, out);
        break;
    case MPI_COMBINER_SUBARRAY: {
        int n = ints[0];
        rc = PMPI_Type_create_subarray(n, ints + 1, ints + 1 + n, ints + 1 + 2 * n, ints[1 + 3 * n],
                                       lt[0], out);
        break;
    }
    case MPI_COMBINER_DARRAY: {
        int n = ints[2];
        rc = PMPI_Type_create_darray(ints[0], ints[1], n, ints + 3, ints + 3 + n, ints + 3 + 2 * n,
                                     ints + 3 + 3 * n, ints[3 + 4 * n], lt[0], out);
        break;
    }
    case MPI_COMBINER_RESIZED: rc = PMPI_Type_create_resized(lt[0], aints[0], aints[1], out); break;
    default:
        *owned = 0;
        err = cr_error(MPI_ERR_UNSUPPORTED_DATAREP, "%s: datatype 0x%08x (combiner %d) has no layout "
                       "under data representation other than native", fname, (unsigned)h, comb);
        goto out;
    }
    if (rc) {
        *owned = 0;
        err = cr_error(MPI_ERR_TYPE, "%s: could not build the file layout of datatype 0x%08x", fname,
                       (unsigned)h);
    }
out:
    for (int i = 0; i < nd; i++) {
        if (lown && lt && lown[i]) PMPI_Type_free(&lt[i]);
        cr_datatype_t *t = types ? cr_datatype_ptr(types[i]) : NULL;
        if (t && !t->builtin) PMPI_Type_free(&types[i]);
    }
    free(ints);
    free(aints);
    free(types);
    free(lt);
    free(lown);
    return err;
}

int io_datarep_layout(io_rep_kind_t kind, io_datarep_t *rep, MPI_Datatype dt, MPI_Datatype *out,
                      const char *fname)
{
    int owned;
    MPI_Datatype t;
    int err = layout(kind, rep, dt, &t, &owned, fname, 0);
    if (err) return err;
    if (!owned) {   /* a marker: a type of its own for the caller to free */
        if (PMPI_Type_dup(t, &t)) return cr_error(MPI_ERR_INTERN, "%s: layout", fname);
    }
    PMPI_Type_commit(&t);
    *out = t;
    return MPI_SUCCESS;
}

/* ---- conversion ----------------------------------------------------------------------------- */
int io_datarep_convert(const io_view_t *v, int dir, void *buf, MPI_Count count, cr_datatype_t *dt,
                       void *stream, const char *fname)
{
    if (v->rep_kind == IO_REP_EXTERNAL32) {
        cr_dt_ext32_copy(dir, buf, (MPI_Aint)count, dt, stream);
        return MPI_SUCCESS;
    }
    io_datarep_t *r = v->rep;
    int rc;
    if (dir == CR_DT_PACK) {
        if (r->write_fn_c) rc = r->write_fn_c(buf, dt->handle, count, stream, 0, r->extra_state);
        else if (r->write_fn && count <= INT_MAX)
            rc = r->write_fn(buf, dt->handle, (int)count, stream, 0, r->extra_state);
        else if (!r->write_fn) {
            cr_dt_pack(buf, (MPI_Aint)count, dt, stream);
            rc = MPI_SUCCESS;
        } else
            rc = MPI_ERR_COUNT;
    } else {
        if (r->read_fn_c) rc = r->read_fn_c(buf, dt->handle, count, stream, 0, r->extra_state);
        else if (r->read_fn && count <= INT_MAX)
            rc = r->read_fn(buf, dt->handle, (int)count, stream, 0, r->extra_state);
        else if (!r->read_fn) {
            cr_dt_unpack(stream, (size_t)count * (size_t)dt->size, buf, (MPI_Aint)count, dt);
            rc = MPI_SUCCESS;
        } else
            rc = MPI_ERR_COUNT;
    }
    if (rc != MPI_SUCCESS)
        return cr_error(MPI_ERR_CONVERSION, "%s: the %s conversion function of data representation "
                        "\"%s\" failed (returned %d)", fname, dir == CR_DT_PACK ? "write" : "read",
                        r->name, rc);
    return MPI_SUCCESS;
}
