// libragged_pmpi.so: the persistent collectives (MPI-4's MPI_Allreduce_init & co. under MPICH,
// Open MPI 4.1's MPIX_Allreduce_init & co.) through ragged's algorithms, and the MPI_Start,
// MPI_Startall and MPI_Request_free that start and free them (persistent.hpp, docs/pmpi.md
// "Persistent collectives"). Each follows its blocking form's variable, as the nonblocking ones
// do, and takes the same routes to the MPI library (collectives_nonblocking.cpp).
#include <mpi.h>

#include <string>
#include <utility>

#include "collectives.hpp"
#include "nonblocking.hpp"
#include "persistent.hpp"

#if defined(OPEN_MPI)
#include <mpi-ext.h>
#endif

#if defined(OPEN_MPI) && defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
#include "openmpi/mpiext/pmpiext_pcollreq_c.h"
#define RAGGED_INIT(name) MPIX_##name##_init
#define RAGGED_PINIT(name) PMPIX_##name##_init
#define RAGGED_HAVE_PERSISTENT 1
#elif !defined(OPEN_MPI) && defined(MPI_VERSION) && MPI_VERSION >= 4
#define RAGGED_INIT(name) MPI_##name##_init
#define RAGGED_PINIT(name) PMPI_##name##_init
#define RAGGED_HAVE_PERSISTENT 1
#endif

using ragged::Collective;
namespace pmpi = ragged::pmpi;
using pmpi::Route;
using pmpi::report::Kind;
using namespace ragged::pmpi::routing;

extern "C" {

/// MPI_Start: the library's persistent collectives are posted on their communicator's worker;
/// every other request goes to the MPI library.
RAGGED_PMPI_EXPORT int MPI_Start(MPI_Request* request) {
  int code = MPI_SUCCESS;
  if (pmpi::persistent::start(request, code)) return code;
  return PMPI_Start(request);
}

/// MPI_Startall: in the order of the array (the order MPI_Startall starts them).
RAGGED_PMPI_EXPORT int MPI_Startall(int count, MPI_Request requests[]) {
  for (int i = 0; i < count; ++i) {
    int code = MPI_SUCCESS;
    if (!pmpi::persistent::start(&requests[i], code)) code = PMPI_Start(&requests[i]);
    if (code != MPI_SUCCESS) return code;
  }
  return MPI_SUCCESS;
}

RAGGED_PMPI_EXPORT int MPI_Request_free(MPI_Request* request) {
  if (request != nullptr) pmpi::persistent::forget(*request);
  return PMPI_Request_free(request);
}

/// What the last start of a persistent collective made by the library ran (an algorithm's name,
/// "native", "native (<why>)"), "none" before its first completion, or null for any other request.
RAGGED_PMPI_EXPORT const char* ragged_pmpi_request_algorithm(MPI_Request request) {
  return pmpi::persistent::outcome(request);
}

}  // extern "C"

#if defined(RAGGED_HAVE_PERSISTENT)

namespace {

/// The frame of every MPI_Xxx_init: `native()` (the MPI library's) unless the call can run on a
/// worker, else a persistent request of the library's.
template <class Job, class Native, class Describe>
int persisted(bool to_ragged, Kind kind, MPI_Comm comm, MPI_Request* request, Job&& job, Native&& native,
              Describe&& describe) {
  if (!to_ragged || request == nullptr || !pmpi::nonblocking::takes(comm) || !pmpi::nonblocking::available()) {
    return native_outcome(native());
  }
  return pmpi::persistent::make(comm, pmpi::report::persistent_of(kind), std::forward<Job>(job),
                                std::forward<Describe>(describe), request);
}

}  // namespace

extern "C" {

RAGGED_PMPI_EXPORT int RAGGED_INIT(Allgather)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                              MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::allgather), Kind::allgather, comm, request,
      [=](MPI_Comm c) { return route_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c); },
      [&] {
        return RAGGED_PINIT(Allgather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
      },
      describe_allgather(sendbuf, sendcount, sendtype, recvcount, recvtype));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Allgatherv)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                               const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                               MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::allgatherv), Kind::allgatherv, comm, request,
      [=](MPI_Comm c) {
        return route_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, c);
      },
      [&] {
        return RAGGED_PINIT(Allgatherv)(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info,
                                        request);
      },
      describe_allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Allreduce)(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                              MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::allreduce), Kind::allreduce, comm, request,
      [=](MPI_Comm c) { return route_allreduce(sendbuf, recvbuf, count, datatype, op, c); },
      [&] { return RAGGED_PINIT(Allreduce)(sendbuf, recvbuf, count, datatype, op, comm, info, request); },
      describe_vector(count, datatype));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Alltoall)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                             MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::alltoall), Kind::alltoall, comm, request,
      [=](MPI_Comm c) { return route_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c); },
      [&] {
        return RAGGED_PINIT(Alltoall)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
      },
      describe_alltoall(sendbuf, sendcount, sendtype, recvcount, recvtype));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Alltoallv)(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                              MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::alltoallv), Kind::alltoallv, comm, request,
      [=](MPI_Comm c) {
        return route_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, c);
      },
      [&] {
        return RAGGED_PINIT(Alltoallv)(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                       comm, info, request);
      },
      describe_alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Alltoallw)(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                              MPI_Info info, MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::alltoallw), Kind::alltoallw, comm, request,
      [=](MPI_Comm c) {
        return route_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, c);
      },
      [&] {
        return RAGGED_PINIT(Alltoallw)(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                       comm, info, request);
      },
      describe_alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Bcast)(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                          MPI_Info info, MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::bcast), Kind::bcast, comm, request,
      [=](MPI_Comm c) { return route_bcast(buffer, count, datatype, root, c); },
      [&] { return RAGGED_PINIT(Bcast)(buffer, count, datatype, root, comm, info, request); },
      describe_bcast(count, datatype, root));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Reduce)(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                           MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::reduce), Kind::reduce, comm, request,
      [=](MPI_Comm c) { return route_reduce(sendbuf, recvbuf, count, datatype, op, root, c); },
      [&] { return RAGGED_PINIT(Reduce)(sendbuf, recvbuf, count, datatype, op, root, comm, info, request); },
      describe_reduce(count, datatype, root));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Gather)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                                           MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::gather), Kind::gather, comm, request,
      [=](MPI_Comm c) { return route_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c); },
      [&] {
        return RAGGED_PINIT(Gather)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                                    request);
      },
      describe_gather(sendbuf, sendcount, sendtype, recvcount, recvtype, root));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Gatherv)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                            MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::gatherv), Kind::gatherv, comm, request,
      [=](MPI_Comm c) {
        return route_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, c);
      },
      [&] {
        return RAGGED_PINIT(Gatherv)(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm,
                                     info, request);
      },
      describe_gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Scatter)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                            MPI_Info info, MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::scatter), Kind::scatter, comm, request,
      [=](MPI_Comm c) { return route_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c); },
      [&] {
        return RAGGED_PINIT(Scatter)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info,
                                     request);
      },
      describe_scatter(sendcount, sendtype, recvcount, recvtype, root));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Scatterv)(const void* sendbuf, const int sendcounts[], const int displs[],
                                             MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                             int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::scatterv), Kind::scatterv, comm, request,
      [=](MPI_Comm c) {
        return route_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, c);
      },
      [&] {
        return RAGGED_PINIT(Scatterv)(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                                      info, request);
      },
      describe_scatterv(sendcounts, sendtype, root));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Barrier)(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persisted(
      barrier_routed(), Kind::barrier, comm, request, [](MPI_Comm c) { return route_barrier(c); },
      [&] { return RAGGED_PINIT(Barrier)(comm, info, request); }, describe_barrier());
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Scan)(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::scan), Kind::scan, comm, request,
      [=](MPI_Comm c) { return route_prefix(false, sendbuf, recvbuf, count, datatype, op, c); },
      [&] { return RAGGED_PINIT(Scan)(sendbuf, recvbuf, count, datatype, op, comm, info, request); },
      describe_vector(count, datatype));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Exscan)(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                                           MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::exscan), Kind::exscan, comm, request,
      [=](MPI_Comm c) { return route_prefix(true, sendbuf, recvbuf, count, datatype, op, c); },
      [&] { return RAGGED_PINIT(Exscan)(sendbuf, recvbuf, count, datatype, op, comm, info, request); },
      describe_vector(count, datatype));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Reduce_scatter_block)(const void* sendbuf, void* recvbuf, int recvcount,
                                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                         MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::reduce_scatter_block), Kind::reduce_scatter_block, comm, request,
      [=](MPI_Comm c) { return route_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, c); },
      [&] {
        return RAGGED_PINIT(Reduce_scatter_block)(sendbuf, recvbuf, recvcount, datatype, op, comm, info, request);
      },
      describe_reduce_scatter_block(recvcount, datatype));
}

RAGGED_PMPI_EXPORT int RAGGED_INIT(Reduce_scatter)(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                                   MPI_Request* request) {
  return persisted(
      routed_to_ragged(Collective::reduce_scatter), Kind::reduce_scatter, comm, request,
      [=](MPI_Comm c) { return route_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, c); },
      [&] { return RAGGED_PINIT(Reduce_scatter)(sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request); },
      describe_reduce_scatter(recvcounts, datatype));
}

}  // extern "C"

#endif  // RAGGED_HAVE_PERSISTENT
