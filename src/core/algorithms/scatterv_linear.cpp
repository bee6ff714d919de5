// Linear scatterv: what Open MPI, MPICH and UCC do (seed 003 §1). The root starts one
// non-blocking send per non-empty block, straight from sendbuf + displs[i], and waits
// for all of them; every other rank receives its block straight into recvbuf. p = 4,
// root 0:
//
//   0 ─[1]─> 1    0 ─[2]─> 2    0 ─[3]─> 3        (all posted at once)
//
// No copies but the root's own block (none in place: recvbuf == in_place at the root).
//
// Cost (α-β): (p-1) α + β Σ_{i != r} m_i at the root.
//
// Count checks: a receiver that gets fewer bytes than its recvcount raises
// InvalidArgument("recvcount"); more raises the transport's truncation error.
#include <vector>

#include "internal/irregular.hpp"
#include "ragged/irregular.hpp"

namespace ragged {

void scatterv_linear(Comm& comm, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
                     void* recvbuf, int recvcount, DataType type, int root, const CollectiveOptions& options) {
  namespace irr = internal::irregular;
  check_rank(comm, root, "root");
  const std::size_t element = size_of(type);
  const bool inplace = internal::is_in_place(recvbuf);
  const int me = comm.rank();
  if (inplace && me != root) throw InvalidArgument("recvbuf", "in_place is only valid at the root");
  irr::Deferred errors;
  if (me != root) {
    irr::check_count(recvcount, "recvcount");
    const std::size_t bytes = static_cast<std::size_t>(recvcount) * element;
    internal::check_buffer(recvbuf, bytes, "recvbuf");
    if (bytes == 0) return;
    Request r = comm.irecv(root, irr::tag_scatterv_data, recvbuf, bytes);
    irr::wait_checked(r, bytes, options.timeout, errors, "recvcount", root);
    errors.raise();
    return;
  }
  irr::check_root_vectors(comm, sendcounts, "sendcounts", displs, "displs");
  irr::check_root_buffer(sendbuf, sendcounts, displs, element, "sendbuf");
  if (!inplace) {
    irr::check_count(recvcount, "recvcount");
    internal::check_buffer(recvbuf, static_cast<std::size_t>(recvcount) * element, "recvbuf");
  }
  const std::byte* in = internal::bytes(sendbuf);
  std::vector<Request> sends;
  for (int i = 0; i < comm.size(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (i == root || sendcounts[k] == 0) continue;
    sends.push_back(comm.isend(i, irr::tag_scatterv_data, in + static_cast<std::size_t>(displs[k]) * element,
                               static_cast<std::size_t>(sendcounts[k]) * element));
  }
  if (!inplace) {
    const int own = sendcounts[static_cast<std::size_t>(root)];
    if (recvcount != own) {
      errors.note("recvcount", "the root receives " + std::to_string(recvcount) + " elements, sendcounts[root] is " +
                                   std::to_string(own));
    }
    internal::copy_bytes(recvbuf, in + static_cast<std::size_t>(displs[static_cast<std::size_t>(root)]) * element,
                         static_cast<std::size_t>(std::min(recvcount, own)) * element);
  }
  comm.wait_all(sends, options.timeout);
  errors.raise();
}

}  // namespace ragged
