// Linear (flat-tree) broadcast: the root sends the whole buffer to every other
// rank; every other rank receives once.
//
//   root ──> 1
//   root ──> 2
//    ...
//   root ──> P-1        (all sends posted at once, in rank order after the root)
//
// Reference: the flat tree of Open MPI's basic linear broadcast (coll basic).
// Limitation: the root's link carries P-1 whole messages, (P-1) n beta.
// Memory: none beyond the receive buffer.
//
// Cost (α-β model, n bytes): the root injects P-1 messages, so it takes
// (P-1)(α + nβ) when the root's link serializes them; every other rank receives
// one message (α + nβ). No copies, no extra memory.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"

namespace ragged {

void bcast_linear(Context& ctx, void* buffer, std::size_t count, DataType type, int root) {
  Comm& comm = ctx.comm();
  const std::size_t bytes = count * size_of(type);
  const int procs = comm.size();
  const int tag = ctx.tag(0);

  if (comm.rank() != root) {
    comm.recv(root, tag, buffer, bytes, ctx.timeout());
    return;
  }
  std::vector<Request> sends;
  sends.reserve(static_cast<std::size_t>(procs - 1));
  for (int i = 1; i < procs; ++i) {
    sends.push_back(comm.isend((root + i) % procs, tag, buffer, bytes));
  }
  comm.wait_all(sends, ctx.timeout());
}

}  // namespace ragged
