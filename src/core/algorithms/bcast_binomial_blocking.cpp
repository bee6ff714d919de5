// bcast "binomial_blocking": the binomial tree of bcast "binomial", but each rank
// sends to its children one after the other, waiting for each send, the farthest
// (largest subtree) first. P = 8, root 0 (add the root mod P for another root):
//
//   0 ──> 4 (wait) ──> 2 (wait) ──> 1          4 ──> 6 (wait) ──> 5
//                      2 ──> 3                  6 ──> 7
//
//   time ->  |  0→4   |  0→2, 4→6       |  0→1, 2→3, 4→5, 6→7  |
//
// bcast "binomial" posts all of a rank's sends at once, so on a network where a
// host's link is shared (CM02, TCP) they split its bandwidth and the first
// subtree, the largest, waits for the smaller ones' bytes too. Here every
// transfer has the sender's link to itself: the schedule of the one-ported
// model (for P = 28 and 1 MB the posted-at-once tree took twice as long). It was
// LNBC's and BSLB's broadcast until they took the one dispatch selects.
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (MPICH's binomial broadcast), its sends one at a time.
// Limitation: the whole message at every level, ceil(log2 P) n beta: small messages.
// Memory: none beyond the receive buffer.
//
// Cost (α-β model, n bytes): ⌈log2 P⌉ (α + nβ) along the deepest path, which the
// blocking sends meet exactly: the root's k-th send starts when its (k-1)-th ends.
// The root sends ⌈log2 P⌉ messages, every other rank receives exactly one.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/binomial_bcast.hpp"
#include "internal/common.hpp"

namespace ragged {

void bcast_binomial_blocking(Context& ctx, void* buffer, std::size_t count, DataType type, int root) {
  const std::size_t bytes = count * size_of(type);
  const int tag = ctx.tag(0);
  for (const int child : internal::binomial_bcast_receive(ctx, buffer, bytes, root, tag)) {
    ctx.comm().send(child, tag, buffer, bytes, ctx.timeout());
  }
}

}  // namespace ragged
