// gather "sls": Sorted Linear Synchronized tree (Proficz 2021, §3.2, after [21]).
//
// The root serves the other ranks one at a time, in the order of their
// estimated arrival (earliest first, ties by rank): it sends a zero-byte
// signal, receives a short first segment (min(1 KiB, block)) that says the
// sender is there, then the rest of the block. A non-root rank, when it
// arrives, waits for the root's signal, sends the short segment, then the rest.
//
//   root            rank a (earliest)      rank b           rank c (latest)
//    |-- signal ------->|
//    |<-- short --------|
//    |<== rest =========| leaves
//    |-- signal ----------------------------->|
//    |<-- short ------------------------------|
//    |<== rest ===============================| leaves
//    |-- signal ------------------------------------------------>| (waits for c)
//    |<-- short -------------------------------------------------|
//    |<== rest ==================================================| leaves
//
// Only one block is in flight towards the root at any time, so the ranks never
// compete for the root's link; early ranks leave early. SLS does all this in the
// foreground (the root starts when it arrives); BSLS (gather_bsls.cpp) lets the
// root's agent do it while the root still computes.
//
// Reference: J. Proficz, "All-gather Algorithms Resilient to Imbalanced Process Arrival Patterns", ACM TACO 18(4),
//   2021, §3.2 (SLS, after its reference [21]).
// Limitation: three messages per block and one block at a time: slower than gather "linear" when everybody is there;
//   it needs the arrival estimates to order the ranks (equal estimates: rank order).
// Memory: none beyond the receive buffer.
//
// Cost (alpha-beta, n bytes per block, everybody already there):
// (P-1)(3 alpha + n beta) at the root; a non-root rank spends 3 alpha + n beta
// once the root reaches it. docs/algorithms/sls.md.
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "internal/common.hpp"
#include "plans/sorted_order.hpp"
#include "ragged/arrival.hpp"
#include "ragged/error.hpp"

namespace ragged {

namespace internal {

void sorted_gather_foreground(const Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                              int root, int signal_tag, int data_tag) {
  Comm& comm = ctx.comm();
  const int procs = comm.size();
  const int me = comm.rank();
  const std::size_t block = count * size_of(type);
  const std::size_t first = sorted_gather_short_bytes(block);

  if (me != root) {
    comm.recv(root, signal_tag, nullptr, 0, ctx.timeout());
    comm.send(root, data_tag, sendbuf, first, ctx.timeout());
    if (block > first) comm.send(root, data_tag, bytes(sendbuf) + first, block - first, ctx.timeout());
    return;
  }
  std::vector<double> arrivals(static_cast<std::size_t>(procs), 0.0);
  if (const ArrivalSnapshot* snapshot = ctx.arrival()) {
    if (snapshot->size() != procs) {
      throw InvalidArgument("options.arrival", "snapshot of " + std::to_string(snapshot->size()) +
                                                   " ranks for a communicator of " + std::to_string(procs));
    }
    arrivals.assign(snapshot->arrivals().begin(), snapshot->arrivals().end());
  }
  for (int r : plans::sorted::gather_order(arrivals, root)) {
    std::byte* dst = bytes(recvbuf) + static_cast<std::size_t>(r) * block;
    Request short_part = comm.irecv(r, data_tag, dst, first);
    comm.send(r, signal_tag, nullptr, 0, ctx.timeout());
    short_part.wait(ctx.timeout());
    if (block > first) comm.recv(r, data_tag, dst + first, block - first, ctx.timeout());
  }
}

}  // namespace internal

void gather_sls(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root) {
  // Dispatch copied the root's own block into recvbuf.
  // SLS has no background part; claiming cancels one prepared for another call.
  const internal::PlanKey call = internal::plan_key(Collective::gather, "sls", count * size_of(type), root);
  if (internal::BackgroundSlot* slot = internal::slot_of(ctx)) slot->claim(call);
  internal::sorted_gather_foreground(
      ctx, sendbuf, recvbuf, count, type, root,
      internal::arrival_tag(ctx, call, internal::tag_bsls_signal, internal::tag_bsls_signal_unplanned),
      internal::arrival_tag(ctx, call, internal::tag_bsls_data, internal::tag_bsls_data_unplanned));
}

}  // namespace ragged
