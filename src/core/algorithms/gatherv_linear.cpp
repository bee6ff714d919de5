// Linear gatherv: what Open MPI, MPICH and UCC do (Träff 2018, §1). Every rank sends its
// block straight to the root, which has posted one receive per non-empty block,
// straight into recvbuf + displs[i]. p = 4, root 0:
//
//   1 ─[1]─> 0    2 ─[2]─> 0    3 ─[3]─> 0        (all at once; the root takes them
//                                                 in whatever order they arrive)
//
// No copies (dispatch puts the root's own block in place). Empty blocks send nothing.
//
// Reference: J. L. Träff, "Practical, distributed, low overhead algorithms for irregular gather and scatter
//   collectives", Parallel Computing 75, 2018, §1 (the baseline of Open MPI, MPICH and UCC).
// Limitation: p-1 start-ups at the root; a non-empty block the root expects as empty is not detected (the message
//   waits: use a timeout).
// Memory: none beyond the receive buffer.
//
// Cost (α-β): (p-1) α + β Σ_{i != r} m_i at the root, which takes one start-up per rank.
//
// Count checks: a sender that sends less than recvcounts[i] raises InvalidArgument
// ("recvcounts") at the root after the call; one that sends more raises the
// transport's truncation error. A non-empty block the root expects as empty (or the
// reverse) cannot be detected cheaply: the message then waits (use a timeout).
#include <algorithm>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/irregular.hpp"

namespace ragged {

void gatherv_linear(Context& ctx, const void* sendbuf, int sendcount, void* recvbuf, std::span<const int> recvcounts,
                    std::span<const int> displs, DataType type, int root) {
  namespace irr = internal::irregular;
  Comm& comm = ctx.comm();
  const int tag = ctx.tag(0);
  const std::size_t element = size_of(type);
  const int me = comm.rank();
  if (me != root) {
    const std::size_t bytes = static_cast<std::size_t>(sendcount) * element;
    if (bytes != 0) comm.send(root, tag, sendbuf, bytes, ctx.timeout());
    return;
  }
  std::byte* out = internal::bytes(recvbuf);
  std::vector<Request> receives;
  std::vector<int> sources;
  for (int i = 0; i < comm.size(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (i == root || recvcounts[k] == 0) continue;
    receives.push_back(comm.irecv(i, tag, out + static_cast<std::size_t>(displs[k]) * element,
                                  static_cast<std::size_t>(recvcounts[k]) * element));
    sources.push_back(i);
  }
  irr::Deferred errors;
  // Dispatch put the root's own block in place when sendcount agrees with recvcounts[root].
  if (const int own = recvcounts[static_cast<std::size_t>(root)]; sendcount != own) {
    errors.note("sendcount", "the root sends " + std::to_string(sendcount) + " elements, recvcounts[root] is " +
                                 std::to_string(own));
    internal::copy_bytes(out + static_cast<std::size_t>(displs[static_cast<std::size_t>(root)]) * element, sendbuf,
                         static_cast<std::size_t>(std::min(sendcount, own)) * element);
  }
  for (std::size_t j = 0; j < receives.size(); ++j) {
    const auto k = static_cast<std::size_t>(sources[j]);
    irr::wait_checked(receives[j], static_cast<std::size_t>(recvcounts[k]) * element, ctx.timeout(), errors,
                      "recvcounts", sources[j]);
  }
  errors.raise();
}

}  // namespace ragged
