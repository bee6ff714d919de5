// allgatherv "bruck": allgather's Bruck with each rank's own block size, in ceil(log2 P) rounds.
//
//   Each rank packs a rotated view in a buffer of all the blocks: position i holds block rank+i
//   (mod P), back to back (plans::allgatherv::rotated_offsets). In round k (d = 2^k) it sends
//   positions [0, m) to rank-d and receives positions [d, d+m) from rank+d, m = min(d, P-d): the
//   sender's first m positions are the receiver's positions d..d+m-1, the same blocks, so the same
//   bytes. At the end every position goes to its block's displacement in recvbuf.
//
//   P = 5, blocks of 2, 0, 1, 3, 1 elements, rank 0's packed view after each round:
//   start    [00]
//   d = 1    [00][]              rank 1 sends its position 0 (block 1, empty: no message)
//   d = 2    [00][][2][333]      rank 2 sends its positions 0..1 = blocks 2, 3 (4 elements)
//   d = 4    [00][][2][333][4]   rank 4 sends its position 0 = block 4
//
// Reference: J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal, D. Weathersby, "Efficient algorithms for all-to-all
//   communications in multiport message-passing systems", IEEE TPDS 8(11), 1997; MPICH's allgatherv for short
//   messages (R. Thakur, R. Rabenseifner, W. Gropp, IJHPCA 19(1), 2005).
// Limitation: a round lasts as long as its largest message: with one large block of m bytes every round carries it
//   somewhere, ceil(log2 P)(alpha + m beta). Short messages.
// Memory: a buffer of all the blocks (n bytes), and the copies of n bytes into and out of it.
//
// Cost (n = all blocks, L = the largest): sum over rounds d of alpha + min(min(d, P-d) L, n) beta; equal blocks:
// ceil(log2 P) alpha + (P-1)/P n beta.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "internal/exchange.hpp"
#include "plans/allgatherv_plan.hpp"
#include "plans/bruck_plan.hpp"

namespace ragged {

void allgatherv_bruck(Context& ctx, const void* /*sendbuf*/, void* recvbuf, std::span<const int> recvcounts,
                      std::span<const int> displs, DataType type) {
  const std::size_t es = size_of(type);
  auto* out = static_cast<std::byte*>(recvbuf);
  const int procs = ctx.procs();
  const int rank = ctx.rank();
  const std::vector<std::size_t> offsets = plans::allgatherv::rotated_offsets(recvcounts, rank);
  std::vector<std::byte> view(offsets.back() * es);
  const auto displ = [&](int block) { return static_cast<std::size_t>(displs[static_cast<std::size_t>(block)]) * es; };
  // Position 0: this rank's own block, which dispatch put in recvbuf.
  internal::copy_bytes(view.data(), out + displ(rank), offsets[1] * es);
  for (int k = 0; k < plans::bruck::rounds(procs); ++k) {
    const plans::bruck::Round round = plans::bruck::round(rank, procs, k);
    const auto d = static_cast<std::size_t>(round.distance);
    const auto m = static_cast<std::size_t>(round.blocks);
    // The receiver's positions [d, d + m) are the sender's [0, m): the same blocks.
    internal::exchange_nonempty(ctx, round.send_to, view.data(), offsets[m] * es, round.recv_from,
                                view.data() + offsets[d] * es, (offsets[d + m] - offsets[d]) * es, ctx.tag());
  }
  for (int i = 1; i < procs; ++i) {
    const int block = plans::bruck::block_at(rank, procs, i);
    const auto p = static_cast<std::size_t>(i);
    internal::copy_bytes(out + displ(block), view.data() + offsets[p] * es, (offsets[p + 1] - offsets[p]) * es);
  }
}

}  // namespace ragged
