// Linear scatterv: what Open MPI, MPICH and UCC do (Träff 2018, §1). The root starts one
// non-blocking send per non-empty block, straight from sendbuf + displs[i], and waits
// for all of them; every other rank receives its block straight into recvbuf. p = 4,
// root 0:
//
//   0 ─[1]─> 1    0 ─[2]─> 2    0 ─[3]─> 3        (all posted at once)
//
// No copies (dispatch puts the root's own block in recvbuf).
//
// Reference: J. L. Träff, "Practical, distributed, low overhead algorithms for irregular gather and scatter
//   collectives", Parallel Computing 75, 2018, §1 (the baseline of Open MPI, MPICH and UCC).
// Limitation: p-1 start-ups at the root.
// Memory: none beyond the receive buffer.
//
// Cost (α-β): (p-1) α + β Σ_{i != r} m_i at the root.
//
// Count checks: a receiver that gets fewer bytes than its recvcount raises
// InvalidArgument("recvcount"); more raises the transport's truncation error.
#include <algorithm>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/irregular.hpp"

namespace ragged {

void scatterv_linear(Context& ctx, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
                     void* recvbuf, int recvcount, DataType type, int root) {
  namespace irr = internal::irregular;
  Comm& comm = ctx.comm();
  const int tag = ctx.tag(0);
  const std::size_t element = size_of(type);
  const int me = comm.rank();
  if (me != root) {
    const std::size_t bytes = static_cast<std::size_t>(recvcount) * element;
    if (bytes == 0) return;
    irr::Deferred errors;
    Request r = comm.irecv(root, tag, recvbuf, bytes);
    irr::wait_checked(r, bytes, ctx.timeout(), errors, "recvcount", root);
    errors.raise();
    return;
  }
  irr::Deferred errors;
  const std::byte* in = internal::bytes(sendbuf);
  std::vector<Request> sends;
  for (int i = 0; i < comm.size(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (i == root || sendcounts[k] == 0) continue;
    sends.push_back(comm.isend(i, tag, in + static_cast<std::size_t>(displs[k]) * element,
                               static_cast<std::size_t>(sendcounts[k]) * element));
  }
  // Dispatch put the root's own block in recvbuf when recvcount agrees with sendcounts[root].
  if (const int own = sendcounts[static_cast<std::size_t>(root)]; recvcount != own) {
    errors.note("recvcount", "the root receives " + std::to_string(recvcount) + " elements, sendcounts[root] is " +
                                 std::to_string(own));
    internal::copy_bytes(recvbuf, in + static_cast<std::size_t>(displs[static_cast<std::size_t>(root)]) * element,
                         static_cast<std::size_t>(std::min(recvcount, own)) * element);
  }
  comm.wait_all(sends, ctx.timeout());
  errors.raise();
}

}  // namespace ragged
