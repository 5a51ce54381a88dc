/* SPDX-License-Identifier: MIT */
/* Which algorithm runs a collective: selection as data.
 *
 * coll_algs lists every algorithm with its id (the value that forces it);
 * coll_rules is the default choice: for each collective, the first row whose
 * limits hold (communicator size <= max_size, message bytes <= max_bytes, and
 * the algorithm's conditions, e.g. a commutative op) wins.  The last row of
 * each collective should take everything.
 *
 * COURIER_COLL_<NAME>_ALG=<id> forces an algorithm (0 or unset: automatic),
 * read once; a forced algorithm that cannot run a call (a commutative-only
 * algorithm with a non-commutative op) falls back to the table.
 * (These are the settings coll_<name>_alg of util/settings_table.h; they are
 * read here with getenv until the settings are loaded at MPI_Init.) */
#include <limits.h>
#include <stdlib.h>
#include "coll/coll.h"

static const coll_alg_t coll_algs[] = {
    { COLL_BARRIER, 1, "dissemination", 0, coll_barrier_dissemination },
    { COLL_BCAST, 1, "binomial", 0, coll_bcast_binomial },
    { COLL_BCAST, 2, "scatter_allgather", 0, coll_bcast_scatter_allgather },
    { COLL_REDUCE, 1, "binomial", 0, coll_reduce_binomial },
    { COLL_ALLREDUCE, 1, "recdbl", 0, coll_allreduce_recdbl },
    { COLL_ALLREDUCE, 2, "reduce_bcast", 0, coll_allreduce_reduce_bcast },
};
enum { NALGS = sizeof(coll_algs) / sizeof(coll_algs[0]) };

#define ANY_SIZE INT_MAX
#define ANY_BYTES SIZE_MAX
typedef struct {
    coll_kind_t coll;
    int max_size;          /* communicator size at most */
    size_t max_bytes;      /* message bytes (count * type size) at most */
    int alg;               /* id in coll_algs */
} coll_rule_t;

static const coll_rule_t coll_rules[] = {
    { COLL_BARRIER, ANY_SIZE, ANY_BYTES, 1 },
    /* small communicators or small messages: binomial; else scatter + ring allgather */
    { COLL_BCAST, 7, ANY_BYTES, 1 },
    { COLL_BCAST, ANY_SIZE, 12288, 1 },
    { COLL_BCAST, ANY_SIZE, ANY_BYTES, 2 },
    { COLL_REDUCE, ANY_SIZE, ANY_BYTES, 1 },
    { COLL_ALLREDUCE, ANY_SIZE, ANY_BYTES, 1 },
};

static const char *const coll_env[COLL_NCOLL] = {
    [COLL_BARRIER] = "COURIER_COLL_BARRIER_ALG", [COLL_BCAST] = "COURIER_COLL_BCAST_ALG",
    [COLL_REDUCE] = "COURIER_COLL_REDUCE_ALG", [COLL_ALLREDUCE] = "COURIER_COLL_ALLREDUCE_ALG",
};

static const coll_alg_t *find_alg(coll_kind_t coll, int id)
{
    for (int i = 0; i < NALGS; i++)
        if (coll_algs[i].coll == coll && coll_algs[i].id == id) return &coll_algs[i];
    return NULL;
}

int coll_forced_alg(coll_kind_t coll)
{
    static int forced[COLL_NCOLL], loaded;
    if (!__atomic_load_n(&loaded, __ATOMIC_ACQUIRE)) {
        for (int c = 0; c < COLL_NCOLL; c++) {
            const char *v = getenv(coll_env[c]);
            int id = v ? atoi(v) : 0;
            forced[c] = id > 0 && find_alg((coll_kind_t)c, id) ? id : 0;
        }
        __atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
    }
    return forced[coll];
}

static int applies(const coll_alg_t *alg, const coll_args_t *a)
{
    return !(alg->flags & COLL_ALG_COMMUTATIVE) || !a->op || a->op->commute;
}

const coll_alg_t *coll_select(coll_kind_t coll, const cr_comm_t *comm, const coll_args_t *a)
{
    int id = coll_forced_alg(coll);
    if (id) {
        const coll_alg_t *alg = find_alg(coll, id);
        if (alg && applies(alg, a)) return alg;
    }
    size_t bytes = a->dt ? coll_bytes(a) : 0;
    for (size_t i = 0; i < sizeof(coll_rules) / sizeof(coll_rules[0]); i++) {
        const coll_rule_t *r = &coll_rules[i];
        if (r->coll != coll || comm->size > r->max_size || bytes > r->max_bytes) continue;
        const coll_alg_t *alg = find_alg(coll, r->alg);
        if (alg && applies(alg, a)) return alg;
    }
    /* no row matched: the collective's first algorithm takes any call */
    return find_alg(coll, 1);
}
