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
//   gather_order(root 2):  1 3 0 4        (the root left out; scatter "sln" serves them alike)
//   bcast_chain(root 2):   2 1 3 0 4      (the root heads the chain)
//   reduce_chain(root 2):  1 3 0 4 2      (the chain ends at the root)
//   sbn_gather_tree(root 2):  2 4 0 1 3   (tree positions 0..4: the root, then latest first)
//   sbn_scatter_tree(root 2): 2 4 1 3 0   (positions 2-3, the root's largest subtree, get the
//                                          earliest ranks 1 and 3; the latest, 4, is position 1)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

#include "plans/binomial_tree.hpp"

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

/// The chain of bcast "sorted_chain": the root, then the other ranks earliest first. Segments
/// flow from the root down to the latest rank, which finds its predecessor holding them all.
inline std::vector<int> bcast_chain(std::span<const double> arrivals, int root) {
  std::vector<int> chain = gather_order(arrivals, root);
  chain.insert(chain.begin(), root);
  return chain;
}

/// The chain of reduce "sorted_chain": the other ranks earliest first, then the root. Partial
/// results flow from the earliest rank towards the latest, which adds its own and passes them on
/// to the root.
inline std::vector<int> reduce_chain(std::span<const double> arrivals, int root) {
  std::vector<int> chain = gather_order(arrivals, root);
  chain.push_back(root);
  return chain;
}

/// SBN's binomial tree (gather and scatter "sbn"): the rank at each position of the binomial
/// tree of plans/binomial_tree.hpp (its relative ranks; position 0 is the root). A subtree is a
/// run of higher positions, so in the gather's tree, the other ranks latest first, every rank
/// arrives no earlier than the ranks below it: they have sent before it comes, and the latest
/// rank is a leaf of the root, whose one block is all that is left when it arrives.
inline std::vector<int> sbn_gather_tree(std::span<const double> arrivals, int root) {
  std::vector<int> tree = latest_first(arrivals);
  tree.erase(std::remove(tree.begin(), tree.end(), root), tree.end());
  tree.insert(tree.begin(), root);
  return tree;
}

/// The order in which a rank of SBN's scatter serves the children `binomial::children(v, procs)`
/// names: the largest subtree first (the farther of two of one size first), the nearest leaf last.
inline std::vector<int> sbn_scatter_children(int v, int procs) {
  std::vector<int> kids = binomial::children(v, procs);
  std::stable_sort(kids.begin(), kids.end(), [procs](int a, int b) {
    const int sa = binomial::subtree_size(a, procs);
    const int sb = binomial::subtree_size(b, procs);
    return sa != sb ? sa > sb : a > b;
  });
  return kids;
}

/// The scatter's tree: each subtree gets a run of the ranks sorted earliest first, its head the
/// earliest of them, its children's subtrees the following ranks in the order the head serves
/// them (sbn_scatter_children: the largest first). So every rank arrives no later than the ranks
/// below it and passes their blocks on as soon as it has them, the early ranks fill the large
/// subtrees the root serves first, and the latest rank is position 1, the leaf the root serves
/// last: one block and no hop after it arrives.
inline std::vector<int> sbn_scatter_tree(std::span<const double> arrivals, int root) {
  const std::vector<int> order = bcast_chain(arrivals, root);  // the root, then earliest first
  const int procs = static_cast<int>(order.size());
  std::vector<int> tree(order.size());
  struct Place {
    int position;
    std::size_t first;  // the subtree's ranks are order[first, first + its size)
  };
  std::vector<Place> stack;
  if (procs > 0) stack.push_back({0, 0});
  while (!stack.empty()) {
    const Place p = stack.back();
    stack.pop_back();
    tree[static_cast<std::size_t>(p.position)] = order[p.first];
    std::size_t next = p.first + 1;
    for (const int c : sbn_scatter_children(p.position, procs)) {
      stack.push_back({c, next});
      next += static_cast<std::size_t>(binomial::subtree_size(c, procs));
    }
  }
  return tree;
}

/// What the rank at `position` of an SBN tree of `procs` positions holds: the blocks of its
/// subtree's positions in position order, its own first; the root's own block stays in place
/// (recvbuf, sendbuf), so its run holds positions 1 .. P-1.
struct SbnRun {
  int position = 0;
  int size = 1;  ///< positions in the subtree, its own included
  [[nodiscard]] std::size_t own() const { return position == 0 ? 0 : 1; }
  /// Blocks in the run.
  [[nodiscard]] std::size_t blocks() const { return static_cast<std::size_t>(size) - 1 + own(); }
  /// The run's block of position `p` (position < p < position + size, or p == position off the root).
  [[nodiscard]] std::size_t index(int p) const { return static_cast<std::size_t>(p - position) - 1 + own(); }
  /// A non-root rank without children: it sends or receives its own block alone.
  [[nodiscard]] bool leaf() const { return position != 0 && size == 1; }
};
inline SbnRun sbn_run(int position, int procs) { return {position, binomial::subtree_size(position, procs)}; }

/// Where `rank` sits in `chain` (chain.size() if nowhere).
inline std::size_t position_in(std::span<const int> chain, int rank) {
  return static_cast<std::size_t>(std::find(chain.begin(), chain.end(), rank) - chain.begin());
}

/// The mean over the chain's ranks of (finish - arrival) for a chain of `arrivals` (in chain
/// order, the chain's first rank holding the data or starting it) moving `bytes` in `segments`
/// segments of one step of `alpha + segment bytes * beta` each, one segment per link and step, a
/// rank receiving only after it arrived and leaving once its successor took its last segment:
/// the front of the data reaches position k at F_k = max over j <= k of (a_j + (k - j) step), and
/// rank k is done at F_min(k+1, P-1) + (segments - 1) step.
inline double chain_mean_elapsed(std::span<const double> arrivals, double bytes, double segments, double alpha,
                                 double beta) {
  const std::size_t p = arrivals.size();
  if (p < 2 || segments < 1) return 0;
  const double step = alpha + std::ceil(bytes / segments) * beta;
  std::vector<double> front(p);
  for (std::size_t k = 0; k < p; ++k) front[k] = std::max(arrivals[k], k > 0 ? front[k - 1] + step : arrivals[0]);
  double sum = 0;
  for (std::size_t k = 0; k < p; ++k) sum += front[std::min(k + 1, p - 1)] + (segments - 1) * step - arrivals[k];
  return sum / static_cast<double>(p);
}

/// The number of segments that chain_mean_elapsed() finds least for these arrivals, among about
/// sqrt(2)-spaced counts from 1 to bytes / min_segment_bytes (the least count on a tie). Spread
/// arrivals hide the chain's fill, so they favour fewer, larger segments than a chain whose
/// ranks all arrive together. Every rank that computes it from the same snapshot gets the same.
inline std::size_t chain_segment_count(std::span<const double> arrivals, std::size_t bytes, double alpha, double beta,
                                       std::size_t min_segment_bytes) {
  const std::size_t most = std::max<std::size_t>(1, bytes / std::max<std::size_t>(1, min_segment_bytes));
  std::size_t best = 1;
  double best_cost = chain_mean_elapsed(arrivals, static_cast<double>(bytes), 1, alpha, beta);
  for (double c = 2; c <= static_cast<double>(most); c = std::max(c + 1, std::ceil(c * 1.4142135623730951))) {
    const double cost = chain_mean_elapsed(arrivals, static_cast<double>(bytes), c, alpha, beta);
    if (cost < best_cost) {
      best = static_cast<std::size_t>(c);
      best_cost = cost;
    }
  }
  return best;
}

/// How many segments each chain position's agent receives (and forwards) before its rank's
/// estimated arrival, for bcast "sorted_chain" with agents (the background model: a rank's agent
/// receives whatever reaches it, its rank takes the rest after it arrives). `arrivals` in chain
/// order, position 0 the root, which holds every segment at its arrival and sends them all itself;
/// `segments` segments of `step` seconds each, one per link at a time. Position k's send of
/// segment t ends at C(k, t) = max(R(k, t), C(k, t - 1), a_k unless its agent forwards t) + step,
/// where R(k, t) = C(k - 1, t) is when k holds t (R(0, t) = a_0); early[k] counts the segments
/// with R(k, t) <= a_k, a prefix since R grows with t. early[0] = 0.
inline std::vector<std::size_t> chain_early(std::span<const double> arrivals, std::size_t segments, double step) {
  const std::size_t p = arrivals.size();
  std::vector<std::size_t> early(p, 0);
  if (p < 2 || segments == 0 || !(step > 0)) return early;
  std::vector<double> held(segments, arrivals[0]);  // R(k, t) for the current position
  for (std::size_t k = 0; k + 1 < p; ++k) {
    if (k > 0) {
      while (early[k] < segments && held[early[k]] <= arrivals[k]) ++early[k];
    }
    double done = -std::numeric_limits<double>::infinity();  // C(k, t - 1)
    for (std::size_t t = 0; t < segments; ++t) {
      double start = std::max(held[t], done);
      if (t >= early[k]) start = std::max(start, arrivals[k]);
      done = start + step;
      held[t] = done;  // R(k + 1, t)
    }
  }
  while (early[p - 1] < segments && held[early[p - 1]] <= arrivals[p - 1]) ++early[p - 1];
  return early;
}

/// `values` (one per rank) in the order of `chain`.
inline std::vector<double> in_chain_order(std::span<const double> values, std::span<const int> chain) {
  std::vector<double> out;
  out.reserve(chain.size());
  for (const int r : chain) out.push_back(values[static_cast<std::size_t>(r)]);
  return out;
}

}  // namespace ragged::plans::sorted
