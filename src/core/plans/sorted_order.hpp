// Orders of ranks by (estimated) arrival time, for the arrival-aware
// algorithms. Pure functions, no communication.
//
// Ties are broken by rank (lower rank first in both directions), so every
// process that sorts the same arrival times gets the same order, whatever the
// standard library's sort does with equal keys.
//
//   arrivals (rank 0..4):  3.0  1.0  2.0  1.0  5.0
//   earliest_first:        1 3 2 0 4
//   latest_first:          4 0 2 1 3
//   gather_order(root 2):  1 3 0 4        (the root left out)
#pragma once

#include <algorithm>
#include <numeric>
#include <span>
#include <vector>

namespace ragged::plans::sorted {

/// Ranks sorted by arrival, earliest first; equal arrivals in rank order.
inline std::vector<int> earliest_first(std::span<const double> arrivals) {
  std::vector<int> order(arrivals.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return arrivals[static_cast<std::size_t>(a)] < arrivals[static_cast<std::size_t>(b)];
  });
  return order;
}

/// Ranks sorted by arrival, latest (slowest) first; equal arrivals in rank order.
/// BDR's `pa` (listing 2 of Proficz 2021, line 10).
inline std::vector<int> latest_first(std::span<const double> arrivals) {
  std::vector<int> order(arrivals.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return arrivals[static_cast<std::size_t>(a)] > arrivals[static_cast<std::size_t>(b)];
  });
  return order;
}

/// The non-root ranks in the order a sorted gather (BSLS, SLS) serves them: earliest first.
inline std::vector<int> gather_order(std::span<const double> arrivals, int root) {
  std::vector<int> order = earliest_first(arrivals);
  order.erase(std::remove(order.begin(), order.end(), root), order.end());
  return order;
}

}  // namespace ragged::plans::sorted
