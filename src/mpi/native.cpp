// The "native" algorithms: the MPI library's own collectives on the Comm's duplicated
// communicator. They are the reference the baseline tests compare against and the
// baseline of every benchmark. They call the PMPI_ entry points, so that a PMPI shim that
// routes MPI_Allgather & co. to ragged can select "native" without calling itself again. They cannot honour
// CollectiveOptions::timeout (a blocking MPI collective cannot be abandoned) and ignore the arrival snapshot.
#include <span>
#include <string>

#include "internal.hpp"
#include "ragged/collectives.hpp"
#include "ragged/mpi.hpp"
#include "ragged/registry.hpp"

namespace ragged::mpi {

namespace {

using detail::check;

int count_of(std::size_t count) {
  if (count > detail::max_count) {
    throw InvalidArgument("count", std::to_string(count) + " elements exceed MPI's limit of INT_MAX per call");
  }
  return static_cast<int>(count);
}

/// The MPI operator for `op` on `type`, rejecting what reduce_local rejects too.
MPI_Op reduction_op(const ReduceOp& op, DataType type) {
  if (op.kind != OpKind::custom && type == DataType::byte) {
    throw InvalidArgument("type", std::string("built-in operator '") + op.label + "' is not defined on byte");
  }
  return to_mpi(op);
}

bool in_place(const void* sendbuf) { return sendbuf == ragged::in_place; }

/// in_place is the root's alone (MPI's rule for reduce and gather, which pass it as sendbuf).
void check_in_place_at_root(Comm& comm, const void* sendbuf, int root) {
  if (in_place(sendbuf) && comm.rank() != root) {
    throw InvalidArgument("sendbuf", "in_place is valid at the root only (rank " + std::to_string(comm.rank()) +
                                         " is not root " + std::to_string(root) + ")");
  }
}

/// Counts or displacements of a v-collective need one entry per rank (where they are significant).
void check_per_rank(Comm& comm, std::span<const int> values, const char* argument) {
  if (values.size() != static_cast<std::size_t>(comm.size())) {
    throw InvalidArgument(
        argument, "has " + std::to_string(values.size()) + " entries for " + std::to_string(comm.size()) + " ranks");
  }
}

void native_allgather(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                      const CollectiveOptions& /*options*/) {
  const int n = count_of(count);
  const MPI_Datatype t = to_mpi(type);
  check(PMPI_Allgather(in_place(sendbuf) ? MPI_IN_PLACE : sendbuf, n, t, recvbuf, n, t, native_handle(comm)),
        "MPI_Allgather");
}

void native_allreduce(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                      const ReduceOp& op, const CollectiveOptions& /*options*/) {
  const int n = count_of(count);
  const MPI_Op mpi_op = reduction_op(op, type);
  check(
      PMPI_Allreduce(in_place(sendbuf) ? MPI_IN_PLACE : sendbuf, recvbuf, n, to_mpi(type), mpi_op, native_handle(comm)),
      "MPI_Allreduce");
}

void native_bcast(Comm& comm, void* buffer, std::size_t count, DataType type, int root,
                  const CollectiveOptions& /*options*/) {
  check_rank(comm, root, "root");
  check(PMPI_Bcast(buffer, count_of(count), to_mpi(type), root, native_handle(comm)), "MPI_Bcast");
}

void native_reduce(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, const ReduceOp& op,
                   int root, const CollectiveOptions& /*options*/) {
  check_rank(comm, root, "root");
  check_in_place_at_root(comm, sendbuf, root);
  const int n = count_of(count);
  const MPI_Op mpi_op = reduction_op(op, type);
  check(PMPI_Reduce(in_place(sendbuf) ? MPI_IN_PLACE : sendbuf, recvbuf, n, to_mpi(type), mpi_op, root,
                    native_handle(comm)),
        "MPI_Reduce");
}

void native_gather(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root,
                   const CollectiveOptions& /*options*/) {
  check_rank(comm, root, "root");
  check_in_place_at_root(comm, sendbuf, root);
  const int n = count_of(count);
  const MPI_Datatype t = to_mpi(type);
  check(PMPI_Gather(in_place(sendbuf) ? MPI_IN_PLACE : sendbuf, n, t, recvbuf, n, t, root, native_handle(comm)),
        "MPI_Gather");
}

/// scatter and scatterv follow MPI: the root passes in_place as recvbuf and keeps its block in sendbuf.
void check_recv_in_place_at_root(Comm& comm, const void* recvbuf, int root) {
  if (in_place(recvbuf) && comm.rank() != root) {
    throw InvalidArgument("recvbuf", "in_place is valid at the root only (rank " + std::to_string(comm.rank()) +
                                         " is not root " + std::to_string(root) + ")");
  }
}

void* recv_arg(void* recvbuf) { return in_place(recvbuf) ? MPI_IN_PLACE : recvbuf; }

void native_scatter(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root,
                    const CollectiveOptions& /*options*/) {
  check_rank(comm, root, "root");
  check_recv_in_place_at_root(comm, recvbuf, root);
  const int n = count_of(count);
  const MPI_Datatype t = to_mpi(type);
  check(PMPI_Scatter(sendbuf, n, t, recv_arg(recvbuf), n, t, root, native_handle(comm)), "MPI_Scatter");
}

void native_gatherv(Comm& comm, const void* sendbuf, int sendcount, void* recvbuf, std::span<const int> recvcounts,
                    std::span<const int> displs, DataType type, int root, const CollectiveOptions& /*options*/) {
  check_rank(comm, root, "root");
  check_in_place_at_root(comm, sendbuf, root);
  if (comm.rank() == root) {
    check_per_rank(comm, recvcounts, "recvcounts");
    check_per_rank(comm, displs, "displs");
  }
  const MPI_Datatype t = to_mpi(type);
  check(PMPI_Gatherv(in_place(sendbuf) ? MPI_IN_PLACE : sendbuf, sendcount, t, recvbuf,
                     comm.rank() == root ? recvcounts.data() : nullptr, comm.rank() == root ? displs.data() : nullptr,
                     t, root, native_handle(comm)),
        "MPI_Gatherv");
}

void native_scatterv(Comm& comm, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
                     void* recvbuf, int recvcount, DataType type, int root, const CollectiveOptions& /*options*/) {
  check_rank(comm, root, "root");
  check_recv_in_place_at_root(comm, recvbuf, root);
  if (comm.rank() == root) {
    check_per_rank(comm, sendcounts, "sendcounts");
    check_per_rank(comm, displs, "displs");
  }
  const MPI_Datatype t = to_mpi(type);
  check(PMPI_Scatterv(sendbuf, comm.rank() == root ? sendcounts.data() : nullptr,
                      comm.rank() == root ? displs.data() : nullptr, t, recv_arg(recvbuf), recvcount, t, root,
                      native_handle(comm)),
        "MPI_Scatterv");
}

void native_alltoall(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                     const CollectiveOptions& /*options*/) {
  const int n = count_of(count);
  const MPI_Datatype t = to_mpi(type);
  check(PMPI_Alltoall(in_place(sendbuf) ? MPI_IN_PLACE : sendbuf, n, t, recvbuf, n, t, native_handle(comm)),
        "MPI_Alltoall");
}

void native_alltoallv(Comm& comm, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                      void* recvbuf, std::span<const int> recvcounts, std::span<const int> rdispls, DataType type,
                      const CollectiveOptions& /*options*/) {
  if (!in_place(sendbuf)) {
    check_per_rank(comm, sendcounts, "sendcounts");
    check_per_rank(comm, sdispls, "sdispls");
  }
  check_per_rank(comm, recvcounts, "recvcounts");
  check_per_rank(comm, rdispls, "rdispls");
  const MPI_Datatype t = to_mpi(type);
  if (in_place(sendbuf)) {
    check(PMPI_Alltoallv(MPI_IN_PLACE, nullptr, nullptr, t, recvbuf, recvcounts.data(), rdispls.data(), t,
                         native_handle(comm)),
          "MPI_Alltoallv");
  } else {
    check(PMPI_Alltoallv(sendbuf, sendcounts.data(), sdispls.data(), t, recvbuf, recvcounts.data(), rdispls.data(), t,
                         native_handle(comm)),
          "MPI_Alltoallv");
  }
}

}  // namespace

void register_native_algorithms() {
  using C = Collective;
  Restrictions mpi_only;
  mpi_only.backend = "mpi";
  Registry& registry = Registry::instance();
  registry.add(make_algorithm<C::allgather>("native", "The MPI library's MPI_Allgather.", mpi_only, &native_allgather));
  registry.add(make_algorithm<C::allreduce>("native", "The MPI library's MPI_Allreduce.", mpi_only, &native_allreduce));
  registry.add(make_algorithm<C::bcast>("native", "The MPI library's MPI_Bcast.", mpi_only, &native_bcast));
  registry.add(make_algorithm<C::reduce>("native", "The MPI library's MPI_Reduce.", mpi_only, &native_reduce));
  registry.add(make_algorithm<C::gather>("native", "The MPI library's MPI_Gather.", mpi_only, &native_gather));
  registry.add(make_algorithm<C::scatter>("native", "The MPI library's MPI_Scatter.", mpi_only, &native_scatter));
  registry.add(make_algorithm<C::gatherv>("native", "The MPI library's MPI_Gatherv.", mpi_only, &native_gatherv));
  registry.add(make_algorithm<C::scatterv>("native", "The MPI library's MPI_Scatterv.", mpi_only, &native_scatterv));
  registry.add(make_algorithm<C::alltoall>("native", "The MPI library's MPI_Alltoall.", mpi_only, &native_alltoall));
  registry.add(make_algorithm<C::alltoallv>("native", "The MPI library's MPI_Alltoallv.", mpi_only, &native_alltoallv));
}

}  // namespace ragged::mpi
