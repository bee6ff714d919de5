// scatter "sbn": Sorted BiNomial tree (Proficz 2021, §1 and table 1, after its reference [21]).
//
// The binomial tree of scatter "binomial" (plans/binomial_tree.hpp), with its positions given to
// the ranks by estimated arrival (plans::sorted::sbn_scatter_tree): every subtree gets a run of
// the ranks sorted earliest first, its head the earliest of them, and the subtrees its head
// serves first (the largest) the earlier ranks. So every rank arrives no later than the ranks
// below it and passes their blocks on as soon as it has them, and the latest rank is the root's
// nearest leaf, served last: its one block and no hop after it arrives. P = 8, a..g the other
// ranks earliest first ({...}: the blocks of those ranks, one message):
//
//   root ─{a b c d}─> a      root ─{e f}─> e      root ─{g}─> g     (g, the latest, last)
//   a ─{b c}─> b             a ─{d}─> d           e ─{f}─> f
//   b ─{c}─> c
//
// A rank sends its children's runs one at a time, largest first, so that the large subtrees
// forward while the small runs still go out, as scatter "binomial" of MPICH does. Only the scatter's sorted binomial
// tree is in the text (its reference [21], Proficz 2020, is not at hand): the design keeps what it states, a binomial
// tree built from the process arrival times. docs/algorithms/sbn.md.
//
// Reference: J. Proficz, "All-gather Algorithms Resilient to Imbalanced Process Arrival Patterns", ACM TACO 18(4),
//   2021, §1 and table 1 (SBN, after its reference [21]).
// Limitation: a rank whose estimate was early but who comes late holds up its whole subtree and, its parent's
//   sends being one at a time, the runs its parent sends after its own; BSBN, the agents receiving and forwarding runs
//   before their ranks arrive, is not built.
// Memory: inner ranks a buffer of their subtree's blocks; the root one of the P-1 other blocks, packed in tree order.
//
// Cost (alpha-beta, n bytes per block): (P-1) n beta and ceil(log2 P) alpha at the root when everybody is there; with
// the latest rank late by more than the others' scatter, alpha + n beta after it arrives (plans::cost::scatter_sbn).
#include <memory>
#include <vector>

#include "algorithms/list.hpp"
#include "arrival/background.hpp"
#include "internal/common.hpp"
#include "plans/binomial_tree.hpp"
#include "plans/sorted_order.hpp"

namespace ragged {

void scatter_sbn(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root) {
  namespace tree = plans::binomial;
  // Dispatch copied the root's own block into recvbuf.
  const std::size_t block = ctx.bytes(count, type);
  const int procs = ctx.procs();
  const std::vector<int> at = internal::sbn_tree(ctx, Collective::scatter, block, root);  // position -> rank
  const int v = static_cast<int>(plans::sorted::position_in(at, ctx.rank()));
  const plans::sorted::SbnRun held = plans::sorted::sbn_run(v, procs);
  Comm& comm = ctx.comm();
  const int tag = ctx.tag(0);
  if (held.leaf()) {
    comm.recv(at[static_cast<std::size_t>(tree::parent(v))], tag, recvbuf, block, ctx.timeout());
    return;
  }
  const auto run = std::make_unique_for_overwrite<std::byte[]>(held.blocks() * block);
  if (v != 0) {
    comm.recv(at[static_cast<std::size_t>(tree::parent(v))], tag, run.get(), held.blocks() * block, ctx.timeout());
    internal::copy_bytes(recvbuf, run.get(), block);
  } else {
    for (int position = 1; position < procs; ++position) {
      internal::copy_bytes(
          run.get() + held.index(position) * block,
          internal::bytes(sendbuf) + static_cast<std::size_t>(at[static_cast<std::size_t>(position)]) * block, block);
    }
  }
  // One run at a time, largest first: the large subtrees start forwarding while the link still
  // carries the small ones, and the latest rank's block goes last.
  for (const int c : plans::sorted::sbn_scatter_children(v, procs)) {
    comm.send(at[static_cast<std::size_t>(c)], tag, run.get() + held.index(c) * block,
              static_cast<std::size_t>(tree::subtree_size(c, procs)) * block, ctx.timeout());
  }
}

}  // namespace ragged
