/* SPDX-License-Identifier: MIT */
/* Bcast through the node's shared memory (coll_shm.h): the root packs the
 * message into its control line itself when it fits in CSHM_INLINE - 8 bytes,
 * else into its cell or its slot (cshm_data), writes its byte count into the
 * line's last word and posts; every other rank waits for that post, checks
 * the count against its own (cshm_bcast_length) and unpacks.  The root does
 * not wait for the readers: it reuses a slot
 * CSHM_NBUF calls later and a line and cell nline calls later (COURIER_COLL_SHM_LINES),
 * after they all finished with it, so in a loop of small broadcasts it runs
 * up to nline calls ahead and the readers need not be scheduled in every
 * call (as with eager messages).  Messages up to a slot
 * (COURIER_COLL_SHM_SLOT_BYTES).  alpha-beta: alpha_line + 2 n beta_copy
 * (the root's copy in, each reader's copy out, in parallel). */
#include "coll/coll_shm_steps.h"

int coll_bcast_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return a->bytes <= coll_shm_slot_cap();
}

int cshm_bcast_length(uint64_t sent, const coll_args_t *a)
{
    sent &= ~(CSHM_BCAST_CMA | CSHM_BCAST_SPLIT);
    if (CR_LIKELY(sent == a->bytes)) return MPI_SUCCESS;
    return cr_error(sent > a->bytes ? MPI_ERR_TRUNCATE : MPI_ERR_OTHER,
                    "MPI_Bcast: the root sent %llu bytes, this process expects %zu (count=%lld): "
                    "the processes' counts or datatypes (type signatures) differ",
                    (unsigned long long)sent, a->bytes, (long long)a->count);
}

int coll_bcast_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_BCAST, c, a);
    uint64_t n = cshm_begin(sh);
    int root = a->root;
    size_t at = cshm_bcast_place(a->bytes);
    if (c->rank == root) {
        cshm_claim_data(sh, n, at);
        cshm_bcast_put(sh, n, a, at);
        return MPI_SUCCESS;
    }
    /* POSTED, not FIN: a root that took the cma algorithm (a longer message)
     * posts only that before it waits for the readers */
    cshm_wait(sh, root, n, CSHM_POSTED);
    uint64_t sent = cshm_ctl(sh, root, n)->w[CSHM_BCAST_BYTES];
    int e = cshm_bcast_length(sent, a);
    if (!e) cshm_unpack(cshm_data(sh, root, n, at), a->rbuf, a->count, a->dt);
    cshm_prefetch_next(sh, root, n);
    cshm_bcast_end(sh, root, n, sent);
    return e;
}

/* Bcast above a slot through the root's pipe buffer for the call (cshm_pipe:
 * where ranks outnumber cores, CSHM_PIPE_NBUF per rank of
 * COURIER_COLL_REDUCE_PIPE_BUF_BYTES), as above: the root packs the message
 * there once every rank finished call n - CSHM_PIPE_NBUF, writes its byte
 * count and posts FIN; the readers wait for that post, check the count and
 * unpack.  So the root never waits for its readers and runs up to
 * CSHM_PIPE_NBUF calls ahead, where the cma root waits until every reader
 * has copied, and each reader copies with memcpy instead of a system call.
 * The root's line looks as the shm root's, so a reader whose count differs
 * (and may have taken another algorithm) gets its length error as there.
 * alpha-beta: alpha_line + 2 n beta_copy (the readers in parallel). */
int coll_bcast_pipe_fits(const cr_comm_t *c, const coll_args_t *a)
{
    return a->bytes <= coll_shm_pipe_bytes(c);
}

int coll_bcast_pipe(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_BCAST, c, a);
    /* the area's buffers (rank 0's size) are smaller than this rank thought:
     * every rank with this length finds the same */
    if (!sh->pipe || a->bytes > sh->pipe_bytes) return coll_bcast_cma(c, a);
    uint64_t n = cshm_begin(sh);
    int root = a->root;
    if (c->rank == root) {
        cshm_claim_depth(sh, n, CSHM_PIPE_NBUF);
        cshm_pack(a->rbuf, a->count, a->dt, cshm_pipe(sh, sh->me, n));
        cshm_ctl(sh, sh->me, n)->w[CSHM_BCAST_BYTES] = a->bytes;
        cshm_post(sh, n, CSHM_FIN);
        return MPI_SUCCESS;
    }
    cshm_wait(sh, root, n, CSHM_POSTED);
    uint64_t sent = cshm_ctl(sh, root, n)->w[CSHM_BCAST_BYTES];
    int e = cshm_bcast_length(sent, a);
    if (!e) cshm_unpack(cshm_pipe(sh, root, n), a->rbuf, a->count, a->dt);
    cshm_prefetch_next(sh, root, n);
    cshm_bcast_end(sh, root, n, sent);
    return e;
}
