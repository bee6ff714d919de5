// Binomial-tree broadcast.
//
// Ranks are renumbered relative to the root (v = rank - root mod P). Each rank
// receives once from its parent (v with its lowest set bit cleared) and then sends
// to its children v + 2^k, the farthest (largest subtree) first, so the rounds
// halve the distance. P = 8, root 0 (add the root mod P for another root):
//
//   round 0:  0 ──> 4
//   round 1:  0 ──> 2        4 ──> 6
//   round 2:  0 ──> 1   2 ──> 3   4 ──> 5   6 ──> 7
//
// Cost (α-β model, n bytes): ⌈log2 P⌉ (α + nβ) along the deepest path; the root
// sends ⌈log2 P⌉ messages, every other rank receives exactly one. No copies, no
// extra memory.
#include <vector>

#include "algorithms/list.hpp"
#include "internal/common.hpp"
#include "plans/binomial_tree.hpp"

namespace ragged {

void bcast_binomial(Context& ctx, void* buffer, std::size_t count, DataType type, int root) {
  namespace tree = plans::binomial;
  Comm& comm = ctx.comm();
  const std::size_t bytes = count * size_of(type);
  const int procs = comm.size();
  const int tag = ctx.tag(0);

  const int v = tree::relative(comm.rank(), root, procs);
  if (v != 0) {
    comm.recv(tree::absolute(tree::parent(v), root, procs), tag, buffer, bytes, ctx.timeout());
  }
  const std::vector<int> children = tree::children(v, procs);
  std::vector<Request> sends;
  sends.reserve(children.size());
  for (auto c = children.rbegin(); c != children.rend(); ++c) {
    sends.push_back(comm.isend(tree::absolute(*c, root, procs), tag, buffer, bytes));
  }
  comm.wait_all(sends, ctx.timeout());
}

}  // namespace ragged
