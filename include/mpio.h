/* SPDX-License-Identifier: MIT */
/* Some codes include mpio.h for MPI-IO; everything is in mpi.h. */
#include "mpi.h"
