/* SPDX-License-Identifier: MIT */
/* MPI_Pack, MPI_Unpack, MPI_Pack_size and the external32 forms.  Courier's
 * native packed format is the engine's packed stream itself (no header), so
 * MPI_Pack_size is exactly count x size and a buffer packed by MPI_Pack can be
 * sent as MPI_PACKED or received as the original type. */
#include "core/core.h"
#include "core/datatype.h"

#include <string.h>

static inline char *at(const void *p, MPI_Count off)
{
    return (char *)((uintptr_t)p + (uintptr_t)off);
}

static int pack_native(const char *fname, const void *inbuf, MPI_Count incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                       MPI_Count *position)
{
    cr_datatype_t *dt = cr_datatype_ptr(datatype);
    MPI_Count n = incount * dt->size;
    if (*position < 0 || outsize - *position < n)
        return cr_error(MPI_ERR_TRUNCATE, "%s: %lld bytes at position %lld do not fit in "
                        "outsize=%lld", fname, (long long)n, (long long)*position,
                        (long long)outsize);
    if (n) cr_dt_pack(inbuf, (MPI_Aint)incount, dt, at(outbuf, *position));
    *position += n;
    return MPI_SUCCESS;
}

static int unpack_native(const char *fname, const void *inbuf, MPI_Count insize,
                         MPI_Count *position, void *outbuf, MPI_Count outcount,
                         MPI_Datatype datatype)
{
    cr_datatype_t *dt = cr_datatype_ptr(datatype);
    MPI_Count n = outcount * dt->size;
    if (*position < 0 || insize - *position < n)
        return cr_error(MPI_ERR_TRUNCATE, "%s: %lld bytes wanted at position %lld, insize=%lld",
                        fname, (long long)n, (long long)*position, (long long)insize);
    if (n) cr_dt_unpack(at(inbuf, *position), (size_t)n, outbuf, (MPI_Aint)outcount, dt);
    *position += n;
    return MPI_SUCCESS;
}

int core_pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    (void)comm;
    MPI_Count pos = *position;
    int err = pack_native("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, &pos);
    if (!err) *position = (int)pos;
    return err;
}

int core_pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    (void)comm;
    return pack_native("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position);
}

int core_unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    (void)comm;
    MPI_Count pos = *position;
    int err = unpack_native("MPI_Unpack", inbuf, insize, &pos, outbuf, outcount, datatype);
    if (!err) *position = (int)pos;
    return err;
}

int core_unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    (void)comm;
    return unpack_native("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype);
}

int core_pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    (void)comm;
    MPI_Count n = (MPI_Count)incount * cr_datatype_ptr(datatype)->size;
    if (n > 0x7fffffff)
        return cr_error(MPI_ERR_COUNT, "MPI_Pack_size: %lld bytes do not fit in an int; use "
                        "MPI_Pack_size_c", (long long)n);
    *size = (int)n;
    return MPI_SUCCESS;
}

int core_pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    (void)comm;
    *size = incount * cr_datatype_ptr(datatype)->size;
    return MPI_SUCCESS;
}

/* ---- external32 ------------------------------------------------------------------- */
static int check_datarep(const char *fname, const char *datarep)
{
    if (!datarep || strcmp(datarep, "external32") != 0)
        return cr_error(MPI_ERR_ARG, "%s: datarep=\"%s\": only \"external32\" is defined", fname,
                        datarep ? datarep : "(null)");
    return MPI_SUCCESS;
}

static int pack_ext(const char *fname, const char *datarep, const void *inbuf, MPI_Count incount,
                    MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position)
{
    int err = check_datarep(fname, datarep);
    if (err) return err;
    cr_datatype_t *dt = cr_datatype_ptr(datatype);
    if (!dt->committed && !dt->builtin)
        return cr_error(MPI_ERR_TYPE, "%s: the datatype is not committed", fname);
    MPI_Count n = incount * cr_dt_ext32_size(dt);
    if (*position < 0 || outsize - *position < n)
        return cr_error(MPI_ERR_TRUNCATE, "%s: %lld bytes at position %lld do not fit in "
                        "outsize=%lld", fname, (long long)n, (long long)*position,
                        (long long)outsize);
    *position += (MPI_Count)cr_dt_ext32_copy(CR_DT_PACK, (void *)inbuf, (MPI_Aint)incount, dt,
                                             at(outbuf, *position));
    return MPI_SUCCESS;
}

static int unpack_ext(const char *fname, const char *datarep, const void *inbuf,
                      MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
                      MPI_Datatype datatype)
{
    int err = check_datarep(fname, datarep);
    if (err) return err;
    cr_datatype_t *dt = cr_datatype_ptr(datatype);
    if (!dt->committed && !dt->builtin)
        return cr_error(MPI_ERR_TYPE, "%s: the datatype is not committed", fname);
    MPI_Count n = outcount * cr_dt_ext32_size(dt);
    if (*position < 0 || insize - *position < n)
        return cr_error(MPI_ERR_TRUNCATE, "%s: %lld bytes wanted at position %lld, insize=%lld",
                        fname, (long long)n, (long long)*position, (long long)insize);
    *position += (MPI_Count)cr_dt_ext32_copy(CR_DT_UNPACK, outbuf, (MPI_Aint)outcount, dt,
                                             at(inbuf, *position));
    return MPI_SUCCESS;
}

int core_pack_external(const char datarep[], const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    MPI_Count pos = *position;
    int err = pack_ext("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf, outsize,
                       &pos);
    if (!err) *position = (MPI_Aint)pos;
    return err;
}

int core_pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    return pack_ext("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf, outsize,
                    position);
}

int core_unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    MPI_Count pos = *position;
    int err = unpack_ext("MPI_Unpack_external", datarep, inbuf, insize, &pos, outbuf, outcount,
                         datatype);
    if (!err) *position = (MPI_Aint)pos;
    return err;
}

int core_unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    return unpack_ext("MPI_Unpack_external_c", datarep, inbuf, insize, position, outbuf,
                      outcount, datatype);
}

int core_pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    int err = check_datarep("MPI_Pack_external_size", datarep);
    if (err) return err;
    *size = (MPI_Aint)((MPI_Count)incount * cr_dt_ext32_size(cr_datatype_ptr(datatype)));
    return MPI_SUCCESS;
}

int core_pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    int err = check_datarep("MPI_Pack_external_size_c", datarep);
    if (err) return err;
    *size = incount * cr_dt_ext32_size(cr_datatype_ptr(datatype));
    return MPI_SUCCESS;
}
