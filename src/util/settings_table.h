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
 * No other file may hold a tunable number.
 */
CR_SETTING(eager_limit,        SIZE, 8192, 0, 16777216,   "Largest message, in bytes, sent eagerly through the shared-memory cells; larger ones use rendezvous")
CR_SETTING(shm_ring_bytes,     SIZE, 262144, 4096, 4194304, "Bytes of cells in each ordered pair's shared-memory ring (rounded to a power of two)")
CR_SETTING(shm_ring_budget,    SIZE, 2097152, 0, 1073741824,"Most bytes of inbound rings per rank: with many local ranks the rings shrink to fit (0: no limit)")
CR_SETTING(shm_chunk_bytes,    SIZE, 65536, 4096, 16777216,  "Size of each chunk of the pipelined rendezvous copy through shared buffers")
CR_SETTING(shm_chunks,         INT,  4, 2, 64,      "Number of pipelined rendezvous chunks per ordered pair of local ranks")
CR_SETTING(cma_min,            SIZE, 4096, 0, 1073741824,   "Smallest rendezvous message copied once with process_vm_readv, where the kernel allows it (0: always the chunk pipeline)")
CR_SETTING(cma_split_min,      SIZE, 32768, 0, 1073741824,  "Smallest single-copy message split between receiver (readv) and sender (writev) so two cores copy (0 never)")
CR_SETTING(spin_count,         INT,  50, 1, 1000000000,     "Polls of the progress engine before an idle wait yields the core (when oversubscribed)")
CR_SETTING(oversubscribed,     INT,  -1, -1, 1,     "Force the waiting policy: 1 yield (oversubscribed), 0 spin, -1 decide from ranks vs. cores")
CR_SETTING(coll_barrier_alg,   INT,  0, 0, 1,      "Force the MPI_Barrier algorithm: 0 automatic, 1 dissemination")
CR_SETTING(coll_bcast_alg,     INT,  0, 0, 2,      "Force the MPI_Bcast algorithm: 0 automatic, 1 binomial tree, 2 scatter + ring allgather")
CR_SETTING(coll_reduce_alg,    INT,  0, 0, 1,      "Force the MPI_Reduce algorithm: 0 automatic, 1 binomial tree")
CR_SETTING(coll_allreduce_alg, INT,  0, 0, 2,      "Force the MPI_Allreduce algorithm: 0 automatic, 1 recursive doubling, 2 reduce + broadcast")
CR_SETTING(coll_gather_alg,    INT,  0, 0, 2,      "Force the MPI_Gather algorithm: 0 automatic, 1 binomial tree, 2 linear")
CR_SETTING(coll_scatter_alg,   INT,  0, 0, 2,      "Force the MPI_Scatter algorithm: 0 automatic, 1 binomial tree, 2 linear")
CR_SETTING(coll_allgather_alg, INT,  0, 0, 2,      "Force the MPI_Allgather algorithm: 0 automatic, 1 ring, 2 Bruck")
CR_SETTING(coll_alltoall_alg,  INT,  0, 0, 2,      "Force the MPI_Alltoall algorithm: 0 automatic, 1 pairwise exchange, 2 Bruck")
CR_SETTING(coll_reduce_scatter_alg, INT, 0, 0, 2,  "Force the MPI_Reduce_scatter(_block) algorithm: 0 automatic, 1 reduce + scatterv, 2 ring (commutative ops)")
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
