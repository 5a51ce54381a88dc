/* SPDX-License-Identifier: MIT */
/* The runtime and the world model: bootstrap through PMI, find the ranks on
 * this node, start the transports (self, shared memory, the network), the
 * point-to-point channel and the progress engine, and set up the predefined
 * communicators (once per process, for MPI_Init or the first
 * MPI_Session_init, see session.h); MPI_Init_thread, MPI_Finalize, MPI_Abort. */
#define _GNU_SOURCE
#include "core/core.h"
#include "core/dynamic.h"
#include "core/datatype.h"
#include "core/attr.h"
#include "core/errh.h"
#include "core/comm_priv.h"
#include "core/session.h"
#include "core/progress.h"
#include "core/debug.h"
#include "core/liveness.h"
#include "core/pt2pt.h"
#include "core/api_comm.h"
#include "core/threads.h"
#include "pmi/pmi.h"
#include "transport/ofi/ofi.h"
#include "transport/self/self.h"
#include "transport/shm/shm.h"
#include "util/log.h"
#include "util/settings.h"
#include "util/cpus.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

cr_proc_t cr_proc;
cr_comm_t cr_comm_world, cr_comm_self;
cr_objtab_t cr_comm_tab;
cr_group_t *cr_group_world, *cr_group_self;
static crpmi_info_t pmi;
/* Per channel (pt2pt.h), its interfaces in the order a peer is tried: self,
 * shm, and the network's endpoint of that channel when the job spans nodes
 * (ntransports[c] of them; the network started later for dynamic processes
 * joins channel 0 alone, docs/threads.md). */
static tr_iface_t *transports[CR_MAX_CHANNELS][CR_CHAN_MAX_TR];
static int ntransports[CR_MAX_CHANNELS];
static int nchannels;
static tr_iface_t *net_tr;     /* the network transport, once started */

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void comm_builtin(cr_comm_t *c, MPI_Comm h, cr_group_t *g, uint32_t ctx, const char *name)
{
    memset(c, 0, sizeof *c);
    c->handle = h;
    c->refcount = 1;
    c->group = g;
    c->rank = g->rank;
    c->size = g->size;
    c->ctx = ctx;
    c->errh = &cr_errh_fatal;
    snprintf(c->name, sizeof c->name, "%s", name);
}

/* This process's node, as a string: its host name, or the node number
 * COURIER_NODE_ID / COURIER_NODE_SIZE give. */
static void node_key(char *buf, size_t n)
{
    if (ut_settings.node_size > 0)
        snprintf(buf, n, "%s/block-%ld", cr_proc.hostname,
                 (long)cr_proc.world_rank / ut_settings.node_size);
    else if (ut_settings.node_id >= 0)
        snprintf(buf, n, "node-%ld", ut_settings.node_id);
    else
        snprintf(buf, n, "%s", cr_proc.hostname);
}

/* Learn which world ranks share this node: every rank publishes its node and,
 * after a '#' (no host name holds one), its identity for the liveness checks,
 * which take those of the ranks on this node (cr_liveness_peer), and after
 * another its CPUs.  The node's ranks outnumber its cores when they are more
 * than the CPUs all of them together may run on (a rank bound to one core
 * sees only that one: its own mask would call every bound job
 * oversubscribed); COURIER_OVERSUBSCRIBED says otherwise when set. */
static int find_local_ranks(char *mine, size_t mine_len)
{
    char key[64], val[MPI_MAX_PROCESSOR_NAME + 640];   /* node '#' identity '#' CPUs */
    char cpus[480];
    cpu_set_t node_cpus;
    int cpus_known = 1;
    CPU_ZERO(&node_cpus);
    ut_cpus_list(cpus, sizeof cpus);
    int n = cr_proc.world_size;
    node_key(mine, mine_len);
    cr_proc.local_of_world = malloc((size_t)n * sizeof(int));
    if (!cr_proc.local_of_world) return -1;
    if (n == 1) {
        cr_proc.local_of_world[0] = 0;
        cr_proc.local_rank = 0;
        cr_proc.local_size = 1;
        cr_proc.node_cpus = ut_cpus_allowed();
        cr_proc.oversubscribed = ut_oversubscribed(1);
        return 0;
    }
    snprintf(key, sizeof key, "courier-host-%d", cr_proc.world_rank);
    snprintf(val, sizeof val, "%s#%s#%s", mine, cr_liveness_ident(), cpus);
    if (crpmi_put(key, val) || crpmi_barrier()) return -1;
    int nlocal = 0;
    for (int r = 0; r < n; r++) {
        if (r == cr_proc.world_rank) {
            snprintf(val, sizeof val, "%s##%s", mine, cpus);
        } else {
            snprintf(key, sizeof key, "courier-host-%d", r);
            if (crpmi_get(r, key, val, sizeof val)) return -1;
        }
        char *ident = strchr(val, '#'), *its_cpus = NULL;
        if (ident) *ident++ = '\0';
        if (ident && (its_cpus = strchr(ident, '#'))) *its_cpus++ = '\0';
        if (strcmp(val, mine) == 0) {
            if (r == cr_proc.world_rank) cr_proc.local_rank = nlocal;
            else if (ident && *ident) cr_liveness_peer(r, ident);
            cr_proc.local_of_world[r] = nlocal++;
            if (!its_cpus || ut_cpus_parse(its_cpus, &node_cpus) != 0) cpus_known = 0;
        } else {
            cr_proc.local_of_world[r] = -1;
        }
    }
    cr_proc.local_size = nlocal;
    cr_proc.node_cpus = cpus_known ? CPU_COUNT(&node_cpus) : ut_cpus_allowed();
    cr_proc.oversubscribed = ut_settings.oversubscribed >= 0 ? (int)ut_settings.oversubscribed
                                                             : nlocal > cr_proc.node_cpus;
    return 0;
}

static int boot_get(int rank, const char *key, char *val, size_t len)
{
    return crpmi_get(rank, key, val, (int)len);
}

const char *cr_job_name(void)
{
    return pmi.kvsname;
}

/* A job that spans nodes opens the network on a thread while shared memory
 * is set up (ofi_open_begin), and publishes its address in shm_init's
 * barrier: shm_init's bootstrap barrier is this one, which first waits for
 * the endpoints and puts their addresses (net_boot: the bootstrap the network
 * keeps; net_started: the endpoint of each channel, [0] NULL when the
 * network failed). */
static tr_boot_t net_boot;
static int net_pending, net_nch;
static tr_iface_t *net_started[CR_MAX_CHANNELS];

static int barrier_with_net(void)
{
    if (net_pending) {
        net_pending = 0;
        if (ofi_init(&net_boot, OFI_PUBLISH_PUT, net_nch, net_started) != 0)
            net_started[0] = NULL;
    }
    return crpmi_barrier();
}

/* The transports, in the order a peer is tried: self, shared memory, and the
 * network when the job spans nodes (every rank sees the same: all start it or
 * none); then the channel over them and the progress engine with their
 * doorbells.  Returns 0, or an MPI error code. */
static int start_transports(const char *node)
{
    tr_boot_t boot = { .rank = cr_proc.world_rank, .size = cr_proc.world_size,
                       .put = crpmi_put, .get = boot_get, .barrier = crpmi_barrier };
    tr_boot_t shm_boot = boot;
    shm_boot.barrier = barrier_with_net;
    /* as many channels on every rank, whatever thread level each asked for:
     * both sides of a message must pick the same (docs/threads.md) */
    int nch = (int)ut_settings.num_channels;
    int spans = cr_proc.local_size != cr_proc.world_size;
    if (spans) {
        net_boot = boot;
        net_nch = nch;
        net_started[0] = NULL;
        net_pending = 1;
        ofi_open_begin(nch);   /* else barrier_with_net opens them there */
    }
    char name[512];
    tr_iface_t *self[CR_MAX_CHANNELS], *shm[CR_MAX_CHANNELS], *net = NULL;
    snprintf(name, sizeof name, "/courier.%s.%08x", pmi.kvsname, hash_str(node));
    nchannels = 0;
    if (self_init(cr_proc.world_rank, self, nch) != 0)
        return cr_error(MPI_ERR_NO_MEM, "no memory for the self transport");
    if (shm_init(shm, nch, cr_proc.local_rank, cr_proc.local_size, cr_proc.local_of_world,
                 cr_proc.world_size, name, &shm_boot) != 0) {
        for (int c = 0; c < nch; c++) tr_finalize(self[c]);
        return cr_error(MPI_ERR_OTHER, "cannot set up shared memory");
    }
    for (int c = 0; c < nch; c++) {
        transports[c][0] = self[c];
        transports[c][1] = shm[c];
        ntransports[c] = CR_CHAN_LOCAL_TR;
    }
    nchannels = nch;
    if (spans) {
        /* an endpoint per channel: channel c of one process reaches channel c
         * of the others through endpoint c (docs/threads.md) */
        if (!net_started[0])
            return cr_error(MPI_ERR_OTHER, "the job spans several nodes (%d of its %d ranks "
                            "share this one) and no network transport works (libfabric)",
                            cr_proc.local_size, cr_proc.world_size);
        for (int c = 0; c < nch; c++) transports[c][ntransports[c]++] = net_started[c];
        net = net_tr = net_started[0];
        /* a sleep waits on the network's descriptor: shm's doorbell becomes one too */
        shm_sleep_fd_enable();
    }
    /* the doorbells: the network's (first: announcing a sleep there costs least
     * and it refuses most often) and shm's, unless no local peer can ring it;
     * then the other channels' endpoints (past CR_PROGRESS_MAX_BELLS the
     * policy stops sleeping) */
    tr_iface_t *wakers[2] = { net, cr_proc.local_size > 1 || !net ? shm[0] : NULL };
    cr_progress_init(cr_proc.oversubscribed, wakers, 2);
    for (int c = 1; net && c < nch; c++) cr_progress_add_waker(net_started[c]);
    if (net) cr_progress_net_polled();
    /* the waiting policy publishes its yield phase where local peers read it
     * (the adaptive protocol tells a descheduled peer from a busy one by it) */
    cr_wait_publish = cr_proc.local_size > 1 ? shm_publish_idle : NULL;
    /* the fast paths run without threads and on one channel only (threads.h:
     * they take channel 0 for every communicator) */
    int fast = !cr_threaded && nch == 1;
    if (cr_pt2pt_init(transports, nch, ntransports, fast) != 0)
        return cr_error(MPI_ERR_NO_MEM, "no memory for the point-to-point channel");
    if (!fast)     /* keeps MPI_Recv's fast path off */
        __atomic_fetch_add(&cr_progress_nactive, 1, __ATOMIC_RELAXED);
    return MPI_SUCCESS;
}

tr_iface_t *cr_net_up(void)
{
    static tr_boot_t boot;
    if (net_tr) return net_tr;
    boot = (tr_boot_t){ .rank = cr_proc.world_rank, .size = cr_proc.world_size,
                        .put = crpmi_put, .get = boot_get, .barrier = crpmi_barrier };
    tr_iface_t *net;
    if (ofi_init(&boot, OFI_ALONE, 1, &net) != 0) return NULL;
    if (ntransports[0] == CR_CHAN_MAX_TR || cr_chan_add_transport(&cr_chan0, net) != 0) {
        tr_finalize(net);
        return NULL;
    }
    transports[0][ntransports[0]++] = net;
    net_tr = net;
    shm_sleep_fd_enable();          /* poll() on the network's descriptor sees shm's rings */
    cr_progress_add_waker(net);     /* its messages must end a sleep too */
    cr_progress_net_polled();
    ut_log(UT_LOG_EVENTS, "init", "network transport started for dynamic processes");
    return net;
}

static void stop_transports(void)
{
    net_tr = NULL;
    cr_pt2pt_fini();
    ut_log(UT_LOG_EVENTS, "progress", "waiting policy: %lu yields, %lu sleeps (%lu cut short "
           "by a last poll, %lu ran out)", cr_wait_stats.yields, cr_wait_stats.sleeps,
           cr_wait_stats.sleep_aborts, cr_wait_stats.sleep_timeouts);
    cr_progress_fini();
    for (int c = nchannels - 1; c >= 0; c--) {
        for (int i = ntransports[c] - 1; i >= 0; i--) tr_finalize(transports[c][i]);
        ntransports[c] = 0;
    }
    nchannels = 0;
}

/* A program that ends without MPI_Finalize while the runtime is up for its
 * sessions (or sessions outlived MPI_Finalize): what MPI_Finalize would do,
 * at exit.  Not after a failing exit (peers may be gone), and not when the
 * world model is still initialised (mpiexec reports the missing MPI_Finalize). */
static void runtime_exit_hook(int status, void *arg)
{
    (void)arg;
    if (cr_proc.state != CR_STATE_INIT || cr_proc.world_state == CR_STATE_INIT || status != 0)
        return;
    ut_log(UT_LOG_EVENTS, "init", "process exit: stopping the runtime of %d session(s)",
           cr_proc.nsessions);
    cr_barrier_tag(&cr_comm_world, CR_TAG_EXIT);
    cr_runtime_stop();
}

/* The level the call that started the runtime was given. */
static int runtime_level = MPI_THREAD_SINGLE;

int cr_runtime_start(int required)
{
    /* MPI_THREAD_MULTIPLE turns the locks on before anything is set up
     * (threads.h); COURIER_THREAD_LEVEL_MAX may cap what is provided.  The
     * runtime is started once: a later session or MPI_Init_thread gets what
     * it started with (cr_thread_level_provided). */
    if (cr_proc.state == CR_STATE_INIT) return MPI_SUCCESS;
    if (cr_proc.state == CR_STATE_FINALIZED)
        return cr_error(MPI_ERR_OTHER, "MPI was finalized in this process; it cannot start again");
    /* a setting out of its range stops MPI_Init; a bad line of the tuning
     * file was reported and skipped (no ut_settings_error) */
    if (ut_settings_load() != 0 && ut_settings_error()[0])
        return cr_error(MPI_ERR_OTHER, "%s", ut_settings_error());
    ut_log_init(-1);
    cr_datatype_init();
    if (crpmi_init(&pmi) != 0)
        return cr_error(MPI_ERR_OTHER, "cannot reach the process manager (PMI)");
    cr_proc.world_rank = pmi.rank;
    cr_proc.world_size = pmi.size;
    cr_proc.appnum = pmi.appnum;
    cr_proc.universe_size = pmi.universe_size > 0 ? pmi.universe_size : pmi.size;
    cr_proc.universe_stated = pmi.universe_stated;
    if (!pmi.universe_stated && ut_settings.universe_size > 0) {
        /* the launcher said nothing (Hydra, srun, mpiexec without -usize
         * whose own environment lacked it): the ranks' setting states it */
        cr_proc.universe_size = ut_settings.universe_size > pmi.size ? (int)ut_settings.universe_size
                                                                     : pmi.size;
        cr_proc.universe_stated = 1;
    }
    cr_proc.job_id = (int)(hash_str(pmi.kvsname) & 0x7fffffff);
    ut_log_init(pmi.rank);
    gethostname(cr_proc.hostname, sizeof cr_proc.hostname - 1);
    cr_liveness_init();
    char node[MPI_MAX_PROCESSOR_NAME + 64];
    if (find_local_ranks(node, sizeof node) != 0)
        return cr_error(MPI_ERR_OTHER, "cannot exchange host names through PMI");

    runtime_level = cr_thread_level_provided(required);
    if (runtime_level == MPI_THREAD_MULTIPLE || ut_settings.async_progress)
        cr_threads_enable();
    cr_thread_set_main();

    int err = start_transports(node);
    if (err) return err;

    int n = cr_proc.world_size;
    cr_group_world = cr_group_new(n);
    cr_group_self = cr_group_new(1);
    if (!cr_group_world || !cr_group_self)
        return cr_error(MPI_ERR_NO_MEM, "no memory for the world group");
    for (int i = 0; i < n; i++) cr_group_world->world[i] = i;
    cr_group_world->rank = cr_proc.world_rank;
    cr_group_self->world[0] = cr_proc.world_rank;
    cr_group_self->rank = 0;
    comm_builtin(&cr_comm_world, MPI_COMM_WORLD, cr_group_world, 0, "MPI_COMM_WORLD");
    comm_builtin(&cr_comm_self, MPI_COMM_SELF, cr_group_self, CR_CTX_STRIDE, "MPI_COMM_SELF");
    /* base ids 0 and 2 for world and self, 4 for communicators made from groups
     * without a parent (comm_from_group.c) */
    cr_proc.next_ctx = CR_CTX_FROM_GROUP + CR_CTX_STRIDE;
    cr_proc.state = CR_STATE_INIT;
    on_exit(runtime_exit_hook, NULL);
    core_debug_init(cr_proc.world_rank, cr_proc.hostname);
    ut_log(UT_LOG_EVENTS, "init", "runtime up: %d ranks, %d on this node, %s", n,
           cr_proc.local_size, cr_proc.oversubscribed ? "oversubscribed" : "not oversubscribed");
    if (ut_settings.async_progress && cr_async_start() != 0)
        return cr_error(MPI_ERR_OTHER, "COURIER_ASYNC_PROGRESS=1: cannot start the progress thread");
    return MPI_SUCCESS;
}

void cr_runtime_stop(void)
{
    cr_dyn_finalize();
    stop_transports();      /* the network transport's last barrier uses PMI */
    crpmi_finalize();
    cr_win_hot_forget();
    cr_proc.state = CR_STATE_FINALIZED;
    ut_log(UT_LOG_EVENTS, "init", "runtime stopped");
}

int cr_thread_level_provided(int required)
{
    int level = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : required;
    /* a runtime started at MPI_THREAD_MULTIPLE is safe for threads whatever
     * a later session or MPI_Init_thread asks: it gets MPI_THREAD_MULTIPLE,
     * a stronger level than required, as the standard allows (a library's
     * session without a thread_level inside a threaded program sees it) */
    if (cr_proc.state == CR_STATE_INIT && runtime_level == MPI_THREAD_MULTIPLE)
        level = MPI_THREAD_MULTIPLE;
    if (level > ut_settings.thread_level_max) level = (int)ut_settings.thread_level_max;
    /* a runtime started without the locks chose its fast paths and waiting
     * policy for one thread at a time (start_transports): it stays so */
    if (level == MPI_THREAD_MULTIPLE && cr_proc.state == CR_STATE_INIT && !cr_threaded)
        level = MPI_THREAD_SERIALIZED;
    return level;
}

int core_init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    if (cr_proc.world_state != CR_STATE_PRE_INIT)
        return cr_error(MPI_ERR_OTHER, "the world model is already %s (MPI_Init may be called "
                        "once)", cr_proc.world_state == CR_STATE_INIT ? "initialized"
                                                                      : "finalized");
    int err = cr_runtime_start(required);
    if (err) return err;
    cr_proc.thread_level = cr_thread_level_provided(required);
    if (provided) *provided = cr_proc.thread_level;
    cr_proc.world_state = CR_STATE_INIT;
    return cr_dyn_child_init();
}

int core_finalize(void)
{
    /* Everyone reaches here before anyone leaves, and every packet this rank owes
     * its peers (acknowledgements, chunks) goes out while waiting. */
    cr_async_stop();                /* the calling thread progresses from here on */
    cr_liveness_finalizing();
    int err = cr_attr_finalize();   /* first: MPI_COMM_SELF's attribute delete callbacks ("user functions at process termination") */
    if (!err) err = cr_barrier_internal(&cr_comm_world);
    if (err) return err;
    cr_proc.world_state = CR_STATE_FINALIZED;
    if (cr_proc.nsessions == 0) cr_runtime_stop();
    return MPI_SUCCESS;
}

int core_abort(cr_comm_t *comm, int errorcode)
{
    char msg[160];
    snprintf(msg, sizeof msg, "MPI_Abort(%s, %d) called by rank %d",
             comm == &cr_comm_world ? "MPI_COMM_WORLD" : comm->name[0] ? comm->name : "comm",
             errorcode, cr_proc.world_rank);
    cr_abort_job(errorcode, msg);
}
