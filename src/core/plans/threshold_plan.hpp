// The arithmetic of the threshold (eventually consistent) broadcast and reduce (Iakymchuk et al. 2021,
// §III-B): how much data a data threshold keeps, which ranks a process threshold keeps, and
// the stages of the binomial tree. Pure functions, no communication; the tree itself is
// plans/binomial_tree.hpp (relative ranks, the root is 0).
//
// Stages. The binomial tree works in stages that double the ranks involved: after stage s
// the relative ranks [0, 2^s) hold the data (broadcast), and relative rank v > 0 joins at
// stage floor(log2 v) + 1 (the root is stage 0). P = 8:
//
//   stage 1:  0 ──> 1
//   stage 2:  0 ──> 2   1 ──> 3
//   stage 3:  0 ──> 4   1 ──> 5   2 ──> 6   3 ──> 7
//
// (the order in which the stages run is the reverse in a broadcast that sends to the
// farthest child first; what matters here is the sets: the relative ranks [0, 2^s) form
// a binomial tree of their own, the tree of 2^s ranks, so dropping the last stages leaves
// a smaller binomial tree with the same parents.)
//
// A process threshold t keeps the fewest whole stages that involve at least ceil(t P)
// ranks: the relative ranks [0, n) with n = min(P, 2^ceil(log2 ceil(t P))). The ranks
// that join in the last stage are dropped first.
#pragma once

#include <cassert>
#include <cmath>
#include <cstddef>

#include "plans/binomial_tree.hpp"

namespace ragged::plans::threshold {

/// ceil(t * n) for t in (0, 1] and n >= 0, snapped to the nearest integer when the product
/// is within a relative 1e-9 of it (so 0.07 of 100 is 7, although 0.07 * 100 is
/// 7.000000000000001 in double), then clamped to [1, n] (a positive threshold of a
/// non-empty set keeps at least one). 0 for n = 0.
inline std::size_t ceil_fraction(double t, std::size_t n) {
  assert(t > 0 && t <= 1);
  if (n == 0) return 0;
  const double x = t * static_cast<double>(n);
  const double nearest = std::nearbyint(x);
  const double tolerance = 1e-9 * (x > 1 ? x : 1);
  const double up = std::fabs(x - nearest) <= tolerance ? nearest : std::ceil(x);
  if (up <= 1) return 1;
  if (up >= static_cast<double>(n)) return n;
  return static_cast<std::size_t>(up);
}

/// Elements a data threshold `t` keeps of `count`: the first ceil(t * count).
inline std::size_t elements(double t, std::size_t count) { return ceil_fraction(t, count); }

/// The stage at which relative rank `vrank` receives in the broadcast (joins, in the
/// reduce): 0 for the root, floor(log2 vrank) + 1 otherwise.
constexpr int stage_of(int vrank) {
  assert(vrank >= 0);
  int s = 0;
  while (vrank > 0) {
    vrank >>= 1;
    ++s;
  }
  return s;
}

/// The ranks involved after `stages` stages of a tree of `procs` ranks: min(procs, 2^stages).
constexpr int involved(int stages, int procs) {
  assert(stages >= 0 && procs >= 1);
  return stages >= binomial::rounds(procs) ? procs : (1 << stages);
}

/// The whole stages a process threshold `t` keeps: the fewest whose ranks number at least
/// ceil(t * procs).
inline int stages(double t, int procs) {
  assert(procs >= 1);
  const auto needed = static_cast<int>(ceil_fraction(t, static_cast<std::size_t>(procs)));
  int s = 0;
  while (involved(s, procs) < needed) ++s;
  return s;
}

/// The ranks a process threshold `t` keeps of `procs`: relative ranks [0, contributors).
inline int contributors(double t, int procs) { return involved(stages(t, procs), procs); }

/// True when relative rank `vrank` is among the first `contributors` (it takes part).
constexpr bool contributes(int vrank, int contributors) { return vrank < contributors; }

/// True when relative rank `vrank` has no child in the tree of `procs` ranks (an outer node).
constexpr bool is_leaf(int vrank, int procs) { return binomial::child_count(vrank, procs) == 0; }

/// The exponent j of a power of two d = 2^j (d > 0): the index of the notification slot that
/// a parent and its child at distance d use (plans/binomial_tree.hpp: a child is v + 2^j).
constexpr int distance_index(int d) {
  assert(d > 0 && (d & (d - 1)) == 0);
  int j = 0;
  while ((1 << j) < d) ++j;
  return j;
}

}  // namespace ragged::plans::threshold
