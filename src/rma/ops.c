/* SPDX-License-Identifier: MIT */
/* The communication calls: MPI_Put, MPI_Get, MPI_Accumulate,
 * MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap and their
 * request forms.  Each checks the epoch, the target and the datatypes, then
 * moves the data along the target's path (rma.h): loads and stores on mapped
 * memory, single copies with the shared-memory transport, or active messages
 * (am.c).  Accumulate-class operations hold the target's accumulate lock,
 * except those applied with the CPU's atomics (catomic windows: lock-free,
 * unless an origin is in bulk mode on the target; an exclusive lock epoch's
 * by the vector kernels; acc_elems) and those that go by the network's
 * atomics (net.c). */
#define _GNU_SOURCE
#include "rma/rma.h"
#include "rma/api.h"
#include "core/datatype.h"
#include "core/pvar.h"
#include "transport/shm/shm.h"
#include "util/settings.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#if defined(__linux__)
#include <linux/membarrier.h>
#endif
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

/* ---- datatype runs ---------------------------------------------------------------- */
typedef struct {
    void (*cb)(void *arg, MPI_Aint off, size_t len);
    void *arg;
    MPI_Aint off;      /* pending run */
    size_t len;
} runs_t;

static void run_emit(runs_t *r, MPI_Aint off, size_t len)
{
    if (!len) return;
    if (r->len && r->off + (MPI_Aint)r->len == off) {
        r->len += len;
        return;
    }
    if (r->len) r->cb(r->arg, r->off, r->len);
    r->off = off;
    r->len = len;
}

static void runs_node(runs_t *r, const cr_dt_node_t *n, MPI_Aint base)
{
    MPI_Aint p = base + n->off;
    for (MPI_Aint i = 0; i < n->count; i++, p += n->stride) {
        if (n->dense || !n->nkids) run_emit(r, p + n->doff, (size_t)n->size);
        else
            for (int k = 0; k < n->nkids; k++) runs_node(r, &n->kids[k], p);
    }
}

void rma_dt_runs(MPI_Aint count, const cr_datatype_t *dt,
                 void (*cb)(void *arg, MPI_Aint off, size_t len), void *arg)
{
    runs_t r = { cb, arg, 0, 0 };
    if (dt->contig) {
        run_emit(&r, dt->true_lb, (size_t)count * (size_t)dt->size);
    } else {
        for (MPI_Aint e = 0; e < count; e++) runs_node(&r, &cr_dt_desc(dt)->root, e * dt->extent);
    }
    if (r.len) cb(arg, r.off, r.len);
}

/* ---- moving data on mapped memory ---------------------------------------------------- */
int rma_copy_done(void *dst, const void *src, size_t n, int into_win)
{
    rma_copy_any(dst, src, n, into_win);
    return MPI_SUCCESS;
}

/* A large copy whose destination is not read again soon by this core: by
 * non-temporal (streaming) stores, 64 bytes at a time from a 64-byte aligned
 * destination, so that the destination's lines are written to memory without
 * first being read into the cache (a plain store reads each line in before
 * writing it: three memory transfers per line copied instead of two), and do
 * not push the caller's working set out of the caches.  The stores are
 * fenced before it returns: they are then ordered as plain ones. */
static void copy_nt(char *dst, const char *src, size_t n)
{
#if defined(__x86_64__)
    size_t head = (size_t)(-(uintptr_t)dst & 63);
    memcpy(dst, src, head);
    dst += head;
    src += head;
    n -= head;
    size_t body = n & ~(size_t)63;
    for (size_t i = 0; i < body; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(src + i + 48));
        _mm_stream_si128((__m128i *)(void *)(dst + i), a);
        _mm_stream_si128((__m128i *)(void *)(dst + i + 16), b);
        _mm_stream_si128((__m128i *)(void *)(dst + i + 32), c);
        _mm_stream_si128((__m128i *)(void *)(dst + i + 48), d);
    }
    memcpy(dst + body, src + body, n - body);
    _mm_sfence();
#else
    memcpy(dst, src, n);
#endif
}

/* rma_copy's other sizes (fast.h): 1, 2, 4 and 16 bytes by moves of their
 * own (both loads before the stores where there are two, so overlapping
 * buffers are safe as with memmove); a get's copy out of the window from
 * COURIER_RMA_COPY_NT_BYTES on, by copy_nt where the buffers do not overlap
 * (docs/performance.md, "RMA get bandwidth"); the rest by memmove.  A put
 * keeps the cache: its target reads the window next, through the shared
 * cache rather than from memory (non-temporal puts took the 1 MiB put
 * bandwidth from 35 to 28 GB/s, below Open MPI's 32). */
void rma_copy_any(void *dst, const void *src, size_t n, int into_win)
{
    switch (n) {
    case 1: __builtin_memcpy(dst, src, 1); return;
    case 2: __builtin_memcpy(dst, src, 2); return;
    case 4: __builtin_memcpy(dst, src, 4); return;
    case 16: {
        uint64_t a, b;
        __builtin_memcpy(&a, src, 8);
        __builtin_memcpy(&b, (const char *)src + 8, 8);
        __builtin_memcpy(dst, &a, 8);
        __builtin_memcpy((char *)dst + 8, &b, 8);
        return;
    }
    default: {
        size_t nt = ut_settings.rma_copy_nt_bytes;
        uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
        if (nt && n >= nt && !into_win && (d + n <= s || s + n <= d)) copy_nt(dst, src, n);
        else memmove(dst, src, n);
    }
    }
}

/* Copy `bytes` bytes of data from (src, scount, sdt) to (dst, dcount, ddt). */
static int dt_move(void *dst, MPI_Aint dcount, cr_datatype_t *ddt, const void *src,
                   MPI_Aint scount, cr_datatype_t *sdt, size_t bytes)
{
    if (CR_LIKELY(sdt->contig && ddt->contig)) {
        memmove((char *)dst + ddt->true_lb, (const char *)src + sdt->true_lb, bytes);
    } else if (ddt->contig) {
        cr_dt_pack(src, scount, sdt, (char *)dst + ddt->true_lb);
    } else if (sdt->contig) {
        cr_dt_unpack((const char *)src + sdt->true_lb, bytes, dst, dcount, ddt);
    } else {
        void *tmp = malloc(bytes ? bytes : 1);
        if (!tmp) return cr_error(MPI_ERR_NO_MEM, "no memory to copy %zu bytes", bytes);
        cr_dt_pack(src, scount, sdt, tmp);
        cr_dt_unpack(tmp, bytes, dst, dcount, ddt);
        free(tmp);
    }
    return MPI_SUCCESS;
}

void rma_acc_local(char *t, MPI_Aint tcount, cr_datatype_t *tdt, const cr_op_t *op,
                   const void *in, void *old)
{
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    if (bytes == 0) return;     /* nothing to combine (the op may not even apply) */
    int noop = op->handle == MPI_NO_OP;
    if (tdt->contig) {
        char *p = t + tdt->true_lb;
        if (old) memcpy(old, p, bytes);
        if (!noop) cr_op_apply_packed(op, tdt->basic, in, p, bytes);
        return;
    }
    char stack[256], *tmp = bytes <= sizeof stack ? stack : malloc(bytes);
    if (!tmp) cr_abort_job(1, "courier: out of memory in an accumulate");
    cr_dt_pack(t, tcount, tdt, tmp);
    if (old) memcpy(old, tmp, bytes);
    if (!noop) {
        cr_op_apply_packed(op, tdt->basic, in, tmp, bytes);
        cr_dt_unpack(tmp, bytes, t, tcount, tdt);
    }
    if (tmp != stack) free(tmp);
}

/* One element, of es bytes (1, 2, 4 or 8), updated by a compare-and-swap
 * loop of the CPU: the libfabric providers that execute atomics in software
 * (tcp;ofi_rxm, sockets) update each element with the same instructions, so
 * the two never lose each other's updates. */
#define ACC_CAS_LOOP(T)                                                                        \
    do {                                                                                       \
        T *w_ = (T *)(void *)p, c_ = __atomic_load_n(w_, __ATOMIC_SEQ_CST), n_;                 \
        for (;;) {                                                                             \
            memcpy(cur, &c_, sizeof c_);                                                       \
            memcpy(nxt, cur, es);                                                              \
            int write_ = cmp ? memcmp(cur, cmp, es) == 0 : !noop;                              \
            if (!write_) break;                                                                \
            if (cmp) memcpy(nxt, in, es);                                                      \
            else cr_op_apply_packed(op, b, in, nxt, es);                                       \
            memcpy(&n_, nxt, sizeof n_);                                                       \
            if (__atomic_compare_exchange_n(w_, &c_, n_, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) \
                break;                                                                         \
        }                                                                                      \
    } while (0)

/* The operations that have an instruction of their own (or a short loop
 * with native arithmetic): the common accumulates take no function call
 * per element. */
enum { FAST_NONE, FAST_LOAD, FAST_STORE, FAST_SWAP, FAST_CAS, FAST_ADD, FAST_AND, FAST_OR,
       FAST_XOR, FAST_FADD, FAST_DADD };

static int fast_kind(cr_basic_t b, size_t es, const cr_op_t *op, const char *in,
                     const char *cmp, const char *old)
{
    if (cmp) return FAST_CAS;
    if (!in || op->handle == MPI_NO_OP) return FAST_LOAD;
    if (op->handle == MPI_REPLACE) return old ? FAST_SWAP : FAST_STORE;
    int flt = b == CR_B_FLOAT || b == CR_B_DOUBLE || b == CR_B_F_REAL || b == CR_B_F_DOUBLE ||
              b == CR_B_F_REAL4 || b == CR_B_F_REAL8 || b == CR_B_FLOAT16 ||
              b == CR_B_BFLOAT16 || b == CR_B_F_REAL2;
    if (flt) {
        if (op->handle != MPI_SUM) return FAST_NONE;
        return es == 4 ? FAST_FADD : es == 8 ? FAST_DADD : FAST_NONE;
    }
    /* the op check let only integer types through to these */
    if (op->handle == MPI_SUM && b != CR_B_BOOL && b < CR_B_F_LOGICAL1 && b != CR_B_F_LOGICAL)
        return FAST_ADD;
    if (op->handle == MPI_BAND) return FAST_AND;
    if (op->handle == MPI_BOR) return FAST_OR;
    if (op->handle == MPI_BXOR) return FAST_XOR;
    return FAST_NONE;
}

#define ACC_FAST(T)                                                                            \
    for (size_t i_ = 0; i_ < n; i_++) {                                                        \
        T *q_ = (T *)(void *)(p + i_ * sizeof(T)), v_ = 0, r_ = 0;                             \
        if (in && kind != FAST_LOAD) memcpy(&v_, in + i_ * sizeof(T), sizeof(T));              \
        switch (kind) {                                                                        \
        case FAST_LOAD: r_ = __atomic_load_n(q_, __ATOMIC_SEQ_CST); break;                     \
        case FAST_STORE: __atomic_store_n(q_, v_, __ATOMIC_SEQ_CST); break;                    \
        case FAST_SWAP: r_ = __atomic_exchange_n(q_, v_, __ATOMIC_SEQ_CST); break;             \
        case FAST_CAS:                                                                         \
            memcpy(&r_, cmp + i_ * sizeof(T), sizeof(T));                                      \
            __atomic_compare_exchange_n(q_, &r_, v_, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);   \
            break;                                                                             \
        case FAST_ADD: r_ = __atomic_fetch_add(q_, v_, __ATOMIC_SEQ_CST); break;               \
        case FAST_AND: r_ = __atomic_fetch_and(q_, v_, __ATOMIC_SEQ_CST); break;               \
        case FAST_OR: r_ = __atomic_fetch_or(q_, v_, __ATOMIC_SEQ_CST); break;                 \
        case FAST_XOR: r_ = __atomic_fetch_xor(q_, v_, __ATOMIC_SEQ_CST); break;               \
        default: break;                                                                        \
        }                                                                                      \
        if (old) memcpy(old + i_ * sizeof(T), &r_, sizeof(T));                                 \
    }

/* Floating-point sums: a compare-and-swap loop on the bits, adding natively. */
#define ACC_FLOAT_ADD(F, T)                                                                    \
    for (size_t i_ = 0; i_ < n; i_++) {                                                        \
        T *q_ = (T *)(void *)(p + i_ * sizeof(T)), c_ = __atomic_load_n(q_, __ATOMIC_SEQ_CST), n_; \
        F v_, f_;                                                                              \
        memcpy(&v_, in + i_ * sizeof(T), sizeof(T));                                           \
        do {                                                                                   \
            memcpy(&f_, &c_, sizeof(T));                                                       \
            f_ += v_;                                                                          \
            memcpy(&n_, &f_, sizeof(T));                                                       \
        } while (!__atomic_compare_exchange_n(q_, &c_, n_, 0, __ATOMIC_SEQ_CST,                \
                                              __ATOMIC_SEQ_CST));                              \
        if (old) memcpy(old + i_ * sizeof(T), &c_, sizeof(T));                                 \
    }

void rma_acc_atomic_elems(char *p, size_t n, cr_basic_t b, const cr_op_t *op, const char *in,
                          const char *cmp, char *old)
{
    size_t es = cr_basic_size(b);
    int kind = fast_kind(b, es, op, in, cmp, old);
    if (kind == FAST_FADD) {
        ACC_FLOAT_ADD(float, uint32_t)
        return;
    }
    if (kind == FAST_DADD) {
        ACC_FLOAT_ADD(double, uint64_t)
        return;
    }
    if (kind != FAST_NONE) {
        switch (es) {
        case 1: ACC_FAST(uint8_t) break;
        case 2: ACC_FAST(uint16_t) break;
        case 4: ACC_FAST(uint32_t) break;
        default: ACC_FAST(uint64_t) break;
        }
        return;
    }
    int noop = !cmp && op->handle == MPI_NO_OP;
    for (size_t i = 0; i < n; i++, p += es) {
        char cur[8], nxt[8];
        switch (es) {
        case 1: ACC_CAS_LOOP(uint8_t); break;
        case 2: ACC_CAS_LOOP(uint16_t); break;
        case 4: ACC_CAS_LOOP(uint32_t); break;
        default: ACC_CAS_LOOP(uint64_t); break;
        }
        if (old) memcpy(old + i * es, cur, es);
        if (in) in += es;
        if (cmp) cmp += es;
    }
}
#undef ACC_CAS_LOOP
#undef ACC_FAST
#undef ACC_FLOAT_ADD

/* An accumulate-class operation on a target's mapped memory by the CPU's
 * atomics (w->catomic): element by element along the contiguous runs of the
 * target datatype, whose bytes in order are the packed streams. */
typedef struct {
    char *t;
    cr_basic_t b;
    const cr_op_t *op;
    const char *in, *cmp;
    char *old;
    size_t s;          /* stream offset of the next run */
} cpu_acc_t;

static void cpu_run(void *arg, MPI_Aint off, size_t len)
{
    cpu_acc_t *c = arg;
    size_t es = cr_basic_size(c->b);
    rma_acc_atomic_elems(c->t + off, len / es, c->b, c->op, c->in ? c->in + c->s : NULL,
                         c->cmp ? c->cmp + c->s : NULL, c->old ? c->old + c->s : NULL);
    c->s += len;
}

static inline __attribute__((always_inline)) void acc_cpu(char *t, MPI_Aint tcount,
                                                           cr_datatype_t *tdt,
                                                           const cr_op_t *op, const void *in,
                                                           const void *cmp, void *old)
{
    int noop = !cmp && op->handle == MPI_NO_OP;
    cpu_acc_t c = { t, tdt->basic, op, noop ? NULL : in, cmp, old, 0 };
    if (tdt->contig) cpu_run(&c, tdt->true_lb, (size_t)tcount * (size_t)tdt->size);
    else rma_dt_runs(tcount, tdt, cpu_run, &c);
}

/* ---- bulk accumulates (rma.h, docs/rma.md "Bulk accumulates") ------------------------------ */
enum { BULK_SPINS = 64 };     /* pauses between yields while waiting for a lock-free one */

static int mbar(int cmd)
{
#if defined(__linux__) && defined(__NR_membarrier)
    return (int)syscall(__NR_membarrier, cmd, 0, 0);
#else
    (void)cmd;
    return -1;
#endif
}

int rma_mbar_register(void)
{
    static int state;         /* 0: not tried; 1: registered; -1: not to be had */
#if defined(__linux__) && defined(__NR_membarrier)
    if (!state) {
        int q = mbar(MEMBARRIER_CMD_QUERY);
        state = q > 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
                        mbar(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0
                    ? 1
                    : -1;
    }
#else
    state = -1;
#endif
    return state == 1;
}

/* Enter bulk mode on t: count this origin in the target's bulk word, so
 * that every lock-free operation that starts from now on sees it and takes
 * the accumulate lock; make every process of the node pass a full memory
 * barrier, so that one whose lfseq store was still in its store buffer
 * when it read the bulk word 0 has made it visible; then wait until every
 * other origin of the node whose lfseq is odd has moved it on (its
 * operation is done).  After that no lock-free operation is in flight on
 * the target's elements, and none starts while the count holds. */
static void bulk_enter(cr_win_t *w, rma_target_t *t)
{
    __atomic_fetch_add(&t->ctl->bulk, 1, __ATOMIC_SEQ_CST);
#if defined(__linux__) && defined(__NR_membarrier)
    int rc = mbar(MEMBARRIER_CMD_GLOBAL_EXPEDITED);
#else
    int rc = -1;
#endif
    if (CR_UNLIKELY(rc != 0)) {
        /* registered at creation, so not expected: stay element-wise (an
         * origin that saw the count meanwhile took the lock, which is safe) */
        __atomic_fetch_sub(&t->ctl->bulk, 1, __ATOMIC_SEQ_CST);
        w->bulk_mb = 0;
        return;
    }
    for (int l = 0; l < w->nlocal; l++) {
        if (l == w->my_local) continue;
        volatile uint64_t *q = &rma_ctl_at(w, l)->lfseq;
        uint64_t s = __atomic_load_n(q, __ATOMIC_ACQUIRE);
        /* odd: inside a lock-free operation, which does not wait for anything */
        for (unsigned spins = 0; (s & 1) && __atomic_load_n(q, __ATOMIC_ACQUIRE) == s;) {
            if (++spins % BULK_SPINS == 0) sched_yield();
#if defined(__x86_64__) || defined(__i386__)
            else __builtin_ia32_pause();
#endif
        }
    }
    t->bulk = 1;
    w->nbulk++;
    w->stats.bulk_enter++;
    cr_pvar_rma[CR_PVAR_RMA_ACC_BULK_ENTRIES]++;
}

void rma_bulk_end(cr_win_t *w, int rank, int force)
{
    rma_target_t *t = &w->t[rank];
    if (t->bulk == 2 && !force) {     /* busy in this epoch: stay for the next */
        t->bulk = 1;
        return;
    }
    if (!t->bulk) return;
    t->bulk = 0;
    w->nbulk--;
    /* this origin's stores under the accumulate lock were released with it;
     * a lock-free operation that reads the count 0 sees them */
    __atomic_fetch_sub(&t->ctl->bulk, 1, __ATOMIC_RELEASE);
}

/* An accumulate-class operation on a mapped target of a catomic window (the
 * target datatype's base at `at`; bytes > 0).  In an exclusive lock epoch
 * (no other origin may access the target: MPI 4.1 12.5.3) operations on
 * several elements use the vector kernels on plain loads and stores at
 * once; in bulk mode on the target every operation goes under the
 * accumulate lock, by the vector kernels (compare-and-swap, one element, by
 * the CPU's); else the elements are updated lock-free by the CPU's atomics,
 * or under the accumulate lock while another origin is in bulk mode.  The
 * bytes of lock-free operations on several elements add up towards the
 * entry into bulk mode (COURIER_RMA_ACC_BULK_BYTES): entry costs about a
 * microsecond (the membarrier), as much as a few KiB of element-wise
 * updates, so an origin pays it only after it has spent as much. */
static __attribute__((noinline)) void acc_elems_slow(cr_win_t *w, rma_target_t *t, char *at,
                                                     MPI_Aint tcount, cr_datatype_t *tdt,
                                                     const cr_op_t *op, const void *in,
                                                     const void *cmp, void *old, int many)
{
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    if (many && w->bulk_ok) {
        if (t->lock == RMA_EXCL) {
            rma_acc_local(at, tcount, tdt, op, in, old);
            w->stats.acc_bulk++;
            cr_pvar_rma[CR_PVAR_RMA_ACC_VECTOR]++;
            return;
        }
        /* reads (MPI_NO_OP) are plain loads element by element: nothing to save */
        size_t limit = ut_settings.rma_acc_bulk_bytes;
        uint64_t *spent = &w->lf_bytes[t - w->t];
        if (!t->bulk && w->bulk_mb && limit && op->handle != MPI_NO_OP &&
            (*spent += bytes) >= limit) {
            *spent = 0;
            bulk_enter(w, t);
        }
    }
    if (t->bulk) {
        if (many) t->bulk = 2;      /* busy: stays in bulk mode at the epoch's end */
        rma_acc_lock(t->ctl);
        if (cmp) acc_cpu(at, tcount, tdt, op, in, cmp, old);
        else rma_acc_local(at, tcount, tdt, op, in, old);
        rma_acc_unlock(t->ctl);
        w->stats.acc_bulk++;
        cr_pvar_rma[CR_PVAR_RMA_ACC_VECTOR]++;
        return;
    }
    uint64_t seq = rma_lf_begin(w, t);
    if (CR_LIKELY(seq)) {
        acc_cpu(at, tcount, tdt, op, in, cmp, old);
        rma_lf_end(w, seq);
    } else {
        rma_acc_lock(t->ctl);
        acc_cpu(at, tcount, tdt, op, in, cmp, old);
        rma_acc_unlock(t->ctl);
    }
    w->stats.acc_cpu++;
}

/* acc_elems' common case inline (one element, or several on a window
 * without bulk mode, lock-free); the rest in acc_elems_slow */
static inline __attribute__((always_inline)) void acc_elems(cr_win_t *w, rma_target_t *t,
                                                            char *at, MPI_Aint tcount,
                                                            cr_datatype_t *tdt,
                                                            const cr_op_t *op, const void *in,
                                                            const void *cmp, void *old)
{
    int many = !cmp && (size_t)tcount * (size_t)tdt->size > cr_basic_size(tdt->basic);
    uint64_t seq;
    if (CR_LIKELY(!(many && w->bulk_ok) && !t->bulk) && (seq = rma_lf_begin(w, t)) != 0) {
        acc_cpu(at, tcount, tdt, op, in, cmp, old);
        rma_lf_end(w, seq);
        w->stats.acc_cpu++;
        return;
    }
    acc_elems_slow(w, t, at, tcount, tdt, op, in, cmp, old, many);
}

/* ---- cross-memory copies (RMA_CMA) ---------------------------------------------------- */
/* The runs of the target datatype go SHM_CMA_PIECES to one cross-memory
 * copy (a strided access of single elements is not a system call each). */
typedef struct {
    rma_target_t *t;
    MPI_Aint base;     /* offset of the target datatype's base from the key's address */
    char *stream;      /* packed bytes of the gathered runs */
    int write;
    tr_status_t st;
    int n;             /* runs gathered */
    size_t off[SHM_CMA_PIECES], len[SHM_CMA_PIECES], bytes;
} cma_t;

static void cma_flush(cma_t *c)
{
    if (c->n && c->st == TR_OK) c->st = shm_cma_copyv(&c->t->key, c->off, c->len, c->n, c->stream, c->write);
    c->stream += c->bytes;
    c->n = 0;
    c->bytes = 0;
}

static void cma_run(void *arg, MPI_Aint off, size_t len)
{
    cma_t *c = arg;
    if (c->n == SHM_CMA_PIECES) cma_flush(c);
    c->off[c->n] = (size_t)(c->base + off);
    c->len[c->n++] = len;
    c->bytes += len;
}

/* Move the packed stream to (write) or from the target's (tcount, tdt) at
 * offset `at` from its key. */
static int cma_move(rma_target_t *t, MPI_Aint at, MPI_Aint tcount, cr_datatype_t *tdt,
                    void *stream, int write)
{
    cma_t c = { .t = t, .base = at, .stream = stream, .write = write, .st = TR_OK };
    rma_dt_runs(tcount, tdt, cma_run, &c);
    cma_flush(&c);
    if (c.st == TR_OK) return MPI_SUCCESS;
    return cr_error(MPI_ERR_RMA_SHARED, "cannot %s the memory of process %d on this node "
                    "(cross-memory attach: %s)", write ? "write" : "read", t->world,
                    tr_status_str(c.st));
}

/* ---- checks ---------------------------------------------------------------------- */
/* The target of an operation: NULL for MPI_PROC_NULL (nothing to do). */
static int op_target(cr_win_t *w, int rank, rma_target_t **out)
{
    *out = NULL;
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (CR_UNLIKELY(rank < 0 || rank >= w->size))
        return cr_error(MPI_ERR_RANK, "target_rank=%d: not a rank of the window (size %d)", rank,
                        w->size);
    rma_target_t *t = &w->t[rank];
    if (CR_UNLIKELY(!(t->lock || t->posted || w->fence_open)))
        return cr_error(MPI_ERR_RMA_SYNC, "target_rank=%d: no access epoch to it is open on the "
                        "window (call MPI_Win_fence, MPI_Win_start, MPI_Win_lock or "
                        "MPI_Win_lock_all first)", rank);
    *out = t;
    /* On a window that spans nodes, other ranks' requests are served by this
     * rank's progress: a rank that only works on its own memory (a spin lock
     * by compare-and-swap on itself) must still serve them, or the holder of
     * the lock never gets to release it. */
    if (CR_UNLIKELY(w->am != NULL)) cr_progress();
    return MPI_SUCCESS;
}

/* Where (tcount, tdt) at target_disp lies: *at is the target datatype's base
 * as an address in this process (RMA_DIRECT), or as an offset from the
 * target's key (RMA_CMA), or the displacement in bytes (RMA_AM).  Checks the
 * range against the target's window (or attached regions). */
/* A displacement in bytes from the target's window base. */
static inline MPI_Aint target_disp_bytes(const rma_target_t *t, MPI_Aint disp)
{
    return disp * t->disp_unit;
}

/* The bytes [lo, hi) that (tcount, tdt) covers from its base. */
static void op_span(MPI_Aint tcount, const cr_datatype_t *tdt, MPI_Aint *lo, MPI_Aint *hi)
{
    *lo = *hi = 0;
    if (tcount > 0) {
        *lo = tdt->true_lb + (tdt->extent < 0 ? (tcount - 1) * tdt->extent : 0);
        *hi = tdt->true_lb + tdt->true_extent + (tdt->extent > 0 ? (tcount - 1) * tdt->extent : 0);
    }
}

static int op_range(cr_win_t *w, rma_target_t *t, int rank, MPI_Aint disp, MPI_Aint tcount,
                    cr_datatype_t *tdt, MPI_Aint *at)
{
    MPI_Aint lo, hi;
    op_span(tcount, tdt, &lo, &hi);
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        *at = disp;
        if (t->local < 0 || tcount == 0) return MPI_SUCCESS;   /* the target checks */
        rma_dyn_t *d = rma_dyn(w, t->local);
        uint64_t a = (uint64_t)(disp + lo), e = (uint64_t)(disp + hi);
        if (rma_dyn_covers(d, __atomic_load_n(&t->ctl->ndyn, __ATOMIC_ACQUIRE), a, e))
            return MPI_SUCCESS;
        return cr_error(MPI_ERR_RMA_RANGE, "target_disp=0x%lx: bytes [0x%lx, 0x%lx) are not in "
                        "memory rank %d attached to the dynamic window", (unsigned long)disp,
                        (unsigned long)a, (unsigned long)e, rank);
    }
    MPI_Aint off = target_disp_bytes(t, disp);
    if (CR_UNLIKELY(tcount > 0 && (off + lo < 0 || off + hi > t->size)))
        return cr_error(MPI_ERR_RMA_RANGE, "target_disp=%ld (disp_unit %ld) with %ld elements "
                        "covers bytes [%ld, %ld) of rank %d's window, which has %ld bytes",
                        (long)disp, (long)t->disp_unit, (long)tcount, (long)(off + lo),
                        (long)(off + hi), rank, (long)t->size);
    *at = t->path == RMA_DIRECT ? (MPI_Aint)(t->base + off) : off;
    return MPI_SUCCESS;
}

static int type_match(MPI_Count ocount, cr_datatype_t *odt, MPI_Count tcount, cr_datatype_t *tdt,
                      const char *what)
{
    MPI_Count ob = ocount * odt->size, tb = tcount * tdt->size;
    if (CR_UNLIKELY(ob != tb))
        return cr_error(MPI_ERR_TYPE, "the %s data is %lld bytes but the target's is %lld bytes "
                        "(the type signatures must match)", what, (long long)ob, (long long)tb);
    /* MPI_BYTE on either side matches any bytes, as in point-to-point between
     * processes of one architecture (MPICH and Open MPI take it too; mpi4py
     * puts unsigned chars into an MPI_BYTE window view). */
    if (CR_UNLIKELY(odt->basic != tdt->basic && odt->basic != CR_B_NONE && tdt->basic != CR_B_NONE &&
                    odt->basic != CR_B_BYTE && tdt->basic != CR_B_BYTE && ob > 0))
        return cr_error(MPI_ERR_TYPE, "the %s datatype %s and the target datatype %s are built "
                        "from different predefined types", what,
                        odt->name_builtin ? odt->name_builtin : "(derived)",
                        tdt->name_builtin ? tdt->name_builtin : "(derived)");
    return MPI_SUCCESS;
}

/* An accumulate-class operation's op and target type (count elements of it;
 * with none, nothing is combined and any predefined op goes, as in MPICH). */
static int acc_check(const cr_op_t *op, cr_datatype_t *tdt, MPI_Count count)
{
    if (CR_UNLIKELY(!op->builtin))
        return cr_error(MPI_ERR_OP, "op=0x%08x: one-sided accumulates take predefined ops only",
                        (unsigned)op->handle);
    if (CR_UNLIKELY(tdt->basic == CR_B_NONE && tdt->size > 0))
        return cr_error(MPI_ERR_TYPE, "the target datatype of an accumulate must be built from "
                        "one predefined type");
    return tdt->size > 0 && count > 0 ? cr_op_check(op, tdt) : MPI_SUCCESS;
}

/* The request of an R- form whose operation is already complete, or one that
 * the caller completes through its done flag. */
static int req_new(MPI_Request *request, int complete, cr_request_t **out)
{
    cr_request_t *r = cr_request_new(CR_REQ_SEND, 1);
    if (!r) return cr_error(MPI_ERR_NO_MEM, "no memory for a request");
    r->complete = complete;
    *request = r->handle;
    if (out) *out = r;
    return MPI_SUCCESS;
}

/* The origin's data as a packed stream: the buffer itself when contiguous. */
static const void *packed_of(const void *buf, MPI_Aint count, cr_datatype_t *dt, size_t bytes,
                             void **tmp)
{
    *tmp = NULL;
    if (dt->contig) return (const char *)buf + dt->true_lb;
    *tmp = malloc(bytes ? bytes : 1);
    if (*tmp) cr_dt_pack(buf, count, dt, *tmp);
    return *tmp;
}

/* A dynamic window's target on another node: the registered region that
 * holds (tcount, tdt) at address at, for the network's RMA; NULL when there
 * is none (active messages then). */
static int dyn_region(cr_win_t *w, int rank, MPI_Aint at, MPI_Aint tcount, cr_datatype_t *tdt,
                      const rma_dkey_t **d)
{
    MPI_Aint lo, hi;
    *d = NULL;
    if (!w->t[rank].dnet || tcount <= 0) return MPI_SUCCESS;
    op_span(tcount, tdt, &lo, &hi);
    return rma_net_dyn_find(w, rank, (uint64_t)(at + lo), (uint64_t)(at + hi), d);
}

/* Whether an operation to a target on another node goes by active messages
 * although the network could do it itself (rma_net_fragmented): one message
 * per COURIER_RMA_AM_CHUNK_BYTES then carries the packed data and the runs
 * (am.c). */
static int net_fragmented(cr_win_t *w, rma_target_t *t, MPI_Aint tcount, const cr_datatype_t *tdt,
                          int atomic)
{
    if (t->path != RMA_AM || !w->am || tdt->contig || (!atomic && !t->net && !t->dnet)) return 0;
    return rma_net_fragmented(tcount, tdt, atomic);
}

/* A target reached by cross-memory copies on a window with request rings:
 * the operation as a request that the target serves (shmam.c) when it is
 * small and contiguous at the target and the target is seen polling.  1
 * when it went so (*err says how), 0 when the caller does it by copies,
 * every earlier request to the target complete by then. */
static int sam_try(cr_win_t *w, int rank, int kind, MPI_Aint at, MPI_Aint tcount,
                   cr_datatype_t *tdt, const cr_op_t *op, const void *in, const void *cmp,
                   void *out, int *err)
{
    *err = MPI_SUCCESS;
    if (!w->sam) return 0;
    if (!tdt->contig) {
        *err = rma_sam_settle(w, rank);
        return 0;
    }
    return rma_sam_op(w, rank, kind, at + tdt->true_lb, (size_t)tcount * (size_t)tdt->size,
                      tdt->basic, op, in, cmp, out, err);
}

/* ---- put / get ----------------------------------------------------------------------- */
/* The direct path's common case, in few instructions: a target whose window
 * memory is mapped here (RMA_DIRECT) in an open access epoch, on a window
 * that is neither dynamic nor spans nodes (no requests of others to serve),
 * contiguous datatypes of the same basic kind on both sides, the same number
 * of bytes, all inside the target's window.  *at is the address of the
 * target's first byte.  Returns 0 for anything else (MPI_PROC_NULL and every
 * error included), which the general path then takes with its checks and
 * messages; where this returns 1 the general path would have done the same
 * copy (op_target, type_match, op_range and dt_move on contiguous types).
 * short_way checks these conditions for a target on path (RMA_DIRECT for
 * direct_fast, RMA_CMA for sam_fast); *off: the displacement's bytes from the
 * target's base, before the target datatype's lower bound. */
static inline __attribute__((always_inline)) int short_way(cr_win_t *w, int rank, int path,
                                                           MPI_Aint disp, MPI_Count ocount,
                                                           const cr_datatype_t *odt,
                                                           MPI_Count tcount,
                                                           const cr_datatype_t *tdt,
                                                           MPI_Aint *off, size_t *bytes)
{
    if (CR_UNLIKELY((unsigned)rank >= (unsigned)w->size)) return 0;
    const rma_target_t *t = &w->t[rank];
    /* t->fast: RMA_DIRECT on a window neither dynamic nor spanning nodes */
    if (CR_UNLIKELY((path == RMA_DIRECT ? !t->fast
                                        : (t->path != path || w->am != NULL ||
                                           w->flavor == MPI_WIN_FLAVOR_DYNAMIC)) ||
                    !(t->lock | t->posted | w->fence_open)))
        return 0;
    if (CR_UNLIKELY(!odt->contig || !tdt->contig || odt->basic != tdt->basic ||
                    tdt->true_extent != tdt->size))
        return 0;
    MPI_Count b = ocount * odt->size;
    if (CR_UNLIKELY(b != tcount * tdt->size || b <= 0)) return 0;
    MPI_Aint o = target_disp_bytes(t, disp);
    if (CR_UNLIKELY(o + tdt->true_lb < 0 || o + tdt->true_lb + (MPI_Aint)b > t->size)) return 0;
    *off = o;
    *bytes = (size_t)b;
    return 1;
}

static inline __attribute__((always_inline)) int direct_fast(cr_win_t *w, int rank, MPI_Aint disp,
                                                             MPI_Count ocount,
                                                             const cr_datatype_t *odt,
                                                             MPI_Count tcount,
                                                             const cr_datatype_t *tdt, char **at,
                                                             size_t *bytes)
{
    MPI_Aint o;
    if (!short_way(w, rank, RMA_DIRECT, disp, ocount, odt, tcount, tdt, &o, bytes)) return 0;
    *at = w->t[rank].base + o + tdt->true_lb;
    return 1;
}

/* The short way of MPI_Accumulate and MPI_Fetch_and_op: direct_fast's
 * conditions on a window whose accumulates on this node go by the CPU's
 * atomics (catomic), on an element type they cover.  The caller then runs
 * acc_check (on these operations the general way's first possible error,
 * the same one) and updates the elements at once, as acc_run's first branch
 * does through acc_cpu. */
static inline __attribute__((always_inline)) int acc_fast(cr_win_t *w, int rank, MPI_Aint disp,
                                                          MPI_Count ocount,
                                                          const cr_datatype_t *odt,
                                                          MPI_Count tcount,
                                                          const cr_datatype_t *tdt, char **at,
                                                          size_t *bytes)
{
    return w->catomic && rma_cpu_type(tdt->basic) &&
           direct_fast(w, rank, disp, ocount, odt, tcount, tdt, at, bytes);
}

/* acc_fast's update for MPI_Accumulate and MPI_Fetch_and_op: the op's check
 * (the general way's first possible error there, the same one), then the
 * elements at once by the CPU's atomics, counted as acc_run's first branch
 * counts them.  in: the origin's packed elements (ignored for MPI_NO_OP);
 * old: where the previous values go, or NULL. */
static inline int acc_fast_apply(cr_win_t *w, int rank, char *p, size_t n, cr_datatype_t *dt,
                                 MPI_Count count, const cr_op_t *op, const char *in, char *old)
{
    int err = acc_check(op, dt, count);
    if (CR_UNLIKELY(err)) return err;
    rma_target_t *t = &w->t[rank];
    const char *v = op->handle == MPI_NO_OP ? NULL : in;
    uint64_t seq;
    if (CR_LIKELY(n == cr_basic_size(dt->basic) && (seq = rma_lf_begin(w, t)) != 0)) {
        /* one element, lock-free (rma_lf_begin) */
        rma_acc_atomic_elems(p, 1, dt->basic, op, v, NULL, old);
        rma_lf_end(w, seq);
        w->stats.acc_cpu++;
        return MPI_SUCCESS;
    }
    /* several elements, or bulk mode: as acc_run would (maybe plain stores) */
    w->dstores |= RMA_DSTORES;
    acc_elems_slow(w, t, p - dt->true_lb, count, dt, op, v, NULL, old,
                   n > cr_basic_size(dt->basic));
    return MPI_SUCCESS;
}

static int put_general(const void *origin_addr, MPI_Count origin_count,
                       cr_datatype_t *origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, cr_datatype_t *target_datatype, cr_win_t *win,
                       cr_how_t how, MPI_Request *request);
static int get_general(void *origin_addr, MPI_Count origin_count, cr_datatype_t *origin_datatype,
                       int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                       cr_datatype_t *target_datatype, cr_win_t *win, cr_how_t how,
                       MPI_Request *request);

/* direct_fast's conditions for a target reached by copies on a window with
 * request rings (shmam.c), not dynamic, that spans no nodes: *off is the
 * target datatype's base as an offset from the target's key (what op_range
 * gives for RMA_CMA).  The caller then goes the way put_general and
 * get_general would: a request, or the copy. */
static inline __attribute__((always_inline)) int sam_fast(cr_win_t *w, int rank, MPI_Aint disp,
                                                          MPI_Count ocount,
                                                          const cr_datatype_t *odt,
                                                          MPI_Count tcount,
                                                          const cr_datatype_t *tdt,
                                                          MPI_Aint *off, size_t *bytes)
{
    if (CR_UNLIKELY(!w->sam)) return 0;
    return short_way(w, rank, RMA_CMA, disp, ocount, odt, tcount, tdt, off, bytes);
}

int core_put(const void *origin_addr, MPI_Count origin_count, cr_datatype_t *origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
             cr_datatype_t *target_datatype, cr_win_t *win, cr_how_t how,
             MPI_Request *request)
{
    char *at;
    size_t bytes;
    win->dstores |= RMA_DSTORES;     /* MPI_Win_flush's short way fences (fast.h) */
    rma_fast_remember(win);
    if (CR_LIKELY(how == CR_BLOCKING &&
                  direct_fast(win, target_rank, target_disp, origin_count, origin_datatype,
                              target_count, target_datatype, &at, &bytes))) {
        rma_copy(at, (const char *)origin_addr + origin_datatype->true_lb, bytes, 1);
        return MPI_SUCCESS;
    }
    MPI_Aint off;
    if (how == CR_BLOCKING && sam_fast(win, target_rank, target_disp, origin_count,
                                       origin_datatype, target_count, target_datatype, &off,
                                       &bytes)) {
        const char *src = (const char *)origin_addr + origin_datatype->true_lb;
        int err;
        if (!rma_sam_op(win, target_rank, RMA_SAM_PUT, off + target_datatype->true_lb, bytes,
                        target_datatype->basic, NULL, src, NULL, NULL, &err) && !err)
            err = cma_move(&win->t[target_rank], off, target_count, target_datatype, (void *)src,
                           1);
        return err;
    }
    return put_general(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, win, how, request);
}

int core_get(void *origin_addr, MPI_Count origin_count, cr_datatype_t *origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
             cr_datatype_t *target_datatype, cr_win_t *win, cr_how_t how,
             MPI_Request *request)
{
    char *at;
    size_t bytes;
    rma_fast_remember(win);
    if (CR_LIKELY(how == CR_BLOCKING &&
                  direct_fast(win, target_rank, target_disp, origin_count, origin_datatype,
                              target_count, target_datatype, &at, &bytes))) {
        rma_copy((char *)origin_addr + origin_datatype->true_lb, at, bytes, 0);
        return MPI_SUCCESS;
    }
    MPI_Aint off;
    if (how == CR_BLOCKING && sam_fast(win, target_rank, target_disp, origin_count,
                                       origin_datatype, target_count, target_datatype, &off,
                                       &bytes)) {
        char *dst = (char *)origin_addr + origin_datatype->true_lb;
        int err;
        if (!rma_sam_op(win, target_rank, RMA_SAM_GET, off + target_datatype->true_lb, bytes,
                        target_datatype->basic, NULL, NULL, NULL, dst, &err) && !err)
            err = cma_move(&win->t[target_rank], off, target_count, target_datatype, dst, 0);
        return err;
    }
    return get_general(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, win, how, request);
}

/* Every put: the checks with their messages, then the target's path. */
static __attribute__((noinline)) int put_general(const void *origin_addr, MPI_Count origin_count,
                                                 cr_datatype_t *origin_datatype, int target_rank,
                                                 MPI_Aint target_disp, MPI_Count target_count,
                                                 cr_datatype_t *target_datatype, cr_win_t *win,
                                                 cr_how_t how, MPI_Request *request)
{
    rma_target_t *t;
    MPI_Aint at;
    int err = op_target(win, target_rank, &t);
    if (CR_UNLIKELY(err)) return err;
    if (t) {
        size_t bytes = (size_t)origin_count * (size_t)origin_datatype->size;
        if ((err = type_match(origin_count, origin_datatype, target_count, target_datatype,
                              "origin")) ||
            (err = op_range(win, t, target_rank, target_disp, target_count, target_datatype, &at)))
            return err;
        if (CR_LIKELY(t->path == RMA_DIRECT)) {
            err = dt_move((char *)at, target_count, target_datatype, origin_addr, origin_count,
                          origin_datatype, bytes);
        } else {
            void *tmp;
            const void *p = packed_of(origin_addr, origin_count, origin_datatype, bytes, &tmp);
            if (!p && bytes) return cr_error(MPI_ERR_NO_MEM, "no memory to pack %zu bytes", bytes);
            const rma_dkey_t *d = NULL;
            int frag = net_fragmented(win, t, target_count, target_datatype, 0);
            if (t->path == RMA_CMA) {
                if (!sam_try(win, target_rank, RMA_SAM_PUT, at, target_count, target_datatype,
                             NULL, p, NULL, NULL, &err) && !err)
                    err = cma_move(t, at, target_count, target_datatype, (void *)p, 1);
            }
            else if (t->net && !frag)
                err = rma_net_move(win, target_rank, at, target_count, target_datatype, (void *)p,
                                   bytes, 1, NULL);
            else if (!frag &&
                     ((err = dyn_region(win, target_rank, at, target_count, target_datatype, &d)) ||
                      d)) {
                if (!err)
                    err = rma_net_move(win, target_rank, at - (MPI_Aint)d->base, target_count,
                                       target_datatype, (void *)p, bytes, 1, &d->key);
            } else
                err = rma_am_put(win, target_rank, p, bytes, at, target_count, target_datatype);
            free(tmp);
        }
        if (err) return err;
    }
    return how == CR_NONBLOCKING ? req_new(request, 1, NULL) : MPI_SUCCESS;
}

/* Every get: the checks with their messages, then the target's path. */
static __attribute__((noinline)) int get_general(void *origin_addr, MPI_Count origin_count,
                                                 cr_datatype_t *origin_datatype, int target_rank,
                                                 MPI_Aint target_disp, MPI_Count target_count,
                                                 cr_datatype_t *target_datatype, cr_win_t *win,
                                                 cr_how_t how, MPI_Request *request)
{
    rma_target_t *t;
    MPI_Aint at;
    int err = op_target(win, target_rank, &t);
    if (CR_UNLIKELY(err)) return err;
    if (!t) return how == CR_NONBLOCKING ? req_new(request, 1, NULL) : MPI_SUCCESS;
    size_t bytes = (size_t)origin_count * (size_t)origin_datatype->size;
    if ((err = type_match(origin_count, origin_datatype, target_count, target_datatype, "origin")) ||
        (err = op_range(win, t, target_rank, target_disp, target_count, target_datatype, &at)))
        return err;
    if (CR_LIKELY(t->path == RMA_DIRECT)) {
        err = dt_move(origin_addr, origin_count, origin_datatype, (char *)at, target_count,
                      target_datatype, bytes);
        if (err) return err;
        return how == CR_NONBLOCKING ? req_new(request, 1, NULL) : MPI_SUCCESS;
    }
    int contig = origin_datatype->contig;
    char *stream = contig ? (char *)origin_addr + origin_datatype->true_lb : malloc(bytes ? bytes : 1);
    if (!stream && bytes) return cr_error(MPI_ERR_NO_MEM, "no memory for %zu bytes", bytes);
    const rma_dkey_t *d = NULL;
    int frag = net_fragmented(win, t, target_count, target_datatype, 0);
    if (t->path == RMA_CMA) {
        if (!sam_try(win, target_rank, RMA_SAM_GET, at, target_count, target_datatype, NULL, NULL,
                     NULL, stream, &err) && !err)
            err = cma_move(t, at, target_count, target_datatype, stream, 0);
    } else if (t->net && !frag) {
        err = rma_net_move(win, target_rank, at, target_count, target_datatype, stream, bytes, 0,
                           NULL);
    } else if (!frag &&
               ((err = dyn_region(win, target_rank, at, target_count, target_datatype, &d)) || d)) {
        if (!err)
            err = rma_net_move(win, target_rank, at - (MPI_Aint)d->base, target_count,
                               target_datatype, stream, bytes, 0, &d->key);
    } else {
        volatile int done = 0;
        err = rma_am_get(win, target_rank, stream, bytes, at, target_count, target_datatype, &done);
        if (!err) rma_wait_flag(&done);
    }
    if (!err && !contig) cr_dt_unpack(stream, bytes, origin_addr, origin_count, origin_datatype);
    if (!contig) free(stream);
    if (err) return err;
    return how == CR_NONBLOCKING ? req_new(request, 1, NULL) : MPI_SUCCESS;
}

/* ---- accumulates ----------------------------------------------------------------------- */
/* The accumulate-class core: combine the packed stream in into the target's
 * (tcount, tdt) at `at` with op (or compare-and-swap with cmp), the old
 * values to old (packed, may be NULL).  defer: old is the caller's result
 * buffer itself and may be filled as late as the next flush (a blocking
 * form's; rma_net_acc). */
static int acc_run(cr_win_t *win, rma_target_t *t, int rank, MPI_Aint at, MPI_Aint tcount,
                   cr_datatype_t *tdt, const cr_op_t *op, const void *in, const void *cmp,
                   void *old, int defer)
{
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    if (t->path == RMA_DIRECT && win->catomic && rma_cpu_type(tdt->basic)) {
        /* every origin of this node, and the target's own handler, by the
         * CPU's atomics (the network's, other nodes, are the CPU's too), or
         * by the vector kernels where no other origin can be updating the
         * same elements lock-free (acc_elems) */
        if (bytes) acc_elems(win, t, (char *)at, tcount, tdt, op, in, cmp, old);
        else win->stats.acc_cpu++;
        return MPI_SUCCESS;
    }
    if (t->path == RMA_DIRECT && win->cself && rma_net_atomic_type(win, tdt->basic)) {
        /* cself: only this rank on its own memory, by the CPU's atomics, on
         * the types every other origin updates by the network's atomics */
        if (bytes) acc_cpu((char *)at, tcount, tdt, op, in, cmp, old);
        win->stats.acc_cpu++;
        return MPI_SUCCESS;
    }
    if (t->nacc_open) {
        /* plain accumulates still in flight to this target complete first
         * (accumulate ordering: this one may touch the same elements) */
        t->nacc_open = 0;
        int err = rma_net_drain(win, rank);
        if (err) return err;
    }
    int natomic = win->natomic && rma_net_atomic_type(win, tdt->basic);
    if (natomic && !net_fragmented(win, t, tcount, tdt, 1)) {
        /* every origin, this one too, by the network's atomics (net.c),
         * after this origin's requests to the target (accumulate ordering) */
        int err = rma_sam_settle(win, rank);
        if (err) return err;
        MPI_Aint off = t->path == RMA_DIRECT ? at - (MPI_Aint)(uintptr_t)t->base : at;
        return rma_net_acc(win, rank, off, tcount, tdt, op, in, cmp, old, defer);
    }
    if (t->path == RMA_AM) {
        volatile int done = 0;
        void *buf = cmp ? malloc(2 * bytes) : NULL;
        if (cmp) {
            if (!buf) return cr_error(MPI_ERR_NO_MEM, "no memory");
            memcpy(buf, in, bytes);
            memcpy((char *)buf + bytes, cmp, bytes);
        }
        int err = rma_am_acc(win, rank, cmp ? buf : in, cmp ? 2 * bytes : bytes, old, at,
                             tcount, tdt, op, cmp != NULL, old ? &done : NULL);
        if (!err && old) rma_wait_flag(&done);
        /* done at the target before this origin's next network atomic on
         * the same elements can overtake it (accumulate ordering) */
        if (!err && natomic && !old) err = rma_am_flush(win, rank);
        free(buf);
        return err;
    }
    int err = MPI_SUCCESS;
    if (t->path == RMA_CMA &&
        (sam_try(win, rank, RMA_SAM_ACC, at, tcount, tdt, op, in, cmp, old, &err) || err))
        return err;
    rma_acc_lock(t->ctl);
    if (t->path == RMA_DIRECT && !cmp) {
        rma_acc_local((char *)at, tcount, tdt, op, in, old);
    } else {
        char stack[256], *cur = bytes <= sizeof stack ? stack : malloc(bytes);
        if (!cur) {
            rma_acc_unlock(t->ctl);
            return cr_error(MPI_ERR_NO_MEM, "no memory");
        }
        if (t->path == RMA_DIRECT) cr_dt_pack((char *)at, tcount, tdt, cur);
        else err = cma_move(t, at, tcount, tdt, cur, 0);
        int write = 0;
        if (!err) {
            if (old) memcpy(old, cur, bytes);
            if (cmp) {
                write = memcmp(cur, cmp, bytes) == 0;
                if (write) memcpy(cur, in, bytes);
            } else if (op->handle != MPI_NO_OP) {
                cr_op_apply_packed(op, tdt->basic, in, cur, bytes);
                write = 1;
            }
        }
        if (!err && write) {
            if (t->path == RMA_DIRECT) cr_dt_unpack(cur, bytes, (char *)at, tcount, tdt);
            else err = cma_move(t, at, tcount, tdt, cur, 1);
        }
        if (cur != stack) free(cur);
    }
    rma_acc_unlock(t->ctl);
    return err;
}

int core_accumulate(const void *origin_addr, MPI_Count origin_count,
                    cr_datatype_t *origin_datatype, int target_rank, MPI_Aint target_disp,
                    MPI_Count target_count, cr_datatype_t *target_datatype, cr_op_t *op,
                    cr_win_t *win, cr_how_t how, MPI_Request *request)
{
    rma_target_t *t;
    MPI_Aint at;
    char *p;
    size_t n;
    if (CR_LIKELY(how == CR_BLOCKING &&
                  acc_fast(win, target_rank, target_disp, origin_count, origin_datatype,
                           target_count, target_datatype, &p, &n))) {
        return acc_fast_apply(win, target_rank, p, n, target_datatype, target_count, op,
                              (const char *)origin_addr + origin_datatype->true_lb, NULL);
    }
    win->dstores |= RMA_DSTORES;     /* maybe plain stores (fast.h) */
    int err = op_target(win, target_rank, &t);
    if (CR_UNLIKELY(err)) return err;
    if (t) {
        size_t bytes = (size_t)origin_count * (size_t)origin_datatype->size;
        if ((err = acc_check(op, target_datatype, target_count)) ||
            (err = type_match(origin_count, origin_datatype, target_count, target_datatype,
                              "origin")) ||
            (err = op_range(win, t, target_rank, target_disp, target_count, target_datatype, &at)))
            return err;
        void *tmp;
        const void *in = packed_of(origin_addr, origin_count, origin_datatype, bytes, &tmp);
        if (!in && bytes) return cr_error(MPI_ERR_NO_MEM, "no memory to pack %zu bytes", bytes);
        err = acc_run(win, t, target_rank, at, target_count, target_datatype, op, in, NULL, NULL,
                      1);
        free(tmp);
        if (err) return err;
    }
    return how == CR_NONBLOCKING ? req_new(request, 1, NULL) : MPI_SUCCESS;
}

int core_get_accumulate(const void *origin_addr, MPI_Count origin_count,
                        cr_datatype_t *origin_datatype, void *result_addr,
                        MPI_Count result_count, cr_datatype_t *result_datatype,
                        int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                        cr_datatype_t *target_datatype, cr_op_t *op, cr_win_t *win,
                        cr_how_t how, MPI_Request *request)
{
    rma_target_t *t;
    MPI_Aint at;
    win->dstores |= RMA_DSTORES;     /* maybe plain stores (fast.h) */
    int err = op_target(win, target_rank, &t);
    if (CR_UNLIKELY(err)) return err;
    if (!(op->handle == MPI_NO_OP) &&
        (!origin_datatype || !origin_datatype->committed))   /* the binding leaves it to us */
        return cr_error(MPI_ERR_TYPE, "origin_datatype: %s (only MPI_NO_OP ignores it)",
                        origin_datatype ? "not committed" : "not a valid datatype "
                        "(MPI_DATATYPE_NULL or freed)");
    if (t) {
        int noop = op->handle == MPI_NO_OP;
        size_t bytes = (size_t)target_count * (size_t)target_datatype->size;
        if ((err = acc_check(op, target_datatype, target_count)) ||
            (!noop && (err = type_match(origin_count, origin_datatype, target_count,
                                        target_datatype, "origin"))) ||
            (err = type_match(result_count, result_datatype, target_count, target_datatype,
                              "result")) ||
            (err = op_range(win, t, target_rank, target_disp, target_count, target_datatype, &at)))
            return err;
        void *tmp = NULL;
        const void *in = noop ? NULL : packed_of(origin_addr, origin_count, origin_datatype,
                                                 bytes, &tmp);
        int rcontig = result_datatype->contig;
        char *old = rcontig ? (char *)result_addr + result_datatype->true_lb
                            : malloc(bytes ? bytes : 1);
        if (bytes && ((!noop && !in) || !old)) {
            free(tmp);
            if (!rcontig) free(old);
            return cr_error(MPI_ERR_NO_MEM, "no memory for %zu bytes", bytes);
        }
        err = acc_run(win, t, target_rank, at, target_count, target_datatype, op, in, NULL, old,
                      rcontig && how != CR_NONBLOCKING);
        if (!err && !rcontig) cr_dt_unpack(old, bytes, result_addr, result_count, result_datatype);
        free(tmp);
        if (!rcontig) free(old);
        if (err) return err;
    }
    return how == CR_NONBLOCKING ? req_new(request, 1, NULL) : MPI_SUCCESS;
}

int core_fetch_and_op(const void *origin_addr, void *result_addr, cr_datatype_t *datatype,
                      int target_rank, MPI_Aint target_disp, cr_op_t *op, cr_win_t *win)
{
    rma_target_t *t;
    MPI_Aint at;
    char *p;
    size_t n;
    if (CR_LIKELY(datatype->builtin && acc_fast(win, target_rank, target_disp, 1, datatype, 1,
                                                datatype, &p, &n))) {
        /* origin_addr and result_addr are the packed streams, as in acc_cpu */
        return acc_fast_apply(win, target_rank, p, n, datatype, 1, op, origin_addr, result_addr);
    }
    win->dstores |= RMA_DSTORES;     /* maybe plain stores (fast.h) */
    int err = op_target(win, target_rank, &t);
    if (CR_UNLIKELY(err) || !t) return err;
    if (CR_UNLIKELY(!datatype->builtin))
        return cr_error(MPI_ERR_TYPE, "MPI_Fetch_and_op takes a predefined datatype");
    if ((err = acc_check(op, datatype, 1)) ||
        (err = op_range(win, t, target_rank, target_disp, 1, datatype, &at)))
        return err;
    if (datatype->contig)
        return acc_run(win, t, target_rank, at, 1, datatype, op, origin_addr, NULL, result_addr,
                       1);
    /* pairs with padding (MPI_SHORT_INT): the operation works on packed values */
    char in[64], old[64];
    if ((size_t)datatype->size > sizeof in)
        return cr_error(MPI_ERR_TYPE, "MPI_Fetch_and_op: a %ld-byte element is too large",
                        (long)datatype->size);
    if (op->handle != MPI_NO_OP) cr_dt_pack(origin_addr, 1, datatype, in);
    err = acc_run(win, t, target_rank, at, 1, datatype, op, in, NULL, old, 0);
    if (!err) cr_dt_unpack(old, (size_t)datatype->size, result_addr, 1, datatype);
    return err;
}

/* The types MPI_Compare_and_swap takes: predefined integers, logicals and
 * bytes (not floating point, complex or pairs). */
static inline int cas_type(const cr_datatype_t *dt)
{
    cr_basic_t b = dt->basic;
    return dt->builtin && b != CR_B_NONE && b != CR_B_FLOAT && b != CR_B_DOUBLE &&
           b != CR_B_LDOUBLE && b != CR_B_F_REAL && b != CR_B_F_DOUBLE &&
           !(b >= CR_B_FCOMPLEX && b <= CR_B_LDCOMPLEX) && b < CR_B_FLOAT_INT;
}

int core_compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          cr_datatype_t *datatype, int target_rank, MPI_Aint target_disp,
                          cr_win_t *win)
{
    rma_target_t *t;
    MPI_Aint at;
    char *p;
    size_t n;
    uint64_t seq;
    if (CR_LIKELY(cas_type(datatype) && acc_fast(win, target_rank, target_disp, 1, datatype, 1,
                                                 datatype, &p, &n) &&
                  (seq = rma_lf_begin(win, &win->t[target_rank])) != 0)) {
        /* as acc_run's first branch (acc_elems, lock-free, no op) */
        rma_acc_atomic_elems(p, 1, datatype->basic, NULL, origin_addr, compare_addr, result_addr);
        rma_lf_end(win, seq);
        win->stats.acc_cpu++;
        return MPI_SUCCESS;
    }
    win->dstores |= RMA_DSTORES;     /* maybe plain stores (fast.h) */
    int err = op_target(win, target_rank, &t);
    if (CR_UNLIKELY(err) || !t) return err;
    if (CR_UNLIKELY(!cas_type(datatype)))
        return cr_error(MPI_ERR_TYPE, "MPI_Compare_and_swap takes a predefined integer, logical "
                        "or byte datatype, not %s",
                        datatype->name_builtin ? datatype->name_builtin : "(derived)");
    if ((err = op_range(win, t, target_rank, target_disp, 1, datatype, &at))) return err;
    return acc_run(win, t, target_rank, at, 1, datatype, NULL, origin_addr, compare_addr,
                   result_addr, 1);
}
