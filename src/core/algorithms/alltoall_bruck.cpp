// alltoall "bruck": Bruck et al.'s store-and-forward algorithm for small
// messages: ceil(log2 P) steps instead of P-1, at the price of moving each
// block up to log2 P times.
//
//   rotate:   slot i holds the block for rank r+i
//   step k (d = 2^k): every slot i whose bit k is set goes, packed in one message,
//             to rank r+d, which stores it in its own slot i; r receives r-d's.
//   unrotate: after the steps slot i holds the block from rank r-i.
//
//   P = 4, rank 0:  [00 01 02 03] -> d=1: slots 1,3 -> rank 1 ... -> [00 30 20 10]
//
// Reference: J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal, D. Weathersby, "Efficient algorithms for all-to-all
//   communications in multiport message-passing systems", IEEE TPDS 8(11), 1997.
// Limitation: each block moves up to log2 P times (small messages only); between two clusters most steps cross the
//   backbone.
// Memory: from the workspace, P blocks (the rotated slots) and one round's outgoing and incoming blocks (about P/2
//   each).
//
// Cost (α-β): ceil(log2 P)·α + about (P/2)·log2(P)·m·β. Between two clusters most
// steps cross the backbone, but only log2 P latencies are paid.
#include <algorithm>

#include "algorithms/list.hpp"
#include "internal/alltoall_common.hpp"
#include "internal/common.hpp"

namespace ragged {

void alltoall_bruck(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  const auto [comm, p, me, tag, b, in, out] = internal::alltoall_view(ctx, sendbuf, recvbuf, count, type);
  // Init-captures: clang before 16 cannot capture a structured binding (the fuzz preset's clang 14).
  const auto at = [block = b](int slot) { return block * static_cast<std::size_t>(slot); };

  // The blocks moved in round d: slots i with bit d set.
  const auto moved_in = [procs = p](int d) {
    int moved = 0;
    for (int i = 1; i < procs; ++i) moved += (i & d) != 0 ? 1 : 0;
    return moved;
  };
  int most = 0;
  for (int d = 1; d < p; d *= 2) most = std::max(most, moved_in(d));
  // Slots, then one round's outgoing and incoming blocks, in the context's workspace.
  std::byte* slots = ctx.workspace().get(at(p) + 2 * at(most)).data();
  std::byte* outgoing = slots + at(p);
  std::byte* incoming = outgoing + at(most);
  for (int i = 0; i < p; ++i) internal::copy_bytes(slots + at(i), in + at((me + i) % p), b);

  for (int d = 1; d < p; d *= 2) {
    int moved = 0;
    for (int i = 1; i < p; ++i) {
      if ((i & d) != 0) internal::copy_bytes(outgoing + at(moved++), slots + at(i), b);
    }
    comm.sendrecv((me + d) % p, tag, outgoing, at(moved), (me - d + p) % p, tag, incoming, at(moved), ctx.timeout());
    int k = 0;
    for (int i = 1; i < p; ++i) {
      if ((i & d) != 0) internal::copy_bytes(slots + at(i), incoming + at(k++), b);
    }
  }
  for (int i = 0; i < p; ++i) internal::copy_bytes(out + at((me - i + p) % p), slots + at(i), b);
}

}  // namespace ragged
