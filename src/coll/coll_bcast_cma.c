/* SPDX-License-Identifier: MIT */
/* Bcast by single copy (coll_shm.h): the root publishes the address of its
 * buffer (of a packed copy for a non-contiguous datatype) and posts; every
 * other rank copies the message straight from the root's memory into its
 * own buffer (cross-memory attach), all at once, and posts FIN; the root
 * waits for all of them, since they read its buffer (when ranks meet, on one
 * count that the last reader completes: cshm_wait_done).  alpha-beta:
 * 2 alpha_line + alpha_cma + n beta_cma (the readers in parallel).
 *
 * Two ranks on cores of their own, message of at least COURIER_CMA_SPLIT_MIN
 * (the point-to-point split's setting): the root, which would only wait, puts
 * the second half into the reader's buffer while the reader gets the first
 * (CSHM_BCAST_SPLIT): 2 alpha_line + alpha_cma + n/2 beta_cma. */
#include "coll/coll_shm.h"
#include "util/settings.h"

/* The root's half of a split: wait for the reader's address (or its FIN: it
 * does not split), put the second half, post CSHM_READY. */
static int split_put(coll_shm_t *sh, int reader, uint64_t n, const char *data, size_t bytes)
{
    cshm_wait(sh, reader, n, CSHM_READY);
    cshm_ctl_t *rl = cshm_ctl(sh, reader, n);
    if (__atomic_load_n(&rl->step, __ATOMIC_ACQUIRE) != cshm_step(n, CSHM_READY)) return MPI_SUCCESS;
    size_t half = cshm_bcast_half(bytes);
    int e = cshm_put(sh, reader, rl->w[0] + half, bytes - half, data + half);
    cshm_ctl(sh, sh->me, n)->w[1] = e != MPI_SUCCESS;
    cshm_post(sh, n, CSHM_READY);
    return e;
}

/* The reader's half: publish where the message goes, get the first half,
 * wait for the root's. */
static int split_get(coll_shm_t *sh, int root, uint64_t n, uint64_t at, const coll_args_t *a)
{
    uint64_t mine = cshm_addr(a->rbuf, a->dt);
    size_t half = cshm_bcast_half(a->bytes);
    cshm_ctl(sh, sh->me, n)->w[0] = mine;
    cshm_post(sh, n, CSHM_READY);
    int e = cshm_get(sh, root, at, half, (void *)(uintptr_t)mine);
    cshm_wait(sh, root, n, CSHM_READY);
    if (!e && cshm_ctl(sh, root, n)->w[1])
        e = cr_error(MPI_ERR_OTHER, "MPI_Bcast: the root could not write the second half of "
                     "%zu bytes into this process's buffer", a->bytes);
    return e;
}

int coll_bcast_cma(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->cma) return coll_fallback(COLL_BCAST, c, a);
    uint64_t n = cshm_begin(sh);
    int root = a->root;
    int e = MPI_SUCCESS;
    if (c->rank == root) {
        cshm_view_t v;
        e = cshm_view(&v, a->rbuf, a->count, a->dt);
        int split = !e && c->size == 2 && !cr_proc.oversubscribed && ut_settings.cma_split_min > 0 &&
                    a->bytes >= (size_t)ut_settings.cma_split_min;
        cshm_claim(sh, n);
        cshm_done_open(sh, n);
        cshm_ctl(sh, root, n)->w[0] = e ? 0 : (uint64_t)(uintptr_t)v.p;
        cshm_ctl(sh, root, n)->w[CSHM_BCAST_BYTES] =
            a->bytes | CSHM_BCAST_CMA | (split ? CSHM_BCAST_SPLIT : 0);
        cshm_post(sh, n, CSHM_POSTED);
        if (split) e = split_put(sh, 1 - root, n, v.p, a->bytes);
        cshm_wait_done(sh, n);
        cshm_view_free(&v);
        cshm_post(sh, n, CSHM_FIN);
    } else {
        cshm_wait(sh, root, n, CSHM_POSTED);
        uint64_t at = cshm_ctl(sh, root, n)->w[0];
        uint64_t sent = cshm_ctl(sh, root, n)->w[CSHM_BCAST_BYTES];
        e = cshm_bcast_length(sent, a);
        if (!e && at && (sent & CSHM_BCAST_SPLIT) && a->dt->contig)
            e = split_get(sh, root, n, at, a);
        else if (!e)
            e = at ? cshm_get_into(sh, root, at, a->bytes, a->rbuf, a->count, a->dt, 0)
                   : cr_error(MPI_ERR_OTHER, "MPI_Bcast: the root could not publish its buffer");
        cshm_bcast_end(sh, root, n, sent);
    }
    return e;
}
