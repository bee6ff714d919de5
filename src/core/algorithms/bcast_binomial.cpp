// Binomial-tree broadcast.
//
// Ranks are renumbered relative to the root (v = rank - root mod P). Each rank
// receives once from its parent (v with its lowest set bit cleared) and then sends
// to its children v + 2^k, the farthest (largest subtree) first, so the rounds
// halve the distance. P = 8, root 0 (add the root mod P for another root):
//
//   round 0:  0 ──> 4
//   round 1:  0 ──> 2        4 ──> 6
//   round 2:  0 ──> 1   2 ──> 3   4 ──> 5   6 ──> 7
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (MPICH's binomial broadcast).
// Limitation: the whole message at every level, ceil(log2 P) n beta (small messages); a rank's sends posted at once
//   share its link.
// Memory: none beyond the receive buffer.
//
// Cost (α-β model, n bytes): ⌈log2 P⌉ (α + nβ) along the deepest path; the root
// sends ⌈log2 P⌉ messages, every other rank receives exactly one. No copies, no
// extra memory.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/binomial_bcast.hpp"
#include "internal/common.hpp"

namespace ragged {

void bcast_binomial(Context& ctx, void* buffer, std::size_t count, DataType type, int root) {
  const std::size_t bytes = count * size_of(type);
  const int tag = ctx.tag(0);
  std::vector<Request> sends;
  for (const int child : internal::binomial_bcast_receive(ctx, buffer, bytes, root, tag)) {
    sends.push_back(ctx.comm().isend(child, tag, buffer, bytes));
  }
  ctx.comm().wait_all(sends, ctx.timeout());
}

}  // namespace ragged
