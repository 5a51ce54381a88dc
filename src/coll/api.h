/* SPDX-License-Identifier: MIT */
/* The collective layer's interface to the binding layer (see src/core/api.h for
 * the conventions).  Every entry serves a family: MPI_X, MPI_X_c, MPI_IX,
 * MPI_IX_c, MPI_X_init and MPI_X_init_c, selected by `how`; `info` is the
 * persistent forms' (NULL otherwise), `request` NULL for the blocking forms.
 * Arrays of counts and displacements are cr_vec_t (int or MPI_Count / MPI_Aint
 * elements); datatypes the standard says to ignore at this process are NULL. */
#ifndef COURIER_COLL_API_H
#define COURIER_COLL_API_H
#include "core/core.h"
#include "core/info.h"

int core_barrier(cr_comm_t *comm, cr_how_t how, cr_info_t *info, MPI_Request *request);
int core_bcast(void *buffer, MPI_Count count, cr_datatype_t *datatype, int root, cr_comm_t *comm,
               cr_how_t how, cr_info_t *info, MPI_Request *request);
int core_reduce(const void *sendbuf, void *recvbuf, MPI_Count count, cr_datatype_t *datatype,
                cr_op_t *op, int root, cr_comm_t *comm, cr_how_t how, cr_info_t *info,
                MPI_Request *request);
int core_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, cr_datatype_t *datatype,
                   cr_op_t *op, cr_comm_t *comm, cr_how_t how, cr_info_t *info,
                   MPI_Request *request);
int core_gather(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype, void *recvbuf,
                MPI_Count recvcount, cr_datatype_t *recvtype, int root, cr_comm_t *comm,
                cr_how_t how, cr_info_t *info, MPI_Request *request);
int core_gatherv(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype, void *recvbuf,
                 cr_vec_t recvcounts, cr_vec_t displs, cr_datatype_t *recvtype, int root,
                 cr_comm_t *comm, cr_how_t how, cr_info_t *info, MPI_Request *request);
int core_scatter(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                 void *recvbuf, MPI_Count recvcount, cr_datatype_t *recvtype, int root,
                 cr_comm_t *comm, cr_how_t how, cr_info_t *info, MPI_Request *request);
int core_scatterv(const void *sendbuf, cr_vec_t sendcounts, cr_vec_t displs,
                  cr_datatype_t *sendtype, void *recvbuf, MPI_Count recvcount,
                  cr_datatype_t *recvtype, int root, cr_comm_t *comm, cr_how_t how,
                  cr_info_t *info, MPI_Request *request);
int core_allgather(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                   void *recvbuf, MPI_Count recvcount, cr_datatype_t *recvtype, cr_comm_t *comm,
                   cr_how_t how, cr_info_t *info, MPI_Request *request);
int core_allgatherv(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                    void *recvbuf, cr_vec_t recvcounts, cr_vec_t displs, cr_datatype_t *recvtype,
                    cr_comm_t *comm, cr_how_t how, cr_info_t *info, MPI_Request *request);
int core_alltoall(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                  void *recvbuf, MPI_Count recvcount, cr_datatype_t *recvtype, cr_comm_t *comm,
                  cr_how_t how, cr_info_t *info, MPI_Request *request);
int core_alltoallv(const void *sendbuf, cr_vec_t sendcounts, cr_vec_t sdispls,
                   cr_datatype_t *sendtype, void *recvbuf, cr_vec_t recvcounts, cr_vec_t rdispls,
                   cr_datatype_t *recvtype, cr_comm_t *comm, cr_how_t how, cr_info_t *info,
                   MPI_Request *request);
int core_alltoallw(const void *sendbuf, cr_vec_t sendcounts, cr_vec_t sdispls,
                   cr_datatype_t *const sendtypes[], void *recvbuf, cr_vec_t recvcounts,
                   cr_vec_t rdispls, cr_datatype_t *const recvtypes[], cr_comm_t *comm,
                   cr_how_t how, cr_info_t *info, MPI_Request *request);
int core_reduce_scatter(const void *sendbuf, void *recvbuf, cr_vec_t recvcounts,
                        cr_datatype_t *datatype, cr_op_t *op, cr_comm_t *comm, cr_how_t how,
                        cr_info_t *info, MPI_Request *request);
int core_reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                              cr_datatype_t *datatype, cr_op_t *op, cr_comm_t *comm, cr_how_t how,
                              cr_info_t *info, MPI_Request *request);
int core_scan(const void *sendbuf, void *recvbuf, MPI_Count count, cr_datatype_t *datatype,
              cr_op_t *op, cr_comm_t *comm, cr_how_t how, cr_info_t *info, MPI_Request *request);
int core_exscan(const void *sendbuf, void *recvbuf, MPI_Count count, cr_datatype_t *datatype,
                cr_op_t *op, cr_comm_t *comm, cr_how_t how, cr_info_t *info,
                MPI_Request *request);

/* ---- neighbourhood collectives (coll_neighbor.c) ------------------------------- */
int core_neighbor_allgather(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                            void *recvbuf, MPI_Count recvcount, cr_datatype_t *recvtype,
                            cr_comm_t *comm, cr_how_t how, cr_info_t *info,
                            MPI_Request *request);
int core_neighbor_allgatherv(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                             void *recvbuf, cr_vec_t recvcounts, cr_vec_t displs,
                             cr_datatype_t *recvtype, cr_comm_t *comm, cr_how_t how,
                             cr_info_t *info, MPI_Request *request);
int core_neighbor_alltoall(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                           void *recvbuf, MPI_Count recvcount, cr_datatype_t *recvtype,
                           cr_comm_t *comm, cr_how_t how, cr_info_t *info, MPI_Request *request);
int core_neighbor_alltoallv(const void *sendbuf, cr_vec_t sendcounts, cr_vec_t sdispls,
                            cr_datatype_t *sendtype, void *recvbuf, cr_vec_t recvcounts,
                            cr_vec_t rdispls, cr_datatype_t *recvtype, cr_comm_t *comm,
                            cr_how_t how, cr_info_t *info, MPI_Request *request);
int core_neighbor_alltoallw(const void *sendbuf, cr_vec_t sendcounts, cr_vec_t sdispls,
                            cr_datatype_t *const sendtypes[], void *recvbuf, cr_vec_t recvcounts,
                            cr_vec_t rdispls, cr_datatype_t *const recvtypes[], cr_comm_t *comm,
                            cr_how_t how, cr_info_t *info, MPI_Request *request);
#endif
