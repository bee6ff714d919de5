// Padded gatherv: what an application does without a good MPI_Gatherv, and the
// right-hand side of Träff 2018's guideline GL2: agree on the largest block with an
// allreduce of one element, then the regular gather of blocks padded to that size.
//
//   allreduce(max m_i)                     recursive doubling, one int64
//   gather(max elements per rank)          binomial tree, padded blocks
//   root: block i from slot i -> recvbuf + displs[i]
//
// Both steps are the real algorithms (allreduce "recursive_doubling", gather "binomial"),
// each called through a sub-context with its own half of the call's tags.
//
// Copies: every rank but the root whose block is shorter than the largest copies it
// into a padded buffer (the rest of the slot is zeros); the root copies every other
// block out of the padded receive buffer into its place (dispatch put its own there).
// GL2 itself assumes the application needs neither copy.
//
// Reference: J. L. Träff, "Practical, distributed, low overhead algorithms for irregular gather and scatter
//   collectives", Parallel Computing 75, 2018, §4 (guideline GL2's right-hand side).
// Limitation: every block padded to the largest: (p-1) beta max m_i at the root, far more than a gatherv for uneven
//   blocks; smaller count disagreements go unnoticed.
// Memory: the root a padded buffer of p max m_i bytes; a rank whose block is shorter one padded block.
//
// Cost (α-β): allreduce(1) + ceil(log2 p) α + (p-1) β max_i m_i.
//
// Count checks: the root raises InvalidArgument("recvcounts") when one of its counts
// exceeds the agreed maximum (smaller disagreements go unnoticed).
#include <algorithm>
#include <vector>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/irregular.hpp"

namespace ragged {

void gatherv_padded(Context& ctx, const void* sendbuf, int sendcount, void* recvbuf, std::span<const int> recvcounts,
                    std::span<const int> displs, DataType type, int root) {
  namespace irr = internal::irregular;
  const int p = ctx.size();
  const int me = ctx.rank();
  const std::size_t element = size_of(type);
  // The two sub-calls, each with half of the call's tags.
  const int half = ctx.tags().size() / 2;
  Context allreduce_ctx = ctx.sub(0, half);
  Context gather_ctx = ctx.sub(half, half);
  const int own = sendcount;

  // The allreduce that dispatch selects for one int64 (RAGGED_ALLREDUCE, the rules file or
  // `auto`), in place, on this rank's operand.
  std::int64_t largest = own;
  (void)internal::dispatch_allreduce(allreduce_ctx, &largest, &largest, 1, DataType::int64, ReduceOp::max());
  if (largest == 0) return;
  const std::size_t slot = static_cast<std::size_t>(largest) * element;

  if (me != root) {
    std::vector<std::byte> padded_send;
    const void* send = sendbuf;
    if (own != largest) {
      padded_send.assign(slot, std::byte{0});
      internal::copy_bytes(padded_send.data(), sendbuf, static_cast<std::size_t>(own) * element);
      send = padded_send.data();
    }
    (void)internal::run_listed<Collective::gather>(gather_ctx, "binomial", send, nullptr,
                                                   static_cast<std::size_t>(largest), type, root);
    return;
  }
  // gather's arguments at the root as dispatch hands them over: sendbuf is the root's own
  // slot of recvbuf, already "copied" (nothing reads it: the root's block does not travel).
  std::vector<std::byte> all(slot * static_cast<std::size_t>(p));
  std::byte* own_slot = all.data() + static_cast<std::size_t>(root) * slot;
  (void)internal::run_listed<Collective::gather>(gather_ctx, "binomial", own_slot, all.data(),
                                                 static_cast<std::size_t>(largest), type, root);
  std::byte* out = internal::bytes(recvbuf);
  irr::Deferred errors;
  for (int i = 0; i < p; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (recvcounts[k] > largest) {
      errors.note("recvcounts", "entry " + std::to_string(i) + " (" + std::to_string(recvcounts[k]) +
                                    ") exceeds every sender's count (at most " + std::to_string(largest) + ")");
      continue;
    }
    if (i == root) {
      // Dispatch put the root's own block in place when sendcount agrees with recvcounts[root].
      if (sendcount != recvcounts[k]) {
        errors.note("sendcount", "the root sends " + std::to_string(sendcount) + " elements, recvcounts[root] is " +
                                     std::to_string(recvcounts[k]));
        internal::copy_bytes(out + static_cast<std::size_t>(displs[k]) * element, sendbuf,
                             static_cast<std::size_t>(std::min(sendcount, recvcounts[k])) * element);
      }
      continue;
    }
    internal::copy_bytes(out + static_cast<std::size_t>(displs[k]) * element, all.data() + k * slot,
                         static_cast<std::size_t>(recvcounts[k]) * element);
  }
  errors.raise();
}

}  // namespace ragged
