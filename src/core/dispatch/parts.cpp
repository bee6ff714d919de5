// The parts of a composing algorithm (docs/algorithms/hierarchical.md): each phase runs as a
// collective of its own, on the caller's communicator or a SubComm of it, selected as a call
// would be (src/core/dispatch/compose.hpp, "parts on other communicators").
#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <utility>

#include "dispatch/call.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "ragged/arrival.hpp"
#include "ragged/layout.hpp"
#include "ragged/registry.hpp"
#include "ragged/topology.hpp"

namespace ragged::internal {

Context part_context(const Context& ctx, Comm& on, TagBlock tags, Hints& storage) {
  storage = ctx.hints();
  if (&on != &ctx.comm()) {
    // Hints that name the caller's ranks do not describe the part's: its NodeLayout is its
    // communicator's own, and the cluster layout, the arrival snapshot (whose link model stays,
    // as a LinkModel) and a composed bcast's held blocks and filling source are the caller's.
    storage.erase<NodeLayout>();
    if (auto own = on.layout()) storage.set(std::move(own));
    storage.erase<ClusterLayout>();
    if (const ArrivalSnapshot* snapshot = ctx.hints().get<ArrivalSnapshot>()) {
      if (snapshot->link().known() && storage.get<LinkModel>() == nullptr) {
        storage.set(std::make_shared<const LinkModel>(snapshot->link()));
      }
      storage.erase<ArrivalSnapshot>();
    }
    storage.erase<HeldBlocks>();
    storage.erase<SourceProgress>();
    storage.erase<OwnBlockSend>();
  }
  return Context(on, tags, ctx.timeout(), ctx.workspace(), storage);
}

const Algorithm& select_part(const Context& part, Collective collective, std::size_t bytes, bool commutative,
                             std::size_t element) {
  return choose_for_part(part.comm(), collective, bytes, commutative, part.hints(), true, 0, element);
}

const Algorithm& part_allreduce(const Context& part, void* buffer, std::size_t count, DataType type,
                                const ReduceOp& op) {
  const std::size_t n = count * size_of(type);
  if (part.size() == 1 || count == 0) return select_part(part, Collective::allreduce, n, op.commutative, size_of(type));
  return dispatch_reduction_part<Collective::allreduce>(
      part, n, op.commutative, size_of(type), static_cast<const void*>(buffer), buffer, count, type, std::cref(op));
}

const Algorithm& part_allreduce_arrival(const Context& part, void* buffer, std::size_t count, DataType type,
                                        const ReduceOp& op) {
  const std::size_t n = count * size_of(type);
  // Not a sub-call: the part's snapshot is its own, and its imbalance chooses as a call's would.
  const Algorithm& algorithm = choose_for_part(part.comm(), Collective::allreduce, n, op.commutative, part.hints(),
                                               /*sub_call=*/false, 0, size_of(type));
  if (part.size() == 1 || count == 0) return algorithm;
  Context sub(part.comm(), part.tags(), part.timeout(), part.workspace(), part.hints(), &algorithm);
  std::get<static_cast<std::size_t>(Collective::allreduce)>(algorithm.fn)(sub, buffer, buffer, count, type, op);
  return algorithm;
}

const Algorithm& part_reduce(const Context& part, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                             const ReduceOp& op, int root) {
  const std::size_t n = count * size_of(type);
  if (part.size() == 1 || count == 0) {
    if (part.rank() == root) copy_bytes(recvbuf, sendbuf, n);
    return select_part(part, Collective::reduce, n, op.commutative, size_of(type));
  }
  return dispatch_reduction_part<Collective::reduce>(part, n, op.commutative, size_of(type), sendbuf, recvbuf, count,
                                                     type, std::cref(op), root);
}

namespace {
/// The sum of `counts` and the largest of them.
std::pair<std::size_t, int> total_and_largest(std::span<const int> counts) {
  std::size_t total = 0;
  int largest = 0;
  for (const int c : counts) {
    total += static_cast<std::size_t>(c);
    largest = std::max(largest, c);
  }
  return {total, largest};
}
}  // namespace

const Algorithm& part_reduce_scatter(const Context& part, const void* sendbuf, void* recvbuf,
                                     std::span<const int> recvcounts, DataType type, const ReduceOp& op) {
  const std::size_t es = size_of(type);
  const auto [total, largest] = total_and_largest(recvcounts);
  const Algorithm& algorithm = choose_for_part(part.comm(), Collective::reduce_scatter, total * es, op.commutative,
                                               part.hints(), true, static_cast<std::size_t>(largest) * es, es);
  const auto mine = static_cast<std::size_t>(recvcounts[static_cast<std::size_t>(part.rank())]);
  if (part.size() == 1 || total == 0) {
    copy_bytes(recvbuf, sendbuf, mine * es);
    return algorithm;
  }
  Context sub(part.comm(), part.tags(), part.timeout(), part.workspace(), part.hints(), &algorithm);
  std::get<static_cast<std::size_t>(Collective::reduce_scatter)>(algorithm.fn)(sub, sendbuf, recvbuf, recvcounts, type,
                                                                               op);
  return algorithm;
}

const Algorithm& part_gather(const Context& part, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                             int root) {
  const std::size_t block = count * size_of(type);
  if (part.rank() == root) {
    std::byte* own = bytes(recvbuf) + static_cast<std::size_t>(root) * block;
    copy_bytes(own, sendbuf, block);
    sendbuf = own;
  }
  if (part.size() == 1 || block == 0) return select_part(part, Collective::gather, block, true);
  return dispatch_part<Collective::gather>(part, block, true, sendbuf, recvbuf, count, type, root);
}

const Algorithm& part_scatter(const Context& part, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                              int root) {
  const std::size_t block = count * size_of(type);
  if (part.rank() == root) copy_bytes(recvbuf, bytes(sendbuf) + static_cast<std::size_t>(root) * block, block);
  if (part.size() == 1 || block == 0) return select_part(part, Collective::scatter, block, true);
  return dispatch_part<Collective::scatter>(part, block, true, sendbuf, recvbuf, count, type, root);
}

const Algorithm& part_allgather(const Context& part, void* recvbuf, std::size_t count, DataType type) {
  const std::size_t block = count * size_of(type);
  if (part.size() == 1 || block == 0) return select_part(part, Collective::allgather, block, true);
  const void* own = bytes(recvbuf) + static_cast<std::size_t>(part.rank()) * block;
  return dispatch_part<Collective::allgather>(part, block, true, own, recvbuf, count, type);
}

const Algorithm& part_allgatherv(const Context& part, void* recvbuf, std::span<const int> recvcounts,
                                 std::span<const int> displs, DataType type) {
  const std::size_t es = size_of(type);
  const auto [total, largest] = total_and_largest(recvcounts);
  const Algorithm& algorithm = choose_for_part(part.comm(), Collective::allgatherv, total * es, true, part.hints(),
                                               true, static_cast<std::size_t>(largest) * es);
  if (part.size() == 1 || total == 0) return algorithm;
  const void* own = bytes(recvbuf) + static_cast<std::size_t>(displs[static_cast<std::size_t>(part.rank())]) * es;
  Context sub(part.comm(), part.tags(), part.timeout(), part.workspace(), part.hints(), &algorithm);
  std::get<static_cast<std::size_t>(Collective::allgatherv)>(algorithm.fn)(sub, own, recvbuf, recvcounts, displs, type);
  return algorithm;
}

const Algorithm& part_alltoallv(const Context& part, const void* sendbuf, std::span<const int> sendcounts,
                                std::span<const int> sdispls, void* recvbuf, std::span<const int> recvcounts,
                                std::span<const int> rdispls, DataType type) {
  const std::size_t es = size_of(type);
  const auto r = static_cast<std::size_t>(part.rank());
  copy_bytes(bytes(recvbuf) + static_cast<std::size_t>(rdispls[r]) * es,
             bytes(sendbuf) + static_cast<std::size_t>(sdispls[r]) * es, static_cast<std::size_t>(sendcounts[r]) * es);
  if (part.size() == 1) return select_part(part, Collective::alltoallv, 0, true);
  return dispatch_part<Collective::alltoallv>(part, 0, true, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls,
                                              type);
}

}  // namespace ragged::internal
