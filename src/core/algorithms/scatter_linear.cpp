// Linear (flat-tree) scatter: the root sends every rank its block straight from
// sendbuf + rank * count.
//
//   sendbuf = [ b0 | b1 | b2 | ... | b(P-1) ]
//   root ──> 1 (b1)
//   root ──> 2 (b2)
//    ...
//   root ──> P-1 (b(P-1))   (all sends posted at once, in rank order after the root)
//
// In place: as with MPI_Scatter's MPI_IN_PLACE, the root passes recvbuf ==
// ragged::in_place (the const pointer value, cast to void*) and then keeps its
// own block where it is, at sendbuf + root * count. sendbuf matters only at the
// root.
//
// Cost (α-β model, n bytes per block): the root sends P-1 messages, so it takes
// (P-1)(α + nβ) when its link serializes them; every other rank receives one.
// One local copy of n bytes at the root (none in place), no extra memory.
#include <vector>

#include "internal/common.hpp"
#include "ragged/algorithms.hpp"

namespace ragged {

void scatter_linear(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root,
                    const CollectiveOptions& options) {
  check_rank(comm, root, "root");
  const int procs = comm.size();
  const int me = comm.rank();
  const bool inplace = internal::is_in_place(recvbuf);
  if (inplace && me != root) throw InvalidArgument("recvbuf", "in_place is only valid at the root");
  const std::size_t bytes = count * size_of(type);
  if (!inplace) internal::check_buffer(recvbuf, bytes, "recvbuf");
  if (me == root) internal::check_buffer(sendbuf, bytes * static_cast<std::size_t>(procs), "sendbuf");
  if (bytes == 0) return;

  if (me != root) {
    comm.recv(root, internal::tag_scatter, recvbuf, bytes, options.timeout);
    return;
  }
  std::vector<Request> sends;
  sends.reserve(static_cast<std::size_t>(procs - 1));
  for (int i = 1; i < procs; ++i) {
    const int r = (root + i) % procs;
    sends.push_back(
        comm.isend(r, internal::tag_scatter, internal::bytes(sendbuf) + static_cast<std::size_t>(r) * bytes, bytes));
  }
  if (!inplace) internal::copy_bytes(recvbuf, internal::bytes(sendbuf) + static_cast<std::size_t>(root) * bytes, bytes);
  comm.wait_all(sends, options.timeout);
}

}  // namespace ragged
