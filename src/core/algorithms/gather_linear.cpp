// Linear (flat-tree) gather: every rank sends its block straight to the root,
// which receives each block in place at recvbuf + rank * count.
//
//   1 ──> root ┐
//   2 ──> root ├─ recvbuf = [ b0 | b1 | b2 | ... | b(P-1) ]
//    ...       │
//   P-1 ─> root┘            (all receives posted at once)
//
// Dispatch has put the root's own block at recvbuf + root * count (in place it
// is already there). recvbuf matters only at the root.
//
// Reference: the flat tree of Open MPI's basic linear gather (coll basic).
// Limitation: the root's link takes the P-1 blocks one after the other: (P-1)(alpha + n beta).
// Memory: none beyond the receive buffer.
//
// Cost (α-β model, n bytes per block): the root receives P-1 messages, so it
// takes (P-1)(α + nβ) when its link serializes them; every other rank sends one.
// No extra memory.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"

namespace ragged {

void gather_linear(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int me = comm.rank();
  const std::size_t bytes = count * size_of(type);
  const int tag = ctx.tag(0);

  if (me != root) {
    comm.send(root, tag, sendbuf, bytes, ctx.timeout());
    return;
  }
  std::vector<Request> recvs;
  recvs.reserve(static_cast<std::size_t>(procs - 1));
  for (int i = 1; i < procs; ++i) {
    const int r = (root + i) % procs;
    recvs.push_back(comm.irecv(r, tag, internal::bytes(recvbuf) + static_cast<std::size_t>(r) * bytes, bytes));
  }
  comm.wait_all(recvs, ctx.timeout());
}

}  // namespace ragged
