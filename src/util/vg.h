/* SPDX-License-Identifier: MIT */
/* Memcheck client requests: how Courier tells valgrind's memcheck which bytes
 * are defined where memcheck cannot see the write itself (another process
 * writes them with process_vm_writev) or where MPI says they must not be read
 * (a posted receive's buffer).  With <valgrind/memcheck.h> at build time
 * (COURIER_HAVE_VALGRIND, found by CMake) each macro is a client request: a
 * few instructions that do nothing when the program does not run under
 * valgrind.  Without the header they compile to nothing.  There is no setting.
 *
 *   UT_VG_UNDEFINED(p, n)  the n bytes at p are addressable, their contents undefined
 *   UT_VG_DEFINED(p, n)    the n bytes at p hold defined data
 *   UT_VG_NOACCESS(p, n)   the n bytes at p must not be touched
 *   UT_VG_RUNNING()        non-zero when running under valgrind (any tool)
 *   UT_VG_GET_VBITS(p, bits, n) / UT_VG_SET_VBITS(p, bits, n)
 *                          copy the definedness of n bytes at p out to / back
 *                          from bits (n bytes); 1 on success, anything else
 *                          when not under memcheck or p is not addressable
 * docs/usage.md ("Valgrind") says what Courier marks and when. */
#ifndef COURIER_UTIL_VG_H
#define COURIER_UTIL_VG_H

#ifdef COURIER_HAVE_VALGRIND
#include <valgrind/memcheck.h>
#define UT_VG_UNDEFINED(p, n) ((void)VALGRIND_MAKE_MEM_UNDEFINED((p), (n)))
#define UT_VG_DEFINED(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#define UT_VG_NOACCESS(p, n) ((void)VALGRIND_MAKE_MEM_NOACCESS((p), (n)))
#define UT_VG_RUNNING() ((int)RUNNING_ON_VALGRIND)
#define UT_VG_GET_VBITS(p, bits, n) ((int)VALGRIND_GET_VBITS((p), (bits), (n)))
#define UT_VG_SET_VBITS(p, bits, n) ((int)VALGRIND_SET_VBITS((p), (bits), (n)))
#else
#define UT_VG_UNDEFINED(p, n) ((void)(p), (void)(n))
#define UT_VG_DEFINED(p, n) ((void)(p), (void)(n))
#define UT_VG_NOACCESS(p, n) ((void)(p), (void)(n))
#define UT_VG_RUNNING() 0
#define UT_VG_GET_VBITS(p, bits, n) ((void)(p), (void)(bits), (void)(n), 0)
#define UT_VG_SET_VBITS(p, bits, n) ((void)(p), (void)(bits), (void)(n), 0)
#endif

#endif
