/* SPDX-License-Identifier: MIT */
/* Failure paths of the argument checks (see check.h): each builds an error
 * code whose message names the argument and its value. */
#include "core/check.h"

#include <stdio.h>

int cr_chk_init_error(const char *fname)
{
    if (cr_proc.state == CR_STATE_FINALIZED)
        return cr_error(MPI_ERR_OTHER, "%s called after MPI_Finalize", fname);
    return cr_error(MPI_ERR_OTHER, "%s called before MPI_Init (or MPI_Session_init)", fname);
}

int cr_chk_comm_fail(MPI_Comm h, const char *arg)
{
    if (h == MPI_COMM_NULL) return cr_error(MPI_ERR_COMM, "%s=MPI_COMM_NULL: null communicator", arg);
    return cr_error(MPI_ERR_COMM, "%s=0x%08x: invalid communicator", arg, (unsigned)h);
}

int cr_chk_count_fail(MPI_Count n, const char *arg)
{
    return cr_error(MPI_ERR_COUNT, "%s=%lld: negative count", arg, (long long)n);
}

int cr_chk_datatype_fail(MPI_Datatype h, const cr_datatype_t *dt, const char *arg)
{
    if (h == MPI_DATATYPE_NULL) return cr_error(MPI_ERR_TYPE, "%s=MPI_DATATYPE_NULL: null datatype", arg);
    if (dt != NULL) return cr_error(MPI_ERR_TYPE, "%s=0x%08x: datatype not committed", arg, (unsigned)h);
    return cr_error(MPI_ERR_TYPE, "%s=0x%08x: invalid datatype", arg, (unsigned)h);
}

int cr_chk_buffer_fail(MPI_Count n, const char *arg)
{
    return cr_error(MPI_ERR_BUFFER, "%s=NULL: null buffer for %lld elements", arg, (long long)n);
}

static const char *special_rank(int r)
{
    switch (r) {
    case MPI_PROC_NULL: return "MPI_PROC_NULL";
    case MPI_ANY_SOURCE: return "MPI_ANY_SOURCE";
    case MPI_ROOT: return "MPI_ROOT";
    default: return NULL;
    }
}

int cr_chk_rank_fail(const cr_comm_t *c, int r, const char *arg)
{
    const char *s = special_rank(r);
    const char *what = c->remote ? "remote group size" : "communicator size";
    if (s) return cr_error(MPI_ERR_RANK, "%s=%s: not allowed here", arg, s);
    return cr_error(MPI_ERR_RANK, "%s=%d: invalid rank (%s is %d)", arg, r, what, cr_chk_peer_size(c));
}

int cr_chk_root_fail(const cr_comm_t *c, int r, const char *arg)
{
    const char *s = special_rank(r);
    if (s) return cr_error(MPI_ERR_ROOT, "%s=%s: not allowed on an intracommunicator", arg, s);
    return cr_error(MPI_ERR_ROOT, "%s=%d: invalid root (%s is %d)", arg, r,
                    c->remote ? "remote group size" : "communicator size", cr_chk_peer_size(c));
}

int cr_chk_tag_fail(int tag, const char *arg)
{
    if (tag == MPI_ANY_TAG) return cr_error(MPI_ERR_TAG, "%s=MPI_ANY_TAG: not allowed here", arg);
    return cr_error(MPI_ERR_TAG, "%s=%d: invalid tag (valid tags are 0..%d)", arg, tag, CR_TAG_UB);
}

int cr_chk_handle_fail(int cls, int h, const char *what, const char *arg)
{
    return cr_error(cls, "%s=0x%08x: invalid %s", arg, (unsigned)h, what);
}

int cr_chk_requests_fail(MPI_Request h, int i, const char *arg)
{
    return cr_error(MPI_ERR_REQUEST, "%s[%d]=0x%08x: invalid request", arg, i, (unsigned)h);
}

int cr_chk_ptr_fail(const char *arg)
{
    return cr_error(MPI_ERR_ARG, "%s=NULL: null pointer", arg);
}

int cr_chk_alias_fail(const void *p, const char *arg, const char *other)
{
    return cr_error(MPI_ERR_BUFFER, "%s=%p is also %s: the buffers of a collective must not "
                    "overlap (MPI_IN_PLACE sends from the receive buffer)", arg, p, other);
}

int cr_chk_in_place_fail(const char *arg)
{
    return cr_error(MPI_ERR_BUFFER, "%s=MPI_IN_PLACE: not allowed for this argument", arg);
}

int cr_chk_datatypes(int n, const MPI_Datatype h[], const char *arg, int need_commit,
                     cr_datatype_t **stack, cr_datatype_t ***out)
{
    cr_datatype_t **a = stack;
    if (n > CR_DT_ARRAY_STACK && !(a = malloc((size_t)n * sizeof *a)))
        return cr_error(MPI_ERR_NO_MEM, "%s: no memory for %d datatypes", arg, n);
    if (n > 0 && h == NULL) {
        cr_dt_array_free(a, stack);
        return cr_chk_ptr_fail(arg);
    }
    for (int i = 0; i < n; i++) {
        cr_datatype_t *dt = cr_datatype_ptr(h[i]);
        if (CR_UNLIKELY(dt == NULL || (need_commit && !dt->committed && !dt->builtin))) {
            char name[64];
            snprintf(name, sizeof name, "%s[%d]", arg, i);
            int err = cr_chk_datatype_fail(h[i], dt, name);
            cr_dt_array_free(a, stack);
            return err;
        }
        a[i] = dt;
    }
    *out = a;
    return 0;
}

int cr_chk_file_fail(MPI_File h, const char *arg)
{
    if (h == MPI_FILE_NULL) return cr_error(MPI_ERR_FILE, "%s=MPI_FILE_NULL: null file", arg);
    return cr_error(MPI_ERR_FILE, "%s=%p: invalid file", arg, (void *)h);
}
