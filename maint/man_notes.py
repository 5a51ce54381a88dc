# SPDX-License-Identifier: MIT
"""Our own words for the man pages that maint/gen_man.py writes.

SUMMARY   procedure -> the one line of its NAME section (the standard's API
          description has argument descriptions but no summary); procedures
          not listed get a generic line.
NOTES     procedure -> a NOTES paragraph about Courier's behaviour.
SEE_ALSO  procedure -> further related procedures (the non-blocking,
          persistent and large-count forms are found by name).
"""

SUMMARY = {
    "MPI_Init": "initialise MPI",
    "MPI_Init_thread": "initialise MPI with a level of thread support",
    "MPI_Finalize": "end MPI in this process",
    "MPI_Initialized": "tell whether MPI_Init has been called",
    "MPI_Finalized": "tell whether MPI_Finalize has been called",
    "MPI_Abort": "end every process of a communicator's job",
    "MPI_Query_thread": "the level of thread support provided",
    "MPI_Is_thread_main": "tell whether this thread called MPI_Init",
    "MPI_Get_version": "the version of the MPI standard implemented",
    "MPI_Get_library_version": "the name and version of the MPI library",
    "MPI_Get_processor_name": "the name of this processor (host)",
    "MPI_Wtime": "elapsed wall-clock time in seconds",
    "MPI_Wtick": "the resolution of MPI_Wtime in seconds",
    "MPI_Send": "blocking standard-mode send",
    "MPI_Recv": "blocking receive",
    "MPI_Ssend": "blocking synchronous send",
    "MPI_Rsend": "blocking ready-mode send",
    "MPI_Bsend": "blocking buffered send",
    "MPI_Isend": "start a standard-mode send",
    "MPI_Irecv": "start a receive",
    "MPI_Issend": "start a synchronous send",
    "MPI_Irsend": "start a ready-mode send",
    "MPI_Ibsend": "start a buffered send",
    "MPI_Sendrecv": "send a message and receive one",
    "MPI_Sendrecv_replace": "send a message and receive one into the same buffer",
    "MPI_Probe": "wait for a matching message without receiving it",
    "MPI_Iprobe": "test for a matching message without receiving it",
    "MPI_Mprobe": "wait for a matching message and take it out of the queue",
    "MPI_Improbe": "test for a matching message and take it out of the queue",
    "MPI_Mrecv": "receive a message taken by MPI_Mprobe or MPI_Improbe",
    "MPI_Imrecv": "start receiving a message taken by MPI_Mprobe or MPI_Improbe",
    "MPI_Send_init": "create a persistent standard-mode send",
    "MPI_Recv_init": "create a persistent receive",
    "MPI_Start": "start a persistent request",
    "MPI_Startall": "start several persistent requests",
    "MPI_Wait": "wait for a request to complete",
    "MPI_Waitall": "wait for every request of a list to complete",
    "MPI_Waitany": "wait for one request of a list to complete",
    "MPI_Waitsome": "wait for at least one request of a list to complete",
    "MPI_Test": "test whether a request has completed",
    "MPI_Testall": "test whether every request of a list has completed",
    "MPI_Testany": "test whether one request of a list has completed",
    "MPI_Testsome": "complete the requests of a list that have completed",
    "MPI_Request_free": "free a request",
    "MPI_Cancel": "cancel a pending request",
    "MPI_Get_count": "the number of elements a receive got",
    "MPI_Buffer_attach": "give MPI a buffer for buffered sends",
    "MPI_Buffer_detach": "take back the buffer of buffered sends",
    "MPI_Barrier": "wait until every process of a communicator has called it",
    "MPI_Bcast": "broadcast a message from the root to every process of a communicator",
    "MPI_Reduce": "combine values from every process onto the root",
    "MPI_Allreduce": "combine values from every process and give the result to all",
    "MPI_Gather": "gather a block from every process onto the root",
    "MPI_Gatherv": "gather blocks of varying sizes onto the root",
    "MPI_Scatter": "send a block from the root to every process",
    "MPI_Scatterv": "send blocks of varying sizes from the root to every process",
    "MPI_Allgather": "gather a block from every process onto every process",
    "MPI_Allgatherv": "gather blocks of varying sizes onto every process",
    "MPI_Alltoall": "send a distinct block from every process to every process",
    "MPI_Alltoallv": "all-to-all exchange with varying counts and displacements",
    "MPI_Alltoallw": "all-to-all exchange with varying counts, displacements and datatypes",
    "MPI_Reduce_scatter": "combine values and scatter blocks of the result",
    "MPI_Reduce_scatter_block": "combine values and scatter equal blocks of the result",
    "MPI_Scan": "inclusive prefix reduction",
    "MPI_Exscan": "exclusive prefix reduction",
    "MPI_Reduce_local": "combine two local buffers with an operation",
    "MPI_Op_create": "create a user-defined reduction operation",
    "MPI_Op_free": "free a user-defined reduction operation",
    "MPI_Comm_rank": "the rank of this process in a communicator",
    "MPI_Comm_size": "the number of processes in a communicator",
    "MPI_Comm_dup": "duplicate a communicator",
    "MPI_Comm_split": "split a communicator by colour and key",
    "MPI_Comm_split_type": "split a communicator by type (e.g. shared memory)",
    "MPI_Comm_create": "create a communicator from a group",
    "MPI_Comm_free": "free a communicator",
    "MPI_Comm_compare": "compare two communicators",
    "MPI_Comm_group": "the group of a communicator",
    "MPI_Comm_set_name": "name a communicator",
    "MPI_Comm_get_name": "the name of a communicator",
    "MPI_Comm_set_errhandler": "set a communicator's error handler",
    "MPI_Comm_get_errhandler": "the error handler of a communicator",
    "MPI_Intercomm_create": "create an intercommunicator from two intracommunicators",
    "MPI_Intercomm_merge": "merge an intercommunicator into an intracommunicator",
    "MPI_Group_size": "the number of processes in a group",
    "MPI_Group_rank": "the rank of this process in a group",
    "MPI_Group_incl": "a group of selected ranks of another group",
    "MPI_Group_free": "free a group",
    "MPI_Group_translate_ranks": "translate ranks of one group to another",
    "MPI_Cart_create": "create a communicator with a Cartesian topology",
    "MPI_Cart_coords": "the coordinates of a rank in a Cartesian topology",
    "MPI_Cart_rank": "the rank of coordinates in a Cartesian topology",
    "MPI_Cart_shift": "the neighbours of this process along a Cartesian dimension",
    "MPI_Dims_create": "a balanced division of processes over dimensions",
    "MPI_Type_contiguous": "a datatype of contiguous copies of another",
    "MPI_Type_vector": "a datatype of equally spaced blocks",
    "MPI_Type_indexed": "a datatype of blocks at given displacements",
    "MPI_Type_create_struct": "a datatype of blocks of different datatypes",
    "MPI_Type_create_subarray": "a datatype describing a subarray of an array",
    "MPI_Type_create_resized": "a datatype with a new lower bound and extent",
    "MPI_Type_commit": "make a datatype usable for communication",
    "MPI_Type_free": "free a datatype",
    "MPI_Type_size": "the number of bytes of data in a datatype",
    "MPI_Type_get_extent": "the lower bound and extent of a datatype",
    "MPI_Pack": "pack data into a contiguous buffer",
    "MPI_Unpack": "unpack data from a contiguous buffer",
    "MPI_Pack_size": "an upper bound of the bytes MPI_Pack needs",
    "MPI_Get_address": "the address of a location in memory",
    "MPI_Error_string": "the text of an error code",
    "MPI_Error_class": "the error class of an error code",
    "MPI_Info_create": "create an empty info object",
    "MPI_Info_set": "add a key and value to an info object",
    "MPI_Info_get": "the value of a key in an info object",
    "MPI_Info_free": "free an info object",
    "MPI_Comm_create_keyval": "create an attribute key for communicators",
    "MPI_Comm_set_attr": "attach an attribute to a communicator",
    "MPI_Comm_get_attr": "the attribute of a communicator for a key",
    "MPI_Alloc_mem": "allocate memory for message passing",
    "MPI_Free_mem": "free memory from MPI_Alloc_mem",
    "MPI_Abi_get_version": "the version of the MPI standard ABI provided (-1 -1: none)",
    "MPI_Abi_get_info": "an info object with the sizes of MPI_Aint, MPI_Count and MPI_Offset",
    "MPI_Abi_get_fortran_info": "an info object describing the Fortran bindings' types",
    "MPI_Abi_set_fortran_info": "tell MPI the Fortran compiler's types (refused: already known)",
    "MPI_Abi_get_fortran_booleans": "the bytes of Fortran .TRUE. and .FALSE. of a LOGICAL size",
    "MPI_Abi_set_fortran_booleans": "tell MPI the Fortran LOGICAL values (refused: already known)",
}
for _k, _t in (("Comm", "communicator"), ("Errhandler", "error handler"), ("File", "file"),
               ("Group", "group"), ("Info", "info object"), ("Message", "message"),
               ("Op", "reduction operation"), ("Request", "request"), ("Session", "session"),
               ("Type", "datatype"), ("Win", "window")):
    SUMMARY["MPI_%s_toint" % _k] = "the integer of a %s handle" % _t
    SUMMARY["MPI_%s_fromint" % _k] = "the %s handle of an integer from MPI_%s_toint" % (_t, _k)

NOTES = {
    "MPI_Init": "Courier reads its settings (COURIER_* environment variables, see "
                "courier_info) in MPI_Init.  With COURIER_ATTACH=R, rank R prints its pid "
                "and host at the end of MPI_Init and waits until a debugger sets "
                "courier_debug_wait to 0; with COURIER_BACKTRACE=1 (the default) a rank "
                "that dies of SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT prints a "
                "backtrace first.",
    "MPI_Init_thread": "Courier provides at most MPI_THREAD_SERIALIZED.",
    "MPI_Send": "Messages of at most COURIER_EAGER_LIMIT bytes (8192 by default) are "
                "copied into shared memory and MPI_Send returns at once; larger ones wait "
                "for the matching receive (rendezvous) and are copied once.",
    "MPI_Isend": "See MPI_Send(3) for when the data moves (eager or rendezvous).",
    "MPI_Recv": "source may be MPI_ANY_SOURCE or MPI_PROC_NULL, tag MPI_ANY_TAG; "
                "status may be MPI_STATUS_IGNORE.",
    "MPI_Irecv": "source may be MPI_ANY_SOURCE or MPI_PROC_NULL, tag MPI_ANY_TAG.",
    "MPI_Abort": "mpiexec(1) ends every process of the job within about a second "
                 "(COURIER_ABORT_TIMEOUT_MS) and exits with errorcode.",
    "MPI_Bcast": "The algorithm (binomial tree, or scatter and ring allgather) is chosen "
                 "by message size and communicator size; COURIER_COLL_BCAST_ALG forces one.",
    "MPI_Allreduce": "COURIER_COLL_ALLREDUCE_ALG forces the algorithm (recursive doubling, "
                     "or reduce and broadcast).",
    "MPI_Alltoall": "COURIER_COLL_ALLTOALL_ALG forces the algorithm (pairwise exchange or Bruck).",
    "MPI_Wtime": "MPI_Wtime uses CLOCK_MONOTONIC; MPI_WTIME_IS_GLOBAL is false.",
    "MPI_Abi_get_version": "Courier implements the MPICH ABI (libmpi.so.12), not the MPI 5.0 "
                           "standard ABI (libmpi_abi), so abi_major and abi_minor are -1, as "
                           "the standard says for an implementation without the standard ABI. "
                           "May be called at any time.",
    "MPI_Abi_get_info": "The keys are mpi_aint_size, mpi_count_size and mpi_offset_size (8, 8 "
                        "and 8 on 64-bit Linux).  May be called at any time; free the info with "
                        "MPI_Info_free.",
    "MPI_Abi_get_fortran_info": "Courier's Fortran bindings are gfortran's: mpi_integer_size, "
                                "mpi_real_size and mpi_logical_size 4, "
                                "mpi_double_precision_size 8.  Each "
                                "mpi_<type><bytes>_supported key agrees with its datatype "
                                "(MPI_REAL2 and friends): true, Courier has them all.",
    "MPI_Abi_set_fortran_info": "The Fortran properties are fixed when Courier is built, which "
                                "counts as the one setting the standard allows: the call returns "
                                "MPI_ERR_ABI (MPI_ERR_INFO for MPI_INFO_NULL).",
    "MPI_Abi_get_fortran_booleans": ".TRUE. is 1 and .FALSE. 0 in logical_size bytes (1, 2, 4, 8 "
                                    "or 16, else MPI_ERR_ARG); is_set is true.",
    "MPI_Abi_set_fortran_booleans": "Returns MPI_ERR_ABI: the values are fixed when Courier is "
                                    "built (a logical_size other than 1, 2, 4, 8, 16 is "
                                    "MPI_ERR_ARG).",
}
for _k in ("Comm", "Errhandler", "File", "Group", "Info", "Message", "Op", "Request", "Session",
           "Type", "Win"):
    NOTES["MPI_%s_toint" % _k] = ("MPICH ABI handles are integers: the result is the handle's "
                                  "own value (a predefined handle keeps its MPICH value, not "
                                  "the standard ABI's), and MPI_%s_fromint gives the handle "
                                  "back.  Nothing is checked and no error code is returned; "
                                  "an invalid handle is erroneous." % _k)
    NOTES["MPI_%s_fromint" % _k] = NOTES["MPI_%s_toint" % _k]

SEE_ALSO = {
    "MPI_Send": ["MPI_Recv", "MPI_Isend", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Sendrecv"],
    "MPI_Recv": ["MPI_Send", "MPI_Irecv", "MPI_Probe", "MPI_Get_count"],
    "MPI_Isend": ["MPI_Wait", "MPI_Test", "MPI_Irecv"],
    "MPI_Irecv": ["MPI_Wait", "MPI_Test", "MPI_Isend"],
    "MPI_Init": ["MPI_Init_thread", "MPI_Finalize"],
    "MPI_Finalize": ["MPI_Init"],
    "MPI_Bcast": ["MPI_Scatter", "MPI_Allgather"],
    "MPI_Reduce": ["MPI_Allreduce", "MPI_Op_create"],
    "MPI_Allreduce": ["MPI_Reduce", "MPI_Op_create"],
    "MPI_Comm_rank": ["MPI_Comm_size"],
    "MPI_Comm_size": ["MPI_Comm_rank"],
    "MPI_Wait": ["MPI_Test", "MPI_Waitall"],
}
