// gather "sbn": Sorted BiNomial tree (Proficz 2021, §1 and table 1, after its reference [21]).
//
// The binomial tree of gather "binomial" (plans/binomial_tree.hpp), with its positions given to
// the ranks by estimated arrival: the root at position 0, then the others latest first
// (plans::sorted::sbn_gather_tree). A subtree is a run of higher positions, so every rank
// arrives no earlier than the ranks below it: when it comes, their blocks are there (or on their
// way), and it sends its run on at once. The latest rank is position 1, a leaf of the root: when
// it arrives, one block is left to move. P = 8, a..g the ranks latest first:
//
//   position:  0=root  1=a  2=b  3=c  4=d  5=e  6=f  7=g     (g earliest)
//
//     g ─[g]─> f    e ─[e]─> d    c ─[c]─> b       (the earliest send first)
//     f ─[f g]─> d                                  (f came after g)
//     d ─[d e f g]─> root    b ─[b c]─> root    a ─[a]─> root   (a, the latest, last)
//
// Every rank posts the receives of its children's runs at once and sends its own run when they
// are in; the root copies each block from the run it came in to its rank's place in recvbuf.
// Only the gather's sorted binomial tree is in the text (its reference [21], Proficz 2020, is not
// at hand): the design keeps what it states, a binomial tree built from the process arrival
// times. docs/algorithms/sbn.md.
//
// Reference: J. Proficz, "All-gather Algorithms Resilient to Imbalanced Process Arrival Patterns", ACM TACO 18(4),
//   2021, §1 and table 1 (SBN, after its reference [21]).
// Limitation: an early rank waits for its parent, which arrives later, to take its run (a block above the eager
//   limit does not leave before); gather "sls" lets early ranks leave in order. BSBN, the agents receiving the
//   children's runs while their ranks compute, is not built. Equal estimates: gather "binomial"'s tree in the
//   order latest-first gives ties (rank order).
// Memory: inner ranks a buffer of their subtree's blocks; the root one of the P-1 other blocks (copied into recvbuf).
//
// Cost (alpha-beta, n bytes per block): when everybody is there, gather "binomial"'s ceil(log2 P) alpha + (P-1) n beta
// plus the root's copy; with the latest rank late by more than the others' gather, alpha + n beta after it arrives
// (plans::cost::gather_sbn).
#include <memory>
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "internal/common.hpp"
#include "plans/binomial_tree.hpp"
#include "plans/sorted_order.hpp"

namespace ragged {

namespace internal {

std::vector<int> sbn_tree(const Context& ctx, Collective collective, std::size_t block, int root) {
  const PlanKey call = plan_key(collective, "sbn", block, root);
  if (BackgroundSlot* slot = slot_of(ctx)) slot->claim(call);
  const std::vector<double> arrivals = step_plan_input(ctx.arrival(), ctx.procs(), block).arrivals;
  return collective == Collective::gather ? plans::sorted::sbn_gather_tree(arrivals, root)
                                          : plans::sorted::sbn_scatter_tree(arrivals, root);
}

}  // namespace internal

void gather_sbn(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root) {
  namespace tree = plans::binomial;
  // Dispatch copied the root's own block into recvbuf.
  const std::size_t block = ctx.bytes(count, type);
  const int procs = ctx.procs();
  const std::vector<int> at = internal::sbn_tree(ctx, Collective::gather, block, root);  // position -> rank
  const int v = static_cast<int>(plans::sorted::position_in(at, ctx.rank()));
  const plans::sorted::SbnRun held = plans::sorted::sbn_run(v, procs);
  Comm& comm = ctx.comm();
  const int tag = ctx.tag(0);
  if (held.leaf()) {
    comm.send(at[static_cast<std::size_t>(tree::parent(v))], tag, sendbuf, block, ctx.timeout());
    return;
  }
  const auto run = std::make_unique_for_overwrite<std::byte[]>(held.blocks() * block);
  std::vector<Request> recvs;
  for (const int c : tree::children(v, procs)) {
    recvs.push_back(comm.irecv(at[static_cast<std::size_t>(c)], tag, run.get() + held.index(c) * block,
                               static_cast<std::size_t>(tree::subtree_size(c, procs)) * block));
  }
  if (v != 0) internal::copy_bytes(run.get(), sendbuf, block);
  comm.wait_all(recvs, ctx.timeout());
  if (v != 0) {
    comm.send(at[static_cast<std::size_t>(tree::parent(v))], tag, run.get(), held.blocks() * block, ctx.timeout());
    return;
  }
  for (int position = 1; position < procs; ++position) {
    internal::copy_bytes(
        internal::bytes(recvbuf) + static_cast<std::size_t>(at[static_cast<std::size_t>(position)]) * block,
        run.get() + held.index(position) * block, block);
  }
}

}  // namespace ragged
