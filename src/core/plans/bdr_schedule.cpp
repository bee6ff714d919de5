#include "plans/bdr_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plans/sorted_order.hpp"
#include "plans/step_program.hpp"

namespace ragged::plans::bdr {

namespace {

/// More pre-steps than any schedule can use (at most P(P-1) of them send anything); keeps
/// the arithmetic in range when tau is tiny compared with the imbalance.
constexpr std::int64_t pre_step_cap = std::int64_t{1} << 40;

int wrap(std::int64_t a, int procs) {
  const std::int64_t m = a % procs;
  return static_cast<int>(m < 0 ? m + procs : m);
}

void add_step(Schedule& schedule, std::vector<Transfer> transfers, std::int64_t listing_step) {
  const int k = static_cast<int>(schedule.steps.size());
  for (const Transfer& t : transfers) steps::book(schedule.programs, k, t.from, t.to, t.segment);
  schedule.steps.push_back(std::move(transfers));
  schedule.listing_step.push_back(listing_step);
}

}  // namespace

std::size_t Schedule::first_send(int rank) const { return steps::first_send(program(rank)); }

std::vector<std::int64_t> pre_step_counts(std::span<const double> arrivals, double tau) {
  std::vector<std::int64_t> counts(arrivals.size(), 0);
  if (arrivals.empty() || !(tau > 0) || !std::isfinite(tau)) return counts;
  const double latest = *std::max_element(arrivals.begin(), arrivals.end());
  for (std::size_t q = 0; q < arrivals.size(); ++q) {
    const double x = (latest - arrivals[q]) / tau;
    const double steps = std::floor(x + 1e-9 * std::max(1.0, x));
    counts[q] = steps >= static_cast<double>(pre_step_cap) ? pre_step_cap : static_cast<std::int64_t>(steps);
  }
  return counts;
}

Schedule make_schedule(std::span<const double> arrivals, double tau) {
  Schedule schedule = steps::empty_schedule<Schedule>(arrivals);
  const int procs = schedule.procs;
  schedule.pre_step_budget = pre_step_counts(arrivals, tau);
  const std::vector<std::int64_t>& ps_no = schedule.pre_step_budget;
  const std::int64_t big_s = ps_no.empty() ? 0 : *std::max_element(ps_no.begin(), ps_no.end());
  schedule.listing_pre_steps = big_s;
  if (procs <= 1) return schedule;

  // ---- pre-steps (listing lines 22-33)
  const std::vector<int> pa = sorted::latest_first(arrivals);
  std::vector<int> prev_sent(arrivals.size(), 0);
  std::vector<std::int64_t> booked_at(arrivals.size(), -1);  // step in which a rank's receive is booked
  const auto ready = [&](int r, std::int64_t s) {
    return ps_no[static_cast<std::size_t>(r)] >= big_s - s && prev_sent[static_cast<std::size_t>(r)] < procs - 1;
  };
  std::int64_t s = 0;
  while (s < big_s) {
    std::vector<Transfer> step;
    for (int r : pa) {
      if (!ready(r, s)) continue;
      auto& sent = prev_sent[static_cast<std::size_t>(r)];
      const int rc = wrap(std::int64_t{r} - 1 - sent, procs);
      if (booked_at[static_cast<std::size_t>(rc)] == s) continue;
      booked_at[static_cast<std::size_t>(rc)] = s;
      step.push_back(Transfer{r, rc, r});
      ++sent;
    }
    if (!step.empty()) add_step(schedule, std::move(step), s);
    ++s;
    // Jump over steps in which nobody can send: until the next rank with segments left arrives.
    bool anyone = false;
    std::int64_t next = big_s;
    for (int r = 0; r < procs; ++r) {
      if (prev_sent[static_cast<std::size_t>(r)] >= procs - 1) continue;
      if (ready(r, s)) {
        anyone = true;
        break;
      }
      next = std::min(next, big_s - ps_no[static_cast<std::size_t>(r)]);
    }
    if (!anyone) s = next;
  }
  schedule.pre_steps = static_cast<int>(schedule.steps.size());

  // ---- the ring (listing lines 34-45); steps are grouped by j
  for (int j = 0; j < procs; ++j) {
    std::vector<Transfer> step;
    for (int i = 0; i < procs; ++i) {
      const int seg = wrap(std::int64_t{i} - j, procs);
      if (prev_sent[static_cast<std::size_t>(seg)] + j < procs - 1) {
        step.push_back(Transfer{i, wrap(std::int64_t{i} + 1, procs), seg});
      }
    }
    if (!step.empty()) add_step(schedule, std::move(step), big_s + j);
  }
  return schedule;
}

}  // namespace ragged::plans::bdr
