#include "plans/prd_plan.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "plans/ring_plan.hpp"
#include "plans/sorted_order.hpp"

namespace ragged::plans::prd {

namespace {
// The defaults of `auto` (src/core/dispatch/select.cpp): 1 GbE with Open MPI over TCP.
constexpr double default_alpha = 50e-6;
constexpr double default_beta = 1.0 / 117.5e6;
}  // namespace

int Plan::position(int rank) const {
  const auto it = std::find(early.begin(), early.end(), rank);
  return it == early.end() ? -1 : static_cast<int>(it - early.begin());
}

int rounds_for(std::size_t bytes, int blocks, double alpha, double beta) {
  if (!(alpha > 0) && !(beta > 0)) {
    alpha = default_alpha;
    beta = default_beta;
  }
  if (!(alpha > 0) || !std::isfinite(alpha) || !std::isfinite(beta)) return 1;
  const double ideal = std::round(std::sqrt(static_cast<double>(bytes) * std::max(0.0, beta) / alpha));
  const std::size_t by_size = bytes / (static_cast<std::size_t>(std::max(1, blocks)) * min_piece_bytes);
  const double limit = static_cast<double>(std::min<std::size_t>(max_rounds, std::max<std::size_t>(1, by_size)));
  return static_cast<int>(std::clamp(ideal, 1.0, limit));
}

Plan make_plan(std::span<const double> arrivals, std::size_t bytes, double alpha, double beta) {
  if (arrivals.size() < 2) throw std::invalid_argument("prd::make_plan: fewer than two ranks");
  Plan plan;
  const std::vector<int> order = sorted::earliest_first(arrivals);
  // earliest_first breaks ties by rank, so the last of the order is the highest-ranked latest.
  plan.late = order.back();
  plan.early.assign(order.begin(), order.end() - 1);
  plan.rounds = rounds_for(bytes, static_cast<int>(plan.early.size()), alpha, beta);
  return plan;
}

Piece piece(std::size_t count, int blocks, int rounds, int block, int round) {
  const std::size_t block_offset = ring::segment_offset(count, blocks, block);
  const std::size_t block_count = ring::segment_size(count, blocks, block);
  return Piece{block_offset + ring::segment_offset(block_count, rounds, round),
               ring::segment_size(block_count, rounds, round)};
}

}  // namespace ragged::plans::prd
