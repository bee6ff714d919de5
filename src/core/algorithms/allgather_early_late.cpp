// allgather "early_late": the early ranks allgather among themselves while the late ones still
// compute; each late rank broadcasts its block when it comes, and takes the early blocks from an
// early rank of its own node (ragged's own, beyond Proficz 2021; docs/algorithms/early-late.md).
//
// Proficz 2021's algorithms move the early blocks during the wait too, but step by step in a
// schedule planned with tau (BDR, BGD) or through one root (BSLB). With one rank far behind,
// the others need only its block after it arrives: n bytes to P - 1 ranks, a broadcast, where
// BDR still runs ring steps and BSLB a chain of P ranks.
//
//   P = 6, rank 3 late (estimated), ranks 0-2 on node A, 3-5 on node B
//
//   phase 1 (early: 0 1 2 4 5)   allgather of their blocks, the algorithm dispatch selects on
//                                their sub-communicator            -> each holds b0 b1 b2 . b4 b5
//   phase 2 (when 3 arrives)     bcast of b3 from rank 3 over all P -> every rank holds b3
//                                4 -> 3: runs [b0 b1 b2] and [b4 b5] (4: the lowest early rank
//                                on 3's node)                       -> 3 holds all
//
// Which ranks are late (plans/early_late_plan.hpp): estimated more than t after the earliest,
// t = N beta + ceil(log2 P) alpha of the snapshot's link (the early allgather's time, N = P n);
// at most ceil(log2 P) of them. None, more, no snapshot or an unknown link: the list's balanced
// algorithm (nex). Wrong estimates cost time, never the result: a rank counted early that comes
// late holds up the early allgather; one counted late that comes early waits for its bcast.
//
// Cost (alpha-beta, n bytes a block, P ranks, L late ranks, E = P - L): before the first late
// arrival the selected allgather of E blocks; after the last arrival L binomial broadcasts,
// L ceil(log2 P)(alpha + n beta), and for the late ranks the (E n) bytes from their sender
// beside them: L ceil(log2 P)(alpha + n beta) for the early ranks, max(that, alpha + E n beta)
// for the late ones (the ring: (P - 1)(alpha + n beta) after the last arrival).
//
// Reference: ragged's own design (docs/algorithms/early-late.md), after J. Proficz, "All-gather
//   Algorithms Resilient to Imbalanced Process Arrival Patterns", ACM TACO 18(4), 2021, §2-3.
// Limitation: foreground only (no agent part): the early ranks gain only when they arrive
//   together and the late ones later than the early allgather takes; its cost model
//   (plans::cost::allgather_early_late) knows one late rank only.
// Memory: E n bytes at the early ranks (the sub-communicator's allgather buffer).
#include <cstring>
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "dispatch/compose.hpp"
#include "internal/common.hpp"
#include "internal/sub_comm.hpp"
#include "plans/early_late_plan.hpp"
#include "ragged/arrival.hpp"
#include "ragged/layout.hpp"

namespace ragged {

void allgather_early_late(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type) {
  const int procs = ctx.procs();
  const int me = ctx.rank();
  const std::size_t block = ctx.bytes(count, type);
  const ArrivalSnapshot* snapshot = ctx.arrival();
  std::vector<int> late;
  if (snapshot != nullptr && snapshot->size() == procs && snapshot->link().known()) {
    const std::vector<double> arrivals = internal::step_plan_input(snapshot, procs, block).arrivals;
    late = plans::early_late::late_for(arrivals, snapshot->link().alpha, snapshot->link().beta,
                                       static_cast<double>(block) * procs, plans::early_late::max_late(procs));
  }
  if (late.empty()) {
    (void)internal::run_balanced(ctx, sendbuf, recvbuf, count, type);
    return;
  }
  const std::vector<int> early = plans::early_late::early_ranks(procs, late);
  const auto runs = plans::early_late::early_runs(procs, late);
  const std::shared_ptr<const NodeLayout> layout = ctx.layout();
  const auto out = ctx.blocks(recvbuf, block);
  const bool is_late = std::find(late.begin(), late.end(), me) != late.end();
  const int run_tag = ctx.tags().half(1).half(1)[0];
  Comm& comm = ctx.comm();

  // Phase 1: the early ranks' allgather, on their own communicator (blocks packed in their order).
  std::vector<Request> sends;
  std::vector<Request> receives;
  if (!is_late) {
    const auto index = static_cast<std::size_t>(std::find(early.begin(), early.end(), me) - early.begin());
    std::vector<std::byte> packed(early.size() * block);
    internal::copy_bytes(packed.data() + index * block, out.at(me), block);
    Hints hints;
    internal::SubComm& on = internal::sub_comm(comm, early, *layout);
    const Context part = internal::part_context(ctx, on, ctx.tags().half(0), hints);
    internal::part_allgather(part, packed.data(), count, type);
    for (std::size_t i = 0; i < early.size(); ++i) {
      if (early[i] != me) internal::copy_bytes(out.at(early[i]), packed.data() + i * block, block);
    }
    // The early runs to the late ranks this rank serves, before the broadcasts.
    for (std::size_t i = 0; i < late.size(); ++i) {
      if (plans::early_late::sender_for(late[i], static_cast<int>(i), early, layout->node) != me) continue;
      for (const auto& [first, last] : runs) {
        sends.push_back(comm.isend(late[i], run_tag, out.at(first), static_cast<std::size_t>(last - first) * block));
      }
    }
  } else {
    const auto i = static_cast<int>(std::find(late.begin(), late.end(), me) - late.begin());
    const int from = plans::early_late::sender_for(me, i, early, layout->node);
    for (const auto& [first, last] : runs) {
      receives.push_back(comm.irecv(from, run_tag, out.at(first), static_cast<std::size_t>(last - first) * block));
    }
  }

  // Phase 2: every late rank's block, latest estimated last, from that rank to all.
  Hints bcast_hints;
  const Context bcast_part = internal::part_context(ctx, comm, ctx.tags().half(1).half(0), bcast_hints);
  for (auto it = late.rbegin(); it != late.rend(); ++it) {
    internal::dispatch_bcast(bcast_part, out.at(*it), count, type, *it);
  }
  for (Request& r : receives) r.wait(ctx.timeout());
  for (Request& r : sends) r.wait(ctx.timeout());
}

}  // namespace ragged
