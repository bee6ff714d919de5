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

}  // namespace ragged::plans::binomial
