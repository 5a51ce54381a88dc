/* SPDX-License-Identifier: MIT */
/* MPI_Pack, MPI_Unpack, MPI_Pack_size and the external32 forms.  Courier's
 * native packed format is the engine's packed stream itself (no header), so
 * MPI_Pack_size is exactly count x size and a buffer packed by MPI_Pack can be
 * sent as MPI_PACKED or received as the original type.  One entry serves each
 * procedure's int and large-count forms (the binding converts the counts). */
#include "core/core.h"
#include "core/datatype.h"
#include "core/api_dt.h"

#include <limits.h>
#include <string.h>

static inline char *at(const void *p, MPI_Count off)
{
    return (char *)((uintptr_t)p + (uintptr_t)off);
}

/* Room for n bytes at *position in a buffer of size bytes? */
static int check_room(MPI_Count n, MPI_Count position, MPI_Count size, const char *what)
{
    if (position < 0 || position > size || size - position < n)
        return cr_error(MPI_ERR_TRUNCATE, "position=%lld: %lld bytes do not fit in %s=%lld",
                        (long long)position, (long long)n, what, (long long)size);
    return MPI_SUCCESS;
}

int core_pack(const void *inbuf, MPI_Count incount, cr_datatype_t *datatype, void *outbuf,
              MPI_Count outsize, MPI_Count *position, cr_comm_t *comm)
{
    (void)comm;
    MPI_Count n = incount * datatype->size;
    int err = check_room(n, *position, outsize, "outsize");
    if (err) return err;
    if (n) cr_dt_pack(inbuf, (MPI_Aint)incount, datatype, at(outbuf, *position));
    *position += n;
    return MPI_SUCCESS;
}

int core_unpack(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                MPI_Count outcount, cr_datatype_t *datatype, cr_comm_t *comm)
{
    (void)comm;
    MPI_Count n = outcount * datatype->size;
    int err = check_room(n, *position, insize, "insize");
    if (err) return err;
    if (n) cr_dt_unpack(at(inbuf, *position), (size_t)n, outbuf, (MPI_Aint)outcount, datatype);
    *position += n;
    return MPI_SUCCESS;
}

int core_pack_size(MPI_Count incount, cr_datatype_t *datatype, cr_comm_t *comm, MPI_Count *size,
                   int large)
{
    (void)comm;
    MPI_Count n = incount * datatype->size;
    if (!large && n > INT_MAX)   /* an error rather than MPI_UNDEFINED: callers allocate it */
        return cr_error(MPI_ERR_COUNT, "%lld bytes do not fit in an int; use MPI_Pack_size_c",
                        (long long)n);
    *size = n;
    return MPI_SUCCESS;
}

/* ---- external32 ------------------------------------------------------------------- */
static int check_datarep(const char *datarep)
{
    if (!datarep || strcmp(datarep, "external32") != 0)
        return cr_error(MPI_ERR_ARG, "datarep=\"%s\": only \"external32\" is defined",
                        datarep ? datarep : "(null)");
    return MPI_SUCCESS;
}

int core_pack_external(const char datarep[], const void *inbuf, MPI_Count incount,
                       cr_datatype_t *datatype, void *outbuf, MPI_Count outsize,
                       MPI_Count *position)
{
    int err = check_datarep(datarep);
    if (!err) err = check_room(incount * cr_dt_ext32_size(datatype), *position, outsize, "outsize");
    if (err) return err;
    *position += (MPI_Count)cr_dt_ext32_copy(CR_DT_PACK, (void *)inbuf, (MPI_Aint)incount,
                                             datatype, at(outbuf, *position));
    return MPI_SUCCESS;
}

int core_unpack_external(const char datarep[], const void *inbuf, MPI_Count insize,
                         MPI_Count *position, void *outbuf, MPI_Count outcount,
                         cr_datatype_t *datatype)
{
    int err = check_datarep(datarep);
    if (!err) err = check_room(outcount * cr_dt_ext32_size(datatype), *position, insize, "insize");
    if (err) return err;
    *position += (MPI_Count)cr_dt_ext32_copy(CR_DT_UNPACK, outbuf, (MPI_Aint)outcount, datatype,
                                             at(inbuf, *position));
    return MPI_SUCCESS;
}

int core_pack_external_size(const char datarep[], MPI_Count incount, cr_datatype_t *datatype,
                            MPI_Count *size)
{
    int err = check_datarep(datarep);
    if (err) return err;
    *size = incount * cr_dt_ext32_size(datatype);
    return MPI_SUCCESS;
}
