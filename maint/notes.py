# SPDX-License-Identifier: MIT
"""Per-function notes for maint/gen_bindings.py.

IMPLEMENTED   MPI procedures bound to their core_x.  A listed procedure whose
              core_x is not defined in src/ yet is treated as not listed.  Run
              `python3 maint/gen_bindings.py` after a change here or in the set of
              core functions; every procedure not implemented gets an entry point
              that raises MPI_ERR_OTHER "MPI_X is not implemented in Courier yet".
ANYTIME       procedures callable before MPI_Init and after MPI_Finalize.
NOCHECK       procedures whose arguments get no generated checks (hot or odd).
EMPTY_NULL_DATATYPE  point-to-point procedures that accept MPI_DATATYPE_NULL with
              count 0 (decided in the slow path of the datatype check).
PARAM_NOTES   (procedure, parameter) -> note.  Notes understood by the generator:
                "any_source"  a rank that also accepts MPI_ANY_SOURCE
                "proc_null"   a rank that also accepts MPI_PROC_NULL
                "any_tag"     a tag that also accepts MPI_ANY_TAG
                "nocheck"     no generated check for this parameter
                "nullable"    a handle that may also be its null handle
              Ranks named dest/source and tags of receives get these from the
              standard's text; notes override.
MEMBERS       procedures whose core entry is not core_<their name>: MPI base
              name (no I prefix, _init or _c suffix) -> (entry, fixed arguments):
              family members (MPI_Ssend -> core_send, mode CR_MODE_SYNC) and
              others bound to another procedure's entry (MPI_Attr_get ->
              core_comm_get_attr, its keyval passed as comm_keyval).  A fixed
              `how` overrides the form.
RAISE_WITH    procedures without a communicator, window, file or session
              argument whose errors go to a particular handler: the call.
ARRAY_LENGTH  (procedure, array of handles) -> C expression of its length, so the
              binding can check every element and pass an array of objects.
NOALIAS       collectives whose send data must not lie where they receive (MPI_IN_PLACE
              says that): base name -> (where, data, receiving address, elements);
              checked with cr_chk_alias (MPI_ERR_BUFFER) on intracommunicators.
NO_IN_PLACE   procedure base name -> buffers that must not be MPI_IN_PLACE
              (MPI_ERR_BUFFER).
OUTPUT_LENGTH (base name, output array) -> the parameter counting its elements,
              where the standard's description says "*".
NOT_IN_ABI    procedures of the standard that MPICH 4.0.2's header does not
              declare (MPI 4.1 / 5.0, or handle conversions MPICH makes macros);
              Courier neither declares nor exports them yet.  (MPI 4.1's
              MPI_Status_get/set_source/tag/error, MPI_Status_set_elements_c and
              MPI_Type_get_value_index and MPI_Get_hw_resource_info are declared
              and exported: later MPICH
              releases have them too, and programs built against MPICH 4.0.2
              simply do not call them; so are MPI_Remove_error_*: additive
              symbols that break no binary built with MPICH, which calls them
              MPIX_Delete_error_*; and so are MPI 5.0's MPI_Abi_* and the handle
              serialization functions MPI_<Handle>_toint/fromint, which MPICH
              4.0.2 does not declare (src/core/abi.c).)
LEGACY        procedures removed from the standard that MPICH 4.0.2 still
              declares and exports, and MPICH extensions (MPIX_) it exports
              that MPICH's own tests call; binaries built with MPICH may call
              them.
"""

_P2P = """Send Recv Isend Irecv Ssend Issend Rsend Irsend Bsend Ibsend Sendrecv
Sendrecv_replace Isendrecv Isendrecv_replace Probe Iprobe Mprobe Improbe Mrecv Imrecv
Send_init Recv_init Ssend_init Rsend_init Bsend_init Start Startall
Buffer_attach Buffer_detach"""
_REQ = """Wait Waitall Waitany Waitsome Test Testall Testany Testsome Request_free
Request_get_status Cancel"""
_COLL = """Barrier Bcast Reduce Allreduce Gather Gatherv Scatter Scatterv Allgather
Allgatherv Alltoall Alltoallv Alltoallw Reduce_scatter Reduce_scatter_block Scan Exscan
Reduce_local Ibarrier Ibcast Ireduce Iallreduce Igather Igatherv Iscatter Iscatterv
Iallgather Iallgatherv Ialltoall Ialltoallv Ialltoallw Ireduce_scatter
Ireduce_scatter_block Iscan Iexscan
Op_create Op_free Op_commutative"""
# Large-count (_c) forms implemented alongside the int forms.
_BIG = """Send Recv Isend Irecv Ssend Issend Rsend Irsend Bsend Ibsend Sendrecv
Sendrecv_replace Bcast Reduce Allreduce Gather Scatter Allgather Alltoall"""



def _names(*blocks):
    return {"MPI_" + w for b in blocks for w in b.split()}


IMPLEMENTED = _names(_P2P, _REQ, _COLL) | {n + "_c" for n in _names(_BIG)}

ANYTIME = _names("""Init Init_thread Initialized Finalized Get_version
Get_library_version Error_class Error_string Wtime Wtick Aint_add Aint_diff
Info_create Info_set Info_get Info_get_string Info_delete Info_dup Info_free
Info_get_nkeys Info_get_nthkey Info_get_valuelen Info_create_env
Session_init Session_finalize Session_get_info Session_get_num_psets
Session_get_nth_pset Session_get_pset_info Session_create_errhandler
Session_set_errhandler Session_get_errhandler Session_call_errhandler
Comm_create_errhandler Errhandler_free Status_c2f Status_f2c Status_c2f08 Status_f082c
Status_f2f08 Status_f082f Abort Abi_get_version Abi_get_info""") | {"MPI_T_*"}

NOCHECK = _names("Wtime Wtick Aint_add Aint_diff Pcontrol")

# Point-to-point procedures that take MPI_DATATYPE_NULL for an empty buffer
# (count 0), as MPICH does (its part/nonblocking_pready sends and receives
# NULL, 0, MPI_DATATYPE_NULL): cr_chk_datatype_or_empty, which decides it
# after the fast check has failed.  The _c forms are included.
EMPTY_NULL_DATATYPE = _names("""Send Recv Isend Irecv Ssend Issend Rsend Irsend Bsend
Ibsend Send_init Recv_init Ssend_init Rsend_init Bsend_init Sendrecv Isendrecv
Sendrecv_replace Isendrecv_replace Mrecv Imrecv Psend_init Precv_init""")

# Procedures whose core entry runs without the library lock (src/core/threads.h):
# MPI_Init_thread turns the lock on while it runs, MPI_Abort must not wait for
# a thread that holds it.  (Procedures bound to core_send and core_recv take it
# in their general paths, so that their fast paths stay lock-free; core_wait,
# core_test and the completion calls of several requests take it unless their
# requests all belong to the channel path of one channel, docs/threads.md
# "Channels".)
LIB_LOCK_FREE = _names("Init Init_thread Abort")
LIB_LOCK_FREE_ENTRIES = {"core_send", "core_recv", "core_wait", "core_test", "core_waitall",
                         "core_testall", "core_waitany", "core_testany", "core_waitsome",
                         "core_testsome"}
# Collective core entries whose blocking forms run without the library lock
# (src/coll/coll.c, coll_call_mt): with threads, a blocking collective on a
# communicator whose shared-memory area is made runs its shm or cma algorithm
# on the area alone; every other call takes the library lock there.  Their
# non-blocking and persistent forms keep the lock in the binding.
LIB_LOCK_FREE_BLOCKING = {"core_barrier", "core_bcast", "core_reduce", "core_allreduce",
                          "core_gather", "core_gatherv", "core_scatter", "core_scatterv",
                          "core_allgather", "core_allgatherv", "core_alltoall",
                          "core_alltoallv", "core_alltoallw", "core_reduce_scatter",
                          "core_reduce_scatter_block", "core_scan", "core_exscan"}

# Procedures whose entry point first tries a short way written by hand: an
# inline function (declared in a layer's api.h) that takes the procedure's
# own arguments, handles included, does the whole call in the common case and
# returns its result then (MPI_SUCCESS), -1 when it did nothing.  The generated checks and
# core call follow as a function of their own (cr_full_<name>), so that the
# entry point itself is the short way and a tail call: no registers saved on
# the common path.  The short way must make every check the standard requires
# of what it accepts, or leave the case to the full function (src/rma/fast.h).
FAST_PATHS = {"MPI_Put": "rma_put_fast", "MPI_Get": "rma_get_fast",
              "MPI_Win_flush": "rma_flush_fast", "MPI_Fetch_and_op": "rma_fop_fast",
              "MPI_Compare_and_swap": "rma_cas_fast", "MPI_Win_lock": "rma_lock_fast",
              "MPI_Win_unlock": "rma_unlock_fast"}

MEMBERS = {
    "Send": ("core_send", {"mode": "CR_MODE_STD"}),
    "Ssend": ("core_send", {"mode": "CR_MODE_SYNC"}),
    "Rsend": ("core_send", {"mode": "CR_MODE_READY"}),
    "Bsend": ("core_send", {"mode": "CR_MODE_BUFFERED"}),
    # outside families: a fixed value may name one of the procedure's own
    # arguments, which then takes the place of the entry's parameter
    "Init": ("core_init_thread", {"required": "MPI_THREAD_SINGLE"}),
    "Keyval_create": ("core_comm_create_keyval", {"comm_copy_attr_fn": "copy_fn",
                                                  "comm_delete_attr_fn": "delete_fn",
                                                  "comm_keyval": "keyval"}),
    "Keyval_free": ("core_comm_free_keyval", {"comm_keyval": "keyval"}),
    "Attr_put": ("core_comm_set_attr", {"comm_keyval": "keyval"}),
    "Attr_get": ("core_comm_get_attr", {"comm_keyval": "keyval"}),
    "Attr_delete": ("core_comm_delete_attr", {"comm_keyval": "keyval"}),
    "Errhandler_create": ("core_comm_create_errhandler", {"comm_errhandler_fn": "function"}),
    "Errhandler_set": ("core_comm_set_errhandler", {}),
    "Errhandler_get": ("core_comm_get_errhandler", {}),
    "Delete_error_class": ("core_remove_error_class", {}),
    "Delete_error_code": ("core_remove_error_code", {}),
    "Delete_error_string": ("core_remove_error_string", {}),
    # RMA's request forms (src/rma/api.h)
    "Rput": ("core_put", {"how": "CR_NONBLOCKING"}),
    "Rget": ("core_get", {"how": "CR_NONBLOCKING"}),
    "Raccumulate": ("core_accumulate", {"how": "CR_NONBLOCKING"}),
    "Rget_accumulate": ("core_get_accumulate", {"how": "CR_NONBLOCKING"}),
    # MPI-1 names of datatype procedures (src/core/api_dt.h)
    "Type_hvector": ("core_type_create_hvector", {}),
    "Type_hindexed": ("core_type_create_hindexed", {}),
    "Type_struct": ("core_type_create_struct", {}),
    "Address": ("core_get_address", {}),
    # the int form has no large-count array
    "Type_get_contents": ("core_type_get_contents", {"max_large_counts": "0"}),
}


def _io_members():
    """Every MPI-IO data access procedure -> core_file_access with its op
    (src/io/api.h), the _end of split collectives -> core_file_split_end."""
    out = {}
    for rw, f in (("read", "CR_IO_READ"), ("write", "CR_IO_WRITE")):
        for pos, p in (("_at", "CR_IO_AT"), ("", "CR_IO_INDIV"), ("_shared", "CR_IO_SHARED")):
            fixed = {"op": "%s | %s" % (f, p)}
            if pos != "_at":
                fixed["offset"] = "0"
            out["File_%s%s" % (rw, pos)] = ("core_file_access", dict(fixed))
            out["File_i%s%s" % (rw, pos)] = ("core_file_access", dict(fixed, how="CR_NONBLOCKING"))
            if pos == "_shared":
                coll = dict(fixed, op="%s | CR_IO_SHARED | CR_IO_ORDERED" % f)
                name = "File_%s_ordered" % rw
            else:
                coll = dict(fixed, op="%s | %s | CR_IO_COLL" % (f, p))
                name = "File_%s%s_all" % (rw, pos)
                out["File_i%s%s_all" % (rw, pos)] = ("core_file_access", dict(coll, how="CR_NONBLOCKING"))
            out[name] = ("core_file_access", coll)
            out[name + "_begin"] = ("core_file_access",
                                    dict(coll, op=coll["op"] + " | CR_IO_SPLIT", how="CR_NONBLOCKING"))
            out[name + "_end"] = ("core_file_split_end", {"op": coll["op"]})
    return out


MEMBERS.update(_io_members())

RAISE_WITH = {
    "MPI_File_open": "cr_raise_file(MPI_FILE_NULL, cr_err, cr_fname)",
    "MPI_File_delete": "cr_raise_file(MPI_FILE_NULL, cr_err, cr_fname)",
    "MPI_Register_datarep": "cr_raise_file(MPI_FILE_NULL, cr_err, cr_fname)",
}

ARRAY_LENGTH = {
    ("MPI_Alltoallw", "sendtypes"): "cr_chk_peer_size(cr_c)",
    ("MPI_Alltoallw", "recvtypes"): "cr_chk_peer_size(cr_c)",
    ("MPI_Ialltoallw", "sendtypes"): "cr_chk_peer_size(cr_c)",
    ("MPI_Ialltoallw", "recvtypes"): "cr_chk_peer_size(cr_c)",
    ("MPI_Alltoallw_init", "sendtypes"): "cr_chk_peer_size(cr_c)",
    ("MPI_Alltoallw_init", "recvtypes"): "cr_chk_peer_size(cr_c)",
    ("MPI_Neighbor_alltoallw", "sendtypes"): "cr_chk_outdegree(cr_c)",
    ("MPI_Neighbor_alltoallw", "recvtypes"): "cr_chk_indegree(cr_c)",
    ("MPI_Ineighbor_alltoallw", "sendtypes"): "cr_chk_outdegree(cr_c)",
    ("MPI_Ineighbor_alltoallw", "recvtypes"): "cr_chk_indegree(cr_c)",
    ("MPI_Neighbor_alltoallw_init", "sendtypes"): "cr_chk_outdegree(cr_c)",
    ("MPI_Neighbor_alltoallw_init", "recvtypes"): "cr_chk_indegree(cr_c)",
    ("MPI_Type_create_struct", "array_of_types"): "count",
    ("MPI_Type_struct", "array_of_types"): "count",
}

# The send buffer of an intracommunicator collective must not be its receive
# buffer, or this process's block of it (MPI_IN_PLACE says so), as MPICH
# checks (its errors/coll/noalias tests): base name (no I prefix, _init or _c)
# -> (where, data, receiving address, elements).  where: "all" or "root" (the
# receive buffer of Reduce and Gather, the send buffer of Scatter only matter
# there); data: the argument that must not alias; receiving address: a C
# expression, cr_chk_block(buf, index, $datatype) for block `index` of a
# buffer ($x: the object of argument x); elements: a C expression, nothing is checked when it is 0 (the
# v-forms: only when both sides use the same counts and types arrays, since
# their displacements may keep the two apart).  Reduce_local has no
# communicator: "local".
NOALIAS = {
    "Allreduce": ("all", "sendbuf", "recvbuf", "count"),
    "Reduce": ("root", "sendbuf", "recvbuf", "count"),
    "Reduce_scatter_block": ("all", "sendbuf", "recvbuf", "recvcount"),
    "Reduce_scatter": ("all", "sendbuf", "recvbuf", "recvcounts != NULL"),
    "Scan": ("all", "sendbuf", "recvbuf", "count"),
    "Exscan": ("all", "sendbuf", "recvbuf", "count"),
    "Alltoall": ("all", "sendbuf", "recvbuf", "sendcount"),
    "Alltoallv": ("all", "sendbuf", "recvbuf", "sendcounts == recvcounts && sendtype == recvtype"),
    "Alltoallw": ("all", "sendbuf", "recvbuf", "sendcounts == recvcounts && sendtypes == recvtypes"),
    "Allgather": ("all", "sendbuf", "cr_chk_block(recvbuf, (MPI_Aint)cr_c->rank * recvcount, $recvtype)",
                  "sendcount"),
    "Allgatherv": ("all", "sendbuf", "cr_chk_block(recvbuf, displs ? displs[cr_c->rank] : 0, $recvtype)",
                   "sendcount"),
    "Gather": ("root", "sendbuf", "cr_chk_block(recvbuf, (MPI_Aint)cr_c->rank * recvcount, $recvtype)",
               "sendcount"),
    "Gatherv": ("root", "sendbuf", "cr_chk_block(recvbuf, displs ? displs[cr_c->rank] : 0, $recvtype)",
                "sendcount"),
    "Scatter": ("root", "recvbuf", "cr_chk_block(sendbuf, (MPI_Aint)cr_c->rank * sendcount, $sendtype)",
                "recvcount"),
    "Scatterv": ("root", "recvbuf", "cr_chk_block(sendbuf, displs ? displs[cr_c->rank] : 0, $sendtype)",
                 "recvcount"),
    "Reduce_local": ("local", "inbuf", "inoutbuf", "count"),
}

# Lengths of output arrays that the standard's description leaves as "*":
# (base name, array) -> the parameter that counts its elements, so that the
# binding checks the array for NULL when it has elements (MPI_STATUSES_IGNORE
# is not NULL).
OUTPUT_LENGTH = {
    ("Waitall", "array_of_statuses"): "count",
    ("Testall", "array_of_statuses"): "count",
    ("Waitsome", "array_of_statuses"): "incount",
    ("Waitsome", "array_of_indices"): "incount",
    ("Testsome", "array_of_statuses"): "incount",
    ("Testsome", "array_of_indices"): "incount",
    ("Request_get_status_all", "array_of_statuses"): "count",
    ("Request_get_status_some", "array_of_statuses"): "incount",
    ("Request_get_status_some", "array_of_indices"): "incount",
}

# Buffers that must not be MPI_IN_PLACE (MPI_ERR_BUFFER), by base name.
NO_IN_PLACE = {"Reduce_local": ("inbuf", "inoutbuf")}

PARAM_NOTES = {
    ("MPI_File_set_errhandler", "file"): "nullable",
    ("MPI_File_get_errhandler", "file"): "nullable",
    ("MPI_File_call_errhandler", "fh"): "nullable",
    # with MPI_NO_OP the origin arguments are ignored (MPI_DATATYPE_NULL is common);
    # src/rma checks the datatype when the op uses it
    ("MPI_Get_accumulate", "origin_datatype"): "nocheck",
    ("MPI_Get_accumulate_c", "origin_datatype"): "nocheck",
    ("MPI_Rget_accumulate", "origin_datatype"): "nocheck",
    ("MPI_Rget_accumulate_c", "origin_datatype"): "nocheck",
    ("MPI_Intercomm_create", "peer_comm"): "nullable",
    ("MPI_Intercomm_create", "local_leader"): "nocheck",
    ("MPI_Intercomm_create", "remote_leader"): "nocheck",
    ("MPI_Intercomm_create_from_groups", "local_leader"): "nocheck",
    ("MPI_Intercomm_create_from_groups", "remote_leader"): "nocheck",
    # a status may carry any tag, MPI_ANY_TAG included (mpi4py initialises
    # its Status objects with MPI_ANY_SOURCE and MPI_ANY_TAG)
    ("MPI_Status_set_tag", "tag"): "nocheck",
}

NOT_IN_ABI = _names("""Sizeof F_sync_reg
Comm_c2f Comm_f2c Errhandler_c2f Errhandler_f2c Group_c2f Group_f2c Message_c2f
Info_c2f Info_f2c Message_f2c Op_c2f Op_f2c Request_c2f Request_f2c Session_c2f Session_f2c Type_c2f
Type_f2c Win_c2f Win_f2c""")

# The MPI-2 procedures whose descriptions give the removed MPI-1 ones of
# LEGACY their argument checks (the arguments have the same names).
LEGACY_SUCCESSOR = {"MPI_Type_hindexed": "MPI_Type_create_hindexed",
                    "MPI_Type_struct": "MPI_Type_create_struct",
                    "MPI_Type_hvector": "MPI_Type_create_hvector"}

LEGACY = [
    "int MPIX_Delete_error_class(int errorclass)",
    "int MPIX_Delete_error_code(int errorcode)",
    "int MPIX_Delete_error_string(int errorcode)",
    "int MPI_Address(void* location, MPI_Aint* address)",
    "int MPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler)",
    "int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler)",
    "int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)",
    "int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent)",
    "int MPI_Type_hindexed(int count, int* array_of_blocklengths, "
    "MPI_Aint* array_of_displacements, MPI_Datatype oldtype, MPI_Datatype* newtype)",
    "int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, "
    "MPI_Datatype oldtype, MPI_Datatype* newtype)",
    "int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement)",
    "int MPI_Type_struct(int count, int* array_of_blocklengths, "
    "MPI_Aint* array_of_displacements, MPI_Datatype array_of_types[], MPI_Datatype* newtype)",
    "int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement)",
]

# Corrections to prototypes as apis.json spells them: (wrong text, right text).
# MPI_Info_create_env takes argv as main() does; MPICH declares char *argv[].
PROTO_FIXES = {
    "MPI_Info_create_env": (("char argv[]", "char *argv[]"),),
}
