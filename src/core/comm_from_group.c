/* SPDX-License-Identifier: MIT */
/* Communicators made from groups, without a parent communicator (MPI 4.0
 * 7.4.2): MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups.
 * They are how a session (session.c) gets its communicators, and work as
 * well on groups of the world model.
 *
 * With no parent to talk on, the members meet on a context id that every
 * process reserves at start-up (CR_CTX_FROM_GROUP), with a tag made from the
 * string tag and the members (world ranks): calls with different tags or
 * different groups never take each other's messages, and calls over the same
 * group run in the same order at every member, as MPI requires.  There they
 * agree on a fresh context id like every other creation (comm.c). */
#include "core/core.h"
#include "core/comm_priv.h"
#include "core/errh.h"
#include "core/api_comm.h"

#include <string.h>

/* FNV-1a over a string and a group's members, folded to a non-negative tag. */
static uint32_t hash_bytes(uint32_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}

static uint32_t group_hash(const cr_group_t *g)
{
    return hash_bytes(2166136261u, g->world, (size_t)g->size * sizeof(int));
}

static int tag_of(uint32_t h)
{
    return (int)(h & 0x7fffffffu);
}

/* A communicator on the meeting context over g (this process a member). */
static cr_comm_t meeting_comm(cr_group_t *g)
{
    return (cr_comm_t){ .handle = MPI_COMM_NULL, .rank = g->rank, .size = g->size,
                        .ctx = CR_CTX_FROM_GROUP, .group = g };
}

static int check_stringtag(const char *stringtag)
{
    size_t n = strlen(stringtag);
    if (n >= MPI_MAX_STRINGTAG_LEN)
        return cr_error(MPI_ERR_ARG, "stringtag of %zu characters: at most %d are allowed "
                        "(MPI_MAX_STRINGTAG_LEN - 1)", n, MPI_MAX_STRINGTAG_LEN - 1);
    return MPI_SUCCESS;
}

static int check_errhandler(const cr_errhandler_t *e)
{
    if (e->kind != 0 && e->kind != CR_K_COMM)
        return cr_error(MPI_ERR_ARG, "errhandler=0x%08x: not a communicator error handler",
                        (unsigned)e->handle);
    return MPI_SUCCESS;
}

/* The intracommunicator over g (this process a member), its members met
 * with the tag of (stringtag, g). */
static int from_group(cr_group_t *g, const char *stringtag, cr_errhandler_t *errh,
                      cr_comm_t **out)
{
    cr_comm_t meet = meeting_comm(g);
    int tag = tag_of(group_hash(g) ^ hash_bytes(2166136261u, stringtag, strlen(stringtag)));
    uint32_t ctx;
    *out = NULL;
    int err = cr_ctx_agree(&meet, tag, &ctx);
    if (err) return err;
    cr_group_retain(g);
    return cr_comm_make(g, NULL, ctx, errh, out);
}

int core_comm_create_from_group(cr_group_t *group, const char *stringtag, cr_info_t *info,
                                cr_errhandler_t *errhandler, MPI_Comm *newcomm)
{
    *newcomm = MPI_COMM_NULL;
    int err = check_stringtag(stringtag);
    if (!err) err = check_errhandler(errhandler);
    if (err || group->size == 0) return err;   /* MPI_GROUP_EMPTY: MPI_COMM_NULL */
    if (group->rank == MPI_UNDEFINED)
        return cr_error(MPI_ERR_GROUP, "group: the calling process is not a member");
    cr_comm_t *c;
    if ((err = from_group(group, stringtag, errhandler, &c))) return err;
    if ((err = cr_comm_set_hints(c, info))) {
        cr_comm_free_handle(c);
        return err;
    }
    *newcomm = c->handle;
    return MPI_SUCCESS;
}

int core_intercomm_create_from_groups(cr_group_t *local_group, int local_leader,
                                      cr_group_t *remote_group, int remote_leader,
                                      const char *stringtag, cr_info_t *info,
                                      cr_errhandler_t *errhandler, MPI_Comm *newintercomm)
{
    *newintercomm = MPI_COMM_NULL;
    int err = check_stringtag(stringtag);
    if (!err) err = check_errhandler(errhandler);
    if (err || local_group->size == 0 || remote_group->size == 0) return err;
    if (local_group->rank == MPI_UNDEFINED)
        return cr_error(MPI_ERR_GROUP, "local_group: the calling process is not a member");
    if (local_leader < 0 || local_leader >= local_group->size)
        return cr_error(MPI_ERR_RANK, "local_leader=%d: invalid rank (local_group size is %d)",
                        local_leader, local_group->size);
    if (local_group->rank == local_leader &&
        (remote_leader < 0 || remote_leader >= remote_group->size))
        return cr_error(MPI_ERR_RANK, "remote_leader=%d: invalid rank (remote_group size is %d)",
                        remote_leader, remote_group->size);
    for (int i = 0; i < remote_group->size; i++)
        for (int j = 0; j < local_group->size; j++)
            if (remote_group->world[i] == local_group->world[j])
                return cr_error(MPI_ERR_GROUP, "local_group and remote_group share world rank "
                                "%d: the groups must be disjoint", remote_group->world[i]);
    /* a private intracommunicator over the local group, then the leaders meet
     * over the world group with a tag both sides compute alike (the groups'
     * hashes combined symmetrically) */
    cr_comm_t *lc;
    if ((err = from_group(local_group, stringtag, errhandler, &lc))) return err;
    uint32_t both = group_hash(local_group) + group_hash(remote_group);
    int tag = tag_of(both ^ hash_bytes(2166136261u, stringtag, strlen(stringtag)));
    cr_comm_t bridge = meeting_comm(cr_group_world);
    int rl_world = local_group->rank == local_leader ? remote_group->world[remote_leader] : 0;
    cr_comm_t *ic = NULL;
    err = cr_inter_from(lc, local_leader, &bridge, rl_world, tag, errhandler,
                        "MPI_Intercomm_create_from_groups", &ic);
    cr_comm_free_handle(lc);
    if (!err && (err = cr_comm_set_hints(ic, info))) cr_comm_free_handle(ic);
    if (err) return err;
    *newintercomm = ic->handle;
    return MPI_SUCCESS;
}
