/* SPDX-License-Identifier: MIT */
/* Which algorithm runs a collective: selection as data.
 *
 * coll_algs lists every algorithm with its id (the value that forces it) and
 * its conditions (commutative ops only; intercommunicators or not).
 * coll_rules is the default choice: for each collective, the first row whose
 * limits hold and whose algorithm's conditions hold wins.  A row's limits are
 * settings (util/settings_table.h), read at each call, so no number lives
 * here: min_ranks <= communicator size <= max_ranks and
 * min_bytes <= bytes <= max_bytes, where `bytes` is coll_args_t.bytes (the
 * per-rank block for the gather/scatter/alltoall families, the whole vector
 * for the reductions).  A NULL limit is no limit.  The last row of each
 * collective should take everything its communicators allow.
 *
 * The setting coll_<name>_alg (COURIER_COLL_<NAME>_ALG=<id>) forces an
 * algorithm (0: automatic); a forced algorithm that cannot run a call (a
 * commutative-only one with a non-commutative op, or one for the other kind
 * of communicator) falls back to the table.  Collectives with a single
 * algorithm have no such setting.
 *
 * Intercommunicators: an algorithm flagged COLL_ALG_INTER serves only them,
 * the others only intracommunicators; when none fits, coll_select returns
 * NULL and the caller reports MPI_ERR_UNSUPPORTED_OPERATION.  Each collective
 * but Scan/Exscan has one intercommunicator algorithm; having no rule row, it
 * is found by the fallback loop at the end of coll_select (so a forced
 * intracommunicator algorithm also falls back to it). */
#include <limits.h>
#include <stdlib.h>
#include "coll/coll.h"
#include "coll/coll_inter.h"
#include "util/settings.h"

static const coll_alg_t coll_algs[] = {
    { COLL_BARRIER, 1, "dissemination", 0, coll_barrier_dissemination },
    { COLL_BCAST, 1, "binomial", 0, coll_bcast_binomial },
    { COLL_BCAST, 2, "scatter_allgather", 0, coll_bcast_scatter_allgather },
    { COLL_REDUCE, 1, "binomial", 0, coll_reduce_binomial },
    { COLL_ALLREDUCE, 1, "recdbl", 0, coll_allreduce_recdbl },
    { COLL_ALLREDUCE, 2, "reduce_bcast", 0, coll_allreduce_reduce_bcast },
    { COLL_GATHER, 1, "binomial", 0, coll_gather_binomial },
    { COLL_GATHER, 2, "linear", 0, coll_gather_linear },
    { COLL_GATHERV, 1, "linear", 0, coll_gatherv_linear },
    { COLL_SCATTER, 1, "binomial", 0, coll_scatter_binomial },
    { COLL_SCATTER, 2, "linear", 0, coll_scatter_linear },
    { COLL_SCATTERV, 1, "linear", 0, coll_scatterv_linear },
    { COLL_ALLGATHER, 1, "ring", 0, coll_allgather_ring },
    { COLL_ALLGATHER, 2, "bruck", 0, coll_allgather_bruck },
    { COLL_ALLGATHERV, 1, "ring", 0, coll_allgatherv_ring },
    { COLL_ALLTOALL, 1, "pairwise", 0, coll_alltoall_pairwise },
    { COLL_ALLTOALL, 2, "bruck", 0, coll_alltoall_bruck },
    { COLL_ALLTOALLV, 1, "pairwise", 0, coll_alltoall_pairwise },
    { COLL_ALLTOALLW, 1, "pairwise", 0, coll_alltoall_pairwise },
    { COLL_REDUCE_SCATTER, 1, "reduce_scatterv", 0, coll_reduce_scatter_reduce_scatterv },
    { COLL_REDUCE_SCATTER, 2, "ring", COLL_ALG_COMMUTATIVE, coll_reduce_scatter_ring },
    { COLL_REDUCE_SCATTER_BLOCK, 1, "reduce_scatterv", 0, coll_reduce_scatter_reduce_scatterv },
    { COLL_REDUCE_SCATTER_BLOCK, 2, "ring", COLL_ALG_COMMUTATIVE, coll_reduce_scatter_ring },
    { COLL_SCAN, 1, "recdbl", 0, coll_scan_recdbl },
    { COLL_EXSCAN, 1, "recdbl", 0, coll_exscan_recdbl },
    /* intercommunicators */
    { COLL_BARRIER, 2, "inter", COLL_ALG_INTER, coll_inter_barrier },
    { COLL_BCAST, 3, "inter", COLL_ALG_INTER, coll_inter_bcast },
    { COLL_ALLREDUCE, 3, "inter", COLL_ALG_INTER, coll_inter_allreduce },
    { COLL_REDUCE, 2, "inter", COLL_ALG_INTER, coll_inter_reduce },
    { COLL_GATHER, 3, "inter", COLL_ALG_INTER, coll_inter_gather },
    { COLL_GATHERV, 2, "inter", COLL_ALG_INTER, coll_inter_gather },
    { COLL_SCATTER, 3, "inter", COLL_ALG_INTER, coll_inter_scatter },
    { COLL_SCATTERV, 2, "inter", COLL_ALG_INTER, coll_inter_scatter },
    { COLL_ALLGATHER, 3, "inter", COLL_ALG_INTER, coll_inter_allgather },
    { COLL_ALLGATHERV, 2, "inter", COLL_ALG_INTER, coll_inter_allgather },
    { COLL_ALLTOALL, 3, "inter", COLL_ALG_INTER, coll_inter_alltoall },
    { COLL_ALLTOALLV, 2, "inter", COLL_ALG_INTER, coll_inter_alltoall },
    { COLL_ALLTOALLW, 2, "inter", COLL_ALG_INTER, coll_inter_alltoall },
    { COLL_REDUCE_SCATTER, 3, "inter", COLL_ALG_INTER, coll_inter_reduce_scatter },
    { COLL_REDUCE_SCATTER_BLOCK, 3, "inter", COLL_ALG_INTER, coll_inter_reduce_scatter },
    /* Scan and Exscan are not defined on intercommunicators (coll.c says so) */
};
enum { NALGS = sizeof(coll_algs) / sizeof(coll_algs[0]) };

typedef struct {
    coll_kind_t coll;
    const long *min_ranks, *max_ranks;   /* settings, or NULL: no limit */
    const long *min_bytes, *max_bytes;
    int alg;                             /* id in coll_algs */
} coll_rule_t;

#define S(field) (&ut_settings.field)
static const coll_rule_t coll_rules[] = {
    { COLL_BARRIER, NULL, NULL, NULL, NULL, 1 },
    /* small communicators or small messages: binomial; else scatter + ring allgather */
    { COLL_BCAST, NULL, S(coll_bcast_binomial_max_ranks), NULL, NULL, 1 },
    { COLL_BCAST, NULL, NULL, NULL, S(coll_bcast_binomial_max_bytes), 1 },
    { COLL_BCAST, NULL, NULL, NULL, NULL, 2 },
    { COLL_REDUCE, NULL, NULL, NULL, NULL, 1 },
    { COLL_ALLREDUCE, NULL, NULL, NULL, NULL, 1 },
    { COLL_GATHER, NULL, NULL, NULL, S(coll_gather_binomial_max_bytes), 1 },
    { COLL_GATHER, NULL, NULL, NULL, NULL, 2 },
    { COLL_GATHERV, NULL, NULL, NULL, NULL, 1 },
    { COLL_SCATTER, NULL, NULL, NULL, S(coll_scatter_binomial_max_bytes), 1 },
    { COLL_SCATTER, NULL, NULL, NULL, NULL, 2 },
    { COLL_SCATTERV, NULL, NULL, NULL, NULL, 1 },
    { COLL_ALLGATHER, NULL, NULL, NULL, S(coll_allgather_bruck_max_bytes), 2 },
    { COLL_ALLGATHER, NULL, NULL, NULL, NULL, 1 },
    { COLL_ALLGATHERV, NULL, NULL, NULL, NULL, 1 },
    { COLL_ALLTOALL, S(coll_alltoall_bruck_min_ranks), NULL, NULL,
      S(coll_alltoall_bruck_max_bytes), 2 },
    { COLL_ALLTOALL, NULL, NULL, NULL, NULL, 1 },
    { COLL_ALLTOALLV, NULL, NULL, NULL, NULL, 1 },
    { COLL_ALLTOALLW, NULL, NULL, NULL, NULL, 1 },
    { COLL_REDUCE_SCATTER, NULL, NULL, S(coll_reduce_scatter_ring_min_bytes), NULL, 2 },
    { COLL_REDUCE_SCATTER, NULL, NULL, NULL, NULL, 1 },
    { COLL_REDUCE_SCATTER_BLOCK, NULL, NULL, S(coll_reduce_scatter_ring_min_bytes), NULL, 2 },
    { COLL_REDUCE_SCATTER_BLOCK, NULL, NULL, NULL, NULL, 1 },
    { COLL_SCAN, NULL, NULL, NULL, NULL, 1 },
    { COLL_EXSCAN, NULL, NULL, NULL, NULL, 1 },
};

/* The forcing setting of each collective (NULL: one algorithm only). */
static const long *const coll_force[COLL_NCOLL] = {
    [COLL_BARRIER] = S(coll_barrier_alg), [COLL_BCAST] = S(coll_bcast_alg),
    [COLL_REDUCE] = S(coll_reduce_alg), [COLL_ALLREDUCE] = S(coll_allreduce_alg),
    [COLL_GATHER] = S(coll_gather_alg), [COLL_SCATTER] = S(coll_scatter_alg),
    [COLL_ALLGATHER] = S(coll_allgather_alg), [COLL_ALLTOALL] = S(coll_alltoall_alg),
    [COLL_REDUCE_SCATTER] = S(coll_reduce_scatter_alg),
    [COLL_REDUCE_SCATTER_BLOCK] = S(coll_reduce_scatter_alg),
};
#undef S

static const coll_alg_t *find_alg(coll_kind_t coll, int id)
{
    for (int i = 0; i < NALGS; i++)
        if (coll_algs[i].coll == coll && coll_algs[i].id == id) return &coll_algs[i];
    return NULL;
}

int coll_forced_alg(coll_kind_t coll)
{
    const long *f = coll_force[coll];
    if (!f || *f <= 0 || *f > INT_MAX || !find_alg(coll, (int)*f)) return 0;
    return (int)*f;
}

static int applies(const coll_alg_t *alg, const cr_comm_t *comm, const coll_args_t *a)
{
    if (!(alg->flags & COLL_ALG_INTER) != !comm->remote) return 0;
    return !(alg->flags & COLL_ALG_COMMUTATIVE) || !a->op || a->op->commute;
}

static int within(long v, const long *min, const long *max)
{
    return (!min || v >= *min) && (!max || v <= *max);
}

int coll_last_alg[COLL_NCOLL];

static const coll_alg_t *choose(coll_kind_t coll, const cr_comm_t *comm, const coll_args_t *a)
{
    int id = coll_forced_alg(coll);
    if (id) {
        const coll_alg_t *alg = find_alg(coll, id);
        if (alg && applies(alg, comm, a)) return alg;
    }
    long bytes = a->bytes > (size_t)LONG_MAX ? LONG_MAX : (long)a->bytes;
    for (size_t i = 0; i < sizeof(coll_rules) / sizeof(coll_rules[0]); i++) {
        const coll_rule_t *r = &coll_rules[i];
        if (r->coll != coll || !within(comm->size, r->min_ranks, r->max_ranks) ||
            !within(bytes, r->min_bytes, r->max_bytes))
            continue;
        const coll_alg_t *alg = find_alg(coll, r->alg);
        if (alg && applies(alg, comm, a)) return alg;
    }
    /* no row matched: any algorithm of the collective that can run the call */
    for (int i = 0; i < NALGS; i++)
        if (coll_algs[i].coll == coll && applies(&coll_algs[i], comm, a)) return &coll_algs[i];
    return NULL;
}

const coll_alg_t *coll_select(coll_kind_t coll, const cr_comm_t *comm, const coll_args_t *a)
{
    const coll_alg_t *alg = choose(coll, comm, a);
    coll_last_alg[coll] = alg ? alg->id : 0;
    return alg;
}
