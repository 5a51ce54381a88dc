/* SPDX-License-Identifier: MIT */
/* The one table of Courier's tunable settings.  Each row:
 *   CR_SETTING(field, TYPE, default, min, max, "one line of documentation")
 * The environment variable is COURIER_<FIELD in upper case>; `mpiexec -env`
 * and `-genv` set it like any other variable.  `courier_info` prints this
 * table and docs/settings.md is generated from it (`courier_info --settings-md`).
 * TYPE is one of INT, SIZE (bytes, accepts k/m/g suffixes), BOOL, STRING.
 * A value outside [min, max] is an error at start-up (MPI_Init) that names the
 * setting and its range; the ranges keep every value safe for the code that
 * uses it (no wrap-around, a ring whose cell counts fit the packet header).
 * A STRING field holds a pointer (const char *) in its long: 0 (the only
 * default a STRING row may have) for unset, else the environment's string;
 * its range is not checked (give 0, 0).
 * CR_SETTING_ALIAS(field, "NAME") makes the environment variable NAME (another
 * MPI's name for the same thing) set field when COURIER_<FIELD> is not set;
 * CR_SETTING_ALIAS_UNIT(field, "NAME", unit) the same for a NAME whose value
 * counts in units of `unit` of field's (seconds for a field in ms: 1000).
 * No other file may hold a tunable number.
 */
CR_SETTING(eager_limit,        SIZE, 8192, 0, 16777216,   "Largest message, in bytes, sent eagerly through the shared-memory cells; larger ones use rendezvous")
CR_SETTING(shm_ring_bytes,     SIZE, 262144, 4096, 4194304, "Bytes of cells in each ordered pair's shared-memory ring (rounded to a power of two)")
CR_SETTING(shm_ring_budget,    SIZE, 2097152, 0, 1073741824,"Most bytes of inbound rings per rank: with many local ranks the rings shrink to fit (0: no limit)")
CR_SETTING(shm_prefault_bytes,  SIZE, 1048576, 0, 1073741824, "Bytes of each rank's shared-memory rings (inbound and outbound, shared evenly, each from its start) mapped at start-up rather than by the first messages, which would each take a page fault (0: none)")
CR_SETTING(cma_min,            SIZE, 4096, 0, 1073741824,   "Smallest rendezvous message copied once with process_vm_readv, where the kernel allows it (0: always the chunk pipeline)")
CR_SETTING(cma_split_min,      SIZE, 32768, 0, 1073741824,  "Smallest single-copy message split between receiver (readv) and sender (writev) so two cores copy (0 never)")
CR_SETTING(spin_count,         INT,  1000, 0, 1000000000,   "Idle polls of the progress engine before a blocking call yields the core (also read from MPIR_CVAR_POLLS_BEFORE_YIELD)")
CR_SETTING_ALIAS(spin_count, "MPIR_CVAR_POLLS_BEFORE_YIELD")
CR_SETTING(oversubscribed,     INT,  -1, -1, 1,     "Oversubscribed waiting (COURIER_SPIN_COUNT_OVERSUBSCRIBED polls, no split copies): 1 on, 0 off, -1 when a node's ranks outnumber the CPUs they may run on together (the union of their affinity masks, so ranks bound to a core each are not oversubscribed)")
CR_SETTING(coll_barrier_alg,   INT,  0, 0, 4,      "Force the MPI_Barrier algorithm: 0 automatic, 1 dissemination, 3 shm, 4 hier")
CR_SETTING(coll_bcast_alg,     INT,  0, 0, 7,      "Force the MPI_Bcast algorithm: 0 automatic, 1 binomial tree, 2 scatter + ring allgather, 4 shm, 5 cma, 6 hier, 7 pipe (through the root's pipe buffer, where ranks outnumber cores)")
CR_SETTING(coll_reduce_alg,    INT,  0, 0, 6,      "Force the MPI_Reduce algorithm: 0 automatic, 1 binomial tree, 3 shm, 4 cma, 5 hier (commutative ops), 6 pipe (segments down a binomial tree through the shared slots; commutative ops, contiguous types)")
CR_SETTING(coll_allreduce_alg, INT,  0, 0, 8,      "Force the MPI_Allreduce algorithm: 0 automatic, 1 recursive doubling, 2 reduce + broadcast, 4 shm, 5 cma, 6 hier (commutative ops), 7 pipe_bcast (the pipelined reduce to rank 0, then the shm or cma broadcast; commutative ops, contiguous types), 8 stage (reduce-scatter + allgather through the staging buffers; contiguous types)")
CR_SETTING(coll_gather_alg,    INT,  0, 0, 6,      "Force the MPI_Gather algorithm: 0 automatic, 1 binomial tree, 2 linear, 4 shm, 5 cma, 6 hier")
CR_SETTING(coll_scatter_alg,   INT,  0, 0, 6,      "Force the MPI_Scatter algorithm: 0 automatic, 1 binomial tree, 2 linear, 4 shm, 5 cma, 6 hier")
CR_SETTING(coll_allgather_alg, INT,  0, 0, 7,      "Force the MPI_Allgather algorithm: 0 automatic, 1 ring, 2 Bruck, 4 shm, 5 cma, 6 hier, 7 stage (through the staging buffers; contiguous types)")
CR_SETTING(coll_alltoall_alg,  INT,  0, 0, 7,      "Force the MPI_Alltoall algorithm: 0 automatic, 1 pairwise exchange, 2 Bruck, 4 shm, 5 cma, 6 hier, 7 stage (through the staging buffers; contiguous types)")
CR_SETTING(coll_reduce_scatter_alg, INT, 0, 0, 7,  "Force the MPI_Reduce_scatter(_block) algorithm: 0 automatic, 1 reduce + scatterv, 2 ring (commutative ops), 4 shm, 5 cma, 6 hier (commutative ops), 7 stage (through the staging buffers; contiguous types, not in place)")
CR_SETTING(coll_bcast_binomial_max_ranks, INT, 7, 0, 2147483647, "MPI_Bcast on communicators of at most this many ranks always uses the binomial tree")
CR_SETTING(coll_bcast_binomial_max_bytes, SIZE, 12288, 0, 1073741824, "Largest MPI_Bcast message, in bytes, sent down the binomial tree on larger communicators")
CR_SETTING(coll_gather_binomial_max_bytes, SIZE, 4096, 0, 1073741824, "Largest per-rank block, in bytes, that MPI_Gather moves up the binomial tree (larger: linear)")
CR_SETTING(coll_scatter_binomial_max_bytes, SIZE, 4096, 0, 1073741824, "Largest per-rank block, in bytes, that MPI_Scatter moves down the binomial tree (larger: linear)")
CR_SETTING(coll_allgather_bruck_max_bytes, SIZE, 2048, 0, 1073741824, "Largest per-rank block, in bytes, for which MPI_Allgather uses Bruck's algorithm (larger: ring)")
CR_SETTING(coll_alltoall_bruck_max_bytes, SIZE, 256, 0, 1073741824, "Largest per-rank block, in bytes, for which MPI_Alltoall uses Bruck's algorithm (larger: pairwise)")
CR_SETTING(coll_alltoall_bruck_min_ranks, INT, 8, 1, 2147483647, "Smallest communicator on which MPI_Alltoall uses Bruck's algorithm for small blocks")
CR_SETTING(coll_reduce_scatter_ring_min_bytes, SIZE, 8192, 0, 1073741824, "Smallest MPI_Reduce_scatter vector, in bytes, that goes around the ring (commutative ops; smaller: reduce + scatterv)")
CR_SETTING(debug,              INT,  0, 0, 3,      "Log level on stderr (src/util/log.h): 0 off, 1 errors as they are made, 2 also events (runtime, communicators, sessions), 3 also packets")
CR_SETTING(abort_timeout_ms,   INT,  1000, 0, 3600000,   "Milliseconds mpiexec waits after SIGTERM before SIGKILL when tearing a failed job down")
/* transports and the progress engine (issues 12 and 18) */
CR_SETTING(rndv_chunk_bytes,   SIZE, 65536, 64, 1073741824,  "Bytes per message of the pipelined rendezvous (peers whose memory cannot be read directly), at most the transport's largest message")
CR_SETTING(spin_count_oversubscribed, INT, 50, 0, 1000000000, "Idle polls before a blocking call yields the core when ranks outnumber cores")
CR_SETTING(wait_sleep_us,      INT,  1000, -1, 60000000,   "Microseconds a blocking call yields before it sleeps until a peer's message wakes it (-1: never sleep)")
CR_SETTING(wait_sleep_max_us,  INT,  100000, 1, 60000000, "Longest single sleep of a blocking call, in microseconds; it then polls and sleeps again")
CR_SETTING(ofi_rx_bytes,       SIZE, 65536, 1024, 67108864,  "Size of each receive buffer of the libfabric transport: its largest active message (eager messages to other nodes are at most this)")
CR_SETTING(ofi_rx_count,       INT,  64, 1, 65536,     "Receive buffers the libfabric transport keeps posted")
CR_SETTING(node_id,            INT,  -1, -1, 2147483647,     "This process's node: ranks with the same number share memory, others use the network (-1: ranks on the same host share a node)")
CR_SETTING(node_size,          INT,  0, 0, 2147483647,      "Testing: pretend that every N consecutive ranks form a node of their own (0: off), so one host runs a multi-node job over the network transport")
/* launcher (mpiexec and courier_proxy) */
CR_SETTING(launch_fanout,      INT,  32, 1, 4096,     "Proxies that mpiexec and each proxy start on other hosts (a tree: start-up takes about log_F(hosts) launch round trips)")
CR_SETTING(launch_timeout_ms,  INT,  30000, 1, 3600000,  "Milliseconds a proxy on another host has to start, connect back to mpiexec and prove the job's secret")
CR_SETTING(pmi_batch,          INT,  16, 1, 65536,     "PMI requests the launcher serves per rank per round of its loop (a rank flooding PMI delays only itself)")
/* debugging one rank (src/core/debug.c, src/util/backtrace.c) */
CR_SETTING(attach,             INT,  -1, -1, 2147483647,     "World rank that waits at the end of MPI_Init for a debugger to attach (prints its pid and host; -1: none)")
CR_SETTING(backtrace,          BOOL, 1, 0, 1,      "On SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT print a backtrace with function names before dying")
/* process manager and liveness (src/pmi, src/core/liveness.c) */
CR_SETTING(pmi,                INT,  0, 0, 3,      "Process-manager protocol: 0 automatic (PMIx when PMIX_RANK is set without PMI_FD/PMI_PORT, PMI-2 when PMI_JOBID is set as srun --mpi=pmi2 does, else PMI-1), 1 PMI-1, 2 PMI-2, 3 PMIx")
CR_SETTING(liveness_ms,        INT,  100, 0, 3600000, "While a wait is idle, check this often (milliseconds) that the ranks on this node and the launcher are alive; abort the job when one is gone (0 never)")
CR_SETTING(ofi_provider,       STRING, 0, 0, 0,    "libfabric provider of the network transport, e.g. tcp, verbs, psm2, cxi, sockets (tcp also matches the layered tcp;ofi_rxm); unset: the first that works (FI_PROVIDER narrows libfabric's own list)")
/* shared-memory collectives on one node (src/coll/coll_shm.c, issue 16) */
CR_SETTING(coll_shm,           BOOL, 1, 0, 1,      "Collectives of a communicator whose ranks all share one node may run through a shared segment and single copy (0: message algorithms only)")
CR_SETTING(coll_nb_shm,        BOOL, 1, 0, 1,      "Non-blocking and persistent barrier, bcast, reduce, allreduce, gather and allgather of a communicator whose shared collective segment exists run its shm algorithms as state machines of the progress engine, in a sequence of their own apart from the blocking calls' (so a blocking and a non-blocking call may come in different orders on different ranks, as with MPICH); 0: message schedules only")
CR_SETTING(coll_shm_slot_bytes, SIZE, 32768, 64, 16777216, "Bytes of each rank's data slot in a communicator's shared collective segment (4 slots per rank): the largest message of the shm algorithms")
CR_SETTING(coll_cma_chunk_bytes, SIZE, 65536, 4096, 1073741824, "Bytes per piece of the single-copy (cma) reductions and of copies through a bounce buffer")
CR_SETTING(coll_scan_alg,      INT,  0, 0, 4,      "Force the MPI_Scan and MPI_Exscan algorithm: 0 automatic, 1 recursive doubling, 2 shm, 3 hier (nodes that are runs of consecutive ranks), 4 cma (Scan only: a chain of single copies)")
CR_SETTING(coll_p2p_max_ranks, INT, 2, 0, 2147483647, "On communicators of at most this many ranks, MPI_Reduce, MPI_Gather and MPI_Scatter of at least COURIER_COLL_P2P_MIN_BYTES go as point-to-point messages, whose split single copy uses both processes (0: never)")
CR_SETTING(coll_p2p_min_bytes, SIZE, 65536, 0, 1073741824, "Smallest MPI_Reduce vector, or MPI_Gather or MPI_Scatter block, in bytes, that goes as point-to-point messages on communicators of at most COURIER_COLL_P2P_MAX_RANKS ranks")
CR_SETTING(coll_allreduce_p2p_min_bytes, SIZE, 2048, 0, 1073741824, "Smallest MPI_Allreduce vector, in bytes, that goes by recursive doubling (eager messages) rather than through the shared slots on communicators of at most COURIER_COLL_P2P_MAX_RANKS ranks, up to COURIER_EAGER_LIMIT")
CR_SETTING(coll_bcast_cma_min_bytes, SIZE, 32768, 0, 1073741824, "Smallest MPI_Bcast message, in bytes, copied once from the root's buffer on one node (cma)")
CR_SETTING(coll_reduce_cma_min_bytes, SIZE, 32768, 0, 1073741824, "Smallest MPI_Reduce vector, in bytes, reduced by single copy on one node (cma)")
CR_SETTING(coll_allreduce_cma_min_bytes, SIZE, 32768, 0, 1073741824, "Smallest MPI_Allreduce vector, in bytes, reduced by single copy on one node (cma)")
CR_SETTING(coll_gather_cma_min_bytes, SIZE, 8192, 0, 1073741824, "Smallest MPI_Gather block, in bytes, written once into the root's buffer on one node (cma)")
CR_SETTING(coll_scatter_cma_min_bytes, SIZE, 8192, 0, 1073741824, "Smallest MPI_Scatter block, in bytes, copied once from the root's buffer on one node (cma)")
CR_SETTING(coll_allgather_cma_min_bytes, SIZE, 8192, 0, 1073741824, "Smallest MPI_Allgather block, in bytes, copied once from its owner's buffer on one node (cma)")
CR_SETTING(coll_alltoall_cma_min_bytes, SIZE, 4096, 0, 1073741824, "Smallest MPI_Alltoall block, in bytes, copied once from its sender's buffer on one node (cma)")
CR_SETTING(coll_reduce_scatter_cma_min_bytes, SIZE, 32768, 0, 1073741824, "Smallest MPI_Reduce_scatter(_block) vector, in bytes, reduced by single copy on one node (cma)")
CR_SETTING(tune_file,          STRING, 0, 0, 0,    "File of tuned settings, NAME=VALUE lines written by courier_tune, read at start-up; the environment overrides it (unset: the built-in defaults)")
/* MPI-IO (src/io, issue 14): defaults of the hints; a file's info overrides them (docs/io.md) */
CR_SETTING(io_cb_buffer_size,  SIZE, 16777216, 1, 1073741824, "Bytes an aggregator of two-phase collective I/O moves per round (hint cb_buffer_size)")
CR_SETTING(io_cb_nodes,        INT,  0, 0, 1048576,      "Aggregators of two-phase collective I/O (hint cb_nodes); 0: io_cb_per_node on each node")
CR_SETTING(io_cb_read,         INT,  0, 0, 2,      "Collective buffering of collective reads (hint romio_cb_read): 0 automatic, 1 enable, 2 disable")
CR_SETTING(io_cb_write,        INT,  0, 0, 2,      "Collective buffering of collective writes (hint romio_cb_write): 0 automatic, 1 enable, 2 disable")
CR_SETTING(io_ds_read,         INT,  0, 0, 2,      "Data sieving of independent non-contiguous reads (hint romio_ds_read): 0 automatic, 1 enable, 2 disable")
CR_SETTING(io_ds_write,        INT,  0, 0, 2,      "Data sieving of independent non-contiguous writes (hint romio_ds_write): 0 automatic, 1 enable, 2 disable")
CR_SETTING(io_ind_rd_buffer_size, SIZE, 4194304, 1, 1073741824, "Bytes of the file window one sieved independent read covers (hint ind_rd_buffer_size)")
CR_SETTING(io_ind_wr_buffer_size, SIZE, 524288, 1, 1073741824, "Bytes of the file window one sieved independent write covers (hint ind_wr_buffer_size)")
CR_SETTING(io_direct_min_run,  SIZE, 65536, 0, 1073741824,  "Automatic modes: accesses whose contiguous runs average at least this many bytes go to the file run by run, without sieving or aggregation")
CR_SETTING(io_worker,          BOOL, 1, 0, 1,      "Non-blocking independent file accesses run on a helper thread (0: at the call, in the calling thread)")
/* one-sided communication (src/rma) */
CR_SETTING(rma_fence_coll,     BOOL, 1, 0, 1,      "MPI_Win_fence's barrier is the collective barrier of the window's communicator (on one node the shared-memory one; the first fence makes that communicator's collective area); 0: point-to-point messages")
CR_SETTING(rma_dynamic_max,    INT,  4096, 1, 1048576,   "Regions one rank can have attached to one dynamic window (MPI_Win_attach) at a time")
CR_SETTING(rma_am_chunk_bytes, SIZE, 32768, 16, 16777216,  "Largest piece of one RMA operation in one active message to a target reached through messages (another node)")
/* threads (issue 15, docs/threads.md) */
CR_SETTING(thread_level_max,   INT,  3, 0, 3,      "Highest thread level MPI_Init_thread provides (0 SINGLE, 1 FUNNELED, 2 SERIALIZED, 3 MULTIPLE: a library lock, blocking waits yield instead of sleeping)")
CR_SETTING(async_progress,     BOOL, 0, 0, 1,      "Run a progress thread in each process, so that non-blocking operations (rendezvous, collectives) advance while the application computes; turns on the thread locks and turns off the blocking fast paths")
CR_SETTING(async_progress_idle_us, INT, 50, 0, 1000000, "Microseconds the progress thread naps after a poll that found nothing, until it sleeps on the doorbell (COURIER_WAIT_SLEEP_US; 0: it only yields the core)")
CR_SETTING_ALIAS(async_progress, "MPIR_CVAR_ASYNC_PROGRESS")
/* waiting on the network transport (src/core/progress.c, src/transport/ofi, issues 12 and 18) */
CR_SETTING(ofi_wait,           BOOL, 1, 0, 1,      "Blocking calls may sleep on the network transport's completion queue (opened with a wait object; a provider without one gives capped sleeps); 0: they only spin and yield while the job spans nodes")
CR_SETTING(wait_sleep_poll_us, INT,  1000, 1, 60000000, "Longest single sleep, in microseconds, of a blocking call that a peer's message cannot interrupt (network and shared-memory peers at once, or a network provider without a wait object); it then polls and sleeps again")
/* one-sided communication over the network (src/rma/net.c) */
CR_SETTING(rma_ofi_native,     BOOL, 1, 0, 1,      "MPI_Put and MPI_Get to targets on other nodes use the network's own RMA (libfabric fi_write/fi_read on registered window memory) where the provider has it (0: active messages, served by the target's progress engine)")
CR_SETTING(rma_ofi_atomics,    BOOL, 1, 0, 1,      "On windows that span nodes (with COURIER_RMA_OFI_NATIVE=1), accumulates on the types the provider's atomics cover and the window locks go by libfabric atomics from every origin, this node's included (0: the accumulate lock, the lock words and active messages)")
CR_SETTING(rma_lock_backoff_us, INT, 1000, 1, 1000000, "Longest wait, in microseconds, between two tries of a window lock taken by network atomics (the wait doubles from 1 us after each failed try)")
/* dynamic processes (src/core/dynamic.c, docs/dynamic.md) */
CR_SETTING(dyn_accept_timeout_ms, INT, 0, 0, 2147483647, "Longest wait of MPI_Comm_accept, of a spawning parent, and of both roots for each other's group, in ms; 0: no limit while the launcher is there")
CR_SETTING(dyn_connect_timeout_ms, INT, 60000, 1, 2147483647, "Longest wait of MPI_Comm_connect for an MPI_Comm_accept on the port, in ms (MPI_ERR_PORT after it; the info key timeout, in seconds, overrides it; also read from MPIR_CVAR_CH4_COMM_CONNECT_TIMEOUT, in seconds)")
CR_SETTING(dyn_poll_ms,        INT,  100, 1, 10000, "While waiting for a connection, how often, in ms, the root checks that the launcher is still there")
CR_SETTING(dyn_port_backlog,   INT,  16, 1, 4096,  "Connections an open port queues before MPI_Comm_accept takes them (listen backlog)")
CR_SETTING(universe_size,      INT,  0, 0, 1000000, "MPI_UNIVERSE_SIZE (mpiexec's -usize wins; read by mpiexec, and by the ranks when the launcher states none, e.g. under Hydra or srun); 0: the slots of -hosts or -f, else not set, as under Hydra")
CR_SETTING(dyn_name_dir,       STRING, 0, 0, 0,    "Directory of a name service in files (MPI_Publish_name, one file per service name) used instead of mpiexec's; unset: mpiexec serves names, and /tmp/courier-names-<uid> only where the launcher does not")
/* hierarchical collectives across nodes (src/coll/coll_hier.c, issues 12 and 16) */
CR_SETTING(coll_hier,          BOOL, 1, 0, 1,      "Collectives of a communicator whose ranks span several nodes may run a phase on each node plus one among the nodes' leaders (0: flat algorithms only)")
CR_SETTING(coll_hier_min_ppn,  INT,  2, 1, 2147483647, "The hierarchical algorithms are chosen automatically when every node holds at least this many ranks of the communicator (forcing one needs only some node with two)")
/* adaptive protocols for time-sliced shared-memory peers (issue 18, src/core/adapt.c) */
CR_SETTING(adaptive,           INT,  1, 0, 2,      "Adaptive protocol for shared-memory peers: 1 per peer from its published waiting word and observed rendezvous handshakes (a peer seen not running gets messages up to COURIER_ADAPTIVE_EAGER_LIMIT eagerly and larger ones staged), 0 off, 2 always eager up to that limit and staged above it")
CR_SETTING(adaptive_eager_limit, SIZE, 65536, 0, 16777216, "Largest message sent eagerly through the shared-memory ring to a peer seen not polling (at most half the ring; at most COURIER_EAGER_LIMIT means no adaptation)")
CR_SETTING(adaptive_slow_us,   INT,  200, 0, 60000000, "A shared-memory peer that first looks at a rendezvous request later than this many microseconds after it was sent was not polling (docs/architecture.md tells when that means not running)")
CR_SETTING(adaptive_busy_bytes_per_us, SIZE, 1000, 0, 1073741824, "A shared-memory peer that answered a rendezvous request late but meanwhile copied at least this many bytes per microsecond of the delay for other messages was busy, not descheduled: it stays on rendezvous (0: lateness alone decides)")
CR_SETTING(adaptive_probe,     INT,  64, 1, 1000000, "While a peer gets the adaptive range eagerly, one message in this many still goes by rendezvous to measure whether it polls again")
CR_SETTING(adaptive_probe_max, INT,  4096, 1, 1000000000, "The probe interval doubles after each probe that finds the peer still not polling, up to this many messages (a fast probe resets it)")
/* hierarchical alltoall, reduce_scatter and scans (src/coll/coll_hier.c, issue 16) */
CR_SETTING(coll_alltoall_hier_max_bytes, SIZE, 1024, 0, 1073741824, "Largest MPI_Alltoall block, in bytes, that the automatic choice sends through the nodes' leaders across nodes (larger: the flat algorithms)")
/* waiting while the network transport is polled (src/core/progress.c, issue 16) */
CR_SETTING(spin_count_network, INT,  10, 1, 1000000000, "Idle polls before a blocking call yields the core while the network transport is polled too (each poll of libfabric's tcp costs microseconds); caps COURIER_SPIN_COUNT")
/* MPI-IO performance (src/io, issue 14): aggregators per node, direct collective reads, tmpfs through mappings */
CR_SETTING(io_cb_per_node,     INT,  0, 0, 1048576, "Aggregators of two-phase collective I/O on each node when cb_nodes is 0: that many of the node's ranks (0: all of them)")
CR_SETTING(io_coll_read_direct, SIZE, 4096, 0, 1073741824, "Automatic collective reads whose runs average at least this many bytes read each rank's own runs with one pread each, without two-phase or sieving (hint courier_coll_read_direct; 0: never)")
CR_SETTING(io_mmap,            BOOL, 1, 0, 1,      "Non-contiguous reads and writes of a file on tmpfs map the file and copy the blocks (one copy, no call per block, ranks write in parallel) rather than sieve, aggregate or move block by block")
CR_SETTING(io_mmap_max_run,    SIZE, 4096, 0, 1073741824, "With io_mmap, reads whose blocks average at least this many bytes take one pread per block instead of a mapping (which maps the bytes between the blocks too)")
CR_SETTING(io_mmap_window,     SIZE, 67108864, 4096, 1073741824, "Bytes of the file one mapping of a mapped access (io_mmap) covers")
/* mpiexec's name service and spawning across hosts (launcher/names.c, issue 12) */
CR_SETTING(nameserver,         STRING, 0, 0, 0,    "Name server that mpiexec forwards MPI_Publish_name / Lookup / Unpublish to: \"<addresses> <port> <secret>\" as another mpiexec gives it (its spawned jobs get it set); unset: see COURIER_NAMESERVER_FILE")
CR_SETTING(nameserver_file,    STRING, 0, 0, 0,    "File holding a name server's address: mpiexec uses the server written there when it answers, else serves names itself and writes its address there (mode 0600) until it ends; jobs started with the same file share names")
CR_SETTING(nameserver_timeout_ms, INT, 5000, 1, 600000, "Longest wait, in ms, of an mpiexec for its name server's answer (and of the server for a request's line)")
CR_SETTING(adaptive_stage_bytes, SIZE, 8388608, 0, 1073741824, "Bytes of the staging area a sender allocates, on first need, for one shared-memory peer seen not running: a standard send above the adaptive eager limit is copied there and completes, the peer copies it out when it matches (0: no staging)")
/* test calls in the waiting policy (issue 18, src/core/progress.c) */
CR_SETTING(wait_test_gap_us,   INT,  2, 0, 1000000, "A test call (MPI_Test family, MPI_Iprobe) that finds nothing within this many microseconds of the previous one continues a polling loop, which yields and sleeps like a blocking call (0: test calls never yield)")
CR_SETTING(wait_test_sleep_max_us, INT, 10000, 1, 60000000, "Longest single sleep, in microseconds, of a test call in a polling loop (it then returns, and the loop's next call may sleep again)")
/* pinning of the progress thread (issue 15, src/core/async.c, launcher/place.c) */
CR_SETTING(progress_cpus,      STRING, 0, 0, 0,    "CPUs the progress thread (COURIER_ASYNC_PROGRESS) is bound to, as a list such as 3 or 2-3,6; mpiexec -bind-to sets it for each rank (docs/threads.md); unset: it runs wherever the process may")
/* per-thread channels (issue 15.1, src/core/pt2pt.c, docs/threads.md) */
CR_SETTING(num_channels,       INT,  1, 1, 64,     "Point-to-point channels (each with its own lock, queues, request pool and shared-memory rings) every rank makes; communicators are spread over them so that threads on different ones share no lock under MPI_THREAD_MULTIPLE (more than 1 turns the blocking fast paths off, at any thread level)")
CR_SETTING_ALIAS(num_channels, "MPIR_CVAR_CH4_NUM_VCIS")
/* the network's start-up (src/transport/ofi, issue 12) */
CR_SETTING(ofi_kallsyms,       BOOL, 0, 0, 1,      "Let libfabric read /proc/kallsyms: its verbs provider scans it twice when libfabric starts (0.3-0.7 s of CPU per process) to learn whether GPU peer memory and dma-buf registrations work, which Courier never asks for; 0: the file does not exist for libfabric")
CR_SETTING(shm_sleep_fd,       BOOL, 1, 0, 1,      "When the job spans nodes, each process's shared-memory doorbell is also a socket that poll() watches beside the network's completion queue, so a sleeping rank wakes at once for a local message (0: it sleeps on the futex, which such a sleep cannot see: local messages then wait up to COURIER_WAIT_SLEEP_POLL_US)")
/* decoupled small rooted collectives on one node (src/coll/coll_shm.c, issue 16) */
CR_SETTING(coll_shm_lines,     INT,  1024, 4, 65536, "Control lines per rank in a communicator's shared collective segment (rounded up to a power of two): how many calls the root of a small bcast or scatter (data of up to 56 bytes, in the line) may run ahead of its slowest reader, and the other ranks of a small reduce or gather ahead of the root")
CR_SETTING(coll_shm_cells,     INT,  64, 4, 65536, "Cells per rank in a communicator's shared collective segment (rounded up to a power of two, at most coll_shm_lines): how far small rooted collectives whose data fit a cell (coll_shm_cell_bytes) run ahead")
CR_SETTING(coll_nb_shm_lines,  INT,  256, 4, 65536, "Control lines per rank in the non-blocking calls' own rings of a communicator's shared collective segment (rounded up to a power of two; rank 0's value): how many non-blocking or persistent calls with data of up to 56 bytes a rank may start ahead of the slowest rank")
CR_SETTING(coll_nb_shm_cells,  INT,  16, 4, 65536, "Cells per rank in the non-blocking calls' own rings (rounded up to a power of two, at most coll_nb_shm_lines; cells of coll_shm_cell_bytes): how far non-blocking rooted calls whose data fit a cell run ahead")
CR_SETTING(coll_shm_cell_bytes, SIZE, 1024, 0, 65536, "Data bytes of each cell of a communicator's shared collective segment (rounded up to 64; 0: none): data of small rooted collectives up to this size go through the ring of cells, not the 4 slots")
CR_SETTING(coll_allreduce_oversub_tree_max_bytes, SIZE, 131072, 0, 1073741824, "Largest MPI_Allreduce vector, in bytes, that takes reduce + broadcast (binomial trees) rather than single copy on one node when ranks outnumber cores (0: never)")
/* libfabric's psm libraries at the network's start (src/transport/ofi/ofi_dl.c, issue 12, net4) */
CR_SETTING(ofi_psm_libs,       BOOL, 0, 0, 1,      "Load the real libpsm2 and libpsm_infinipath with libfabric even where no Omni-Path or TrueScale device (/dev/hfi?_*, /dev/ipath*) exists: their constructors sleep 0.1 s each, calibrating the clock, in every process of a multi-node job; 0: there, stand-ins that report no device (lib/courier/) take their place")
/* the network's small-message latency (src/transport/ofi, issue 12 section 6, net6) */
CR_SETTING(ofi_tcp_native,     BOOL, 0, 0, 1,      "Where libfabric's first choice is tcp;ofi_rxm and COURIER_OFI_PROVIDER names no provider, take the TCP provider's own reliable-datagram endpoint on the same interface when libfabric offers one (libfabric 1.17: the net provider, which 1.18 renamed tcp): 8 B half round trip 7.6 us against 11.7 between two hosts over TCP (docs/performance.md); off by default: one run in eight of mpi4py's test_spawn hung at a load of 4 on 2 cores with it, none in twelve without (docs/architecture.md, ofi); 0: libfabric's order")
/* MPI-IO two-phase writes and write-behind (src/io/twophase.c, issue 14) */
CR_SETTING(io_cb_overlap,      BOOL, 1, 0, 1,      "Two-phase collective writes: an aggregator's write of one round runs on the I/O helper thread (io_worker) while the next round's data is exchanged into a second set of buffers (0: the write runs in the round)")
CR_SETTING(io_cb_iov_min,      SIZE, 1024, 0, 1073741824, "Two-phase collective writes whose blocks average at least this many bytes and tile the round's window are written with pwritev from where the data arrived, without a copy into the aggregator's buffer (0: always copied)")
CR_SETTING(io_write_behind,    BOOL, 1, 0, 1,      "After each write of an aggregator of two-phase I/O to a file not on tmpfs, start the range's write-back to the device (sync_file_range), so that it overlaps the next rounds and MPI_File_sync finds less to do")
CR_SETTING(io_read_ahead,      SIZE, 16777216, 0, 1073741824, "Reads of a file not on tmpfs that go block by block (direct collective reads) or window by window (two-phase aggregators) ask the kernel for this many bytes of the file ahead of where they read (posix_fadvise WILLNEED), so the device works while they copy (0: the kernel's own read-ahead only)")
/* the association of floating-point reductions (src/coll/coll_shm.c, issue 18) */
CR_SETTING(coll_reduce_short_bytes, SIZE, 2048, 0, 1073741824, "MPI_Reduce vectors of up to this many bytes combine floating-point sums on one node as MPICH's binomial tree rooted at the root, longer ones as its reduce-scatter + gather (recursive doubling's association), so that the bits are MPICH's (also read from MPIR_CVAR_REDUCE_SHORT_MSG_SIZE)")
CR_SETTING_ALIAS(coll_reduce_short_bytes, "MPIR_CVAR_REDUCE_SHORT_MSG_SIZE")
/* shared-memory collectives when ranks outnumber cores (src/coll/coll_shm.c, issue 16, coll5) */
CR_SETTING(coll_shm_sleep_us,  INT,  0, -1, 60000000, "Microseconds a rank waiting in a shared-memory collective yields the core before it sleeps until a peer wakes it, when ranks outnumber cores (-1: COURIER_WAIT_SLEEP_US, as when they do not)")
CR_SETTING(coll_shm_spin,      INT,  0, -1, 1000000000, "Idle polls a rank waiting in a shared-memory collective spins before it yields, when ranks outnumber cores (-1: COURIER_SPIN_COUNT_OVERSUBSCRIBED, as other waits)")
CR_SETTING(coll_shm_deep_ratio, INT, 4, 0, 1000000, "COURIER_COLL_SHM_SPIN and COURIER_COLL_SHM_SLEEP_US apply only when the ranks of the node outnumber its cores more than this many times; up to it a rank waiting in a shared-memory collective waits as other waits do (0: whenever ranks outnumber cores)")
CR_SETTING(coll_shm_word_polls, INT, 64, 0, 4096, "Loads of the word a rank waiting in a shared-memory collective waits for (each after a pause) before its first poll of the progress engine, when ranks do not outnumber cores: a poll of the engine takes some 300 instructions, during which a post goes unseen, and most waits of small collectives end within this (0: poll the engine from the start)")
CR_SETTING(coll_shm_meet,      INT,  -1, -1, 1,    "Shared-memory barrier, allreduce, allgather, alltoall and reduce_scatter meet at one arrival counter whose last arrival wakes the others, rather than each rank waiting for every other's line: 1 on, 0 off, -1 when ranks outnumber cores (rank 0's choice holds for a communicator)")
/* conformance: erroneous programs get errors (issue 11, src/core/comm.c, src/core/dynamic.c) */
CR_SETTING(max_comms,          INT,  16384, 16, 16777216, "Communicators a process may hold at once (handles not yet freed); creating one more is MPI_ERR_OTHER on every process of the call, as when MPICH runs out of context ids")
CR_SETTING_ALIAS_UNIT(dyn_connect_timeout_ms, "MPIR_CVAR_CH4_COMM_CONNECT_TIMEOUT", 1000)
/* fragmented one-sided operations over the network (src/rma, issue 13) */
CR_SETTING(rma_net_max_calls,  INT,  16, 0, 1000000000, "Most network calls (fi_write/fi_read: one per contiguous run of the target datatype; fi_atomic: one per few runs) one RMA operation to a target on another node may take; one that would take more goes by active messages instead, packed at the origin and unpacked by the target, accumulates applied there atomically per element")
/* start-up across hosts (launcher/, issue 12, net5) */
CR_SETTING(launch_trace,       BOOL, 0, 0, 1,      "mpiexec and its proxies print each step of a job's start and end on stderr with the wall-clock time in milliseconds (ssh launched, proxy connected, job sent, ranks started, PMI requests and where they were answered, barriers, exits, teardown), to see where start-up time goes")
CR_SETTING(ssh_persist_s,      INT,  0, 0, 86400,  "With the ssh launcher, keep each host's ssh connection open this many seconds after a job (OpenSSH's ControlMaster/ControlPersist, control sockets in a private directory), so that the next job to the same hosts skips ssh's connection set-up; 0: a fresh ssh connection per job")
CR_SETTING(ssh_fast_kex,       BOOL, 0, 0, 1,      "The ssh launcher asks for the classic key exchanges (curve25519-sha256 first, then ECDH and Diffie-Hellman: -o KexAlgorithms=...) instead of OpenSSH 9's default sntrup761x25519, whose key generation is most of an ssh connection's CPU time (measured here: a connection 0.37 s against 0.90 s on a loaded machine); the job's own traffic goes over TCP with only an authenticated start anyway; off by default: the site's and the user's ssh configuration decides (1: ask for them)")
/* asynchronous progress: how soon the progress thread answers (src/core/async.c, issue 15, ovlp) */
CR_SETTING(async_progress_sleep_us, INT, -1, -1, 60000000, "Microseconds the progress thread stays idle, napping COURIER_ASYNC_PROGRESS_IDLE_US between polls, before it sleeps on the doorbell, which a peer's message or an MPI call of the process rings at once (0: at its first idle poll; -1: COURIER_WAIT_SLEEP_US)")
CR_SETTING(async_progress_slice_us, INT, 100, 0, 100000, "Time slice, in microseconds, the progress thread asks Linux for (6.12 and later): woken while it shares a core with a computing thread, it runs at once instead of after the rest of that thread's slice (0: the kernel's default slice)")
/* same-node small operations as requests the target serves (src/rma/shmam.c, issue 13, rma9) */
CR_SETTING(rma_shm_am,         INT,  1, 0, 2,      "Small RMA operations on MPI_Win_create and dynamic windows to a target on this node: 1 as requests in the target's ring that its progress engine serves, while the target is seen polling (else, and for larger ones, cross-memory copies); 2 as requests whenever the ring has room (a target that does not take one within COURIER_RMA_SHM_AM_SLOW_US still gets it done by a copy); 0 always by copies")
CR_SETTING(rma_shm_am_max,     SIZE, 256, 8, 65536, "Largest operation, in bytes (a compare-and-swap counts twice), that goes as a request in the target's ring (COURIER_RMA_SHM_AM); each ring slot holds this much")
CR_SETTING(rma_shm_am_slots,   INT,  64, 2, 4096,  "Slots in each rank's request ring of an MPI_Win_create or dynamic window (COURIER_RMA_SHM_AM; rounded up to a power of two): requests of all origins to it not yet served")
CR_SETTING(rma_shm_am_late_us, INT,  2, 0, 60000000, "An origin that waited longer than this many microseconds for its requests in a target's ring (about what a cross-memory copy takes) judges the target not polling: its small operations go by copies, probed again as COURIER_ADAPTIVE_PROBE says (COURIER_RMA_SHM_AM=1)")
CR_SETTING(rma_shm_am_slow_us, INT,  5, 0, 60000000, "An origin waiting to complete its requests in a target's ring takes back those the target has not looked at after this many microseconds and does them by cross-memory copies")
/* large copies of the direct path (src/rma/ops.c, issue 13, rma10) */
CR_SETTING(rma_copy_nt_bytes,  SIZE, 1048576, 0, 1073741824, "MPI_Get of contiguous data from mapped window memory (MPI_Win_allocate, MPI_Win_allocate_shared) copies this many bytes and more with non-temporal stores, which write the destination to memory without reading it into the cache first and leave the caches to the source and the caller's other data (docs/performance.md, RMA get bandwidth; puts keep the cache for the target); 0: always memmove")
/* same-node accumulates by CPU atomics (src/rma, issue 13, rma7) */
CR_SETTING(rma_cpu_atomics,    BOOL, 1, 0, 1,      "Accumulate-class RMA operations on elements of 1, 2, 4 or 8 bytes (integers, float, double) whose target memory is mapped on this node are applied with the CPU's atomic instructions, without the target's accumulate lock, where every origin of the node maps it (MPI_Win_allocate, MPI_Win_allocate_shared, or a rank alone on its node) and the network's atomics, if in use, are the CPU's too; the lock words of this node's ranks likewise; 0: the accumulate lock, or the network's atomics, as for other types")
/* bulk accumulates on CPU-atomic windows (src/rma/ops.c, issue 13, rma12) */
CR_SETTING(rma_acc_bulk_bytes, SIZE, 8192, 0, 1073741824, "On windows whose accumulates go by the CPU's atomics (COURIER_RMA_CPU_ATOMICS), an origin whose accumulates of several elements to one target have added up to this many bytes of element-by-element atomic updates enters bulk mode on that target until the end of an access epoch in which it did no accumulate there: its accumulates there use the vector kernels under the target's accumulate lock, and every origin's accumulates to that target take the lock meanwhile (entry costs one membarrier, about a microsecond; docs/rma.md, Bulk accumulates); 0: never (exclusive-lock epochs use the vector kernels regardless)")
/* threads and buffered sends (issue 15, src/core/p2p_bsend.c, thr3) */
CR_SETTING(bsend_wait_ms,      INT,  1000, 0, 3600000, "Milliseconds a buffered send that finds its attached buffer full runs the progress engine, so that earlier buffered sends complete and give their room back, before it fails with MPI_ERR_BUFFER (0: one poll)")
/* single-copy collectives when ranks outnumber cores (src/coll/coll_shm.c, issue 16, coll6) */
CR_SETTING(coll_cma_slice_min_bytes, SIZE, 16384, 0, 1073741824, "When ranks outnumber cores, the single-copy MPI_Reduce and MPI_Allreduce on one node cut the vector into slices of at least this many bytes, each folded by one rank, rather than one slice per rank: a slice costs a cross-memory copy from every rank, and folding on more ranks than cores gains nothing (0: one slice per rank)")
/* the pipelined reduce when ranks outnumber cores (src/coll/coll_reduce_pipe.c, issue 16, coll12) */
CR_SETTING(coll_reduce_pipe_seg_bytes, SIZE, 16384, 64, 16777216, "Bytes per segment of the pipelined MPI_Reduce (pipe: segments down a binomial tree through the shared slots); at most a slot (COURIER_COLL_SHM_SLOT_BYTES), which holds slot / segment of them at once")
CR_SETTING(coll_reduce_pipe_buf_bytes, SIZE, 65536, 0, 16777216, "When ranks outnumber cores, each rank's shared collective segment also has 4 buffers of this many bytes for the pipelined MPI_Reduce (pipe), so that a vector up to this size goes whole and a rank that has posted its part may run up to 4 calls ahead of the others without waiting for its parent (larger vectors go through the data slots, slot / segment segments at a time), and for MPI_Bcast above a slot up to this size (pipe: the root writes its buffer and waits for nobody) (0: none; rank 0's value holds for a communicator)")
CR_SETTING(coll_reduce_pipe_max_bytes, SIZE, 65536, 0, 1073741824, "When ranks outnumber cores, the largest MPI_Reduce vector, in bytes, that the pipelined algorithm (pipe) takes on one node above a data slot (up to a slot the shm algorithm does), for commutative ops on contiguous types; communicators of at most COURIER_COLL_REDUCE_PIPE_ALL_MAX_RANKS ranks take it at any size")
CR_SETTING(coll_reduce_pipe_min_ranks, INT, 3, 0, 2147483647, "When ranks outnumber cores, the smallest communicator whose MPI_Reduce above a data slot takes the pipelined algorithm (pipe) on one node")
CR_SETTING(coll_bcast_pipe_min_ranks, INT, 3, 0, 2147483647, "When ranks outnumber cores, the smallest communicator whose MPI_Bcast from COURIER_COLL_BCAST_CMA_MIN_BYTES up to COURIER_COLL_REDUCE_PIPE_BUF_BYTES goes through the root's pipe buffer (pipe) rather than by single copy")
CR_SETTING(coll_reduce_pipe_all_max_ranks, INT, 4, 0, 2147483647, "When ranks outnumber cores, communicators of at most this many ranks take the pipelined MPI_Reduce (pipe) above a data slot at any size, not only up to COURIER_COLL_REDUCE_PIPE_MAX_BYTES")
/* the stage algorithms where ranks do not outnumber cores (src/coll/coll_stage.c, issue 16) */
CR_SETTING(coll_stage_bytes,   SIZE, 1048576, 0, 1073741824, "Where the node's ranks do not outnumber its cores, each rank's shared collective segment also has a staging buffer of this many bytes (whole pages, touched only when used) through which the stage algorithms of MPI_Allreduce, MPI_Reduce_scatter(_block), MPI_Allgather and MPI_Alltoall move large data in rounds of this size, two copies at memory speed where single copy (cma) makes one at the kernel's page-by-page speed (0: none; rank 0's value holds for a communicator)")
CR_SETTING(coll_stage_max_rtt_ns, INT, 200, -1, 1000000000, "The staging buffers of a communicator's shared collective segment are used only when, as the segment is made, ranks 0 and 1 pass a cache line back and forth in at most this many nanoseconds a round trip (CPUs that share a cache: about 80-100 here; far apart on the host, where two copies through shared memory lose to single copy, 3-4 times that; -1: no probe, always used; 0: never)")
CR_SETTING(coll_allreduce_stage_min_bytes, SIZE, 65536, 0, 1073741824, "Smallest MPI_Allreduce vector, in bytes, reduced through the staging buffers (stage) on one node where ranks do not outnumber cores")
CR_SETTING(coll_reduce_scatter_stage_min_bytes, SIZE, 65536, 0, 1073741824, "Smallest MPI_Reduce_scatter(_block) vector, in bytes, reduced through the staging buffers (stage) on one node where ranks do not outnumber cores")
CR_SETTING(coll_allgather_stage_min_bytes, SIZE, 1048576, 0, 1073741824, "Smallest MPI_Allgather block, in bytes, gathered through the staging buffers (stage) on one node where ranks do not outnumber cores")
CR_SETTING(coll_alltoall_stage_min_bytes, SIZE, 1048576, 0, 1073741824, "Smallest MPI_Alltoall block, in bytes, exchanged through the staging buffers (stage) on one node where ranks do not outnumber cores")
/* how mpiexec and its proxies start ranks (launcher/ranks.c, issue 18) */
CR_SETTING(rank_session,       INT,  -1, -1, 1,    "Each rank starts as the leader of a session of its own (setsid), as Hydra's ranks do, so that where Linux schedules sessions as groups (autogroup) a rank competes for its core as a session, not as one process of mpiexec's session among whatever else runs there; signals still reach each rank's own process group. -1: so unless the host's ranks outnumber its cores (COURIER_OVERSUBSCRIBED), where a rank alone in its group could not yield its core to the others; 1: always; 0: never (one process group in mpiexec's session)")
