/* SPDX-License-Identifier: MIT */
/* Windows: creation in the four flavours (the node segment that holds the
 * control blocks and, for MPI_Win_allocate and MPI_Win_allocate_shared, the
 * memory of every rank of the node), the path to each target, free, shared
 * query, dynamic attach/detach, names, info hints, attributes and error
 * handlers (see rma.h and docs/rma.md). */
#define _GNU_SOURCE
#include "rma/rma.h"
#include "core/threads.h"
#include "rma/api.h"
#include "core/attr.h"
#include "core/comm_priv.h"
#include "core/errh.h"
#include "core/info.h"
#include "transport/shm/shm.h"
#include "util/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RMA_SEG_MAGIC 0x43524d57u /* "CRMW" */
#define RMA_PAGE 4096u
enum { RMA_TAG_CREATE = -300 };   /* internal tag of window creation */

/* The segment's first page. */
typedef struct {
    uint32_t magic;
    volatile int attached;
} rma_seg_hdr_t;

cr_objtab_t cr_win_tab;
static cr_win_t *win_list;
static int win_serial;

cr_win_t *rma_win_by_id(int id)
{
    for (cr_win_t *w = win_list; w; w = w->next)
        if (w->win_id == id) return w;
    return NULL;
}

static size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

static const char *flavor_name(int f)
{
    switch (f) {
    case MPI_WIN_FLAVOR_CREATE: return "create";
    case MPI_WIN_FLAVOR_ALLOCATE: return "allocate";
    case MPI_WIN_FLAVOR_DYNAMIC: return "dynamic";
    default: return "shared";
    }
}

/* ---- info hints ------------------------------------------------------------------ */
static int info_true(cr_info_t *info, const char *key)
{
    const char *v = info ? cr_info_get(info, key) : NULL;
    return v && strcmp(v, "true") == 0;
}

static void hints_read(cr_win_t *w, cr_info_t *info)
{
    w->no_locks = info_true(info, "no_locks");
    w->same_size = info_true(info, "same_size");
    w->same_disp_unit = info_true(info, "same_disp_unit");
    w->noncontig = info_true(info, "alloc_shared_noncontig");
    w->noncontig_hint = w->noncontig;
    const char *v = info ? cr_info_get(info, "accumulate_ordering") : NULL;
    snprintf(w->acc_ordering, sizeof w->acc_ordering, "%s", v ? v : "rar,raw,war,waw");
    v = info ? cr_info_get(info, "accumulate_ops") : NULL;
    snprintf(w->acc_ops, sizeof w->acc_ops, "%s", v ? v : "same_op_no_op");
}

/* ---- the node segment ------------------------------------------------------------ */
/* Map the window's node segment of w->seg_bytes bytes: a shared file that the
 * first local rank creates (the others open it after ok_all says it exists),
 * or private memory when this rank is alone on its node.  Collective over
 * w->comm.  Returns MPI_SUCCESS or an error code (the same at every rank of
 * a node). */
static int seg_map(cr_win_t *w, int creator_world, int serial)
{
    int fd = -1, ok = 1, err = MPI_SUCCESS;
    char name[512];
    w->seg_shared = w->nlocal > 1;
    if (!w->seg_shared) {
        void *p = mmap(NULL, w->seg_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        if (p == MAP_FAILED) ok = 0;
        else w->seg = p;
    } else {
        snprintf(name, sizeof name, "/courier.%s.w%d.%d", cr_job_name(), creator_world, serial);
        if (w->my_local == 0) {
            fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
            if (fd < 0 || ftruncate(fd, (off_t)w->seg_bytes) != 0) {
                ok = 0;
                if (fd >= 0) {
                    close(fd);
                    shm_unlink(name);
                    fd = -1;
                }
            }
        }
    }
    /* every rank learns whether every node's segment (or memory) exists */
    int *all = malloc(sizeof(int) * (size_t)w->size);
    if (!all) return cr_error(MPI_ERR_NO_MEM, "no memory to create a window");
    err = cr_comm_allgather_ints(w->comm, &ok, 1, all, RMA_TAG_CREATE);
    int all_ok = 1;
    for (int r = 0; r < w->size && !err; r++) all_ok &= all[r];
    free(all);
    if (err || !all_ok) {
        if (fd >= 0) {
            close(fd);
            shm_unlink(name);
        }
        if (!w->seg_shared && w->seg) munmap(w->seg, w->seg_bytes);
        w->seg = NULL;
        return err ? err : cr_error(MPI_ERR_NO_MEM, "cannot allocate %zu bytes of window memory "
                                    "(shared memory on a node ran out?)", w->seg_bytes);
    }
    if (!w->seg_shared) return MPI_SUCCESS;
    if (w->my_local != 0) fd = shm_open(name, O_RDWR, 0600);
    void *p = fd >= 0 ? mmap(NULL, w->seg_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                      : MAP_FAILED;
    if (fd >= 0) close(fd);
    if (p == MAP_FAILED) {
        shm_unlink(name);
        return cr_error(MPI_ERR_NO_MEM, "cannot map the window's shared memory %s: %s", name,
                        strerror(errno));
    }
    w->seg = p;
    rma_seg_hdr_t *h = p;
    /* the last rank to map the segment removes its name: nothing is left behind */
    if (__atomic_add_fetch(&h->attached, 1, __ATOMIC_ACQ_REL) == w->nlocal) shm_unlink(name);
    return MPI_SUCCESS;
}

/* ---- creation ------------------------------------------------------------------------ */
enum { INFO_INTS = 12 };

static void debug_paths(cr_win_t *w)
{
    char paths[64];
    int n = 0;
    for (int r = 0; r < w->size && n < (int)sizeof paths - 4; r++)
        paths[n++] = w->t[r].path == RMA_DIRECT ? 'd' : w->t[r].path == RMA_CMA ? 'c'
                     : w->t[r].net || w->t[r].dnet ? 'n' : 'a';
    if (n < w->size) paths[n++] = '.', paths[n++] = '.';
    paths[n] = 0;
    char sam_note[160] = "";
    if (w->sam)
        snprintf(sam_note, sizeof sam_note, "; to c ranks, operations of up to %ld bytes as "
                 "requests they serve while seen polling (COURIER_RMA_SHM_AM=%d)",
                 (long)ut_settings.rma_shm_am_max, (int)ut_settings.rma_shm_am);
    fprintf(stderr, "[courier] rank %d: window 0x%08x (%s, %d ranks, %d on this node): paths to "
            "ranks %s (d direct load/store, c cross-memory copy, a active messages, n network "
            "RMA for put and get, messages for the rest)%s%s%s%s%s\n",
            cr_proc.world_rank, (unsigned)w->head.handle, flavor_name(w->flavor), w->size,
            w->nlocal, paths,
            w->natomic ? (w->catomic ? "; accumulates by network atomics from other nodes"
                                     : "; accumulates by network atomics from every origin")
                       : "",
            w->catomic ? "; accumulates on this node's ranks by CPU atomics" : "",
            w->nlock ? (w->clock ? "; locks by network atomics from other nodes"
                                 : "; locks by network atomics from every locker")
                     : "",
            w->clock ? "; this node's lock words by CPU atomics" : "",
            sam_note);
}

/* COURIER_DEBUG=2, at MPI_Win_free: what this rank did on the window. */
static void debug_stats(cr_win_t *w)
{
    const rma_stats_t *s = &w->stats;
    fprintf(stderr, "[courier] rank %d: window 0x%08x freed: accumulates %lu by CPU atomics, "
            "%lu by network atomics (%lu not waited for in the call); lock-word atomics %lu "
            "over the network, %lu by the CPU; %lu active messages; %lu waits for the network; "
            "small operations to this node's c ranks: %lu as requests (%lu of them taken back, "
            "not served in time), %lu by copies (target not seen polling, or its ring full); "
            "%lu requests of others served\n",
            cr_proc.world_rank, (unsigned)w->head.handle, s->acc_cpu, s->acc_net,
            s->acc_net_later, s->word_net, s->word_cpu, s->am_msgs, s->waits, s->sam_reqs,
            s->sam_back, s->sam_copies, s->sam_served);
}

static void win_destroy(cr_win_t *w)
{
    if (!w) return;
    if (cr_win_hot_obj == w) cr_win_hot_forget();     /* fast.h */
    if (w->seg) munmap(w->seg, w->seg_bytes);
    if (w->comm) cr_comm_release(w->comm);
    free(w->t);
    free(w->start_ranks);
    if (w->head.handle) cr_objtab_remove(&cr_win_tab, CR_H_INDEX(w->head.handle));
    for (cr_win_t **pp = &win_list; *pp; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    free(w);
}

static int win_make(cr_comm_t *comm, int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                    cr_info_t *info, cr_win_t **out)
{
    if (comm->remote)
        return cr_error(MPI_ERR_COMM, "comm=0x%08x: windows need an intracommunicator",
                        (unsigned)comm->handle);
    if (size < 0) return cr_error(MPI_ERR_SIZE, "size=%ld: a window cannot be negative", (long)size);
    if (disp_unit <= 0)
        return cr_error(MPI_ERR_DISP, "disp_unit=%ld: must be positive", (long)disp_unit);
    cr_win_t *w = calloc(1, sizeof *w);
    if (!w) return cr_error(MPI_ERR_NO_MEM, "no memory for a window");
    w->flavor = flavor;
    w->model = MPI_WIN_UNIFIED;
    w->rank = comm->rank;
    w->size = comm->size;
    w->wsize = size;
    w->disp_unit = disp_unit;
    w->disp_unit_int = disp_unit > 0x7fffffff ? 0x7fffffff : (int)disp_unit;
    w->nstart = -1;
    w->head.errh = &cr_errh_fatal;
    hints_read(w, info);
    uint32_t ctx;
    int err = cr_ctx_alloc(comm, &ctx);
    if (err) {
        free(w);
        return err;
    }
    comm->group->refcount++;
    w->comm = cr_comm_make_internal(comm->group, ctx);
    w->t = calloc((size_t)w->size, sizeof(rma_target_t));
    int *all = malloc(sizeof(int) * INFO_INTS * (size_t)w->size);
    if (!w->comm || !w->t || !all) {
        free(all);
        win_destroy(w);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a window");
    }
    w->win_id = (int)ctx;
    int serial = win_serial++;
    uint64_t b = (uint64_t)(uintptr_t)base;
    /* the key other ranks of the node use to copy from and to this rank's
     * memory (create: the user's memory; dynamic: the whole address space) */
    tr_rkey_t key = { { 0, 0, 0 } };
    if ((flavor == MPI_WIN_FLAVOR_CREATE || flavor == MPI_WIN_FLAVOR_DYNAMIC) && shm_nlocal > 1)
        tr_mem_key(&shm_ctxs[0].iface, flavor == MPI_WIN_FLAVOR_CREATE ? base : NULL, (size_t)size, &key);
    int mine[INFO_INTS] = { (int)(uint32_t)size, (int)((uint64_t)size >> 32),
                            (int)(uint32_t)disp_unit, (int)((uint64_t)disp_unit >> 32),
                            (int)(uint32_t)b, (int)(b >> 32), serial, 0,
                            (int)(uint32_t)key.w[0], (int)(key.w[0] >> 32),
                            (int)(uint32_t)key.w[1], (int)(key.w[1] >> 32) };
    err = cr_comm_allgather_ints(w->comm, mine, INFO_INTS, all, RMA_TAG_CREATE);
    if (err) {
        free(all);
        win_destroy(w);
        return err;
    }
#define ALL64(r, i) ((uint64_t)(uint32_t)all[(r) * INFO_INTS + (i)] | \
                     ((uint64_t)(uint32_t)all[(r) * INFO_INTS + (i) + 1] << 32))
    /* the ranks of this node, in window rank order; the first one creates the segment */
    int creator = -1;
    for (int r = 0; r < w->size; r++) {
        rma_target_t *t = &w->t[r];
        t->world = cr_comm_world_rank(w->comm, r);
        t->size = (MPI_Aint)ALL64(r, 0);
        t->disp_unit = (MPI_Aint)ALL64(r, 2);
        t->base = (char *)(uintptr_t)ALL64(r, 4);
        t->key.w[0] = ALL64(r, 8);
        t->key.w[1] = ALL64(r, 10);
        t->local = cr_peer_local(t->world) >= 0 ? w->nlocal++ : -1;
        if (r == w->rank) w->my_local = t->local;
        if (t->local == 0) creator = r;
    }
    int creator_serial = all[creator * INFO_INTS + 6];
    if (flavor == MPI_WIN_FLAVOR_SHARED && w->nlocal != w->size) {
        free(all);
        win_destroy(w);
        return cr_error(MPI_ERR_RMA_SHARED, "MPI_Win_allocate_shared: the ranks of comm are not "
                        "all on one node (%d of %d share memory with rank %d)", w->nlocal,
                        w->size, w->rank);
    }
    free(all);
    /* layout: header page, control blocks, data (allocate flavours) */
    w->dyn_max = flavor == MPI_WIN_FLAVOR_DYNAMIC ? (int)ut_settings.rma_dynamic_max : 0;
    w->ctl_stride = round_up(sizeof(rma_ctl_t) + (size_t)w->size * 8 +
                             (size_t)w->dyn_max * sizeof(rma_dyn_t), 64);
    /* then the ring of requests to this rank (shmam.c) */
    w->sam_off = w->ctl_stride;
    w->ctl_stride += rma_sam_bytes(w, flavor);
    size_t off = round_up(RMA_PAGE + (size_t)w->nlocal * w->ctl_stride, RMA_PAGE);
    size_t *data_off = calloc((size_t)w->size, sizeof(size_t));
    if (!data_off) {
        win_destroy(w);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a window");
    }
    int holds_data = flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED;
    for (int r = 0; r < w->size && holds_data; r++) {
        if (w->t[r].local < 0) continue;
        /* allocate_shared: contiguous unless alloc_shared_noncontig (page-aligned) */
        if (flavor == MPI_WIN_FLAVOR_ALLOCATE) off = round_up(off, 64);
        else if (w->noncontig) off = round_up(off, RMA_PAGE);
        data_off[r] = off;
        off += (size_t)w->t[r].size;
    }
    w->seg_bytes = round_up(off > RMA_PAGE ? off : RMA_PAGE, RMA_PAGE);
    err = seg_map(w, w->t[creator].world, creator_serial);
    if (err) {
        free(data_off);
        win_destroy(w);
        return err;
    }
    if (w->my_local == 0) ((rma_seg_hdr_t *)(void *)w->seg)->magic = RMA_SEG_MAGIC;
    w->me = rma_ctl_at(w, w->my_local);
    /* the path to each target */
    for (int r = 0; r < w->size; r++) {
        rma_target_t *t = &w->t[r];
        t->posted_to_me = rma_posted(w, w->my_local) + r;
        if (t->local >= 0) t->ctl = rma_ctl_at(w, t->local);
        if (holds_data && t->local >= 0) {
            t->path = RMA_DIRECT;
            t->base = w->seg + data_off[r];
        } else if (r == w->rank) {
            t->path = RMA_DIRECT;           /* own memory: create, dynamic (absolute) */
        } else if (t->local >= 0) {
            t->path = RMA_CMA;
        } else {
            t->path = RMA_AM;
            w->am_targets++;
        }
    }
    free(data_off);
    w->base = holds_data ? w->t[w->rank].base : flavor == MPI_WIN_FLAVOR_DYNAMIC ? NULL : base;
    if (flavor == MPI_WIN_FLAVOR_DYNAMIC) w->wsize = 0;
    int idx = cr_objtab_add(&cr_win_tab, w);
    if (idx < 0) {
        win_destroy(w);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a window handle");
    }
    w->head.handle = CR_H_MAKE(CR_ST_USER, CR_K_WIN, idx);
    w->next = win_list;
    win_list = w;
    if (w->am_targets &&
        ((err = rma_net_init(w, w->t[w->rank].base, (size_t)w->t[w->rank].size)) != MPI_SUCCESS ||
         (err = rma_am_init(w)) != MPI_SUCCESS)) {
        rma_net_fini(w);
        win_destroy(w);
        return err;
    }
    /* CPU atomics on this node's targets (the same choice at every rank of
     * the node): their memory is mapped by every origin of the node (no
     * cross-memory copies under the accumulate lock), and the network's
     * atomics from other nodes, where in use, are the CPU's too */
    int cpu_net = !w->natomic || rma_net_atomic_cpu();
    w->catomic = ut_settings.rma_cpu_atomics && (holds_data || w->nlocal == 1) && cpu_net;
    w->clock = ut_settings.rma_cpu_atomics && w->nlock && rma_net_atomic_cpu();
    /* the target itself, on memory its neighbours reach only through the
     * network's atomics (whose are the CPU's): no round trip through the
     * provider's loopback for its own accumulates */
    w->cself = ut_settings.rma_cpu_atomics && !w->catomic && w->natomic && rma_net_atomic_cpu();
    rma_sam_init(w);
    /* nobody uses the window (its lock words, its memory) before everyone has it */
    err = cr_barrier_internal(w->comm);
    if (err) {
        rma_sam_fini(w);
        win_destroy(w);
        return err;
    }
    /* the targets the short ways reach (fast.h) */
    for (int r = 0; r < w->size; r++)
        w->t[r].fast = w->t[r].path == RMA_DIRECT && !w->am && flavor != MPI_WIN_FLAVOR_DYNAMIC;
    /* the ranks load and store shared memory themselves: MPI_Win_flush fences always */
    w->dstores = flavor == MPI_WIN_FLAVOR_SHARED ? RMA_DFENCE_ALWAYS : 0;
    if (ut_settings.debug >= 2) debug_paths(w);
    *out = w;
    return MPI_SUCCESS;
}

int core_win_create(void *base, MPI_Aint size, MPI_Aint disp_unit, cr_info_t *info,
                    cr_comm_t *comm, MPI_Win *win)
{
    cr_win_t *w;
    int err = win_make(comm, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, &w);
    if (!err) *win = w->head.handle;
    return err;
}

int core_win_allocate(MPI_Aint size, MPI_Aint disp_unit, cr_info_t *info, cr_comm_t *comm,
                      void *baseptr, MPI_Win *win)
{
    cr_win_t *w;
    int err = win_make(comm, MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, &w);
    if (err) return err;
    *(void **)baseptr = w->base;
    *win = w->head.handle;
    return MPI_SUCCESS;
}

int core_win_allocate_shared(MPI_Aint size, MPI_Aint disp_unit, cr_info_t *info,
                             cr_comm_t *comm, void *baseptr, MPI_Win *win)
{
    cr_win_t *w;
    int err = win_make(comm, MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info, &w);
    if (err) return err;
    *(void **)baseptr = w->base;
    *win = w->head.handle;
    return MPI_SUCCESS;
}

int core_win_create_dynamic(cr_info_t *info, cr_comm_t *comm, MPI_Win *win)
{
    cr_win_t *w;
    int err = win_make(comm, MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, &w);
    if (!err) *win = w->head.handle;
    return err;
}

int core_win_shared_query(cr_win_t *win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                          void *baseptr)
{
    if (win->flavor != MPI_WIN_FLAVOR_SHARED && win->flavor != MPI_WIN_FLAVOR_ALLOCATE)
        return cr_error(MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query: the window is of flavour %s; "
                        "only shared (and allocate) windows have memory other ranks map",
                        flavor_name(win->flavor));
    if (rank == MPI_PROC_NULL) {
        /* the first rank with memory (whose memory starts the contiguous block) */
        rank = 0;
        for (int r = 0; r < win->size; r++)
            if (win->t[r].size > 0) {
                rank = r;
                break;
            }
    } else if (rank < 0 || rank >= win->size) {
        return cr_error(MPI_ERR_RANK, "rank=%d: not a rank of the window (size %d)", rank,
                        win->size);
    }
    rma_target_t *t = &win->t[rank];
    if (t->path != RMA_DIRECT)
        return cr_error(MPI_ERR_RMA_SHARED, "MPI_Win_shared_query: rank %d's memory is on "
                        "another node", rank);
    *size = t->size;
    *disp_unit = t->disp_unit;
    *(void **)baseptr = t->size ? t->base : NULL;   /* a rank without memory: NULL, as MPICH */
    return MPI_SUCCESS;
}

/* ---- dynamic windows ----------------------------------------------------------------- */
int core_win_attach(cr_win_t *win, void *base, MPI_Aint size)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return cr_error(MPI_ERR_RMA_FLAVOR, "MPI_Win_attach: the window is of flavour %s, not "
                        "dynamic", flavor_name(win->flavor));
    if (size < 0) return cr_error(MPI_ERR_SIZE, "size=%ld: negative", (long)size);
    if (size == 0) return MPI_SUCCESS;
    rma_dyn_t *d = rma_dyn(win, win->my_local);
    uint64_t b = (uint64_t)(uintptr_t)base, e = b + (uint64_t)size;
    int slot = -1;
    for (int i = 0; i < win->dyn_max; i++) {
        if (d[i].size == 0) {
            if (slot < 0) slot = i;
        } else if (b < d[i].base + d[i].size && d[i].base < e) {
            return cr_error(MPI_ERR_RMA_ATTACH, "MPI_Win_attach: [%p, +%ld) overlaps memory "
                            "already attached at %p", base, (long)size,
                            (void *)(uintptr_t)d[i].base);
        }
    }
    if (slot < 0)
        return cr_error(MPI_ERR_RMA_ATTACH, "MPI_Win_attach: %d regions are attached already "
                        "(COURIER_RMA_DYNAMIC_MAX)", win->dyn_max);
    d[slot].base = b;
    rma_net_dyn_attach(win, slot, base, (size_t)size);   /* for origins on other nodes */
    __atomic_store_n(&d[slot].size, (uint64_t)size, __ATOMIC_RELEASE);
    if ((uint64_t)slot + 1 > win->me->ndyn) __atomic_store_n(&win->me->ndyn, slot + 1, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

int core_win_detach(cr_win_t *win, const void *base)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return cr_error(MPI_ERR_RMA_FLAVOR, "MPI_Win_detach: the window is of flavour %s, not "
                        "dynamic", flavor_name(win->flavor));
    rma_dyn_t *d = rma_dyn(win, win->my_local);
    for (int i = 0; i < win->dyn_max; i++)
        if (d[i].size && d[i].base == (uint64_t)(uintptr_t)base) {
            __atomic_store_n(&d[i].size, 0, __ATOMIC_RELEASE);
            rma_net_dyn_detach(win, i);
            return MPI_SUCCESS;
        }
    return cr_error(MPI_ERR_RMA_ATTACH, "MPI_Win_detach: base=%p was not attached to the window",
                    base);
}

/* ---- free ------------------------------------------------------------------------------ */
int core_win_free(cr_win_t *win)
{
    if (win->lock_all || win->nlocks || win->nstart >= 0 || win->exposed)
        return cr_error(MPI_ERR_RMA_SYNC, "MPI_Win_free: an epoch is still open on the window "
                        "(%s)", win->lock_all ? "MPI_Win_lock_all" : win->nlocks ? "MPI_Win_lock" :
                        win->nstart >= 0 ? "MPI_Win_start" : "MPI_Win_post");
    int err = core_win_flush_all(win);
    /* this rank's lock releases have reached the other ranks' lock words */
    if (!err && win->nlock) err = rma_net_quiesce(win);
    if (err) return err;
    err = cr_attr_delete_all(CR_K_WIN, win->head.handle, &win->attrs);
    if (err) return err;
    /* every rank's operations on this rank's memory are done */
    err = cr_barrier_internal(win->comm);
    if (err) return err;
    if (ut_settings.debug >= 2) debug_stats(win);
    rma_sam_fini(win);
    rma_am_fini(win);
    rma_net_fini(win);
    cr_errhandler_release(win->head.errh);
    win_destroy(win);
    return MPI_SUCCESS;
}

/* ---- names, group, info ------------------------------------------------------------------- */
int core_win_get_group(cr_win_t *win, MPI_Group *group)
{
    cr_group_t *g = win->comm->group;
    g->refcount++;
    return cr_group_to_handle(g, group);
}

int core_win_set_name(cr_win_t *win, const char *win_name)
{
    snprintf(win->name, sizeof win->name, "%s", win_name);
    return MPI_SUCCESS;
}

int core_win_get_name(cr_win_t *win, char *win_name, int *resultlen)
{
    snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", win->name);
    *resultlen = (int)strlen(win_name);
    return MPI_SUCCESS;
}

int core_win_set_info(cr_win_t *win, cr_info_t *info)
{
    if (!info) return MPI_SUCCESS;
    /* the hints that may change (promises of the program that this rank only
     * records): the others keep the values the window was made with */
    if (cr_info_get(info, "no_locks")) win->no_locks = info_true(info, "no_locks");
    if (cr_info_get(info, "same_size")) win->same_size = info_true(info, "same_size");
    if (cr_info_get(info, "same_disp_unit"))
        win->same_disp_unit = info_true(info, "same_disp_unit");
    /* alloc_shared_noncontig permits a layout at allocation: the window keeps
     * the one it has and reports the hint as last given, as MPICH does */
    if (cr_info_get(info, "alloc_shared_noncontig"))
        win->noncontig_hint = info_true(info, "alloc_shared_noncontig");
    const char *v = cr_info_get(info, "accumulate_ordering");
    if (v) snprintf(win->acc_ordering, sizeof win->acc_ordering, "%s", v);
    v = cr_info_get(info, "accumulate_ops");
    if (v) snprintf(win->acc_ops, sizeof win->acc_ops, "%s", v);
    return MPI_SUCCESS;
}

int core_win_get_info(cr_win_t *win, MPI_Info *info_used)
{
    cr_info_t *i;
    int err = cr_info_new(&i);
    if (err) return err;
    const char *tf[2] = { "false", "true" };
    err = cr_info_put(i, "no_locks", tf[win->no_locks != 0]);
    if (!err) err = cr_info_put(i, "accumulate_ordering", win->acc_ordering);
    if (!err) err = cr_info_put(i, "accumulate_ops", win->acc_ops);
    if (!err) err = cr_info_put(i, "same_size", tf[win->same_size != 0]);
    if (!err) err = cr_info_put(i, "same_disp_unit", tf[win->same_disp_unit != 0]);
    if (!err && win->flavor == MPI_WIN_FLAVOR_SHARED)
        err = cr_info_put(i, "alloc_shared_noncontig", tf[win->noncontig_hint != 0]);
    if (!err) err = cr_info_to_user(i, info_used);
    cr_info_destroy(i);
    return err;
}

/* ---- attributes ------------------------------------------------------------------------ */
int core_win_set_attr(cr_win_t *win, int win_keyval, void *attribute_val)
{
    return cr_attr_set(CR_K_WIN, win->head.handle, &win->attrs, win_keyval, attribute_val,
                       "MPI_Win_set_attr");
}

int core_win_get_attr(cr_win_t *win, int win_keyval, void *attribute_val, int *flag)
{
    void *v;
    switch (win_keyval) {
    case MPI_WIN_BASE: v = win->base; break;
    case MPI_WIN_SIZE: v = &win->wsize; break;
    case MPI_WIN_DISP_UNIT: v = &win->disp_unit_int; break;
    case MPI_WIN_CREATE_FLAVOR: v = &win->flavor; break;
    case MPI_WIN_MODEL: v = &win->model; break;
    default:
        return cr_attr_get(CR_K_WIN, &win->attrs, win_keyval, attribute_val, flag,
                           "MPI_Win_get_attr");
    }
    *(void **)attribute_val = v;
    *flag = 1;
    return MPI_SUCCESS;
}

/* From Fortran: the predefined attributes as values (MPI_WIN_BASE the
 * address), the user's as attr.c stores them. */
int core_win_set_attr_fortran(cr_win_t *win, int keyval, MPI_Aint value)
{
    return cr_attr_set_fortran(CR_K_WIN, win->head.handle, &win->attrs, keyval, value, 0,
                               "MPI_Win_set_attr");
}

int core_win_get_attr_fortran(cr_win_t *win, int keyval, MPI_Aint *value, int *flag)
{
    switch (keyval) {
    case MPI_WIN_BASE: *value = (MPI_Aint)win->base; break;
    case MPI_WIN_SIZE: *value = win->wsize; break;
    case MPI_WIN_DISP_UNIT: *value = win->disp_unit_int; break;
    case MPI_WIN_CREATE_FLAVOR: *value = win->flavor; break;
    case MPI_WIN_MODEL: *value = win->model; break;
    default:
        return cr_attr_get_fortran(CR_K_WIN, &win->attrs, keyval, value, flag, "MPI_Win_get_attr");
    }
    *flag = 1;
    return MPI_SUCCESS;
}

int core_win_delete_attr(cr_win_t *win, int win_keyval)
{
    return cr_attr_delete(CR_K_WIN, win->head.handle, &win->attrs, win_keyval,
                          "MPI_Win_delete_attr");
}

/* ---- error handlers -------------------------------------------------------------------- */
int core_win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler)
{
    return cr_errhandler_create(CR_K_WIN, (void (*)(void))win_errhandler_fn, errhandler);
}

int core_win_set_errhandler(cr_win_t *win, cr_errhandler_t *errhandler)
{
    return cr_errhandler_set(&win->head.errh, errhandler, CR_K_WIN);
}

int core_win_get_errhandler(cr_win_t *win, MPI_Errhandler *errhandler)
{
    return cr_errhandler_get(win->head.errh, errhandler);
}

int core_win_call_errhandler(cr_win_t *win, int errorcode)
{
    cr_raise_win(win->head.handle, errorcode, "MPI_Win_call_errhandler");
    return MPI_SUCCESS;
}
