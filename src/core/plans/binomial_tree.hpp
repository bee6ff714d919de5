// Binomial-tree rank arithmetic shared by the rooted collectives (bcast, reduce,
// gather, scatter). Pure functions, no communication.
//
// Ranks are first made relative to the root: v = (rank - root) mod P, so the root
// is v = 0. In relative ranks the tree is the classic one:
//
//   parent(v)   = v with its lowest set bit cleared            (v > 0)
//   children(v) = v + 2^k for every 2^k below the lowest set bit of v
//                 (every 2^k < P for the root) with v + 2^k < P
//   subtree(v)  = the relative ranks [v, v + subtree_size(v)), contiguous
//
//   P = 13, relative ranks:
//
//       0 ── 1
//       ├─── 2 ── 3
//       ├─── 4 ── 5
//       │    └─── 6 ── 7
//       └─── 8 ── 9
//            ├─── 10 ── 11
//            └─── 12
//
// children() lists the nearest child first (distance 1, 2, 4, ...), whose subtrees
// hold 1, 2, 4, ... ranks (only the last one may be cut short by P): the order in
// which gather and reduce receive (small subtrees finish first; in reduce, lower
// relative ranks stay on the left). Bcast and scatter walk the list backwards, so
// the farthest child, whose subtree is the largest unless P cut it short, starts first.
//
// node() is what one rank of a gather or scatter does on that tree, in absolute ranks: its
// parent, and for each child the run of blocks that travels on that edge (the child's subtree,
// packed in relative order). Gather receives the runs and sends its own upwards; scatter does
// the reverse. At the root a child's run starts at block `rank` of the caller's buffer and may
// wrap past block P-1 (head()).
#pragma once

#include <cassert>
#include <vector>

namespace ragged::plans::binomial {

/// The rank relative to `root`: 0 for the root, then root+1 -> 1, ... (mod procs).
constexpr int relative(int rank, int root, int procs) {
  assert(procs > 0 && rank >= 0 && rank < procs && root >= 0 && root < procs);
  return rank >= root ? rank - root : rank - root + procs;
}

/// Inverse of relative(): the absolute rank of relative rank `vrank`.
constexpr int absolute(int vrank, int root, int procs) {
  assert(procs > 0 && vrank >= 0 && vrank < procs && root >= 0 && root < procs);
  const int r = vrank + root;
  return r >= procs ? r - procs : r;
}

/// The lowest set bit of `v` (v > 0).
constexpr int lowest_bit(int v) {
  assert(v > 0);
  return v & -v;
}

/// The smallest power of two that is >= procs (procs >= 1).
constexpr int ceil_pow2(int procs) {
  int p = 1;
  while (p < procs) p <<= 1;
  return p;
}

/// Number of rounds of the tree: ceil(log2 procs), its depth.
constexpr int rounds(int procs) {
  int r = 0;
  while ((1 << r) < procs) ++r;
  return r;
}

/// The relative parent of relative rank `vrank`; -1 for the root.
constexpr int parent(int vrank) { return vrank == 0 ? -1 : vrank & (vrank - 1); }

/// One past the largest distance 2^k at which `vrank` has children (before clipping to procs).
constexpr int child_span(int vrank, int procs) { return vrank == 0 ? ceil_pow2(procs) : lowest_bit(vrank); }

/// Number of ranks in the subtree of `vrank` (itself included): relative ranks
/// [vrank, vrank + subtree_size) form that subtree.
constexpr int subtree_size(int vrank, int procs) {
  const int span = child_span(vrank, procs);
  return span < procs - vrank ? span : procs - vrank;
}

/// Number of children of `vrank`.
constexpr int child_count(int vrank, int procs) {
  int n = 0;
  for (int d = 1; d < child_span(vrank, procs) && vrank + d < procs; d <<= 1) ++n;
  return n;
}

/// The relative children of `vrank`, nearest (smallest subtree) first.
inline std::vector<int> children(int vrank, int procs) {
  std::vector<int> out;
  out.reserve(static_cast<unsigned>(child_count(vrank, procs)));
  for (int d = 1; d < child_span(vrank, procs) && vrank + d < procs; d <<= 1) out.push_back(vrank + d);
  return out;
}

/// The absolute ranks of the subtree of relative rank `vrank`, in relative order (its own first).
inline std::vector<int> subtree_ranks(int vrank, int root, int procs) {
  const int size = subtree_size(vrank, procs);
  std::vector<int> out;
  out.reserve(static_cast<unsigned>(size));
  for (int u = vrank; u < vrank + size; ++u) out.push_back(absolute(u, root, procs));
  return out;
}

/// The run of blocks on the edge to one child: the child's subtree in relative order.
struct Edge {
  int rank = 0;    ///< the child, absolute; its own block comes first in the run
  int vrank = 0;   ///< the child, relative to the root
  int offset = 0;  ///< blocks before the run in its parent's run (the parent's own block is block 0)
  int size = 0;    ///< blocks in the run: the child's subtree size
};

/// One rank's part of a binomial gather or scatter rooted at `root`.
struct Node {
  int vrank = 0;               ///< this rank relative to the root (0: the root)
  int parent = -1;             ///< absolute; -1 for the root
  int size = 1;                ///< blocks in this rank's run (its subtree)
  std::vector<Edge> children;  ///< nearest (smallest run) first, like children()
};

/// The part of absolute rank `rank` in the tree rooted at `root`.
inline Node node(int rank, int root, int procs) {
  Node n;
  n.vrank = relative(rank, root, procs);
  const int pv = parent(n.vrank);
  n.parent = pv < 0 ? -1 : absolute(pv, root, procs);
  n.size = subtree_size(n.vrank, procs);
  n.children.reserve(static_cast<unsigned>(child_count(n.vrank, procs)));
  for (int c : children(n.vrank, procs)) {
    n.children.push_back(Edge{absolute(c, root, procs), c, c - n.vrank, subtree_size(c, procs)});
  }
  return n;
}

/// Of `size` blocks starting at absolute block `start` (the root's view of a run), the number
/// that lie in blocks start..P-1: `size` unless the run wraps past block P-1, when the other
/// size - head() blocks continue at block 0.
constexpr int head(int start, int size, int procs) {
  assert(start >= 0 && start < procs && size >= 0 && size <= procs);
  return start + size > procs ? procs - start : size;
}

}  // namespace ragged::plans::binomial
