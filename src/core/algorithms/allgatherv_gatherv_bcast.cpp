// allgatherv "gatherv_bcast": the gatherv that dispatch selects (Träff's block-size-aware tree
// by default) collects every block at rank 0, back to back, and the bcast that dispatch selects
// for the n bytes of all blocks (a pipelined chain, scatter-allgather or double tree for large n)
// sends them to everyone. Neither part cares how the bytes are spread over the blocks: one large
// block costs what equal blocks of the same total cost, where the ring pays it on every link.
//
//   P = 4, blocks aaa b - dd:
//   gatherv to 0 (Träff 2018's tree, shaped by the sizes):   0 <- [aaa b - dd]
//   bcast from 0 of the 6 elements:                          0 -> 1, 2, 3: [aaa b - dd]
//   every rank copies the blocks to their displacements (no copy when they are back to back in
//   rank order: the parts then run on recvbuf itself).
//
// Reference: J. L. Träff, "Practical, distributed, low overhead algorithms for irregular gather and scatter
//   collectives", Parallel Computing 75, 2018 (the gatherv); the composition is MPICH's and Open MPI's basic
//   allgatherv ("gatherv + bcast"), with the parts chosen per call by ragged's dispatch.
// Limitation: rank 0 receives and sends all n bytes (its link carries 2n); two phases, so about twice the ring's
//   bandwidth term for equal blocks.
// Memory: a buffer of all the blocks (n bytes) when they are not back to back in rank order in recvbuf.
//
// Cost: ceil(log2 P) alpha + n beta (the gatherv) plus the best bcast model's for n bytes.
#include <numeric>
#include <vector>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "internal/irregular.hpp"

namespace ragged {

void allgatherv_gatherv_bcast(Context& ctx, const void* sendbuf, void* recvbuf, std::span<const int> recvcounts,
                              std::span<const int> displs, DataType type) {
  namespace irr = internal::irregular;
  const std::size_t es = size_of(type);
  auto* out = static_cast<std::byte*>(recvbuf);
  const int procs = ctx.procs();
  const int rank = ctx.rank();
  constexpr int root = 0;
  const std::vector<int> ranks = irr::run(0, procs - 1);
  const auto total = static_cast<std::size_t>(irr::total(recvcounts, ranks));
  const std::optional<std::int64_t> start = irr::contiguous(recvcounts, displs, ranks);
  // Where the blocks go back to back: recvbuf itself when they already are, else a buffer.
  std::vector<std::byte> packed;
  std::vector<int> packed_displs;
  std::byte* all = start ? out + static_cast<std::size_t>(*start) * es : nullptr;
  std::span<const int> gather_displs = displs;
  std::byte* gather_out = out;
  if (!start) {
    packed.resize(total * es);
    packed_displs.resize(recvcounts.size());
    std::exclusive_scan(recvcounts.begin(), recvcounts.end(), packed_displs.begin(), 0);
    all = packed.data();
    gather_out = packed.data();
    gather_displs = packed_displs;
    // The root's own block at its place in the gatherv's buffer, as gatherv's dispatch would put it.
    if (rank == root) internal::copy_bytes(all, sendbuf, static_cast<std::size_t>(recvcounts[0]) * es);
  }
  const void* own =
      rank == root ? static_cast<const void*>(gather_out + static_cast<std::size_t>(gather_displs[0]) * es) : sendbuf;
  const int own_count = recvcounts[static_cast<std::size_t>(rank)];
  internal::dispatch_part<Collective::gatherv>(ctx.half(0), 0, true, own, own_count, static_cast<void*>(gather_out),
                                               recvcounts, gather_displs, type, root);
  internal::dispatch_bcast(ctx.half(1), all, total, type, root);
  if (!start) irr::unpack(out, packed.data(), recvcounts, displs, ranks, es);
}

}  // namespace ragged
