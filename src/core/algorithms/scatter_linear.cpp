// Linear (flat-tree) scatter: the root sends every rank its block straight from
// sendbuf + rank * count.
//
//   sendbuf = [ b0 | b1 | b2 | ... | b(P-1) ]
//   root ──> 1 (b1)
//   root ──> 2 (b2)
//    ...
//   root ──> P-1 (b(P-1))   (all sends posted at once, in rank order after the root)
//
// Dispatch has copied the root's own block into its recvbuf (in place, recvbuf
// points at that block inside sendbuf). sendbuf matters only at the root.
//
// Reference: the flat tree of Open MPI's basic linear scatter (coll basic).
// Limitation: the root's link sends the P-1 blocks one after the other: (P-1)(alpha + n beta).
// Memory: none beyond the receive buffer.
//
// Cost (α-β model, n bytes per block): the root sends P-1 messages, so it takes
// (P-1)(α + nβ) when its link serializes them; every other rank receives one.
// No extra memory.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"

namespace ragged {

void scatter_linear(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int me = comm.rank();
  const std::size_t bytes = count * size_of(type);
  const int tag = ctx.tag(0);

  if (me != root) {
    comm.recv(root, tag, recvbuf, bytes, ctx.timeout());
    return;
  }
  std::vector<Request> sends;
  sends.reserve(static_cast<std::size_t>(procs - 1));
  for (int i = 1; i < procs; ++i) {
    const int r = (root + i) % procs;
    sends.push_back(comm.isend(r, tag, internal::bytes(sendbuf) + static_cast<std::size_t>(r) * bytes, bytes));
  }
  comm.wait_all(sends, ctx.timeout());
}

}  // namespace ragged
