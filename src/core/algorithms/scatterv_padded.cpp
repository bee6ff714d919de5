// Padded scatterv: the right-hand side of Träff 2018's guideline GL2 for scatter: agree
// on the largest block with an allreduce of one element (the root contributes its
// largest sendcount, every other rank its recvcount), then the regular scatter of
// blocks padded to that size.
//
//   allreduce(max m_i)                     recursive doubling, one int64
//   root: block i -> slot i of a padded buffer
//   scatter(max elements per rank)         binomial tree, padded blocks
//
// Both steps are the real algorithms (allreduce "recursive_doubling", scatter "binomial"),
// each called through a sub-context with its own half of the call's tags.
//
// Copies: the root packs every other block into the padded buffer (dispatch put its own
// in recvbuf); a rank whose block is shorter than the largest receives its slot into a
// buffer and copies its block out (GL2 itself assumes the application needs neither copy).
//
// Reference: J. L. Träff, "Practical, distributed, low overhead algorithms for irregular gather and scatter
//   collectives", Parallel Computing 75, 2018, §4 (guideline GL2's right-hand side).
// Limitation: every block padded to the largest: (p-1) beta max m_i at the root, far more than a scatterv for uneven
//   blocks.
// Memory: the root a padded buffer of p max m_i bytes; a rank whose block is shorter one padded block.
//
// Cost (α-β): allreduce(1) + ceil(log2 p) α + (p-1) β max_i m_i.
#include <algorithm>
#include <vector>

#include "algorithms/list.hpp"
#include "dispatch/compose.hpp"
#include "internal/irregular.hpp"

namespace ragged {

void scatterv_padded(Context& ctx, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
                     void* recvbuf, int recvcount, DataType type, int root) {
  namespace irr = internal::irregular;
  const int p = ctx.size();
  const int me = ctx.rank();
  const std::size_t element = size_of(type);
  // The two sub-calls, each with half of the call's tags.
  const int half = ctx.tags().size() / 2;
  Context allreduce_ctx = ctx.sub(0, half);
  Context scatter_ctx = ctx.sub(half, half);

  // The allreduce that dispatch selects for one int64 (RAGGED_ALLREDUCE, the rules file or
  // `auto`), in place, on this rank's operand: its recvcount, at the root also its largest sendcount.
  std::int64_t largest = recvcount;
  if (me == root) largest = std::max<std::int64_t>(largest, *std::max_element(sendcounts.begin(), sendcounts.end()));
  (void)internal::dispatch_allreduce(allreduce_ctx, &largest, &largest, 1, DataType::int64, ReduceOp::max());
  if (largest == 0) return;
  const std::size_t slot = static_cast<std::size_t>(largest) * element;

  if (me == root) {
    // Dispatch put the root's own block in recvbuf when recvcount agrees with sendcounts[root].
    irr::Deferred errors;
    if (const int have = sendcounts[static_cast<std::size_t>(root)]; recvcount != have) {
      errors.note("recvcount", "the root receives " + std::to_string(recvcount) + " elements, sendcounts[root] is " +
                                   std::to_string(have));
      internal::copy_bytes(
          recvbuf,
          internal::bytes(sendbuf) + static_cast<std::size_t>(displs[static_cast<std::size_t>(root)]) * element,
          static_cast<std::size_t>(std::min(recvcount, have)) * element);
    }
    // scatter's arguments at the root as dispatch hands them over: recvbuf is the root's
    // own slot of sendbuf, already "copied" (nothing reads it: the root's block does not travel).
    std::vector<std::byte> all(slot * static_cast<std::size_t>(p), std::byte{0});
    for (int i = 0; i < p; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (i == root) continue;
      internal::copy_bytes(all.data() + k * slot,
                           internal::bytes(sendbuf) + static_cast<std::size_t>(displs[k]) * element,
                           static_cast<std::size_t>(sendcounts[k]) * element);
    }
    (void)internal::run_listed<Collective::scatter>(scatter_ctx, "binomial", all.data(),
                                                    all.data() + static_cast<std::size_t>(root) * slot,
                                                    static_cast<std::size_t>(largest), type, root);
    errors.raise();
    return;
  }
  const std::size_t own_bytes = static_cast<std::size_t>(recvcount) * element;
  if (own_bytes == slot) {
    (void)internal::run_listed<Collective::scatter>(scatter_ctx, "binomial", nullptr, recvbuf,
                                                    static_cast<std::size_t>(largest), type, root);
  } else {
    std::vector<std::byte> mine_padded(slot);
    (void)internal::run_listed<Collective::scatter>(scatter_ctx, "binomial", nullptr, mine_padded.data(),
                                                    static_cast<std::size_t>(largest), type, root);
    internal::copy_bytes(recvbuf, mine_padded.data(), own_bytes);
  }
}

}  // namespace ragged
