// ragged: the uniform signature of each collective, shared by every algorithm
// that implements it. Counts are in elements of `type`; buffers follow MPI's
// layout (allgather/gather receive size()*count elements in rank order).
#pragma once

#include <cstddef>
#include <memory>

#include "ragged/comm.hpp"
#include "ragged/datatype.hpp"

namespace ragged {

namespace internal {
inline const unsigned char in_place_marker = 0;
}
/// Pass as the send buffer for MPI_IN_PLACE semantics: allgather takes this rank's block
/// from recvbuf[rank*count]; allreduce reduces recvbuf in place; reduce/gather/scatter use it
/// at the root only (the root's contribution is already in / stays in recvbuf).
inline const void* const in_place = &internal::in_place_marker;

class ArrivalSnapshot;

/// Per-call options common to every collective.
struct CollectiveOptions {
  /// Arrival estimates for arrival-aware algorithms; null when there are none.
  std::shared_ptr<const ArrivalSnapshot> arrival;
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

/// A dissemination barrier over Comm (used by benchmarks and tests on every backend).
void barrier(Comm& comm, Timeout timeout = {});

}  // namespace ragged
