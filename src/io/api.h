/* SPDX-License-Identifier: MIT */
/* The MPI-IO layer's interface to the binding layer (see src/core/api.h for
 * the conventions).  Files are cr_file_t objects (src/io/io.h); the binding
 * checks every MPI_File argument and raises errors on the file's error
 * handler (MPI_FILE_NULL's for open, delete and Register_datarep).
 *
 * Every data access procedure of chapter 14 calls core_file_access with a
 * fixed `op` (maint/notes.py MEMBERS): what it does (CR_IO_READ or
 * CR_IO_WRITE), which position it uses (CR_IO_AT: explicit offset,
 * CR_IO_INDIV: the individual file pointer, CR_IO_SHARED: the shared one)
 * and how the group takes part (0: independent, CR_IO_COLL: collective,
 * CR_IO_ORDERED: collective in rank order through the shared pointer,
 * CR_IO_SPLIT: the _begin of a split collective).  `how` is CR_BLOCKING or
 * CR_NONBLOCKING (MPI_File_i*: *request receives a request that completes
 * when the data has been moved).  The _end procedures call
 * core_file_split_end with the same op. */
#ifndef COURIER_IO_API_H
#define COURIER_IO_API_H
#include "core/core.h"
#include "core/info.h"

enum {
    CR_IO_READ = 0, CR_IO_WRITE = 1,
    CR_IO_AT = 0, CR_IO_INDIV = 2, CR_IO_SHARED = 4, CR_IO_PTRMASK = 6,
    CR_IO_COLL = 8, CR_IO_ORDERED = 16, CR_IO_SPLIT = 32
};

/* ---- files (file.c) -------------------------------------------------------------- */
/* Collective over comm (an intracommunicator); every rank opens or none does.
 * Errors: MPI_ERR_AMODE (not exactly one of RDONLY/WRONLY/RDWR, RDONLY with
 * CREATE or EXCL, RDWR with SEQUENTIAL), MPI_ERR_NO_SUCH_FILE, MPI_ERR_FILE_EXISTS
 * (EXCL), MPI_ERR_ACCESS, MPI_ERR_READ_ONLY, MPI_ERR_BAD_FILE, MPI_ERR_NO_SPACE,
 * MPI_ERR_COMM (an intercommunicator), MPI_ERR_IO. */
int core_file_open(cr_comm_t *comm, const char *filename, int amode, cr_info_t *info,
                   MPI_File *fh, const char *fname);
/* Collective: waits for nothing (pending operations are the user's error),
 * removes the file with MPI_MODE_DELETE_ON_CLOSE. */
int core_file_close(cr_file_t *fh);
int core_file_delete(const char *filename, cr_info_t *info);
/* Collective; set_size truncates or extends, preallocate only extends. */
int core_file_set_size(cr_file_t *fh, MPI_Offset size);
int core_file_preallocate(cr_file_t *fh, MPI_Offset size);
int core_file_get_size(cr_file_t *fh, MPI_Offset *size);
int core_file_get_group(cr_file_t *fh, MPI_Group *group);
int core_file_get_amode(cr_file_t *fh, int *amode);
int core_file_set_info(cr_file_t *fh, cr_info_t *info);
int core_file_get_info(cr_file_t *fh, MPI_Info *info_used);
/* Collective: flushes this process's writes to the storage device. */
int core_file_sync(cr_file_t *fh);
int core_file_set_atomicity(cr_file_t *fh, int flag);
int core_file_get_atomicity(cr_file_t *fh, int *flag);
/* Handle conversion for Fortran (MPI_File is a pointer in the MPICH ABI). */
int core_file_c2f(MPI_File file);
MPI_File core_file_f2c(MPI_Fint file);
/* MPI 5.0's handle serialization: the integer a Courier file handle holds
 * (MPI_FILE_NULL is 0), unchecked, as MPI_Comm_toint (core/api_comm.h). */
int core_file_toint(MPI_File file);
MPI_File core_file_fromint(int file);

/* ---- views (view.c) -------------------------------------------------------------- */
/* Collective; resets both file pointers to 0.  disp may be
 * MPI_DISPLACEMENT_CURRENT only with MPI_MODE_SEQUENTIAL. */
int core_file_set_view(cr_file_t *fh, MPI_Offset disp, cr_datatype_t *etype,
                       cr_datatype_t *filetype, const char *datarep, cr_info_t *info,
                       const char *fname);
/* Derived etype and filetype come back as new handles the caller frees. */
int core_file_get_view(cr_file_t *fh, MPI_Offset *disp, MPI_Datatype *etype,
                       MPI_Datatype *filetype, char *datarep);
int core_file_get_type_extent(cr_file_t *fh, cr_datatype_t *datatype, MPI_Count *extent,
                              const char *fname);
int core_register_datarep(const char *datarep,
                          MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_conversion_function_c *read_conversion_fn_c,
                          MPI_Datarep_conversion_function_c *write_conversion_fn_c,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state);

/* ---- data access (access.c) -------------------------------------------------------- */
/* offset: etypes, CR_IO_AT only (0 otherwise).  Blocking calls fill status
 * (the count in bytes of datatype's memory representation: fewer than asked
 * when a read meets the end of the file). */
int core_file_access(cr_file_t *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                     cr_datatype_t *datatype, MPI_Status *status, int op, cr_how_t how,
                     MPI_Request *request, const char *fname);
int core_file_split_end(cr_file_t *fh, const void *buf, MPI_Status *status, int op,
                        const char *fname);
/* Positions in etypes of the current view. */
int core_file_seek(cr_file_t *fh, MPI_Offset offset, int whence);
int core_file_get_position(cr_file_t *fh, MPI_Offset *offset);
int core_file_get_byte_offset(cr_file_t *fh, MPI_Offset offset, MPI_Offset *disp);
/* Collective (every rank the same offset and whence). */
int core_file_seek_shared(cr_file_t *fh, MPI_Offset offset, int whence);
int core_file_get_position_shared(cr_file_t *fh, MPI_Offset *offset);

#endif
