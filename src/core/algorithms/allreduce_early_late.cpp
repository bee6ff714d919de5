// allreduce "early_late": the early ranks reduce-scatter among themselves while the late ones
// still compute; each late rank sends every rank its piece of its vector when it comes, every
// rank adds the pieces to its block, and an allgather of the P finished blocks ends the call
// (ragged's own, beyond Proficz 2018; docs/algorithms/early-late.md).
//
// Proficz 2018's PRR and ragged's prd move the early ranks' data during the wait in schedules
// planned for one stream a card; on a deep cluster a node's 16 ranks share its card and its
// memory. Here the early reduce-scatter is the one dispatch selects for the early ranks, and
// after the last arrival there remain the late rank's n bytes out and an allgather of n bytes
// (NEX), about what any allreduce must move after it.
//
//   P = 6, rank 3 late (estimated), ranks 0-2 on node A, 3-5 on node B; x_r[j] block j of rank
//   r's vector (P blocks); rank 4 (the lowest early rank on 3's node) owns block 3 as well
//
//   before        every rank but 3 posts the receive of x_3[own block]
//   phase 1       early 0 1 2 4 5: reduce-scatter, packed in owner order [0][1][2][4 3][5]
//                 -> rank j holds S[j], the early ranks' sum of block j; rank 4 S[3] too
//                 4 -> 3: S[3]
//   phase 2       3 on arrival: x_3[j] -> rank j (posted at once, landing during phase 1)
//                 rank j: S[j] + x_3[j]; rank 3: S[3] + x_3[3]
//   phase 3       allgather of the 6 finished blocks   -> every rank holds the sum
//
// Each block is finished on one rank (S[j], then the late ranks' pieces, earliest estimated
// first), so all ranks get the same bits. Commutative operators only (the late pieces are added
// out of rank order); the list gives a non-commutative one reduce_bcast. Blocks are
// ceil(count / P) elements, the last ones padded.
//
// Which ranks are late (plans/early_late_plan.hpp, as the allgather's): estimated more than t
// after the earliest, t = n beta + ceil(log2 P) alpha of the snapshot's link (about the early
// reduce-scatter's time); at most two (each sends n bytes after it arrives). None, more, no
// snapshot or an unknown link: the list's balanced algorithm (`auto`). Wrong estimates cost
// time, never the result.
//
// Cost (alpha-beta-gamma, n bytes, L late ranks, E = P - L early, b = n / P): before the first
// late arrival the selected reduce-scatter of n bytes over E ranks; after the last arrival its
// P - 1 pieces, (P - 1) gap + n beta, L b gamma, and NEX's allgather of P blocks of b. The
// ring needs 2 (P - 1)(alpha + b beta) after the last arrival.
//
// Reference: ragged's own design (docs/algorithms/early-late.md), after J. Proficz, "Improving
//   all-reduce collective operations for imbalanced process arrival patterns", The Journal of
//   Supercomputing 74(7), 2018, §3 (the bound a_k + delta for one late process).
// Limitation: foreground only (no agent part); made for one or two ranks far behind the rest:
//   with ranks arriving spread out it runs `auto`'s regular choice; commutative operators only;
//   a late rank posts P - 1 sends at once.
// Memory: about 2 n bytes at every rank (the padded vector, the packed one) and L blocks.
#include <algorithm>
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

void allreduce_early_late(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                          const ReduceOp& op) {
  const int procs = ctx.procs();
  const int me = ctx.rank();
  const std::size_t bytes = ctx.bytes(count, type);
  const ArrivalSnapshot* snapshot = ctx.arrival();
  std::vector<int> late;
  if (snapshot != nullptr && snapshot->size() == procs && snapshot->link().known()) {
    const std::vector<double> arrivals = internal::step_plan_input(snapshot, procs, bytes).arrivals;
    late = plans::early_late::late_for(arrivals, snapshot->link().alpha, snapshot->link().beta,
                                       static_cast<double>(bytes), plans::early_late::max_late_reductions);
  }
  if (late.empty()) {
    (void)internal::run_balanced(ctx, sendbuf, recvbuf, count, type, op);
    return;
  }
  // Dispatch copied sendbuf into recvbuf: it holds this rank's own vector.
  const std::size_t es = size_of(type);
  const std::vector<int> early = plans::early_late::early_ranks(procs, late);
  const std::shared_ptr<const NodeLayout> layout = ctx.layout();
  const auto owners = plans::early_late::block_owners(procs, late, early, layout->node);
  const std::size_t block = plans::early_late::block_count(count, procs);  // elements
  const std::size_t block_bytes = block * es;
  const auto late_index = [&](int r) {
    return static_cast<int>(std::find(late.begin(), late.end(), r) - late.begin());
  };
  const bool is_late = late_index(me) < static_cast<int>(late.size());
  Comm& comm = ctx.comm();
  std::byte* out = internal::bytes(recvbuf);
  // This rank's vector, padded to P blocks.
  std::vector<std::byte> padded(static_cast<std::size_t>(procs) * block_bytes, std::byte{0});
  internal::copy_bytes(padded.data(), out, bytes);
  const auto piece = [&](std::vector<std::byte>& v, int j) {
    return v.data() + static_cast<std::size_t>(j) * block_bytes;
  };
  const TagBlock later = ctx.tags().half(1);
  const int partial_tag = later.half(1).half(1)[0];
  const auto piece_tag = [&](std::size_t i) { return later.half(0)[static_cast<int>(i)]; };

  // The late ranks' pieces of this rank's block, expected before anything else: they land while
  // the early ranks still reduce-scatter.
  std::vector<std::vector<std::byte>> incoming(late.size());
  std::vector<Request> pieces(late.size());
  for (std::size_t i = 0; i < late.size(); ++i) {
    if (late[i] == me) continue;
    incoming[i].resize(block_bytes);
    pieces[i] = comm.irecv(late[i], piece_tag(i), incoming[i].data(), block_bytes);
  }
  std::vector<Request> sends;
  std::vector<std::byte> mine(block_bytes);  // this rank's block: its partial sum, then finished
  std::vector<std::byte> owned;
  Request partial;
  if (is_late) {
    // On arrival: every other rank's piece of this rank's vector, and the partial sum of its own
    // block from its owner.
    const auto i = static_cast<std::size_t>(late_index(me));
    for (int j = 0; j < procs; ++j) {
      if (j != me) sends.push_back(comm.isend(j, piece_tag(i), piece(padded, j), block_bytes));
    }
    partial = comm.irecv(plans::early_late::owner_of(me, owners), partial_tag, mine.data(), block_bytes);
  } else {
    // Phase 1: the early ranks' reduce-scatter, each owner's blocks packed together; the partial
    // sums of the late ranks' blocks to them.
    std::vector<std::byte> packed;
    packed.reserve(padded.size());
    std::vector<int> counts;
    for (int e : early) {
      const std::vector<int>& blocks = owners[static_cast<std::size_t>(e)];
      for (int j : blocks) packed.insert(packed.end(), piece(padded, j), piece(padded, j) + block_bytes);
      counts.push_back(static_cast<int>(blocks.size() * block));
    }
    owned.resize(owners[static_cast<std::size_t>(me)].size() * block_bytes);
    Hints hints;
    internal::SubComm& on = internal::sub_comm(comm, early, *layout);
    const Context part = internal::part_context(ctx, on, ctx.tags().half(0), hints);
    internal::part_reduce_scatter(part, packed.data(), owned.data(), counts, type, op);
    internal::copy_bytes(mine.data(), owned.data(), block_bytes);  // its own block comes first
    const std::vector<int>& blocks = owners[static_cast<std::size_t>(me)];
    for (std::size_t k = 1; k < blocks.size(); ++k) {
      sends.push_back(comm.isend(blocks[k], partial_tag, owned.data() + k * block_bytes, block_bytes));
    }
  }

  // Phase 2: the late ranks' pieces added to this rank's block, earliest estimated first (a late
  // rank adds its own piece to the partial sum it got, in its turn).
  if (partial.active()) partial.wait(ctx.timeout());
  for (std::size_t k = late.size(); k-- > 0;) {
    const std::byte* add = late[k] == me ? piece(padded, me) : incoming[k].data();
    if (late[k] != me) pieces[k].wait(ctx.timeout());
    reduce_local(op, type, add, mine.data(), block);
    comm.runtime().charge(static_cast<double>(block));
  }

  // Phase 3: the allgather of the P finished blocks. A late rank's pieces must be gone before
  // its vector's room takes the blocks.
  if (is_late) comm.wait_all(sends, ctx.timeout());
  std::byte* gathered = padded.data();
  internal::copy_bytes(piece(padded, me), mine.data(), block_bytes);
  Hints gather_hints;
  const Context gather_part = internal::part_context(ctx, comm, later.half(1).half(0), gather_hints);
  // NEX (the ring for an odd P), not dispatch's choice: the ranks come to it as their reduce-
  // scatter ends, up to 0.3 ms apart at P = 560, and leader_pipeline, which `auto` picks for
  // these blocks on deep nodes, then took 2.6 times NEX (docs/algorithms/early-late.md).
  internal::run_listed<Collective::allgather>(gather_part, procs % 2 == 0 ? "nex" : "ring", piece(padded, me), gathered,
                                              block, type);
  internal::copy_bytes(out, gathered, bytes);
  for (Request& r : sends) r.wait(ctx.timeout());
}

}  // namespace ragged
