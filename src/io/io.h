/* SPDX-License-Identifier: MIT */
/* MPI-IO internals (src/io): the file object, views and their layout trees,
 * hints, the POSIX layer, the access engine (independent, two-phase
 * collective, shared pointer) and the operations that run non-blocking and
 * collective accesses.  docs/io.md describes the design; src/io/api.h is the
 * layer's interface to the binding layer.
 *
 * Positions.  A view turns the file into a stream of data bytes: byte s of
 * the stream is byte r = s mod fsize of filetype instance k = s / fsize, which
 * lies at disp + k * fext + (r-th data byte of the filetype's type map).
 * File pointers and explicit offsets count etypes, i.e. stream position =
 * offset * esize.  Sizes here are the sizes in the file (external32 and
 * user data representations may differ from memory). */
#ifndef COURIER_IO_IO_H
#define COURIER_IO_IO_H
#include "core/core.h"
#include "core/info.h"
#include "io/api.h"

#include <stddef.h>
#include <stdint.h>

/* ---- hints (hints.c) ---------------------------------------------------------- */
enum { IO_AUTO = 0, IO_ENABLE = 1, IO_DISABLE = 2 };

/* The hints the engine uses.  Collective ones (cb_*) are rank 0's on every
 * rank: open, set_info and set_view broadcast them. */
typedef struct {
    long cb_buffer_size;      /* bytes of an aggregator's window per round */
    long cb_nodes;            /* aggregators; 0: cb_per_node per node */
    long cb_per_node;         /* aggregators per node when cb_nodes is 0; 0: every rank
                                 (setting io_cb_per_node; rank 0's, as every hint) */
    long cb_read, cb_write;   /* IO_AUTO / IO_ENABLE / IO_DISABLE */
    long ds_read, ds_write;   /* data sieving, the same */
    long ind_rd_buffer_size;  /* sieve window of independent reads */
    long ind_wr_buffer_size;  /* and writes */
    long direct_min_run;      /* automatic: runs this long go straight to the file */
    long coll_read_direct;    /* automatic: collective reads whose runs average this many
                                 bytes read each rank's own runs (no two-phase, no sieving) */
    long striping_factor;     /* accepted; reported back; 0 unset */
    long striping_unit;       /* aligns aggregators' domains when set */
    long no_indep_rw;         /* accepted (romio_no_indep_rw) */
    long file_perm;           /* mode of a created file (file_perm), -1: 0666 & ~umask */
} io_hints_t;

/* The keys and values the user gave that Courier keeps and reports back. */
typedef struct {
    int n, cap;
    char **keys, **vals;
} io_kv_t;

/* Defaults from the settings table. */
void io_hints_default(io_hints_t *h);
/* Read the keys of info (NULL: none) into h and remember the ones we report.
 * Values that cannot be used are ignored.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int io_hints_apply(io_hints_t *h, io_kv_t *kept, const cr_info_t *info, const char *fname);
void io_kv_free(io_kv_t *kv);
/* A new user info with the hints in use (MPI_File_get_info); cb_nodes is
 * the number of aggregators chosen. */
int io_hints_to_user(const io_hints_t *h, const io_kv_t *kept, int naggr, MPI_Info *out);

/* ---- layout trees and views (view.c) -------------------------------------------- */
/* The layout of one filetype instance in the file: a copy of the datatype's
 * loop tree (core/datatype.h) with the span of each repetition's data. */
typedef struct io_node {
    MPI_Aint off, count, stride;   /* as cr_dt_node_t */
    MPI_Aint size;                 /* data bytes of one repetition */
    MPI_Aint lo, hi;               /* data of one repetition lies in [base+lo, base+hi) */
    int run;                       /* one repetition is `size` bytes in a row at base+lo */
    int nkids;
    struct io_node *kids;
} io_node_t;

/* A run record: count blocks of len bytes, the i-th at off + i * stride (in
 * the file), in stream order.  count 1: one block (stride unused). */
typedef struct {
    int64_t off, len, stride, count;
} io_run_t;

typedef enum { IO_REP_NATIVE = 0, IO_REP_EXTERNAL32 = 1, IO_REP_USER = 2 } io_rep_kind_t;
typedef struct io_datarep io_datarep_t;

typedef struct {
    MPI_Offset disp;
    cr_datatype_t *etype, *filetype;   /* the user's types (references held) */
    io_rep_kind_t rep_kind;
    io_datarep_t *rep;                 /* user representations */
    char datarep[MPI_MAX_DATAREP_STRING];
    int64_t esize;                     /* bytes of one etype in the file */
    int64_t fsize;                     /* data bytes of one filetype instance */
    int64_t fext;                      /* extent of the filetype in the file */
    int contig;                        /* the stream is one run at disp + off0 */
    int vec;                           /* the stream is blocks of blen bytes at disp + off0 + */
    int64_t blen, bstride, off0;       /* b * bstride (b = 0, 1, ...); contig: blen == bstride */
    int monotonic;                     /* data offsets never decrease along the stream */
    io_node_t root;                    /* one filetype instance */
    int64_t span_lo, span_hi;          /* data of instance 0 lies in [span_lo, span_hi) */
    int64_t iblocks;                   /* blocks in one instance (estimates run lengths) */
} io_view_t;

/* Receives the coalesced run records of a walk, in stream order.  Returns 0,
 * or an error code that stops the walk. */
typedef struct io_sink {
    int (*put)(struct io_sink *s, const io_run_t *r);
    io_run_t cur;                      /* the record being extended */
    int err;
} io_sink_t;

/* The default view: etype = filetype = MPI_BYTE, displacement 0, native. */
void io_view_init_default(io_view_t *v);
void io_view_free(io_view_t *v);
/* Set v from the arguments of MPI_File_set_view (checked here: committed
 * types, a filetype made of etypes, type maps with non-negative, non-
 * decreasing displacements (MPI_ERR_IO), no overlap when writable, a known
 * representation). */
int io_view_set(io_view_t *v, MPI_Offset disp, cr_datatype_t *etype, cr_datatype_t *filetype,
                const char *datarep, int writable, const char *fname);
/* Walk stream bytes [pos, pos + len) of v: the sink gets their file runs. */
int io_view_walk(const io_view_t *v, int64_t pos, int64_t len, io_sink_t *sink);
/* File offset of stream byte pos. */
int64_t io_view_offset(const io_view_t *v, int64_t pos);
/* Stream position of the first data byte at file offset >= off (the number
 * of data bytes before off); only for monotonic views. */
int64_t io_view_pos(const io_view_t *v, int64_t off);
/* Bytes of one element of dt in the file under v's representation. */
int64_t io_view_type_size(const io_view_t *v, const cr_datatype_t *dt);
/* MPI_File_get_type_extent under v's representation. */
int io_view_type_extent(const io_view_t *v, cr_datatype_t *dt, MPI_Count *extent, const char *fname);

/* ---- data representations (datarep.c) ------------------------------------------------ */
struct io_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *read_fn, *write_fn;
    MPI_Datarep_conversion_function_c *read_fn_c, *write_fn_c;
    MPI_Datarep_extent_function *extent_fn;
    void *extra_state;
    struct io_datarep *next;
};
io_datarep_t *io_datarep_find(const char *name);
/* Bytes in the file of one element of the predefined type dt. */
int io_datarep_basic_size(io_rep_kind_t kind, io_datarep_t *rep, cr_datatype_t *dt, int64_t *out);
/* A datatype with dt's layout in the file under the representation: every
 * predefined type replaced by a block of its file size, counts scaled,
 * byte displacements kept (MPI 4.0 14.5.1).  *out is a committed handle the
 * caller frees. */
int io_datarep_layout(io_rep_kind_t kind, io_datarep_t *rep, MPI_Datatype dt, MPI_Datatype *out,
                      const char *fname);
/* Convert count elements of dt between memory and the file representation
 * (stream holds count * file size bytes): dir CR_DT_PACK writes the stream. */
int io_datarep_convert(const io_view_t *v, int dir, void *buf, MPI_Count count, cr_datatype_t *dt,
                       void *stream, const char *fname);

/* ---- the POSIX layer (fs.c) ------------------------------------------------------------ */
enum { IO_FS_POSIX = 0, IO_FS_TMPFS, IO_FS_NFS, IO_FS_LUSTRE, IO_FS_GPFS, IO_FS_OTHER_PARALLEL };
/* The file system that holds path (its directory when path does not exist). */
int io_fs_detect(const char *path);
const char *io_fs_name(int fs);
/* A filename without a ROMIO-style prefix ("ufs:", "nfs:", ...). */
const char *io_fs_strip_prefix(const char *name);
/* An MPI error code for errno e of operation what on path. */
int io_errno(int e, const char *fname, const char *what, const char *path);
/* Whole transfers: retry short transfers and EINTR.  pread stops at end of
 * file; *done receives the bytes moved.  Return 0 or an errno. */
int io_pwrite(int fd, const void *buf, size_t n, int64_t off);
int io_pread(int fd, void *buf, size_t n, int64_t off, size_t *done);
/* pwritev of n pieces (any n: IOV_MAX at a time), retried as io_pwrite;
 * the pieces are consumed (changed).  Returns 0 or an errno. */
struct iovec;
int io_pwritev(int fd, struct iovec *iov, int n, int64_t off);
/* Start the write-back of file bytes [off, off + len) to the device without
 * waiting for it (sync_file_range); a hint, errors ignored. */
void io_write_behind(int fd, int64_t off, int64_t len);
/* Ask the kernel to read file bytes [from, min(to, limit)) into the page
 * cache without waiting (posix_fadvise WILLNEED; a hint).  Returns the end
 * asked for (at least from). */
int64_t io_read_ahead(int fd, int64_t from, int64_t to, int64_t limit);
/* Byte-range locks (open file description locks where the kernel has them,
 * so two handles in one process exclude each other).  len 0: to the end. */
int io_lock(int fd, int write, int64_t off, int64_t len);
void io_unlock(int fd, int64_t off, int64_t len);

/* ---- the file object (file.c) ------------------------------------------------------------ */
typedef struct io_op io_op_t;

struct cr_file {
    MPI_File handle;
    int fd;
    int amode;
    int fs;                      /* IO_FS_* */
    char *path;                  /* as opened (prefix stripped) */
    cr_comm_t *comm;             /* private intracommunicator over the group */
    int rank, size;
    int atomic;
    int readable;                /* fd allows reads (data sieving of writes needs it) */
    int64_t fp_ind;              /* individual file pointer, etypes */
    io_view_t view;
    int any_noncontig;           /* some rank's view is not contiguous: it may sieve writes (set_view agrees) */
    io_hints_t hints;
    io_kv_t kept;                /* user hints reported back */
    cr_errhandler_t *errh;
    /* aggregators of two-phase I/O: comm ranks, one per node by default */
    int *node_of;                /* node number of each rank */
    int nnodes;
    int naggr, *aggr;
    /* shared file pointer: a hidden file with a lock (shared.c) */
    char *shfp_path;
    int shfp_fd;
    int64_t shfp_init;           /* its value before the first update, etypes */
    /* operations */
    io_op_t *coll_head, *coll_tail;   /* collective operations, started in order */
    int pending;                 /* outstanding non-blocking operations */
    io_op_t *split;              /* the split collective begun and not yet ended */
    int split_op;
};

/* Blocking collectives over the file's communicator (every rank calls). */
int io_coll_bcast(cr_file_t *fh, void *buf, size_t bytes, int root);
int io_coll_allgather(cr_file_t *fh, const int64_t *in, int n, int64_t *out);
int io_coll_max(cr_file_t *fh, int64_t *inout, int n);   /* in place, elementwise */
int io_coll_barrier(cr_file_t *fh);
/* Choose the aggregators again (after the hints changed). */
int io_file_update_aggregators(cr_file_t *fh, const char *fname);
/* Apply info here, then take rank 0's hints everywhere (collective). */
int io_hints_agree(cr_file_t *fh, cr_info_t *info, const char *fname);

/* Stream size in the file of count elements of dt, or an error for data
 * that is not a whole number of etypes. */
int io_access_bytes(cr_file_t *fh, MPI_Count count, cr_datatype_t *dt, int64_t *bytes,
                    const char *fname);

/* ---- transfers: the memory side (access.c) --------------------------------------------- */
/* One access: the user's buffer as the stream of `n` file bytes that goes to
 * (or comes from) view positions [vpos, vpos + n). */
typedef struct {
    cr_file_t *fh;
    int write;
    char *buf;
    MPI_Count count;
    cr_datatype_t *dt;           /* reference held while the transfer lives */
    char *conv;                  /* converted stream (non-native), else NULL */
    int64_t vpos, n;
    int64_t done;                /* bytes moved (reads: up to end of file) */
    int direct;                  /* run by run, never sieved (a collective chose it) */
} io_xfer_t;

/* Set up x (converting written data for non-native representations). */
int io_xfer_init(io_xfer_t *x, cr_file_t *fh, int write, const void *buf, MPI_Count count,
                 cr_datatype_t *dt, int64_t vpos, int64_t n, const char *fname);
/* Finish x: convert read data, drop buffers and the reference; fill st with
 * the count in memory bytes.  Returns err, or a conversion error. */
int io_xfer_finish(io_xfer_t *x, int err, MPI_Status *st, const char *fname);
/* Stream bytes [a, a + len) of x: a pointer into memory when they are one run
 * there, else NULL; or copied out of (pack) / into (unpack) contiguous bytes. */
char *io_mem_ptr(const io_xfer_t *x, int64_t a, int64_t len);
void io_mem_pack(const io_xfer_t *x, int64_t a, int64_t len, void *dst);
void io_mem_unpack(const io_xfer_t *x, int64_t a, int64_t len, const void *src);

/* Independent access of x (any view; sieving and locks as the hints and
 * atomic mode say).  Thread-safe with respect to the MPI state: it only does
 * file system calls and copies (the worker thread runs it). */
int io_indep(io_xfer_t *x, const char *fname);

/* Copy blocks of the records between a buffer holding file bytes [base, ...)
 * and a contiguous stream: dir 0 stream -> file buffer, 1 file buffer -> stream. */
void io_runs_copy(int dir, const io_run_t *r, int nr, char *fbuf, int64_t base, char *stream);
/* A sink that collects records into a growable array. */
typedef struct {
    io_sink_t s;
    io_run_t *v;
    int n, cap;
    int64_t bytes;               /* data bytes in the records */
} io_runvec_t;
void io_runvec_init(io_runvec_t *rv);
int io_runvec_finish(io_runvec_t *rv);   /* flush the pending record */
void io_runvec_free(io_runvec_t *rv);
/* Push one record into a sink, merging it into the pending one when it
 * continues it. */
int io_sink_push(io_sink_t *s, int64_t off, int64_t len, int64_t stride, int64_t count);
int io_sink_flush(io_sink_t *s);

/* ---- shared file pointer (shared.c) -------------------------------------------------------- */
/* Atomically: *old = pointer; pointer += delta (etypes). */
int io_shfp_fetch_add(cr_file_t *fh, int64_t delta, int64_t *old, const char *fname);
int io_shfp_set(cr_file_t *fh, int64_t value, const char *fname);
int io_shfp_get(cr_file_t *fh, int64_t *value, const char *fname);
/* The end of the file as an etype offset of fh's view (MPI_SEEK_END). */
int64_t io_view_eof_etypes(cr_file_t *fh);
/* Close this rank's descriptor of the hidden file (and remove the file). */
void io_shfp_close(cr_file_t *fh, int remove);

/* ---- operations (op.c) --------------------------------------------------------------------- */
/* A piece of work for the I/O helper thread: run() does file system calls
 * and copies only (no MPI call, no MPI state). */
typedef struct io_job {
    void (*run)(struct io_job *j);
    volatile int done;           /* set (release) when run() returned */
    int queued;                  /* handed to the thread, not yet seen finished */
    struct io_job *next;
} io_job_t;
/* Run j on the helper thread (setting io_worker); returns 1 when queued
 * there, 0 when it ran here (the thread is off or cannot start). */
int io_job_submit(io_job_t *j);
/* Run j here, in the calling thread (finished when this returns). */
void io_job_run(io_job_t *j);
/* Has j finished?  (The thread rings the process's doorbell after each job,
 * so a caller that waits for j with the waiting policy may sleep.) */
int io_job_finished(io_job_t *j);

/* One data access in flight: independent ones run at once or on the worker
 * thread, collective ones as a state machine advanced by the progress
 * engine's poller (blocking calls wait for it with the waiting policy). */
struct io_op {
    cr_file_t *fh;
    int op;                      /* CR_IO_* flags */
    io_xfer_t x;
    int64_t count_etypes;        /* ordered: this rank's etypes */
    const char *fname;
    int state;
    int err;
    int done;                    /* set (release) when complete */
    int queued;                  /* on its file's collective queue */
    MPI_Status status;
    cr_request_t *req;           /* the user's request, NULL for blocking calls */
    MPI_Request sub;             /* a collective of the file's communicator under way */
    int64_t *gath;               /* allgathered per-rank records */
    int64_t scratch[8];
    struct io_tp *tp;            /* two-phase state */
    io_job_t job;                /* the independent part (worker thread or inline) */
    int job_err;
    io_op_t *next;               /* file's collective queue */
    io_op_t *anext, *aprev;      /* the engine's list of active operations */
};

/* Start a data access; blocking calls wait for it here.  Independent
 * blocking accesses do not come here (access.c runs them directly). */
int io_op_start(io_op_t *op);
/* Wait (waiting policy) for op to finish; returns its error. */
int io_op_wait(io_op_t *op);
void io_op_free(io_op_t *op);
/* Finish every operation of fh still under way (close). */
void io_op_drain(cr_file_t *fh);
/* The worker thread, or inline when it is off: run op's independent part. */
void io_op_run_indep(io_op_t *op);
/* Make progress on every operation of the engine (poller). */
int io_progress(void);

/* ---- two-phase collective buffering (twophase.c) --------------------------------------- */
/* Collective part of op after the allgather of every rank's range: decide
 * (independent or two-phase) and set up op->tp.  Returns 1 when op goes
 * independent. */
int io_tp_setup(io_op_t *op);
/* Advance the rounds; returns 1 when finished (op->err set). */
int io_tp_advance(io_op_t *op);
void io_tp_free(io_op_t *op);
/* Per-rank summary of an access that ranks allgather before a collective. */
enum { IO_G_ST, IO_G_END, IO_G_BYTES, IO_G_RUNS, IO_G_FLAGS, IO_G_N };
/* NOMAP: this rank does not move the file's data through a mapping (not
 * tmpfs, not readable, or setting io_mmap off) */
enum { IO_GF_NONMONO = 1, IO_GF_ERR = 2, IO_GF_NOREAD = 4, IO_GF_NOMAP = 8 };
/* Non-contiguous accesses of fh go through a mapping (access.c). */
int io_mapped(const cr_file_t *fh);
void io_tp_summary(const io_xfer_t *x, int64_t out[IO_G_N]);

#endif
