#include "plans/prr_schedule.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

#include "plans/bdr_schedule.hpp"
#include "plans/sorted_order.hpp"
#include "plans/step_program.hpp"

namespace ragged::plans::prr {

namespace {

int wrap(std::int64_t a, int procs) {
  const std::int64_t m = a % procs;
  return static_cast<int>(m < 0 ? m + procs : m);
}

struct Timed {
  std::int64_t step;
  Transfer transfer;
};

}  // namespace

std::size_t Schedule::first_send(int rank) const { return steps::first_send(program(rank)); }

int Schedule::first_segment(int rank) const {
  const std::size_t k = first_send(rank);
  return k < program(rank).size() ? program(rank)[k].send_segment : -1;
}

int Schedule::successor(int rank) const {
  const auto p = static_cast<std::size_t>(procs);
  for (std::size_t i = 0; i < p; ++i) {
    if (order[i] == rank) return order[(i + 1) % p];
  }
  return -1;
}

int Schedule::predecessor(int rank) const {
  const auto p = static_cast<std::size_t>(procs);
  for (std::size_t i = 0; i < p; ++i) {
    if (order[i] == rank) return order[(i + p - 1) % p];
  }
  return -1;
}

Schedule make_schedule(std::span<const double> arrivals, double tau, int only) {
  Schedule s = steps::empty_schedule<Schedule>(arrivals);
  const int procs = s.procs;
  if (procs == 0) return s;
  const std::vector<std::int64_t> ps_no = bdr::pre_step_counts(arrivals, tau);
  const std::int64_t big_a = *std::max_element(ps_no.begin(), ps_no.end());
  s.last_arrival_step = big_a;
  s.ring = big_a == 0 || procs == 1;
  // The regular ring keeps the rank order; otherwise the ring runs in arrival order.
  if (s.ring) {
    s.order.resize(arrivals.size());
    for (int r = 0; r < procs; ++r) s.order[static_cast<std::size_t>(r)] = r;
  } else {
    s.order = sorted::earliest_first(arrivals);
  }
  s.arrival_step.resize(arrivals.size());
  for (std::size_t r = 0; r < arrivals.size(); ++r) s.arrival_step[r] = big_a - ps_no[r];
  if (procs == 1) return s;

  const auto pos_rank = [&](std::int64_t position) { return s.order[static_cast<std::size_t>(wrap(position, procs))]; };
  // arr[p]: arrival step of position p (nondecreasing in p); D(c) = max over p >= c of arr[p] - p.
  std::vector<std::int64_t> arr(static_cast<std::size_t>(procs));
  for (int p = 0; p < procs; ++p) {
    arr[static_cast<std::size_t>(p)] = s.arrival_step[static_cast<std::size_t>(pos_rank(p))];
  }
  std::vector<std::int64_t> big_d(static_cast<std::size_t>(procs) + 1, INT64_MIN);
  for (int c = procs - 1; c >= 0; --c) {
    const auto uc = static_cast<std::size_t>(c);
    big_d[uc] = std::max(big_d[uc + 1], arr[uc] - c);
  }
  // The earliest step a chain starting at position 0 may begin its reducing hops (they stop
  // at the latest rank, which only receives): every sender p <= P-2 must have arrived.
  std::int64_t early_start = 0;
  for (int p = 0; p + 1 < procs; ++p) early_start = std::max(early_start, arr[static_cast<std::size_t>(p)] - p);

  // With `only`, keep the transfers of that rank: at most 2P - 2 per chain touch it.
  std::vector<Timed> timed;
  timed.reserve(static_cast<std::size_t>(only < 0 ? procs : 2) * static_cast<std::size_t>(2 * procs - 2));
  const auto keep = [&](std::int64_t step, const Transfer& t) {
    if (only < 0 || t.from == only || t.to == only) timed.push_back({step, t});
  };
  std::int64_t next_early = early_start;
  const int hops = procs - 1;
  for (int i = 0; i < procs; ++i) {
    Chain chain;
    chain.segment = wrap(std::int64_t{procs} - 2 - i, procs);
    chain.diagonal = big_a - procs + 1 + i;
    int c = 0;
    while (c < procs - 1 && big_d[static_cast<std::size_t>(c)] > chain.diagonal) ++c;
    assert(big_d[static_cast<std::size_t>(c)] <= chain.diagonal);
    chain.start = c;
    chain.latest_send = chain.diagonal + procs - 1;
    // Reducing hops: h = 0..P-2 from position c + h. Overriding hops: h = P-1..2P-3.
    if (c == 0) {
      // Reduced over the early ranks as soon as possible; the latest rank (the end of the
      // reduction) holds the partial until its own step.
      assert(next_early <= chain.diagonal);
      chain.reduce_start = std::min(next_early, chain.diagonal);
      next_early = chain.reduce_start + 1;
      for (int h = 0; h < hops; ++h) {
        keep(chain.reduce_start + h, Transfer{pos_rank(h), pos_rank(h + 1), chain.segment, true});
      }
      for (int g = 0; g < hops; ++g) {
        keep(chain.diagonal + procs - 1 + g,
             Transfer{pos_rank(procs - 1 + g), pos_rank(procs + g), chain.segment, false});
      }
    } else {
      chain.reduce_start = chain.diagonal + c;
      for (int h = 0; h < 2 * hops; ++h) {
        keep(chain.reduce_start + h,
             Transfer{pos_rank(std::int64_t{c} + h), pos_rank(std::int64_t{c} + h + 1), chain.segment, h < hops});
      }
    }
    s.chains.push_back(chain);
  }

  std::sort(timed.begin(), timed.end(), [](const Timed& a, const Timed& b) {
    return a.step != b.step ? a.step < b.step : a.transfer.from < b.transfer.from;
  });
  for (const Timed& t : timed) {
    if (only < 0) {
      if (s.step_number.empty() || s.step_number.back() != t.step) {
        s.step_number.push_back(t.step);
        s.steps.emplace_back();
      }
      s.steps.back().push_back(t.transfer);
    }
    // `book` adds the sender's and the receiver's entries: with `only`, one of them is `only`, and
    // the other rank's program gets this one transfer, which the caller never reads.
    steps::book(s.programs, t.step, t.transfer.from, t.transfer.to, t.transfer.segment).recv_reduce = t.transfer.reduce;
  }
  if (only >= 0) {
    for (std::size_t r = 0; r < s.programs.size(); ++r) {
      if (static_cast<int>(r) != only) std::vector<RankStep>().swap(s.programs[r]);
    }
  }
  return s;
}

std::vector<std::int64_t> finish_after_last_arrival(const Schedule& schedule) {
  std::vector<std::int64_t> out(schedule.programs.size(), 0);
  for (std::size_t r = 0; r < schedule.programs.size(); ++r) {
    if (schedule.programs[r].empty()) continue;
    out[r] = schedule.programs[r].back().step + 1 - schedule.last_arrival_step;
  }
  return out;
}

}  // namespace ragged::plans::prr
