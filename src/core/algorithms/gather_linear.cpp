// Linear (flat-tree) gather: every rank sends its block straight to the root,
// which receives each block in place at recvbuf + rank * count.
//
//   1 ──> root ┐
//   2 ──> root ├─ recvbuf = [ b0 | b1 | b2 | ... | b(P-1) ]
//    ...       │
//   P-1 ─> root┘            (all receives posted at once)
//
// In place: at the root, sendbuf == ragged::in_place means the root's block is
// already at recvbuf + root * count. recvbuf matters only at the root.
//
// Cost (α-β model, n bytes per block): the root receives P-1 messages, so it
// takes (P-1)(α + nβ) when its link serializes them; every other rank sends one.
// One local copy of n bytes at the root (none in place), no extra memory.
#include <vector>

#include "internal/common.hpp"
#include "ragged/algorithms.hpp"

namespace ragged {

void gather_linear(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root,
                   const CollectiveOptions& options) {
  check_rank(comm, root, "root");
  const int procs = comm.size();
  const int me = comm.rank();
  const bool inplace = internal::is_in_place(sendbuf);
  if (inplace && me != root) throw InvalidArgument("sendbuf", "in_place is only valid at the root");
  const std::size_t bytes = count * size_of(type);
  if (!inplace) internal::check_buffer(sendbuf, bytes, "sendbuf");
  if (me == root) internal::check_buffer(recvbuf, bytes * static_cast<std::size_t>(procs), "recvbuf");
  if (bytes == 0) return;

  if (me != root) {
    comm.send(root, internal::tag_gather, sendbuf, bytes, options.timeout);
    return;
  }
  std::vector<Request> recvs;
  recvs.reserve(static_cast<std::size_t>(procs - 1));
  for (int i = 1; i < procs; ++i) {
    const int r = (root + i) % procs;
    recvs.push_back(
        comm.irecv(r, internal::tag_gather, internal::bytes(recvbuf) + static_cast<std::size_t>(r) * bytes, bytes));
  }
  if (!inplace) internal::copy_bytes(internal::bytes(recvbuf) + static_cast<std::size_t>(root) * bytes, sendbuf, bytes);
  comm.wait_all(recvs, options.timeout);
}

}  // namespace ragged
