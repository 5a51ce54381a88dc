/* SPDX-License-Identifier: MIT */
/* The one table of Courier's tunable settings.  Each row:
 *   CR_SETTING(field, TYPE, default, "one line of documentation")
 * The environment variable is COURIER_<FIELD in upper case>; `mpiexec -env`
 * and `-genv` set it like any other variable.  `courier_info` prints this
 * table and docs/settings.md is generated from it (`courier_info --settings-md`).
 * TYPE is one of INT, SIZE (bytes, accepts k/m/g suffixes), BOOL, STRING.
 * A STRING field holds a pointer (const char *) in its long: 0 (the only
 * default a STRING row may have) for unset, else the environment's string.
 * CR_SETTING_ALIAS(field, "NAME") makes the environment variable NAME (another
 * MPI's name for the same thing) set field when COURIER_<FIELD> is not set.
 * No other file may hold a tunable number.
 */
CR_SETTING(eager_limit,        SIZE, 8192,   "Largest message, in bytes, sent eagerly through the shared-memory cells; larger ones use rendezvous")
CR_SETTING(shm_ring_bytes,     SIZE, 262144, "Bytes of cells in each ordered pair's shared-memory ring (rounded to a power of two)")
CR_SETTING(shm_ring_budget,    SIZE, 2097152,"Most bytes of inbound rings per rank: with many local ranks the rings shrink to fit (0: no limit)")
CR_SETTING(cma_min,            SIZE, 4096,   "Smallest rendezvous message copied once with process_vm_readv, where the kernel allows it (0: always the chunk pipeline)")
CR_SETTING(cma_split_min,      SIZE, 32768,  "Smallest single-copy message split between receiver (readv) and sender (writev) so two cores copy (0 never)")
CR_SETTING(spin_count,         INT,  1000,   "Idle polls of the progress engine before a blocking call yields the core (also read from MPIR_CVAR_POLLS_BEFORE_YIELD)")
CR_SETTING_ALIAS(spin_count, "MPIR_CVAR_POLLS_BEFORE_YIELD")
CR_SETTING(oversubscribed,     INT,  -1,     "Oversubscribed waiting (COURIER_SPIN_COUNT_OVERSUBSCRIBED polls, no split copies): 1 on, 0 off, -1 when ranks outnumber cores")
CR_SETTING(coll_barrier_alg,   INT,  0,      "Force the MPI_Barrier algorithm: 0 automatic, 1 dissemination")
CR_SETTING(coll_bcast_alg,     INT,  0,      "Force the MPI_Bcast algorithm: 0 automatic, 1 binomial tree, 2 scatter + ring allgather")
CR_SETTING(coll_reduce_alg,    INT,  0,      "Force the MPI_Reduce algorithm: 0 automatic, 1 binomial tree")
CR_SETTING(coll_allreduce_alg, INT,  0,      "Force the MPI_Allreduce algorithm: 0 automatic, 1 recursive doubling, 2 reduce + broadcast")
CR_SETTING(coll_gather_alg,    INT,  0,      "Force the MPI_Gather algorithm: 0 automatic, 1 binomial tree, 2 linear")
CR_SETTING(coll_scatter_alg,   INT,  0,      "Force the MPI_Scatter algorithm: 0 automatic, 1 binomial tree, 2 linear")
CR_SETTING(coll_allgather_alg, INT,  0,      "Force the MPI_Allgather algorithm: 0 automatic, 1 ring, 2 Bruck")
CR_SETTING(coll_alltoall_alg,  INT,  0,      "Force the MPI_Alltoall algorithm: 0 automatic, 1 pairwise exchange, 2 Bruck")
CR_SETTING(coll_reduce_scatter_alg, INT, 0,  "Force the MPI_Reduce_scatter(_block) algorithm: 0 automatic, 1 reduce + scatterv, 2 ring (commutative ops)")
CR_SETTING(coll_bcast_binomial_max_ranks, INT, 7, "MPI_Bcast on communicators of at most this many ranks always uses the binomial tree")
CR_SETTING(coll_bcast_binomial_max_bytes, SIZE, 12288, "Largest MPI_Bcast message, in bytes, sent down the binomial tree on larger communicators")
CR_SETTING(coll_gather_binomial_max_bytes, SIZE, 4096, "Largest per-rank block, in bytes, that MPI_Gather moves up the binomial tree (larger: linear)")
CR_SETTING(coll_scatter_binomial_max_bytes, SIZE, 4096, "Largest per-rank block, in bytes, that MPI_Scatter moves down the binomial tree (larger: linear)")
CR_SETTING(coll_allgather_bruck_max_bytes, SIZE, 2048, "Largest per-rank block, in bytes, for which MPI_Allgather uses Bruck's algorithm (larger: ring)")
CR_SETTING(coll_alltoall_bruck_max_bytes, SIZE, 256, "Largest per-rank block, in bytes, for which MPI_Alltoall uses Bruck's algorithm (larger: pairwise)")
CR_SETTING(coll_alltoall_bruck_min_ranks, INT, 8, "Smallest communicator on which MPI_Alltoall uses Bruck's algorithm for small blocks")
CR_SETTING(coll_reduce_scatter_ring_min_bytes, SIZE, 8192, "Smallest MPI_Reduce_scatter vector, in bytes, that goes around the ring (commutative ops; smaller: reduce + scatterv)")
CR_SETTING(debug,              INT,  0,      "Debug log level (0 off, 1 errors, 2 protocol events, 3 every packet)")
CR_SETTING(abort_timeout_ms,   INT,  1000,   "Milliseconds mpiexec waits after SIGTERM before SIGKILL when tearing a failed job down")
/* transports and the progress engine (issues 12 and 18) */
CR_SETTING(rndv_chunk_bytes,   SIZE, 65536,  "Bytes per message of the pipelined rendezvous (peers whose memory cannot be read directly), at most the transport's largest message")
CR_SETTING(spin_count_oversubscribed, INT, 50, "Idle polls before a blocking call yields the core when ranks outnumber cores")
CR_SETTING(wait_sleep_us,      INT,  1000,   "Microseconds a blocking call yields before it sleeps until a peer's message wakes it (-1: never sleep)")
CR_SETTING(wait_sleep_max_us,  INT,  100000, "Longest single sleep of a blocking call, in microseconds; it then polls and sleeps again")
CR_SETTING(ofi_rx_bytes,       SIZE, 65536,  "Size of each receive buffer of the libfabric transport: its largest active message (eager messages to other nodes are at most this)")
CR_SETTING(ofi_rx_count,       INT,  64,     "Receive buffers the libfabric transport keeps posted")
CR_SETTING(node_id,            INT,  -1,     "This process's node: ranks with the same number share memory, others use the network (-1: ranks on the same host share a node)")
CR_SETTING(node_size,          INT,  0,      "Testing: pretend that every N consecutive ranks form a node of their own (0: off), so one host runs a multi-node job over the network transport")
/* launcher (mpiexec and courier_proxy) */
CR_SETTING(launch_fanout,      INT,  32,     "Proxies that mpiexec and each proxy start on other hosts (a tree: start-up takes about log_F(hosts) launch round trips)")
CR_SETTING(launch_timeout_ms,  INT,  30000,  "Milliseconds a proxy on another host has to start, connect back to mpiexec and prove the job's secret")
CR_SETTING(pmi_batch,          INT,  16,     "PMI requests the launcher serves per rank per round of its loop (a rank flooding PMI delays only itself)")
/* debugging one rank (src/core/debug.c, src/util/backtrace.c) */
CR_SETTING(attach,             INT,  -1,     "World rank that waits at the end of MPI_Init for a debugger to attach (prints its pid and host; -1: none)")
CR_SETTING(backtrace,          BOOL, 1,      "On SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT print a backtrace with function names before dying")
/* process manager and liveness (src/pmi, src/core/liveness.c) */
CR_SETTING(pmi,                INT,  0,      "Process-manager protocol: 0 automatic (PMIx when PMIX_RANK is set without PMI_FD/PMI_PORT, PMI-2 when PMI_JOBID is set as srun --mpi=pmi2 does, else PMI-1), 1 PMI-1, 2 PMI-2, 3 PMIx")
CR_SETTING(liveness_ms,        INT,  100,    "While a wait is idle, check this often (milliseconds) that the ranks on this node and the launcher are alive; abort the job when one is gone (0 never)")
/* network transport (src/transport/ofi) */
CR_SETTING(ofi_provider,       STRING, 0,    "libfabric provider of the network transport, e.g. tcp, verbs, psm2, cxi, sockets (tcp also matches the layered tcp;ofi_rxm); unset: the first that works (FI_PROVIDER narrows libfabric's own list)")
/* threads (issue 15, docs/threads.md) */
CR_SETTING(thread_level_max,   INT,  3,      "Highest thread level MPI_Init_thread provides (0 SINGLE, 1 FUNNELED, 2 SERIALIZED, 3 MULTIPLE: a library lock, blocking waits yield instead of sleeping)")
CR_SETTING(async_progress,     BOOL, 0,      "Run a progress thread in each process, so that non-blocking operations (rendezvous, collectives) advance while the application computes; turns on the thread locks and turns off the blocking fast paths")
CR_SETTING(async_progress_idle_us, INT, 50,  "Microseconds the progress thread sleeps after a poll that found nothing (0: it only yields the core)")
CR_SETTING_ALIAS(async_progress, "MPIR_CVAR_ASYNC_PROGRESS")
