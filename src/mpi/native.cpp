// The "native" algorithms: the MPI library's own collectives on the Comm's duplicated
// communicator. They are the reference the baseline tests compare against and the
// baseline of every benchmark. They call the PMPI_ entry points, so that a PMPI shim that
// routes MPI_Allgather & co. to ragged can select "native" without calling itself again. They cannot honour
// the call's timeout (a blocking MPI collective cannot be abandoned) and ignore the context's hints.
// Dispatch has checked the arguments, resolved in_place and copied the caller's own block.
#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "internal.hpp"
#include "ragged/collectives.hpp"
#include "ragged/context.hpp"
#include "ragged/mpi.hpp"
#include "ragged/registry.hpp"

namespace ragged::mpi {

namespace {

int count_of(std::size_t count) {
  if (count > max_count) {
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

/// Dispatch resolves in_place by aliasing (allgather: sendbuf is the rank's own block of
/// recvbuf; allreduce and reduce at the root: sendbuf == recvbuf; gather(v) at the root:
/// sendbuf is the root's place in recvbuf; scatter(v) at the root: recvbuf is the root's
/// block of sendbuf). MPI forbids aliased buffers, so these go to MPI as MPI_IN_PLACE
/// (the block is already where MPI_IN_PLACE expects it: dispatch put it there).
const void* send_arg(const void* sendbuf, const void* own_place) {
  return sendbuf == own_place ? MPI_IN_PLACE : sendbuf;
}
void* recv_arg(void* recvbuf, const void* own_block) { return recvbuf == own_block ? MPI_IN_PLACE : recvbuf; }

const std::byte* at(const void* buffer, std::size_t elements, DataType type) {
  return static_cast<const std::byte*>(buffer) + elements * size_of(type);
}

void native_allgather(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  const int n = count_of(count);
  const MPI_Datatype t = to_mpi(type);
  const void* own = at(recvbuf, static_cast<std::size_t>(ctx.rank()) * count, type);
  check(PMPI_Allgather(send_arg(sendbuf, own), n, t, recvbuf, n, t, native_handle(ctx.comm())), "MPI_Allgather");
}

void native_allreduce(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                      const ReduceOp& op) {
  const int n = count_of(count);
  const MPI_Op mpi_op = reduction_op(op, type);
  check(PMPI_Allreduce(send_arg(sendbuf, recvbuf), recvbuf, n, to_mpi(type), mpi_op, native_handle(ctx.comm())),
        "MPI_Allreduce");
}

void native_scan(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                 const ReduceOp& op) {
  const MPI_Op mpi_op = reduction_op(op, type);
  check(
      PMPI_Scan(send_arg(sendbuf, recvbuf), recvbuf, count_of(count), to_mpi(type), mpi_op, native_handle(ctx.comm())),
      "MPI_Scan");
}

void native_exscan(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                   const ReduceOp& op) {
  const MPI_Op mpi_op = reduction_op(op, type);
  check(PMPI_Exscan(send_arg(sendbuf, recvbuf), recvbuf, count_of(count), to_mpi(type), mpi_op,
                    native_handle(ctx.comm())),
        "MPI_Exscan");
}

void native_reduce_scatter_block(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                                 const ReduceOp& op) {
  const MPI_Op mpi_op = reduction_op(op, type);
  check(PMPI_Reduce_scatter_block(sendbuf, recvbuf, count_of(count), to_mpi(type), mpi_op, native_handle(ctx.comm())),
        "MPI_Reduce_scatter_block");
}

void native_reduce_scatter(Context& ctx, const void* sendbuf, void* recvbuf, std::span<const int> recvcounts,
                           DataType type, const ReduceOp& op) {
  const MPI_Op mpi_op = reduction_op(op, type);
  check(PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts.data(), to_mpi(type), mpi_op, native_handle(ctx.comm())),
        "MPI_Reduce_scatter");
}

void native_bcast(Context& ctx, void* buffer, std::size_t count, DataType type, int root) {
  check(PMPI_Bcast(buffer, count_of(count), to_mpi(type), root, native_handle(ctx.comm())), "MPI_Bcast");
}

void native_reduce(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                   const ReduceOp& op, int root) {
  const int n = count_of(count);
  const MPI_Op mpi_op = reduction_op(op, type);
  const void* send = ctx.rank() == root ? send_arg(sendbuf, recvbuf) : sendbuf;
#if defined(MPICH)
  // MPICH 4.0 (pmodels/mpich#6540, fixed upstream by #6543) reads MPI_IN_PLACE as a buffer in
  // MPI_Reduce at a root other than 0 and crashes: give it a copy of the root's data instead.
  if (send == MPI_IN_PLACE && root != 0 && n > 0) {
    const std::size_t bytes = count * size_of(type);
    std::span<std::byte> copy = ctx.workspace().get(bytes);
    std::memcpy(copy.data(), recvbuf, bytes);
    send = copy.data();
  }
#endif
  check(PMPI_Reduce(send, recvbuf, n, to_mpi(type), mpi_op, root, native_handle(ctx.comm())), "MPI_Reduce");
}

void native_gather(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root) {
  const int n = count_of(count);
  const MPI_Datatype t = to_mpi(type);
  const void* send =
      ctx.rank() == root ? send_arg(sendbuf, at(recvbuf, static_cast<std::size_t>(root) * count, type)) : sendbuf;
  check(PMPI_Gather(send, n, t, recvbuf, n, t, root, native_handle(ctx.comm())), "MPI_Gather");
}

void native_scatter(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root) {
  const int n = count_of(count);
  const MPI_Datatype t = to_mpi(type);
  void* recv =
      ctx.rank() == root ? recv_arg(recvbuf, at(sendbuf, static_cast<std::size_t>(root) * count, type)) : recvbuf;
  check(PMPI_Scatter(sendbuf, n, t, recv, n, t, root, native_handle(ctx.comm())), "MPI_Scatter");
}

void native_gatherv(Context& ctx, const void* sendbuf, int sendcount, void* recvbuf, std::span<const int> recvcounts,
                    std::span<const int> displs, DataType type, int root) {
  const bool at_root = ctx.rank() == root;
  const void* send = sendbuf;
  if (at_root) {
    const auto r = static_cast<std::size_t>(root);
    send = send_arg(sendbuf, at(recvbuf, static_cast<std::size_t>(displs[r]), type));
  }
  const MPI_Datatype t = to_mpi(type);
  check(PMPI_Gatherv(send, sendcount, t, recvbuf, at_root ? recvcounts.data() : nullptr,
                     at_root ? displs.data() : nullptr, t, root, native_handle(ctx.comm())),
        "MPI_Gatherv");
}

void native_scatterv(Context& ctx, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
                     void* recvbuf, int recvcount, DataType type, int root) {
  const bool at_root = ctx.rank() == root;
  void* recv = recvbuf;
  if (at_root) {
    const auto r = static_cast<std::size_t>(root);
    recv = recv_arg(recvbuf, at(sendbuf, static_cast<std::size_t>(displs[r]), type));
  }
  const MPI_Datatype t = to_mpi(type);
  check(PMPI_Scatterv(sendbuf, at_root ? sendcounts.data() : nullptr, at_root ? displs.data() : nullptr, t, recv,
                      recvcount, t, root, native_handle(ctx.comm())),
        "MPI_Scatterv");
}

/// alltoall and alltoallv: for in_place, dispatch hands over a private copy as sendbuf.
void native_alltoall(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  const int n = count_of(count);
  const MPI_Datatype t = to_mpi(type);
  check(PMPI_Alltoall(sendbuf, n, t, recvbuf, n, t, native_handle(ctx.comm())), "MPI_Alltoall");
}

void native_alltoallv(Context& ctx, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                      void* recvbuf, std::span<const int> recvcounts, std::span<const int> rdispls, DataType type) {
  const MPI_Datatype t = to_mpi(type);
  check(PMPI_Alltoallv(sendbuf, sendcounts.data(), sdispls.data(), t, recvbuf, recvcounts.data(), rdispls.data(), t,
                       native_handle(ctx.comm())),
        "MPI_Alltoallv");
}

void native_alltoallw(Context& ctx, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                      std::span<const DataType> sendtypes, void* recvbuf, std::span<const int> recvcounts,
                      std::span<const int> rdispls, std::span<const DataType> recvtypes) {
  std::vector<MPI_Datatype> st;
  std::vector<MPI_Datatype> rt;
  for (const DataType t : sendtypes) st.push_back(to_mpi(t));
  for (const DataType t : recvtypes) rt.push_back(to_mpi(t));
  check(PMPI_Alltoallw(sendbuf, sendcounts.data(), sdispls.data(), st.data(), recvbuf, recvcounts.data(),
                       rdispls.data(), rt.data(), native_handle(ctx.comm())),
        "MPI_Alltoallw");
}

/// Dispatch put the own block in place: MPI_IN_PLACE.
void native_allgatherv(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::span<const int> recvcounts,
                       std::span<const int> displs, DataType type) {
  check(PMPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recvbuf, recvcounts.data(), displs.data(), to_mpi(type),
                        native_handle(ctx.comm())),
        "MPI_Allgatherv");
}

}  // namespace

void register_native_algorithms() {
  using C = Collective;
  Restrictions mpi_only;
  mpi_only.backend = "mpi";
  Registry& registry = Registry::instance();
  registry.add(make_algorithm<C::allgather>("native", "The MPI library's MPI_Allgather.", mpi_only, &native_allgather));
  Restrictions reads_sendbuf = mpi_only;
  reads_sendbuf.reads_sendbuf = true;
  registry.add(
      make_algorithm<C::allreduce>("native", "The MPI library's MPI_Allreduce.", reads_sendbuf, &native_allreduce));
  registry.add(make_algorithm<C::bcast>("native", "The MPI library's MPI_Bcast.", mpi_only, &native_bcast));
  registry.add(make_algorithm<C::reduce>("native", "The MPI library's MPI_Reduce.", mpi_only, &native_reduce));
  registry.add(make_algorithm<C::gather>("native", "The MPI library's MPI_Gather.", mpi_only, &native_gather));
  registry.add(make_algorithm<C::scatter>("native", "The MPI library's MPI_Scatter.", mpi_only, &native_scatter));
  registry.add(make_algorithm<C::gatherv>("native", "The MPI library's MPI_Gatherv.", mpi_only, &native_gatherv));
  registry.add(make_algorithm<C::scatterv>("native", "The MPI library's MPI_Scatterv.", mpi_only, &native_scatterv));
  registry.add(make_algorithm<C::alltoall>("native", "The MPI library's MPI_Alltoall.", mpi_only, &native_alltoall));
  registry.add(make_algorithm<C::alltoallv>("native", "The MPI library's MPI_Alltoallv.", mpi_only, &native_alltoallv));
  registry.add(make_algorithm<C::scan>("native", "The MPI library's MPI_Scan.", mpi_only, &native_scan));
  registry.add(make_algorithm<C::exscan>("native", "The MPI library's MPI_Exscan.", mpi_only, &native_exscan));
  registry.add(make_algorithm<C::reduce_scatter_block>("native", "The MPI library's MPI_Reduce_scatter_block.",
                                                       mpi_only, &native_reduce_scatter_block));
  registry.add(
      make_algorithm<C::allgatherv>("native", "The MPI library's MPI_Allgatherv.", mpi_only, &native_allgatherv));
  registry.add(make_algorithm<C::reduce_scatter>("native", "The MPI library's MPI_Reduce_scatter.", mpi_only,
                                                 &native_reduce_scatter));
  registry.add(make_algorithm<C::alltoallw>("native", "The MPI library's MPI_Alltoallw.", mpi_only, &native_alltoallw));
}

}  // namespace ragged::mpi
