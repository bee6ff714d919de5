#include "plans/slt_order.hpp"

#include <algorithm>
#include <cassert>
#include <limits>

#include "plans/sorted_order.hpp"

namespace ragged::plans::slt {

std::vector<int> chain_order(std::span<const double> arrivals) { return sorted::latest_first(arrivals); }

bool is_rank_order(std::span<const int> chain) {
  for (std::size_t k = 0; k < chain.size(); ++k) {
    if (chain[k] != static_cast<int>(k)) return false;
  }
  return true;
}

StepModel step_model(std::span<const int> chain, std::span<const double> arrival, std::size_t segments,
                     bool agent_receives) {
  const std::size_t p = chain.size();
  assert(arrival.size() == p);
  StepModel m;
  m.done.assign(p, 0.0);
  m.early.assign(p, 0);
  if (p == 0 || segments == 0) return m;
  const double never = -std::numeric_limits<double>::infinity();
  const auto a = [&](std::size_t k) { return arrival[static_cast<std::size_t>(chain[k])]; };
  // A transfer into position k may start once k posted its receive.
  const auto posted = [&](std::size_t k) { return agent_receives ? never : a(k); };

  // down_end[k][t]: when position k's send of partial t to k-1 ends (k >= 1).
  std::vector<std::vector<double>> down_end(p, std::vector<double>(segments, 0.0));
  for (std::size_t k = p; k-- > 1;) {
    for (std::size_t t = 0; t < segments; ++t) {
      double start = std::max(a(k), posted(k - 1));
      if (t > 0) start = std::max(start, down_end[k][t - 1]);
      if (k + 1 < p) start = std::max(start, down_end[k + 1][t]);  // received from k+1
      down_end[k][t] = start + 1;
    }
  }
  // up_end[k][t]: when position k's send of result t to k+1 ends (k <= p-2).
  std::vector<std::vector<double>> up_end(p, std::vector<double>(segments, 0.0));
  for (std::size_t k = 0; k + 1 < p; ++k) {
    for (std::size_t t = 0; t < segments; ++t) {
      double start = std::max(a(k), posted(k + 1));
      if (t > 0) start = std::max(start, up_end[k][t - 1]);
      start = std::max(start, k == 0 ? down_end[1][t] : up_end[k - 1][t]);  // holds result t
      up_end[k][t] = start + 1;
    }
  }
  double first = std::numeric_limits<double>::infinity();
  double last = never;
  for (std::size_t k = 0; k < p; ++k) {
    double done = a(k);
    if (k >= 1) done = std::max({done, down_end[k][segments - 1], up_end[k - 1][segments - 1]});
    if (k + 1 < p) done = std::max({done, up_end[k][segments - 1], down_end[k + 1][segments - 1]});
    m.done[static_cast<std::size_t>(chain[k])] = done;
    if (k + 1 < p) {
      std::size_t n = 0;
      while (n < segments && down_end[k + 1][n] <= a(k) + 1e-9) ++n;
      m.early[static_cast<std::size_t>(chain[k])] = n;
    }
    first = std::min(first, a(k));
    last = std::max(last, done);
  }
  m.total = last - first;
  return m;
}

}  // namespace ragged::plans::slt
