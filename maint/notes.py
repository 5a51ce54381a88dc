# SPDX-License-Identifier: MIT
"""Per-function notes for maint/gen_bindings.py.

IMPLEMENTED   MPI procedures bound to their core_x.  A listed procedure whose
              core_x is not defined in src/ yet is treated as not listed.  Run
              `python3 maint/gen_bindings.py` after a change here or in the set of
              core functions; every procedure not implemented gets an entry point
              that raises MPI_ERR_OTHER "MPI_X is not implemented in Courier yet".
ANYTIME       procedures callable before MPI_Init and after MPI_Finalize.
NOCHECK       procedures whose arguments get no generated checks (hot or odd).
PARAM_NOTES   (procedure, parameter) -> note.  Notes understood by the generator:
                "any_source"  a rank that also accepts MPI_ANY_SOURCE
                "proc_null"   a rank that also accepts MPI_PROC_NULL
                "any_tag"     a tag that also accepts MPI_ANY_TAG
                "nocheck"     no generated check for this parameter
                "nullable"    a handle that may also be its null handle
              Ranks named dest/source and tags of receives get these from the
              standard's text; notes override.
MEMBERS       family members whose core entry is not core_<their name>: MPI base
              name (no I prefix, _init or _c suffix) -> (entry, fixed arguments).
ARRAY_LENGTH  (procedure, array of handles) -> C expression of its length, so the
              binding can check every element and pass an array of objects.
NOT_IN_ABI    procedures of the standard that MPICH 4.0.2's header does not
              declare (MPI 4.1 / 5.0, or handle conversions MPICH makes macros);
              Courier neither declares nor exports them yet.  (MPI 4.1's
              MPI_Status_get/set_source/tag/error, MPI_Status_set_elements_c and
              MPI_Type_get_value_index are declared and exported: later MPICH
              releases have them too, and programs built against MPICH 4.0.2
              simply do not call them.)
LEGACY        procedures removed from the standard that MPICH 4.0.2 still
              declares and exports; binaries built with MPICH may call them.
"""

_P2P = """Send Recv Isend Irecv Ssend Issend Rsend Irsend Bsend Ibsend Sendrecv
Sendrecv_replace Isendrecv Isendrecv_replace Probe Iprobe Mprobe Improbe Mrecv Imrecv
Send_init Recv_init Ssend_init Rsend_init Bsend_init Start Startall
Buffer_attach Buffer_detach"""
_REQ = """Wait Waitall Waitany Waitsome Test Testall Testany Testsome Request_free
Request_get_status Cancel"""
_COMM = """Comm_rank Comm_size Comm_dup Comm_dup_with_info Comm_idup Comm_free Comm_split
Comm_split_type Comm_create Comm_create_group Comm_compare Comm_group Comm_test_inter
Comm_remote_size Comm_remote_group Comm_set_name Comm_get_name Intercomm_create
Intercomm_merge Comm_get_info Comm_set_info
Cart_create Dims_create Cart_get Cartdim_get Cart_rank Cart_coords Cart_shift Cart_sub
Cart_map Graph_create Graphdims_get Graph_get Graph_neighbors_count Graph_neighbors
Graph_map Dist_graph_create Dist_graph_create_adjacent Dist_graph_neighbors_count
Dist_graph_neighbors Topo_test Neighbor_allgather Neighbor_allgatherv Neighbor_alltoall
Neighbor_alltoallv Neighbor_alltoallw Ineighbor_allgather Ineighbor_allgatherv
Ineighbor_alltoall Ineighbor_alltoallv Ineighbor_alltoallw"""
_GROUP = """Group_size Group_rank Group_free Group_incl Group_excl Group_range_incl
Group_range_excl Group_union Group_intersection Group_difference Group_compare
Group_translate_ranks"""
_COLL = """Barrier Bcast Reduce Allreduce Gather Gatherv Scatter Scatterv Allgather
Allgatherv Alltoall Alltoallv Alltoallw Reduce_scatter Reduce_scatter_block Scan Exscan
Reduce_local Ibarrier Ibcast Ireduce Iallreduce Igather Igatherv Iscatter Iscatterv
Iallgather Iallgatherv Ialltoall Ialltoallv Ialltoallw Ireduce_scatter
Ireduce_scatter_block Iscan Iexscan
Op_create Op_free Op_commutative"""
_INIT = """Init Init_thread Finalize Initialized Finalized Abort Query_thread
Is_thread_main Get_version Get_library_version Get_processor_name Wtime Wtick
Alloc_mem Free_mem Pcontrol Aint_add Aint_diff"""
_ERR = """Comm_set_errhandler Comm_get_errhandler Comm_create_errhandler
Errhandler_free Comm_call_errhandler Error_string Error_class Add_error_class
Add_error_code Add_error_string"""
# Large-count (_c) forms implemented alongside the int forms.
_BIG = """Send Recv Isend Irecv Ssend Issend Rsend Irsend Bsend Ibsend Sendrecv
Sendrecv_replace Bcast Reduce Allreduce Gather Scatter Allgather Alltoall"""

# Attributes and keyvals (src/core/attr.c), with the MPI-1 forms, and Info objects
# (src/core/info.c).
_ATTR = """Comm_create_keyval Comm_free_keyval Comm_set_attr Comm_get_attr Comm_delete_attr
Type_create_keyval Type_free_keyval Type_set_attr Type_get_attr Type_delete_attr
Win_create_keyval Win_free_keyval Win_set_attr Win_get_attr Win_delete_attr
Keyval_create Keyval_free Attr_put Attr_get Attr_delete"""
_INFO = """Info_create Info_set Info_get Info_get_valuelen Info_get_string Info_delete
Info_dup Info_free Info_get_nkeys Info_get_nthkey Info_create_env"""


def _names(*blocks):
    return {"MPI_" + w for b in blocks for w in b.split()}


IMPLEMENTED = _names(_P2P, _REQ, _COMM, _GROUP, _COLL, _INIT, _ERR, _ATTR, _INFO) | \
    {n + "_c" for n in _names(_BIG)}

ANYTIME = _names("""Init Init_thread Initialized Finalized Get_version
Get_library_version Error_class Error_string Wtime Wtick Aint_add Aint_diff
Info_create Info_set Info_get Info_get_string Info_delete Info_dup Info_free
Info_get_nkeys Info_get_nthkey Info_get_valuelen Info_create_env
Session_init Session_finalize Session_get_info Session_get_num_psets
Session_get_nth_pset Session_get_pset_info Session_create_errhandler
Session_set_errhandler Session_get_errhandler Session_call_errhandler
Comm_create_errhandler Errhandler_free Status_c2f Status_f2c Status_c2f08 Status_f082c
Status_f2f08 Status_f082f Abort""") | {"MPI_T_*"}

NOCHECK = _names("Wtime Wtick Aint_add Aint_diff Pcontrol")

# Procedures whose core entry runs without the library lock (src/core/threads.h):
# MPI_Init_thread turns the lock on while it runs, MPI_Abort must not wait for
# a thread that holds it.  (Procedures bound to core_send and core_recv take it
# in their general paths, so that their fast paths stay lock-free.)
LIB_LOCK_FREE = _names("Init Init_thread Abort")
LIB_LOCK_FREE_ENTRIES = {"core_send", "core_recv"}

MEMBERS = {
    "Send": ("core_send", {"mode": "CR_MODE_STD"}),
    "Ssend": ("core_send", {"mode": "CR_MODE_SYNC"}),
    "Rsend": ("core_send", {"mode": "CR_MODE_READY"}),
    "Bsend": ("core_send", {"mode": "CR_MODE_BUFFERED"}),
    # MPI-1 names of datatype procedures (src/core/api_dt.h)
    "Type_hvector": ("core_type_create_hvector", {}),
    "Type_hindexed": ("core_type_create_hindexed", {}),
    "Type_struct": ("core_type_create_struct", {}),
    "Address": ("core_get_address", {}),
    # the int form has no large-count array
    "Type_get_contents": ("core_type_get_contents", {"max_large_counts": "0"}),
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

PARAM_NOTES = {
    ("MPI_Intercomm_create", "peer_comm"): "nullable",
    ("MPI_Intercomm_create", "local_leader"): "nocheck",
    ("MPI_Intercomm_create", "remote_leader"): "nocheck",
    ("MPI_Intercomm_create_from_groups", "local_leader"): "nocheck",
    ("MPI_Intercomm_create_from_groups", "remote_leader"): "nocheck",
    # a status may carry any tag, MPI_ANY_TAG included (mpi4py initialises
    # its Status objects with MPI_ANY_SOURCE and MPI_ANY_TAG)
    ("MPI_Status_set_tag", "tag"): "nocheck",
}

NOT_IN_ABI = _names("""Abi_get_fortran_booleans Abi_get_fortran_info Abi_get_info
Abi_get_version Abi_set_fortran_booleans Abi_set_fortran_info Buffer_flush Buffer_iflush
Comm_attach_buffer Comm_attach_buffer_c Comm_detach_buffer Comm_detach_buffer_c
Comm_flush_buffer Comm_iflush_buffer Session_attach_buffer Session_attach_buffer_c
Session_detach_buffer Session_detach_buffer_c Session_flush_buffer Session_iflush_buffer
Get_hw_resource_info Remove_error_class Remove_error_code Remove_error_string
Request_get_status_all Request_get_status_any Request_get_status_some Sizeof F_sync_reg
Comm_c2f Comm_f2c Errhandler_c2f Errhandler_f2c Group_c2f Group_f2c Message_c2f
Info_c2f Info_f2c Message_f2c Op_c2f Op_f2c Request_c2f Request_f2c Session_c2f Session_f2c Type_c2f
Type_f2c Win_c2f Win_f2c
Comm_fromint Comm_toint Errhandler_fromint Errhandler_toint File_fromint File_toint
Group_fromint Group_toint Info_fromint Info_toint Message_fromint Message_toint
Op_fromint Op_toint Request_fromint Request_toint Session_fromint Session_toint
Type_fromint Type_toint Win_fromint Win_toint""")

LEGACY = [
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
