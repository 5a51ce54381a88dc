/* SPDX-License-Identifier: MIT */
/* The status object: the bytes a receive got (and the cancelled flag), the
 * counts derived from them (MPI_Get_count, MPI_Get_elements), and the calls
 * that set or read its fields (MPI_Status_set_elements, _set_cancelled,
 * MPI_Test_cancelled, MPI 4.1's MPI_Status_get/set_source/tag/error). */
#include "core/core.h"
#include "core/datatype.h"
#include "core/api_dt.h"

/* Bytes received, from the status (MPICH layout: a 64-bit count split in two
 * ints; the low bit of the high word is the cancelled flag). */
MPI_Count cr_status_bytes(const MPI_Status *st)
{
    return (MPI_Count)(((uint64_t)(uint32_t)st->count_hi_and_cancelled >> 1) << 32 |
                       (uint32_t)st->count_lo);
}

void cr_status_set_bytes(MPI_Status *st, MPI_Count bytes)
{
    int cancelled = st->count_hi_and_cancelled & 1;
    st->count_lo = (int)(uint32_t)bytes;
    st->count_hi_and_cancelled = (int)((((uint64_t)bytes >> 32) << 1) | (unsigned)cancelled);
}

/* A status argument must be a real status, not MPI_STATUS(ES)_IGNORE. */
static int check_status(const MPI_Status *status)
{
    if (status == NULL) return cr_error(MPI_ERR_ARG, "status=NULL: null pointer");
    if (status == MPI_STATUS_IGNORE || status == MPI_STATUSES_IGNORE)
        return cr_error(MPI_ERR_ARG, "status=MPI_STATUS_IGNORE: there is no status to use");
    return MPI_SUCCESS;
}

int core_get_count(const MPI_Status *status, cr_datatype_t *datatype, MPI_Count *count)
{
    int err = check_status(status);
    if (err) return err;
    MPI_Count b = cr_status_bytes(status);
    if (datatype->size == 0)
        *count = b == 0 ? 0 : MPI_UNDEFINED;   /* 0 for an empty message, by the Forum's reading */
    else
        *count = b % datatype->size ? MPI_UNDEFINED : b / datatype->size;
    return MPI_SUCCESS;
}

/* Basic elements received: whole elements times their basic elements, plus
 * those of a trailing partial element (the engine counts them from the type's
 * layout); MPI_UNDEFINED when the bytes end inside a basic element. */
int core_get_elements(const MPI_Status *status, cr_datatype_t *datatype, MPI_Count *count)
{
    int err = check_status(status);
    if (err) return err;
    MPI_Count n = cr_dt_count_elements(datatype, cr_status_bytes(status));
    *count = n < 0 ? MPI_UNDEFINED : n;
    return MPI_SUCCESS;
}

int core_status_set_elements(MPI_Status *status, cr_datatype_t *datatype, MPI_Count count)
{
    int err = check_status(status);
    if (err) return err;
    if (count < 0)
        return cr_error(MPI_ERR_COUNT, "count=%lld: negative count", (long long)count);
    cr_status_set_bytes(status, cr_dt_elements_bytes(datatype, count));
    return MPI_SUCCESS;
}

int core_status_set_cancelled(MPI_Status *status, int flag)
{
    int err = check_status(status);
    if (err) return err;
    status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
    return MPI_SUCCESS;
}

int core_test_cancelled(const MPI_Status *status, int *flag)
{
    int err = check_status(status);
    if (err) return err;
    *flag = status->count_hi_and_cancelled & 1;
    return MPI_SUCCESS;
}

/* ---- MPI 4.1: the public fields ------------------------------------------------ */
int core_status_get_source(const MPI_Status *status, int *source)
{
    int err = check_status(status);
    if (!err) *source = status->MPI_SOURCE;
    return err;
}

int core_status_get_tag(const MPI_Status *status, int *tag)
{
    int err = check_status(status);
    if (!err) *tag = status->MPI_TAG;
    return err;
}

int core_status_get_error(const MPI_Status *status, int *err)
{
    int rc = check_status(status);
    if (!rc) *err = status->MPI_ERROR;
    return rc;
}

int core_status_set_source(MPI_Status *status, int source)
{
    int err = check_status(status);
    if (!err) status->MPI_SOURCE = source;
    return err;
}

int core_status_set_tag(MPI_Status *status, int tag)
{
    int err = check_status(status);
    if (!err) status->MPI_TAG = tag;
    return err;
}

int core_status_set_error(MPI_Status *status, int err)
{
    int rc = check_status(status);
    if (!rc) status->MPI_ERROR = err;
    return rc;
}
