// ragged: the uniform signature of each collective, shared by every algorithm
// that implements it. Counts are in elements of `type`; buffers follow MPI's
// layout (allgather/gather receive size()*count elements in rank order).
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "ragged/comm.hpp"
#include "ragged/datatype.hpp"

namespace ragged {

namespace internal {
inline const unsigned char in_place_marker = 0;
}
/// MPI_IN_PLACE, with MPI's rules for where it goes:
/// * as sendbuf: allgather takes this rank's block from recvbuf[rank*count]; allreduce reduces
///   recvbuf in place; reduce, gather and gatherv accept it at the root only (the root's
///   contribution is already in recvbuf);
/// * as recvbuf: scatter and scatterv accept it at the root only (the root's block stays in
///   sendbuf).
/// Anywhere else it is rejected with InvalidArgument naming the buffer.
inline const void* const in_place = &internal::in_place_marker;

class ArrivalSnapshot;
struct ClusterLayout;

/// Per-call options common to every collective.
struct CollectiveOptions {
  /// Arrival estimates for arrival-aware algorithms; null when there are none.
  std::shared_ptr<const ArrivalSnapshot> arrival;
  /// Which cluster each rank belongs to, for the two-cluster algorithms; null when unknown.
  std::shared_ptr<const ClusterLayout> clusters;
  /// Applies to every blocking wait inside the collective.
  Timeout timeout;
};

using AllgatherFn = void (*)(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                             const CollectiveOptions& options);
using AllreduceFn = void (*)(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                             const ReduceOp& op, const CollectiveOptions& options);
using BcastFn = void (*)(Comm& comm, void* buffer, std::size_t count, DataType type, int root,
                         const CollectiveOptions& options);
using ReduceFn = void (*)(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                          const ReduceOp& op, int root, const CollectiveOptions& options);
/// gather: every rank sends `count` elements; the root receives size()*count in rank order.
using GatherFn = void (*)(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root,
                          const CollectiveOptions& options);
/// scatter: the root sends size()*count elements; every rank receives its `count`.
using ScatterFn = void (*)(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root,
                           const CollectiveOptions& options);

/// gatherv: every rank sends `sendcount` elements; the root receives recvcounts[i] elements of
/// rank i at recvbuf + displs[i] (counts and displacements in elements, significant at the root;
/// displacements need not be contiguous or in rank order). Counts are ints as in MPI, so
/// negative values can be detected and reported.
using GathervFn = void (*)(Comm& comm, const void* sendbuf, int sendcount, void* recvbuf,
                           std::span<const int> recvcounts, std::span<const int> displs, DataType type, int root,
                           const CollectiveOptions& options);
/// scatterv: the root sends sendcounts[i] elements from sendbuf + displs[i] to rank i, which
/// receives `recvcount` of them.
using ScattervFn = void (*)(Comm& comm, const void* sendbuf, std::span<const int> sendcounts,
                            std::span<const int> displs, void* recvbuf, int recvcount, DataType type, int root,
                            const CollectiveOptions& options);
/// alltoall: block j of sendbuf (count elements) goes to rank j; block i of recvbuf comes from rank i.
using AlltoallFn = void (*)(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                            const CollectiveOptions& options);
/// alltoallv: as MPI_Alltoallv, counts and displacements in elements.
using AlltoallvFn = void (*)(Comm& comm, const void* sendbuf, std::span<const int> sendcounts,
                             std::span<const int> sdispls, void* recvbuf, std::span<const int> recvcounts,
                             std::span<const int> rdispls, DataType type, const CollectiveOptions& options);

/// A dissemination barrier over Comm (used by benchmarks and tests on every backend).
void barrier(Comm& comm, Timeout timeout = {});

}  // namespace ragged
