// Linear (flat-tree) broadcast: the root sends the whole buffer to every other
// rank; every other rank receives once.
//
//   root ──> 1
//   root ──> 2
//    ...
//   root ──> P-1        (all sends posted at once, in rank order after the root)
//
// Cost (α-β model, n bytes): the root injects P-1 messages, so it takes
// (P-1)(α + nβ) when the root's link serializes them; every other rank receives
// one message (α + nβ). No copies, no extra memory.
#include <vector>

#include "internal/common.hpp"
#include "ragged/algorithms.hpp"

namespace ragged {

void bcast_linear(Comm& comm, void* buffer, std::size_t count, DataType type, int root,
                  const CollectiveOptions& options) {
  check_rank(comm, root, "root");
  const std::size_t bytes = count * size_of(type);
  internal::check_buffer(buffer, bytes, "buffer");
  const int procs = comm.size();
  if (bytes == 0 || procs == 1) return;

  if (comm.rank() != root) {
    comm.recv(root, internal::tag_bcast, buffer, bytes, options.timeout);
    return;
  }
  std::vector<Request> sends;
  sends.reserve(static_cast<std::size_t>(procs - 1));
  for (int i = 1; i < procs; ++i) {
    sends.push_back(comm.isend((root + i) % procs, internal::tag_bcast, buffer, bytes));
  }
  comm.wait_all(sends, options.timeout);
}

}  // namespace ragged
