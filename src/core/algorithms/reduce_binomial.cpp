// Binomial-tree reduction.
//
// Ranks are renumbered relative to the tree's root (v = rank - tree_root mod P).
// Each rank receives the partial results of its children v + 1, v + 2, v + 4, ...
// in that order (smallest subtree first), folds each one in on the right, and
// sends its own partial result to its parent. P = 8, tree root 0, x_i the
// contribution of rank i, ∘ the operator:
//
//   round 0:  1 ──> 0   3 ──> 2   5 ──> 4   7 ──> 6    0: x0∘x1        2: x2∘x3 ...
//   round 1:  2 ──> 0   6 ──> 4                        0: (x0∘x1)∘(x2∘x3) ...
//   round 2:  4 ──> 0                                  0: (x0∘..∘x3)∘(x4∘..∘x7)
//
// Every subtree holds a contiguous range of relative ranks, and a rank's own
// range lies to the left of each child's, so the result is x_t ∘ x_{t+1} ∘ ... in
// relative order. That is rank order only when the tree root t is 0:
//   - commutative operators: the tree is rooted at `root`; its result is a
//     rotation of rank order (x_root ∘ ... ∘ x_{P-1} ∘ x_0 ∘ ...), equal to the
//     rank-order result for a commutative and associative operator;
//   - non-commutative operators with root != 0: the tree is rooted at rank 0,
//     which then sends the result to `root` (one extra α + nβ), so the operands
//     are always in rank order, as MPI requires.
//
// Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication operations in MPICH",
//   IJHPCA 19(1), 2005 (MPICH's binomial reduce).
// Limitation: the whole vector at every level (short vectors); a non-commutative operator with root != 0 pays one
//   more transfer from rank 0.
//
// Cost (α-β-γ model, n bytes of m elements): ⌈log2 P⌉ (α + nβ + mγ) along the
// deepest path, plus α + nβ for a non-commutative operator with root != 0. Each
// child's data is received into a buffer and combined as buf = acc ∘ buf, then the
// roles of the two buffers swap, so no partial result is ever copied; the root
// uses recvbuf as one of its two buffers, chosen so the last combination lands
// in it (one final copy only in place and an odd number of children).
// Memory: n bytes at the root, 2n at inner ranks, none at leaves.
//
// sendbuf may alias recvbuf (dispatch resolves in_place at the root to sendbuf
// == recvbuf; allreduce "reduce_bcast" passes sendbuf == recvbuf on every rank):
// at the root, the first child then goes to the scratch buffer, since recvbuf
// still holds the own operand (the in-place case above); a root that is not the
// tree root receives the result only after its blocking send of its partial
// result; other ranks never write recvbuf.
#include <memory>
#include <string>
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/binomial_tree.hpp"

namespace ragged {

void reduce_binomial(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                     const ReduceOp& op, int root) {
  namespace tree = plans::binomial;
  Comm& comm = ctx.comm();
  // reduce_local would reject these too, but only on ranks that combine something:
  // check on every rank first so that no rank waits for one that threw.
  internal::check_reducible(op, type);
  const int procs = ctx.procs();
  const int me = ctx.rank();
  const bool is_root = me == root;
  // The own operand sits in recvbuf (in place at the root, or an allreduce on every rank).
  const bool inplace = sendbuf == recvbuf;
  const std::size_t bytes = ctx.bytes(count, type);
  const int tag = ctx.tag(0);

  const void* mine = sendbuf;
  const int tree_root = op.commutative ? root : 0;
  const int v = tree::relative(me, tree_root, procs);
  const std::vector<int> children = tree::children(v, procs);
  const auto nchildren = children.size();

  // Two buffers that take turns receiving a child's data and holding the partial result.
  std::unique_ptr<std::byte[]> scratch[2];
  void* slot[2] = {nullptr, nullptr};
  unsigned next = 0;  // the slot the next child's data goes to
  const bool result_here = is_root && tree_root == root;
  if (result_here) {
    // recvbuf is slot 0: start so that the last child lands in it, unless recvbuf still
    // holds our own contribution (in place) and so cannot take the first child's data.
    slot[0] = recvbuf;
    next = static_cast<unsigned>((nchildren + 1) % 2);
    if (inplace && next == 0) next = 1;
  }
  const auto slot_for = [&](unsigned i) {
    if (slot[i] == nullptr) {
      scratch[i] = std::make_unique_for_overwrite<std::byte[]>(bytes);  // no zero fill
      slot[i] = scratch[i].get();
    }
    return slot[i];
  };

  const void* acc = mine;
  for (int c : children) {
    void* buf = slot_for(next);
    comm.recv(tree::absolute(c, tree_root, procs), tag, buf, bytes, ctx.timeout());
    reduce_local(op, type, acc, buf, count);  // buf = acc ∘ child: lower ranks on the left
    comm.runtime().charge(static_cast<double>(count));
    acc = buf;
    next ^= 1U;
  }

  if (v != 0) {
    comm.send(tree::absolute(tree::parent(v), tree_root, procs), tag, acc, bytes, ctx.timeout());
  } else if (!is_root) {
    comm.send(root, tag, acc, bytes, ctx.timeout());  // rank 0 forwards the ordered result
  }
  if (result_here) {
    internal::copy_bytes(recvbuf, acc, bytes);  // a no-op unless in the in-place case above
  } else if (is_root) {
    comm.recv(tree_root, tag, recvbuf, bytes, ctx.timeout());
  }
}

}  // namespace ragged
