// Power-of-two folding and recursive-doubling partners for allreduce
// "recursive_doubling" (allreduce "rabenseifner" uses binary blocks instead, plans/rabenseifner_plan.hpp).
// Pure functions, no communication.
//
// For any P, let pof2 be the largest power of two <= P and rem = P - pof2.
// The first 2*rem ranks fold in pairs: even rank 2i hands its vector to rank
// 2i+1 and sits out; the pof2 ranks left (the odd ranks below 2*rem and every
// rank from 2*rem on) run the power-of-two algorithm under virtual ranks
// 0..pof2-1, then each odd rank below 2*rem hands the result back to 2i.
//
//   P = 6: pof2 = 4, rem = 2
//   rank    0    1    2    3    4    5
//   fold    0 -> 1    2 -> 3
//   vrank   -    0    -    1    2    3
//   steps on vranks: partner = vrank xor mask, mask = 1, 2, ..., pof2/2
//   unfold  0 <- 1    2 <- 3
#pragma once

#include <cassert>

namespace ragged::plans::recursive {

/// The largest power of two <= procs (procs >= 1).
constexpr int pof2(int procs) {
  assert(procs > 0);
  int p = 1;
  while (p <= procs / 2) p <<= 1;
  return p;
}

/// Number of ranks beyond the power of two: procs - pof2(procs).
constexpr int rem(int procs) { return procs - pof2(procs); }

/// log2(pof2(procs)): the number of steps among the virtual ranks.
constexpr int steps(int procs) {
  int s = 0;
  while ((1 << (s + 1)) <= procs) ++s;
  return s;
}

/// The virtual rank of `rank`, or -1 for an even rank below 2*rem that sits out.
constexpr int vrank(int rank, int procs) {
  const int r2 = 2 * rem(procs);
  if (rank < r2) return rank % 2 == 0 ? -1 : rank / 2;
  return rank - rem(procs);
}

/// The real rank of virtual rank `v` (0..pof2-1).
constexpr int real_rank(int v, int procs) {
  assert(v >= 0 && v < pof2(procs));
  return v < rem(procs) ? 2 * v + 1 : v + rem(procs);
}

/// The first real rank whose block virtual rank `v` (0..pof2) stands for, when every rank has
/// a block (reduce_scatter "recursive_halving"): 2v for a folded pair (which holds blocks 2v and
/// 2v+1), v + rem otherwise; `procs` for v = pof2, the end. Increasing in v: the pof2 virtual
/// ranks hold consecutive runs of blocks.
constexpr int first_rank(int v, int procs) {
  assert(v >= 0 && v <= pof2(procs));
  if (v == pof2(procs)) return procs;
  return v < rem(procs) ? 2 * v : v + rem(procs);
}

/// The rank that `rank` folds with: rank+1 for an even rank below 2*rem, rank-1 for an
/// odd one, -1 for a rank that does not fold.
constexpr int fold_partner(int rank, int procs) {
  if (rank >= 2 * rem(procs)) return -1;
  return rank % 2 == 0 ? rank + 1 : rank - 1;
}

/// The real rank of the partner of virtual rank `v` in the step with `mask` (1, 2, 4, ...).
constexpr int partner(int v, int mask, int procs) {
  assert(v >= 0 && mask > 0 && mask < pof2(procs));
  return real_rank(v ^ mask, procs);
}

}  // namespace ragged::plans::recursive
