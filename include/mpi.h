/* SPDX-License-Identifier: MIT */
/* Courier's public MPI header for C.
 *
 * Programs compiled with this header and programs compiled with MPICH's
 * (>= 3.1, libmpi.so.12) run on the same library: every handle value, every
 * constant, every type's size and the layout of MPI_Status follow the MPICH
 * ABI on x86_64.  tests/abi/ checks this value by value against MPICH's own
 * header.  The prototypes are generated: see mpi_proto.h and
 * maint/gen_bindings.py.
 */
#ifndef MPI_INCLUDED
#define MPI_INCLUDED
#define COURIER_MPI_H 1

#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

/* ---- identification ------------------------------------------------------ */
#define MPI_VERSION 4
#define MPI_SUBVERSION 0
#define COURIER 1
#define COURIER_VERSION_MAJOR 0
#define COURIER_VERSION_MINOR 1
#define COURIER_VERSION_PATCH 0
#ifndef COURIER_VERSION
#define COURIER_VERSION "0.1.0"
#endif
/* major * 10000 + minor * 100 + patch, for #if comparisons */
#define COURIER_NUMVERSION 100

#if defined(__GNUC__)
#define COURIER_API_PUBLIC __attribute__((visibility("default")))
#else
#define COURIER_API_PUBLIC
#endif

/* ---- basic types ---------------------------------------------------------- */
typedef long MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;
#define MPI_AINT_FMT_DEC_SPEC "%ld"
#define MPI_AINT_FMT_HEX_SPEC "%lx"

/* Handles are 32-bit integers (MPICH ABI): bits 31-30 storage, 29-26 kind. */
typedef int MPI_Comm;
typedef int MPI_Group;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef int MPI_Request;
typedef int MPI_Message;
typedef int MPI_Info;
typedef int MPI_Win;
typedef int MPI_Session;
/* Only its being a pointer matters to the ABI. */
typedef struct courier_file *MPI_File;
#define MPI_FILE_DEFINED 1

typedef struct MPI_Status {
    int count_lo;
    int count_hi_and_cancelled;
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
} MPI_Status;

/* The Fortran 2008 status, seen from C. */
typedef struct {
    MPI_Fint count_lo;
    MPI_Fint count_hi_and_cancelled;
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
} MPI_F08_status;

/* ---- null handles --------------------------------------------------------- */
#define MPI_COMM_NULL        ((MPI_Comm)0x04000000)
#define MPI_GROUP_NULL       ((MPI_Group)0x08000000)
#define MPI_DATATYPE_NULL    ((MPI_Datatype)0x0c000000)
#define MPI_ERRHANDLER_NULL  ((MPI_Errhandler)0x14000000)
#define MPI_OP_NULL          ((MPI_Op)0x18000000)
#define MPI_INFO_NULL        ((MPI_Info)0x1c000000)
#define MPI_WIN_NULL         ((MPI_Win)0x20000000)
#define MPI_REQUEST_NULL     ((MPI_Request)0x2c000000)
#define MPI_MESSAGE_NULL     ((MPI_Message)0x2c000000)
#define MPI_MESSAGE_NO_PROC  ((MPI_Message)0x6c000000)
#define MPI_SESSION_NULL     ((MPI_Session)0x38000000)
#define MPI_FILE_NULL        ((MPI_File)0)

/* ---- communicators, groups, infos ----------------------------------------- */
#define MPI_COMM_WORLD   ((MPI_Comm)0x44000000)
#define MPI_COMM_SELF    ((MPI_Comm)0x44000001)
#define MPI_GROUP_EMPTY  ((MPI_Group)0x48000000)
#define MPI_INFO_ENV     ((MPI_Info)0x5c000001)

/* Results of MPI_Comm_compare / MPI_Group_compare */
#define MPI_IDENT      0
#define MPI_CONGRUENT  1
#define MPI_SIMILAR    2
#define MPI_UNEQUAL    3

/* Split types for MPI_Comm_split_type */
#define MPI_COMM_TYPE_SHARED       1
#define MPI_COMM_TYPE_HW_GUIDED    2
#define MPI_COMM_TYPE_HW_UNGUIDED  3

/* ---- predefined datatypes --------------------------------------------------
 * Builtin datatypes carry their size in bits 15-8. */
/* C */
#define MPI_CHAR                ((MPI_Datatype)0x4c000101)
#define MPI_SIGNED_CHAR         ((MPI_Datatype)0x4c000118)
#define MPI_UNSIGNED_CHAR       ((MPI_Datatype)0x4c000102)
#define MPI_BYTE                ((MPI_Datatype)0x4c00010d)
#define MPI_WCHAR               ((MPI_Datatype)0x4c00040e)
#define MPI_SHORT               ((MPI_Datatype)0x4c000203)
#define MPI_UNSIGNED_SHORT      ((MPI_Datatype)0x4c000204)
#define MPI_INT                 ((MPI_Datatype)0x4c000405)
#define MPI_UNSIGNED            ((MPI_Datatype)0x4c000406)
#define MPI_LONG                ((MPI_Datatype)0x4c000807)
#define MPI_UNSIGNED_LONG       ((MPI_Datatype)0x4c000808)
#define MPI_LONG_LONG_INT       ((MPI_Datatype)0x4c000809)
#define MPI_LONG_LONG           MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG  ((MPI_Datatype)0x4c000819)
#define MPI_FLOAT               ((MPI_Datatype)0x4c00040a)
#define MPI_DOUBLE              ((MPI_Datatype)0x4c00080b)
#define MPI_LONG_DOUBLE         ((MPI_Datatype)0x4c00100c)
#define MPI_PACKED              ((MPI_Datatype)0x4c00010f)
#define MPI_LB                  ((MPI_Datatype)0x4c000010)
#define MPI_UB                  ((MPI_Datatype)0x4c000011)
/* C99 fixed size and others */
#define MPI_INT8_T              ((MPI_Datatype)0x4c000137)
#define MPI_INT16_T             ((MPI_Datatype)0x4c000238)
#define MPI_INT32_T             ((MPI_Datatype)0x4c000439)
#define MPI_INT64_T             ((MPI_Datatype)0x4c00083a)
#define MPI_UINT8_T             ((MPI_Datatype)0x4c00013b)
#define MPI_UINT16_T            ((MPI_Datatype)0x4c00023c)
#define MPI_UINT32_T            ((MPI_Datatype)0x4c00043d)
#define MPI_UINT64_T            ((MPI_Datatype)0x4c00083e)
#define MPI_C_BOOL              ((MPI_Datatype)0x4c00013f)
#define MPI_C_FLOAT_COMPLEX     ((MPI_Datatype)0x4c000840)
#define MPI_C_COMPLEX           MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX    ((MPI_Datatype)0x4c001041)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c002042)
#define MPI_AINT                ((MPI_Datatype)0x4c000843)
#define MPI_OFFSET              ((MPI_Datatype)0x4c000844)
#define MPI_COUNT               ((MPI_Datatype)0x4c000845)
/* C++ */
#define MPI_CXX_BOOL                ((MPI_Datatype)0x4c000133)
#define MPI_CXX_FLOAT_COMPLEX       ((MPI_Datatype)0x4c000834)
#define MPI_CXX_DOUBLE_COMPLEX      ((MPI_Datatype)0x4c001035)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c002036)
/* Pairs for MPI_MINLOC / MPI_MAXLOC: struct { value; int index; } */
#define MPI_FLOAT_INT           ((MPI_Datatype)0x8c000000)
#define MPI_DOUBLE_INT          ((MPI_Datatype)0x8c000001)
#define MPI_LONG_INT            ((MPI_Datatype)0x8c000002)
#define MPI_SHORT_INT           ((MPI_Datatype)0x8c000003)
#define MPI_LONG_DOUBLE_INT     ((MPI_Datatype)0x8c000004)
#define MPI_2INT                ((MPI_Datatype)0x4c000816)
/* Fortran */
#define MPI_CHARACTER           ((MPI_Datatype)0x4c00011a)
#define MPI_INTEGER             ((MPI_Datatype)0x4c00041b)
#define MPI_REAL                ((MPI_Datatype)0x4c00041c)
#define MPI_LOGICAL             ((MPI_Datatype)0x4c00041d)
#define MPI_COMPLEX             ((MPI_Datatype)0x4c00081e)
#define MPI_DOUBLE_PRECISION    ((MPI_Datatype)0x4c00081f)
#define MPI_2INTEGER            ((MPI_Datatype)0x4c000820)
#define MPI_2REAL               ((MPI_Datatype)0x4c000821)
#define MPI_DOUBLE_COMPLEX      ((MPI_Datatype)0x4c001022)
#define MPI_2DOUBLE_PRECISION   ((MPI_Datatype)0x4c001023)
#define MPI_REAL4               ((MPI_Datatype)0x4c000427)
#define MPI_COMPLEX8            ((MPI_Datatype)0x4c000828)
#define MPI_REAL8               ((MPI_Datatype)0x4c000829)
#define MPI_COMPLEX16           ((MPI_Datatype)0x4c00102a)
#define MPI_REAL16              ((MPI_Datatype)0x4c00102b)
#define MPI_COMPLEX32           ((MPI_Datatype)0x4c00202c)
#define MPI_INTEGER1            ((MPI_Datatype)0x4c00012d)
#define MPI_INTEGER2            ((MPI_Datatype)0x4c00022f)
#define MPI_INTEGER4            ((MPI_Datatype)0x4c000430)
#define MPI_INTEGER8            ((MPI_Datatype)0x4c000831)
#define MPI_INTEGER16           ((MPI_Datatype)0x4c001032)
/* Half precision (C _Float16 and bfloat16) */
#define MPIX_C_FLOAT16          ((MPI_Datatype)0x4c000246)
#define MPIX_BFLOAT16           ((MPI_Datatype)0x4c00024c)
/* Fortran types of later MPICH releases (the same ABI, their handles).
 * MPI_INTEGER16 above is MPI_DATATYPE_NULL in MPICH 4.0.2's header and has
 * its later releases' handle here: with MPI_LOGICAL16 defined, a null
 * MPI_INTEGER16 makes bindings that map a 16-byte boolean to a 16-byte
 * integer (mpi4py) fail; a program built against 4.0.2 passes the null
 * handle, which stays what it was. */
#define MPI_REAL2               ((MPI_Datatype)0x4c000226)
#define MPI_COMPLEX4            ((MPI_Datatype)0x4c00042e)
#define MPI_LOGICAL1            ((MPI_Datatype)0x4c000147)
#define MPI_LOGICAL2            ((MPI_Datatype)0x4c000248)
#define MPI_LOGICAL4            ((MPI_Datatype)0x4c000449)
#define MPI_LOGICAL8            ((MPI_Datatype)0x4c00084a)
#define MPI_LOGICAL16           ((MPI_Datatype)0x4c00104b)

/* Type classes for MPI_Type_match_size */
#define MPI_TYPECLASS_REAL     1
#define MPI_TYPECLASS_INTEGER  2
#define MPI_TYPECLASS_COMPLEX  3

/* Datatype constructors, as reported by MPI_Type_get_envelope */
enum courier_combiner {
    MPI_COMBINER_NAMED = 1,
    MPI_COMBINER_DUP = 2,
    MPI_COMBINER_CONTIGUOUS = 3,
    MPI_COMBINER_VECTOR = 4,
    MPI_COMBINER_HVECTOR_INTEGER = 5,
    MPI_COMBINER_HVECTOR = 6,
    MPI_COMBINER_INDEXED = 7,
    MPI_COMBINER_HINDEXED_INTEGER = 8,
    MPI_COMBINER_HINDEXED = 9,
    MPI_COMBINER_INDEXED_BLOCK = 10,
    MPI_COMBINER_STRUCT_INTEGER = 11,
    MPI_COMBINER_STRUCT = 12,
    MPI_COMBINER_SUBARRAY = 13,
    MPI_COMBINER_DARRAY = 14,
    MPI_COMBINER_F90_REAL = 15,
    MPI_COMBINER_F90_COMPLEX = 16,
    MPI_COMBINER_F90_INTEGER = 17,
    MPI_COMBINER_RESIZED = 18,
    MPI_COMBINER_HINDEXED_BLOCK = 19
};

/* Array distributions (MPI_Type_create_darray / subarray) */
#define MPI_ORDER_C               56
#define MPI_ORDER_FORTRAN         57
#define MPI_DISTRIBUTE_BLOCK      121
#define MPI_DISTRIBUTE_CYCLIC     122
#define MPI_DISTRIBUTE_NONE       123
#define MPI_DISTRIBUTE_DFLT_DARG  (-49767)

/* ---- reduction operations ------------------------------------------------- */
#define MPI_MAX     ((MPI_Op)0x58000001)
#define MPI_MIN     ((MPI_Op)0x58000002)
#define MPI_SUM     ((MPI_Op)0x58000003)
#define MPI_PROD    ((MPI_Op)0x58000004)
#define MPI_LAND    ((MPI_Op)0x58000005)
#define MPI_BAND    ((MPI_Op)0x58000006)
#define MPI_LOR     ((MPI_Op)0x58000007)
#define MPI_BOR     ((MPI_Op)0x58000008)
#define MPI_LXOR    ((MPI_Op)0x58000009)
#define MPI_BXOR    ((MPI_Op)0x5800000a)
#define MPI_MINLOC  ((MPI_Op)0x5800000b)
#define MPI_MAXLOC  ((MPI_Op)0x5800000c)
#define MPI_REPLACE ((MPI_Op)0x5800000d)
#define MPI_NO_OP   ((MPI_Op)0x5800000e)

/* ---- error handlers --------------------------------------------------------- */
#define MPI_ERRORS_ARE_FATAL  ((MPI_Errhandler)0x54000000)
#define MPI_ERRORS_RETURN     ((MPI_Errhandler)0x54000001)
#define MPI_ERRORS_ABORT      ((MPI_Errhandler)0x54000003)

/* ---- special ranks, tags, addresses ----------------------------------------- */
#define MPI_PROC_NULL   (-1)
#define MPI_ANY_SOURCE  (-2)
#define MPI_ROOT        (-3)
#define MPI_ANY_TAG     (-1)
#define MPI_UNDEFINED   (-32766)
#define MPI_KEYVAL_INVALID 0x24000000

#define MPI_BOTTOM           ((void *)0)
#define MPI_IN_PLACE         ((void *)-1)
/* MPI 4.1: a buffer for buffered sends that grows as needed (not in MPICH 4.0's ABI) */
#define MPI_BUFFER_AUTOMATIC ((void *)-2)
#define MPI_STATUS_IGNORE    ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE  ((MPI_Status *)1)
#define MPI_ERRCODES_IGNORE  ((int *)0)
#define MPI_ARGV_NULL        ((char **)0)
#define MPI_ARGVS_NULL       ((char ***)0)

/* Objects the library exports (src/binding/abi_symbols.c). */
extern int *const MPI_UNWEIGHTED COURIER_API_PUBLIC;
extern int *const MPI_WEIGHTS_EMPTY COURIER_API_PUBLIC;
extern MPI_Fint *MPI_F_STATUS_IGNORE COURIER_API_PUBLIC;
extern MPI_Fint *MPI_F_STATUSES_IGNORE COURIER_API_PUBLIC;
extern MPI_F08_status *MPI_F08_STATUS_IGNORE COURIER_API_PUBLIC;
extern MPI_F08_status *MPI_F08_STATUSES_IGNORE COURIER_API_PUBLIC;
/* Their storage, under MPICH's names (binaries built with MPICH refer to them). */
extern MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ COURIER_API_PUBLIC;
extern MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1] COURIER_API_PUBLIC;
extern int MPIR_F08_MPI_IN_PLACE COURIER_API_PUBLIC;
extern int MPIR_F08_MPI_BOTTOM COURIER_API_PUBLIC;

/* Fortran status as an array of MPI_Fint */
#define MPI_F_STATUS_SIZE  5
#define MPI_F_SOURCE       2
#define MPI_F_TAG          3
#define MPI_F_ERROR        4

/* ---- attribute keys ----------------------------------------------------------- */
#define MPI_TAG_UB            0x64400001
#define MPI_HOST              0x64400003
#define MPI_IO                0x64400005
#define MPI_WTIME_IS_GLOBAL   0x64400007
#define MPI_UNIVERSE_SIZE     0x64400009
#define MPI_LASTUSEDCODE      0x6440000b
#define MPI_APPNUM            0x6440000d
#define MPI_WIN_BASE          0x66000001
#define MPI_WIN_SIZE          0x66000003
#define MPI_WIN_DISP_UNIT     0x66000005
#define MPI_WIN_CREATE_FLAVOR 0x66000007
#define MPI_WIN_MODEL         0x66000009

/* ---- string lengths ------------------------------------------------------------- */
#define MPI_MAX_PROCESSOR_NAME          128
#define MPI_MAX_LIBRARY_VERSION_STRING  8192
#define MPI_MAX_ERROR_STRING            512
#define MPI_MAX_PORT_NAME               256
#define MPI_MAX_OBJECT_NAME             128
#define MPI_MAX_STRINGTAG_LEN           256
#define MPI_MAX_PSET_NAME_LEN           256
#define MPI_MAX_INFO_KEY                255
#define MPI_MAX_INFO_VAL                1024
#define MPI_MAX_DATAREP_STRING          128

/* ---- threads ------------------------------------------------------------------ */
#define MPI_THREAD_SINGLE      0
#define MPI_THREAD_FUNNELED    1
#define MPI_THREAD_SERIALIZED  2
#define MPI_THREAD_MULTIPLE    3

/* ---- topologies --------------------------------------------------------------- */
enum courier_topo_type { MPI_GRAPH = 1, MPI_CART = 2, MPI_DIST_GRAPH = 3 };

/* ---- one-sided ------------------------------------------------------------------- */
enum courier_win_flavor {
    MPI_WIN_FLAVOR_CREATE = 1,
    MPI_WIN_FLAVOR_ALLOCATE = 2,
    MPI_WIN_FLAVOR_DYNAMIC = 3,
    MPI_WIN_FLAVOR_SHARED = 4
};
enum courier_win_model { MPI_WIN_SEPARATE = 1, MPI_WIN_UNIFIED = 2 };
#define MPI_LOCK_EXCLUSIVE   234
#define MPI_LOCK_SHARED      235
#define MPI_MODE_NOCHECK     1024
#define MPI_MODE_NOSTORE     2048
#define MPI_MODE_NOPUT       4096
#define MPI_MODE_NOPRECEDE   8192
#define MPI_MODE_NOSUCCEED   16384

/* ---- buffered sends ------------------------------------------------------------ */
#define MPI_BSEND_OVERHEAD 96

/* ---- I/O --------------------------------------------------------------------- */
#define MPI_MODE_CREATE            1
#define MPI_MODE_RDONLY            2
#define MPI_MODE_WRONLY            4
#define MPI_MODE_RDWR              8
#define MPI_MODE_DELETE_ON_CLOSE   16
#define MPI_MODE_UNIQUE_OPEN       32
#define MPI_MODE_EXCL              64
#define MPI_MODE_APPEND            128
#define MPI_MODE_SEQUENTIAL        256
#define MPI_SEEK_SET               600
#define MPI_SEEK_CUR               602
#define MPI_SEEK_END               604
#define MPI_DISPLACEMENT_CURRENT   (-54278278)

/* ---- error classes ------------------------------------------------------------- */
#define MPI_SUCCESS                    0
#define MPI_ERR_BUFFER                 1
#define MPI_ERR_COUNT                  2
#define MPI_ERR_TYPE                   3
#define MPI_ERR_TAG                    4
#define MPI_ERR_COMM                   5
#define MPI_ERR_RANK                   6
#define MPI_ERR_ROOT                   7
#define MPI_ERR_GROUP                  8
#define MPI_ERR_OP                     9
#define MPI_ERR_TOPOLOGY               10
#define MPI_ERR_DIMS                   11
#define MPI_ERR_ARG                    12
#define MPI_ERR_UNKNOWN                13
#define MPI_ERR_TRUNCATE               14
#define MPI_ERR_OTHER                  15
#define MPI_ERR_INTERN                 16
#define MPI_ERR_IN_STATUS              17
#define MPI_ERR_PENDING                18
#define MPI_ERR_REQUEST                19
#define MPI_ERR_ACCESS                 20
#define MPI_ERR_AMODE                  21
#define MPI_ERR_BAD_FILE               22
#define MPI_ERR_CONVERSION             23
#define MPI_ERR_DUP_DATAREP            24
#define MPI_ERR_FILE_EXISTS            25
#define MPI_ERR_FILE_IN_USE            26
#define MPI_ERR_FILE                   27
#define MPI_ERR_INFO                   28
#define MPI_ERR_INFO_KEY               29
#define MPI_ERR_INFO_VALUE             30
#define MPI_ERR_INFO_NOKEY             31
#define MPI_ERR_IO                     32
#define MPI_ERR_NAME                   33
#define MPI_ERR_NO_MEM                 34
#define MPI_ERR_NOT_SAME               35
#define MPI_ERR_NO_SPACE               36
#define MPI_ERR_NO_SUCH_FILE           37
#define MPI_ERR_PORT                   38
#define MPI_ERR_QUOTA                  39
#define MPI_ERR_READ_ONLY              40
#define MPI_ERR_SERVICE                41
#define MPI_ERR_SPAWN                  42
#define MPI_ERR_UNSUPPORTED_DATAREP    43
#define MPI_ERR_UNSUPPORTED_OPERATION  44
#define MPI_ERR_WIN                    45
#define MPI_ERR_BASE                   46
#define MPI_ERR_LOCKTYPE               47
#define MPI_ERR_KEYVAL                 48
#define MPI_ERR_RMA_CONFLICT           49
#define MPI_ERR_RMA_SYNC               50
#define MPI_ERR_SIZE                   51
#define MPI_ERR_DISP                   52
#define MPI_ERR_ASSERT                 53
#define MPI_ERR_RMA_RANGE              55
#define MPI_ERR_RMA_ATTACH             56
#define MPI_ERR_RMA_SHARED             57
#define MPI_ERR_RMA_FLAVOR             58
#define MPI_T_ERR_MEMORY               59
#define MPI_T_ERR_NOT_INITIALIZED      60
#define MPI_T_ERR_CANNOT_INIT          61
#define MPI_T_ERR_INVALID_INDEX        62
#define MPI_T_ERR_INVALID_ITEM         63
#define MPI_T_ERR_INVALID_HANDLE       64
#define MPI_T_ERR_OUT_OF_HANDLES       65
#define MPI_T_ERR_OUT_OF_SESSIONS      66
#define MPI_T_ERR_INVALID_SESSION      67
#define MPI_T_ERR_CVAR_SET_NOT_NOW     68
#define MPI_T_ERR_CVAR_SET_NEVER       69
#define MPI_T_ERR_PVAR_NO_STARTSTOP    70
#define MPI_T_ERR_PVAR_NO_WRITE        71
#define MPI_T_ERR_PVAR_NO_ATOMIC       72
#define MPI_T_ERR_INVALID_NAME         73
#define MPI_T_ERR_INVALID              74
#define MPI_ERR_SESSION                75
#define MPI_ERR_PROC_ABORTED           76
#define MPI_ERR_VALUE_TOO_LARGE        77
#define MPI_T_ERR_NOT_SUPPORTED        78
/* MPI 4.1 and 5.0 classes that MPICH 4.0.2 lacks, with the values of MPICH's
 * later releases (its src/include/mpi.h.in): MPI_T_ERR_NOT_ACCESSIBLE (an
 * MPI_T call on a variable this process may not use), MPI_ERR_ERRHANDLER (an
 * invalid error handler), MPI_ERR_ABI (MPI_Abi_set_fortran_info / _booleans
 * after the first setting). */
#define MPI_T_ERR_NOT_ACCESSIBLE       79
#define MPI_ERR_ERRHANDLER             80
#define MPI_ERR_ABI                    81
#define MPI_ERR_LASTCODE               0x3fffffff

/* ---- callbacks --------------------------------------------------------------------
 * The standard's callback typedefs are generated into mpi_proto.h; this one was
 * removed from the standard but MPICH still declares it. */
typedef void (MPI_Handler_function)(MPI_Comm *, int *, ...);

/* Attribute copy / delete callbacks.  MPI_*_DUP_FN all name one exported
 * function, MPIR_Dup_fn, as MPICH's header does. */
int MPIR_Dup_fn(MPI_Comm comm, int keyval, void *extra_state, void *attr_in,
                void *attr_out, int *flag) COURIER_API_PUBLIC;
#define MPI_NULL_COPY_FN         ((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN       ((MPI_Delete_function *)0)
#define MPI_DUP_FN               MPIR_Dup_fn
#define MPI_COMM_NULL_COPY_FN    ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN  ((MPI_Comm_delete_attr_function *)0)
#define MPI_COMM_DUP_FN          ((MPI_Comm_copy_attr_function *)MPI_DUP_FN)
#define MPI_WIN_NULL_COPY_FN     ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN   ((MPI_Win_delete_attr_function *)0)
#define MPI_WIN_DUP_FN           ((MPI_Win_copy_attr_function *)MPI_DUP_FN)
#define MPI_TYPE_NULL_COPY_FN    ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN  ((MPI_Type_delete_attr_function *)0)
#define MPI_TYPE_DUP_FN          ((MPI_Type_copy_attr_function *)MPI_DUP_FN)
#define MPI_CONVERSION_FN_NULL   ((MPI_Datarep_conversion_function *)0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c *)0)

/* ---- the tools interface (MPI_T) --------------------------------------------------- */
typedef struct courier_t_enum *MPI_T_enum;
typedef struct courier_t_cvar_handle *MPI_T_cvar_handle;
typedef struct courier_t_pvar_handle *MPI_T_pvar_handle;
typedef struct courier_t_pvar_session *MPI_T_pvar_session;
typedef struct courier_t_event_registration *MPI_T_event_registration;
typedef struct courier_t_event_instance *MPI_T_event_instance;
extern struct courier_t_pvar_handle *const MPI_T_PVAR_ALL_HANDLES COURIER_API_PUBLIC;
#define MPI_T_ENUM_NULL          ((MPI_T_enum)NULL)
#define MPI_T_CVAR_HANDLE_NULL   ((MPI_T_cvar_handle)NULL)
#define MPI_T_PVAR_HANDLE_NULL   ((MPI_T_pvar_handle)NULL)
#define MPI_T_PVAR_SESSION_NULL  ((MPI_T_pvar_session)NULL)

enum courier_t_verbosity {
    MPI_T_VERBOSITY_USER_BASIC = 221,
    MPI_T_VERBOSITY_USER_DETAIL = 222,
    MPI_T_VERBOSITY_USER_ALL = 223,
    MPI_T_VERBOSITY_TUNER_BASIC = 224,
    MPI_T_VERBOSITY_TUNER_DETAIL = 225,
    MPI_T_VERBOSITY_TUNER_ALL = 226,
    MPI_T_VERBOSITY_MPIDEV_BASIC = 227,
    MPI_T_VERBOSITY_MPIDEV_DETAIL = 228,
    MPI_T_VERBOSITY_MPIDEV_ALL = 229
};
enum courier_t_bind {
    MPI_T_BIND_NO_OBJECT = 9700,
    MPI_T_BIND_MPI_COMM = 9701,
    MPI_T_BIND_MPI_DATATYPE = 9702,
    MPI_T_BIND_MPI_ERRHANDLER = 9703,
    MPI_T_BIND_MPI_FILE = 9704,
    MPI_T_BIND_MPI_GROUP = 9705,
    MPI_T_BIND_MPI_OP = 9706,
    MPI_T_BIND_MPI_REQUEST = 9707,
    MPI_T_BIND_MPI_WIN = 9708,
    MPI_T_BIND_MPI_MESSAGE = 9709,
    MPI_T_BIND_MPI_INFO = 9710
};
enum courier_t_scope {
    MPI_T_SCOPE_CONSTANT = 60438,
    MPI_T_SCOPE_READONLY = 60439,
    MPI_T_SCOPE_LOCAL = 60440,
    MPI_T_SCOPE_GROUP = 60441,
    MPI_T_SCOPE_GROUP_EQ = 60442,
    MPI_T_SCOPE_ALL = 60443,
    MPI_T_SCOPE_ALL_EQ = 60444
};
enum courier_t_pvar_class {
    MPI_T_PVAR_CLASS_STATE = 240,
    MPI_T_PVAR_CLASS_LEVEL = 241,
    MPI_T_PVAR_CLASS_SIZE = 242,
    MPI_T_PVAR_CLASS_PERCENTAGE = 243,
    MPI_T_PVAR_CLASS_HIGHWATERMARK = 244,
    MPI_T_PVAR_CLASS_LOWWATERMARK = 245,
    MPI_T_PVAR_CLASS_COUNTER = 246,
    MPI_T_PVAR_CLASS_AGGREGATE = 247,
    MPI_T_PVAR_CLASS_TIMER = 248,
    MPI_T_PVAR_CLASS_GENERIC = 249
};
typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE = 0,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1,
    MPI_T_CB_REQUIRE_THREAD_SAFE = 2,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
} MPI_T_cb_safety;
typedef enum MPI_T_source_order {
    MPI_T_SOURCE_ORDERED = 0,
    MPI_T_SOURCE_UNORDERED = 1
} MPI_T_source_order;

/* ---- handle conversion between C and Fortran: handles are the same integers ---- */
#define MPI_Comm_c2f(h)        ((MPI_Fint)(h))
#define MPI_Comm_f2c(h)        ((MPI_Comm)(h))
#define MPI_Type_c2f(h)        ((MPI_Fint)(h))
#define MPI_Type_f2c(h)        ((MPI_Datatype)(h))
#define MPI_Group_c2f(h)       ((MPI_Fint)(h))
#define MPI_Group_f2c(h)       ((MPI_Group)(h))
#define MPI_Info_c2f(h)        ((MPI_Fint)(h))
#define MPI_Info_f2c(h)        ((MPI_Info)(h))
#define MPI_Request_c2f(h)     ((MPI_Fint)(h))
#define MPI_Request_f2c(h)     ((MPI_Request)(h))
#define MPI_Op_c2f(h)          ((MPI_Fint)(h))
#define MPI_Op_f2c(h)          ((MPI_Op)(h))
#define MPI_Errhandler_c2f(h)  ((MPI_Fint)(h))
#define MPI_Errhandler_f2c(h)  ((MPI_Errhandler)(h))
#define MPI_Win_c2f(h)         ((MPI_Fint)(h))
#define MPI_Win_f2c(h)         ((MPI_Win)(h))
#define MPI_Message_c2f(h)     ((MPI_Fint)(h))
#define MPI_Message_f2c(h)     ((MPI_Message)(h))
#define MPI_Session_c2f(h)     ((MPI_Fint)(h))
#define MPI_Session_f2c(h)     ((MPI_Session)(h))
#define PMPI_Comm_c2f(h)       ((MPI_Fint)(h))
#define PMPI_Comm_f2c(h)       ((MPI_Comm)(h))
#define PMPI_Type_c2f(h)       ((MPI_Fint)(h))
#define PMPI_Type_f2c(h)       ((MPI_Datatype)(h))
#define PMPI_Group_c2f(h)      ((MPI_Fint)(h))
#define PMPI_Group_f2c(h)      ((MPI_Group)(h))
#define PMPI_Info_c2f(h)       ((MPI_Fint)(h))
#define PMPI_Info_f2c(h)       ((MPI_Info)(h))
#define PMPI_Request_c2f(h)    ((MPI_Fint)(h))
#define PMPI_Request_f2c(h)    ((MPI_Request)(h))
#define PMPI_Op_c2f(h)         ((MPI_Fint)(h))
#define PMPI_Op_f2c(h)         ((MPI_Op)(h))
#define PMPI_Errhandler_c2f(h) ((MPI_Fint)(h))
#define PMPI_Errhandler_f2c(h) ((MPI_Errhandler)(h))
#define PMPI_Win_c2f(h)        ((MPI_Fint)(h))
#define PMPI_Win_f2c(h)        ((MPI_Win)(h))
#define PMPI_Message_c2f(h)    ((MPI_Fint)(h))
#define PMPI_Message_f2c(h)    ((MPI_Message)(h))
#define PMPI_Session_c2f(h)    ((MPI_Fint)(h))
#define PMPI_Session_f2c(h)    ((MPI_Session)(h))

#if defined(__cplusplus)
}
#endif

/* Callback typedefs and the MPI_X / PMPI_X prototypes, generated. */
#include "mpi_proto.h"

#endif /* MPI_INCLUDED */
