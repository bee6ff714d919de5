#include "plans/bgd_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "plans/step_program.hpp"
#include "ragged/error.hpp"

namespace ragged::plans::bgd {

namespace {

/// Far more slots than any schedule uses; keeps the arithmetic in range for a tiny tau.
constexpr std::int64_t slot_cap = std::int64_t{1} << 40;

void add_step(Schedule& schedule, std::vector<Transfer> transfers, std::int64_t slot) {
  const int k = static_cast<int>(schedule.steps.size());
  for (const Transfer& t : transfers) steps::book(schedule.programs, k, t.from, t.to, t.segment);
  schedule.steps.push_back(std::move(transfers));
  schedule.slot.push_back(slot);
}

void make_ring(Schedule& schedule) {
  const int procs = schedule.procs;
  schedule.ring = true;
  for (int j = 0; j + 1 < procs; ++j) {
    std::vector<Transfer> step;
    step.reserve(static_cast<std::size_t>(procs));
    for (int i = 0; i < procs; ++i) step.push_back(Transfer{i, (i + 1) % procs, ((i - j) % procs + procs) % procs});
    add_step(schedule, std::move(step), j);
  }
}

}  // namespace

std::size_t Schedule::first_own_send(int rank) const {
  const std::vector<RankStep>& prog = program(rank);
  for (std::size_t i = 0; i < prog.size(); ++i) {
    if (prog[i].send_to >= 0 && prog[i].send_segment == rank) return i;
  }
  return prog.size();
}

Schedule make_schedule(std::span<const double> arrivals, double tau) {
  Schedule schedule = steps::empty_schedule<Schedule>(arrivals);
  const int procs = schedule.procs;
  const auto p = arrivals.size();
  schedule.own_slot.assign(p, 0);
  if (procs <= 1) return schedule;
  const double t0 = *std::min_element(arrivals.begin(), arrivals.end());
  const double omega = *std::max_element(arrivals.begin(), arrivals.end()) - t0;
  if (!(tau > 0) || !std::isfinite(tau) || omega < tau || procs > max_greedy_procs) {
    make_ring(schedule);
    return schedule;
  }
  for (std::size_t r = 0; r < p; ++r) {
    const double x = (arrivals[r] - t0) / tau;
    const double k = std::ceil(x - 1e-9 * std::max(1.0, x));
    // x is infinite when the spread overflows over a tiny tau, and inf - inf leaves k NaN: both
    // are "very late" (converting NaN to an integer would be undefined).
    schedule.own_slot[r] = !(k < static_cast<double>(slot_cap)) ? slot_cap : static_cast<std::int64_t>(k);
  }

  // Ranks in the order their own segments appear.
  std::vector<int> by_arrival(p);
  std::iota(by_arrival.begin(), by_arrival.end(), 0);
  std::stable_sort(by_arrival.begin(), by_arrival.end(), [&](int a, int b) {
    return schedule.own_slot[static_cast<std::size_t>(a)] < schedule.own_slot[static_cast<std::size_t>(b)];
  });
  // Serving order among equally rare segments: the later owner first, then the lower rank.
  std::vector<int> rank_of_priority(p);
  std::iota(rank_of_priority.begin(), rank_of_priority.end(), 0);
  std::stable_sort(rank_of_priority.begin(), rank_of_priority.end(), [&](int a, int b) {
    return arrivals[static_cast<std::size_t>(a)] > arrivals[static_cast<std::size_t>(b)];
  });
  std::vector<int> priority(p);
  for (std::size_t i = 0; i < p; ++i) priority[static_cast<std::size_t>(rank_of_priority[i])] = static_cast<int>(i);

  std::vector<char> have(p * p, 0);  // have[holder * p + segment]
  std::vector<std::vector<int>> holders(p);
  std::vector<std::int64_t> send_busy(p, -1);
  std::vector<std::int64_t> recv_busy(p, -1);
  std::vector<int> missing(p, procs - 1);  // segments each rank still lacks
  std::vector<int> live;                   // segments held by someone and lacked by someone
  live.reserve(p);
  const std::int64_t needed = std::int64_t{procs} * (procs - 1);
  std::int64_t moved = 0;
  std::size_t next_owner = 0;
  std::int64_t k = 0;
  while (moved < needed) {
    while (next_owner < p && schedule.own_slot[static_cast<std::size_t>(by_arrival[next_owner])] <= k) {
      const auto r = static_cast<std::size_t>(by_arrival[next_owner++]);
      have[r * p + r] = 1;
      holders[r].push_back(static_cast<int>(r));
    }
    live.clear();
    for (std::size_t s = 0; s < p; ++s) {
      if (!holders[s].empty() && holders[s].size() < p) live.push_back(static_cast<int>(s));
    }
    std::sort(live.begin(), live.end(), [&](int a, int b) {
      const auto ha = holders[static_cast<std::size_t>(a)].size();
      const auto hb = holders[static_cast<std::size_t>(b)].size();
      if (ha != hb) return ha < hb;
      return priority[static_cast<std::size_t>(a)] < priority[static_cast<std::size_t>(b)];
    });
    std::vector<Transfer> step;
    for (int s : live) {
      const auto seg = static_cast<std::size_t>(s);
      for (int h : holders[seg]) {
        if (send_busy[static_cast<std::size_t>(h)] == k) continue;
        // The free rank lacking the segment with the most segments still to receive (the
        // receive links bound the finish); ties: the first after h in ring order.
        int best = -1;
        for (int d = 1; d < procs; ++d) {
          const int c = (h + d) % procs;
          const auto cu = static_cast<std::size_t>(c);
          if (have[cu * p + seg] || recv_busy[cu] == k) continue;
          if (best < 0 || missing[cu] > missing[static_cast<std::size_t>(best)]) best = c;
        }
        if (best < 0) continue;
        send_busy[static_cast<std::size_t>(h)] = k;
        recv_busy[static_cast<std::size_t>(best)] = k;
        step.push_back(Transfer{h, best, s});
      }
    }
    if (step.empty()) {
      // Nothing can move until the next rank arrives.
      if (next_owner >= p) throw Error("bgd schedule: no transfer possible with every segment available");
      k = schedule.own_slot[static_cast<std::size_t>(by_arrival[next_owner])];
      continue;
    }
    for (const Transfer& t : step) {
      have[static_cast<std::size_t>(t.to) * p + static_cast<std::size_t>(t.segment)] = 1;
      holders[static_cast<std::size_t>(t.segment)].push_back(t.to);
      --missing[static_cast<std::size_t>(t.to)];
    }
    moved += static_cast<std::int64_t>(step.size());
    add_step(schedule, std::move(step), k);
    ++k;
  }
  return schedule;
}

}  // namespace ragged::plans::bgd
