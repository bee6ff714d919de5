// libragged_pmpi.so: the nonblocking collectives (MPI_Iallreduce & co.) through ragged's
// algorithms, on the communicator's worker (nonblocking.hpp, docs/pmpi.md "Nonblocking
// collectives"). Each is its blocking form's routing, posted: RAGGED_ALLREDUCE governs
// MPI_Iallreduce as it governs MPI_Allreduce; the report names the site `iallreduce`.
//
//   MPI_Ixxx(args, request)
//     RAGGED_XXX unset or native, MPI_COMM_NULL, an intercommunicator, no MPI_THREAD_MULTIPLE
//                                                       -> PMPI_Ixxx(args, request)
//     else nonblocking::post(comm, job = route_xxx(args, copy), request)
#include <cstring>
#include <string>

#include "collectives.hpp"
#include "nonblocking.hpp"

using ragged::Collective;
namespace pmpi = ragged::pmpi;
using pmpi::Route;
using pmpi::report::Kind;
using namespace ragged::pmpi::routing;

namespace {

/// The frame of every MPI_Ixxx: `native()` (PMPI_Ixxx) unless the call can run on a worker,
/// else `job(copy)` posted there.
template <class Job, class Native, class Describe>
int posted(bool to_ragged, Kind kind, MPI_Comm comm, MPI_Request* request, Job&& job, Native&& native,
           Describe&& describe) {
  if (!to_ragged || request == nullptr || !pmpi::nonblocking::takes(comm) || !pmpi::nonblocking::available()) {
    return native_outcome(native());
  }
  return pmpi::nonblocking::post(comm, pmpi::report::nonblocking_of(kind), std::forward<Job>(job),
                                 std::forward<Describe>(describe), request);
}

}  // namespace

extern "C" {

RAGGED_PMPI_EXPORT int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::allgather), Kind::allgather, comm, request,
      [=](MPI_Comm c) { return route_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c); },
      [&] { return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request); },
      describe_allgather(sendbuf, sendcount, sendtype, recvcount, recvtype));
}

RAGGED_PMPI_EXPORT int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                       const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                       MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::allgatherv), Kind::allgatherv, comm, request,
      [=](MPI_Comm c) {
        return route_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, c);
      },
      [&] {
        return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
      },
      describe_allgatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype));
}

RAGGED_PMPI_EXPORT int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                      MPI_Comm comm, MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::allreduce), Kind::allreduce, comm, request,
      [=](MPI_Comm c) { return route_allreduce(sendbuf, recvbuf, count, datatype, op, c); },
      [&] { return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request); },
      describe_vector(count, datatype));
}

RAGGED_PMPI_EXPORT int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::alltoall), Kind::alltoall, comm, request,
      [=](MPI_Comm c) { return route_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c); },
      [&] { return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request); },
      describe_alltoall(sendbuf, sendcount, sendtype, recvcount, recvtype));
}

RAGGED_PMPI_EXPORT int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                      MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::alltoallv), Kind::alltoallv, comm, request,
      [=](MPI_Comm c) {
        return route_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, c);
      },
      [&] {
        return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                               request);
      },
      describe_alltoallv(sendbuf, sendcounts, sendtype, recvcounts, recvtype));
}

RAGGED_PMPI_EXPORT int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                      const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                      const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                      MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::alltoallw), Kind::alltoallw, comm, request,
      [=](MPI_Comm c) {
        return route_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, c);
      },
      [&] {
        return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                               request);
      },
      describe_alltoallw(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes));
}

RAGGED_PMPI_EXPORT int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                                  MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::bcast), Kind::bcast, comm, request,
      [=](MPI_Comm c) { return route_bcast(buffer, count, datatype, root, c); },
      [&] { return PMPI_Ibcast(buffer, count, datatype, root, comm, request); }, describe_bcast(count, datatype, root));
}

RAGGED_PMPI_EXPORT int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                   int root, MPI_Comm comm, MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::reduce), Kind::reduce, comm, request,
      [=](MPI_Comm c) { return route_reduce(sendbuf, recvbuf, count, datatype, op, root, c); },
      [&] { return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, request); },
      describe_reduce(count, datatype, root));
}

RAGGED_PMPI_EXPORT int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                   MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::gather), Kind::gather, comm, request,
      [=](MPI_Comm c) { return route_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c); },
      [&] { return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request); },
      describe_gather(sendbuf, sendcount, sendtype, recvcount, recvtype, root));
}

RAGGED_PMPI_EXPORT int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                                    MPI_Comm comm, MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::gatherv), Kind::gatherv, comm, request,
      [=](MPI_Comm c) {
        return route_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, c);
      },
      [&] {
        return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request);
      },
      describe_gatherv(sendbuf, sendcount, sendtype, recvcounts, recvtype, root));
}

RAGGED_PMPI_EXPORT int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                                    MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::scatter), Kind::scatter, comm, request,
      [=](MPI_Comm c) { return route_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c); },
      [&] { return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request); },
      describe_scatter(sendcount, sendtype, recvcount, recvtype, root));
}

RAGGED_PMPI_EXPORT int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                                     int root, MPI_Comm comm, MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::scatterv), Kind::scatterv, comm, request,
      [=](MPI_Comm c) {
        return route_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, c);
      },
      [&] {
        return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
      },
      describe_scatterv(sendcounts, sendtype, root));
}

RAGGED_PMPI_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return posted(
      barrier_routed(), Kind::barrier, comm, request, [](MPI_Comm c) { return route_barrier(c); },
      [&] { return PMPI_Ibarrier(comm, request); }, describe_barrier());
}

RAGGED_PMPI_EXPORT int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                 MPI_Comm comm, MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::scan), Kind::scan, comm, request,
      [=](MPI_Comm c) { return route_prefix(false, sendbuf, recvbuf, count, datatype, op, c); },
      [&] { return PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, request); },
      describe_vector(count, datatype));
}

RAGGED_PMPI_EXPORT int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::exscan), Kind::exscan, comm, request,
      [=](MPI_Comm c) { return route_prefix(true, sendbuf, recvbuf, count, datatype, op, c); },
      [&] { return PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, request); },
      describe_vector(count, datatype));
}

RAGGED_PMPI_EXPORT int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                                 MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::reduce_scatter_block), Kind::reduce_scatter_block, comm, request,
      [=](MPI_Comm c) { return route_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, c); },
      [&] { return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request); },
      describe_reduce_scatter_block(recvcount, datatype));
}

RAGGED_PMPI_EXPORT int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return posted(
      routed_to_ragged(Collective::reduce_scatter), Kind::reduce_scatter, comm, request,
      [=](MPI_Comm c) { return route_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, c); },
      [&] { return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, request); },
      describe_reduce_scatter(recvcounts, datatype));
}

}  // extern "C"
