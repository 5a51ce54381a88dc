/* SPDX-License-Identifier: MIT */
/* The Fortran sentinels' storage, string conversion, MPI_Sizeof and the
 * handle comparisons of mpi_f08: the hand-written part of the Fortran
 * bindings (the entry points are generated into fort_*.c). */
#include <string.h>
#include "fortran/fort_util.h"

struct cr_f_priv1 mpipriv1_;
struct cr_f_priv2 mpipriv2_;
struct cr_f_privc mpiprivc_;
MPI_Fint mpifcmb5_, mpifcmb9_;

char *cr_f_str_in(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = 0;
    }
    return c;
}

void cr_f_str_out(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n > len)
        n = len;
    memcpy(dst, src, n);
    memset(dst + n, ' ', len - n);
}

/* MPI_Sizeof(x, size, ierror): the modules' generic resolves to one of these
 * by the type of x (an assumed-rank descriptor the size does not depend on). */
#define CR_F_SIZEOF(tag, bytes)                                                          \
    CR_F_EXPORT void courier_sizeof_##tag##_(void *x, MPI_Fint *size, MPI_Fint *ierror, \
                                             ...)                                       \
    {                                                                                    \
        (void)x;                                                                         \
        *size = (bytes);                                                                 \
        if (ierror)                                                                      \
            *ierror = MPI_SUCCESS;                                                       \
    }
CR_F_SIZEOF(i1, 1) CR_F_SIZEOF(i2, 2) CR_F_SIZEOF(i4, 4) CR_F_SIZEOF(i8, 8)
CR_F_SIZEOF(r4, 4) CR_F_SIZEOF(r8, 8) CR_F_SIZEOF(c4, 8) CR_F_SIZEOF(c8, 16)
CR_F_SIZEOF(l1, 1) CR_F_SIZEOF(l4, 4) CR_F_SIZEOF(ch, 1)
CR_F_SIZEOF(r16, 16) CR_F_SIZEOF(c16, 32)

/* The same under the names of MPICH's mpi_f08 module procedures, which
 * binaries built against MPICH's mpi_f08 call (same arguments). */
#define CR_F_MPICH_SIZEOF(mpich, ours)                                                  \
    void __mpi_f08_types_MOD_mpi_sizeof_##mpich(void *x, MPI_Fint *size, MPI_Fint *ierror, \
                                                ...) CR_F_ALIAS(courier_sizeof_##ours##_);
CR_F_MPICH_SIZEOF(xint8, i1) CR_F_MPICH_SIZEOF(xint16, i2) CR_F_MPICH_SIZEOF(xint32, i4)
CR_F_MPICH_SIZEOF(xint64, i8) CR_F_MPICH_SIZEOF(xreal32, r4) CR_F_MPICH_SIZEOF(xreal64, r8)
CR_F_MPICH_SIZEOF(xreal128, r16) CR_F_MPICH_SIZEOF(xcomplex32, c4)
CR_F_MPICH_SIZEOF(xcomplex64, c8) CR_F_MPICH_SIZEOF(xcomplex128, c16)
CR_F_MPICH_SIZEOF(logical, l4) CR_F_MPICH_SIZEOF(character, ch)

/* mpi_f08's == and /= on handle types (each a one-integer bind(C) type). */
CR_F_EXPORT int courier_handle_eq(const MPI_Fint *a, const MPI_Fint *b)
{
    return *a == *b ? CR_F_TRUE : CR_F_FALSE;
}

CR_F_EXPORT int courier_handle_ne(const MPI_Fint *a, const MPI_Fint *b)
{
    return *a != *b ? CR_F_TRUE : CR_F_FALSE;
}

#define CR_F_MPICH_EQ(t)                                                                    \
    int __mpi_f08_types_MOD_mpi_##t##_eq(const MPI_Fint *a, const MPI_Fint *b)             \
        CR_F_ALIAS(courier_handle_eq);                                                       \
    int __mpi_f08_types_MOD_mpi_##t##_neq(const MPI_Fint *a, const MPI_Fint *b)            \
        CR_F_ALIAS(courier_handle_ne);
CR_F_MPICH_EQ(comm) CR_F_MPICH_EQ(datatype) CR_F_MPICH_EQ(errhandler) CR_F_MPICH_EQ(file)
CR_F_MPICH_EQ(group) CR_F_MPICH_EQ(info) CR_F_MPICH_EQ(message) CR_F_MPICH_EQ(op)
CR_F_MPICH_EQ(request) CR_F_MPICH_EQ(session) CR_F_MPICH_EQ(win)
