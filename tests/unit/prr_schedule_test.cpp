// The PRR schedule (Proficz 2018, §4.2, plans/prr_schedule.hpp) as a pure function:
// every P from 1 to 64 with random, tied, one-late, two-late, reversed and
// flat arrival patterns, executed on sets of contributions: each segment is
// reduced exactly once over all ranks (no contribution twice, none missing),
// then delivered to every rank; a rank sends only what it holds and only once
// it arrived; in a step it sends at most one segment and receives at most one;
// P(2P-2) transfers as the ring. Plus Proficz 2018's statements about the counts,
// the ring when balanced, the example in the header, and the cost model.
#include "plans/prr_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "plans/bdr_schedule.hpp"
#include "plans/cost_model.hpp"
#include "plans/ring_plan.hpp"
#include "ragged/arrival.hpp"
#include "ragged/selection.hpp"

namespace ragged::plans::prr {
namespace test_prr_schedule_test {

/// The schedule in the header's notation, one step a line: "step k: a -> b: s" ('*' results).
std::string render(const Schedule& s) {
  std::ostringstream os;
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    os << "step " << s.step_number[k] << ":";
    for (const Transfer& t : s.steps[k])
      os << " " << t.from << " -> " << t.to << ": " << t.segment << (t.reduce ? "" : "*");
    os << "\n";
  }
  return os.str();
}

struct Counts {
  std::vector<int> sends;
  std::vector<int> receives;
};

/// Executes `s` on bit sets of contributions and checks every property; returns the per-rank counts.
Counts check_schedule(const Schedule& s, const std::vector<double>& arrivals, double tau) {
  const int p = static_cast<int>(arrivals.size());
  const auto up = static_cast<std::size_t>(p);
  Counts counts{std::vector<int>(up, 0), std::vector<int>(up, 0)};
  SCOPED_TRACE("P = " + std::to_string(p));
  EXPECT_EQ(s.procs, p);
  if (p == 0) return counts;
  const std::vector<std::int64_t> ps_no = bdr::pre_step_counts(arrivals, tau);
  const std::int64_t big_a = *std::max_element(ps_no.begin(), ps_no.end());
  EXPECT_EQ(s.last_arrival_step, big_a);
  EXPECT_EQ(s.ring, big_a == 0 || p == 1);
  std::vector<int> sorted_order = s.order;
  std::sort(sorted_order.begin(), sorted_order.end());
  for (int r = 0; r < p; ++r) EXPECT_EQ(sorted_order[static_cast<std::size_t>(r)], r) << "order is a permutation";
  for (int r = 0; r < p; ++r)
    EXPECT_EQ(s.arrival_step[static_cast<std::size_t>(r)], big_a - ps_no[static_cast<std::size_t>(r)]);
  if (!s.ring) {
    for (int q = 1; q < p; ++q) {
      EXPECT_LE(arrivals[static_cast<std::size_t>(s.order[static_cast<std::size_t>(q - 1)])],
                arrivals[static_cast<std::size_t>(s.order[static_cast<std::size_t>(q)])])
          << "the ring runs in arrival order";
    }
  }
  if (p == 1) {
    EXPECT_TRUE(s.steps.empty());
    return counts;
  }
  const std::uint64_t everyone = p == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << p) - 1;
  // set[r][j]: the contributions rank r holds for segment j; done[r][j]: it holds the result.
  std::vector<std::vector<std::uint64_t>> set(up, std::vector<std::uint64_t>(up, 0));
  std::vector<std::vector<char>> done(up, std::vector<char>(up, 0));
  std::vector<std::vector<char>> partial_in(up, std::vector<char>(up, 0));   // received a partial of j
  std::vector<std::vector<char>> partial_out(up, std::vector<char>(up, 0));  // sent its partial of j
  std::vector<int> reduced(up, 0);  // how often segment j was completed by a reduction
  for (std::size_t r = 0; r < up; ++r) {
    for (std::size_t j = 0; j < up; ++j) set[r][j] = std::uint64_t{1} << r;
  }
  std::int64_t previous = INT64_MIN;
  std::size_t transfers = 0;
  EXPECT_EQ(s.steps.size(), s.step_number.size());
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    EXPECT_FALSE(s.steps[k].empty());
    EXPECT_GT(s.step_number[k], previous) << "steps in order";
    previous = s.step_number[k];
    std::set<int> senders;
    std::set<int> receivers;
    const auto before_set = set;
    const auto before_done = done;
    for (const Transfer& t : s.steps[k]) {
      ++transfers;
      const auto f = static_cast<std::size_t>(t.from);
      const auto d = static_cast<std::size_t>(t.to);
      const auto j = static_cast<std::size_t>(t.segment);
      EXPECT_TRUE(t.from >= 0 && t.from < p && t.to >= 0 && t.to < p && t.segment >= 0 && t.segment < p);
      EXPECT_EQ(t.to, s.successor(t.from)) << "ring neighbours only";
      EXPECT_TRUE(senders.insert(t.from).second) << "rank " << t.from << " sends twice in step " << s.step_number[k];
      EXPECT_TRUE(receivers.insert(t.to).second) << "rank " << t.to << " receives twice in step " << s.step_number[k];
      EXPECT_GE(s.step_number[k], s.arrival_step[f]) << "rank " << t.from << " sends before it arrives";
      ++counts.sends[f];
      ++counts.receives[d];
      if (t.reduce) {
        EXPECT_FALSE(before_done[f][j]);
        EXPECT_FALSE(partial_out[f][j]) << "rank " << t.from << " passes segment " << j << " on twice";
        EXPECT_FALSE(partial_in[d][j]) << "rank " << t.to << " receives two partials of segment " << j;
        EXPECT_FALSE(partial_out[d][j]) << "rank " << t.to << " gets a partial of " << j << " after passing its own";
        EXPECT_EQ(before_set[f][j] & before_set[d][j], 0u) << "a contribution would count twice in segment " << j;
        partial_out[f][j] = 1;
        partial_in[d][j] = 1;
        set[d][j] |= before_set[f][j];
        if (set[d][j] == everyone) {
          done[d][j] = 1;
          ++reduced[j];
        }
      } else {
        EXPECT_TRUE(before_done[f][j]) << "rank " << t.from << " forwards a result of " << j << " it lacks";
        EXPECT_FALSE(before_done[d][j]) << "rank " << t.to << " gets the result of " << j << " twice";
        done[d][j] = 1;
        set[d][j] = everyone;
      }
    }
  }
  for (std::size_t j = 0; j < up; ++j) {
    EXPECT_EQ(reduced[j], 1) << "segment " << j << " completed by a reduction exactly once";
    for (std::size_t r = 0; r < up; ++r) EXPECT_TRUE(done[r][j]) << "rank " << r << " lacks segment " << j;
  }
  EXPECT_EQ(transfers, up * (2 * up - 2)) << "as many transfers as the ring";

  // Programs: each rank's steps, and the background prefix receives partials only.
  std::size_t in_programs = 0;
  for (int r = 0; r < p; ++r) {
    const auto& prog = s.program(r);
    for (std::size_t i = 0; i < prog.size(); ++i) {
      if (i > 0) EXPECT_GT(prog[i].step, prog[i - 1].step);
      EXPECT_TRUE(prog[i].send_to >= 0 || prog[i].recv_from >= 0);
      in_programs += prog[i].send_to >= 0 ? 1 : 0;
      if (i < s.first_send(r)) EXPECT_TRUE(prog[i].recv_reduce) << "rank " << r << " gets a result before it sends";
    }
  }
  EXPECT_EQ(in_programs, transfers);
  return counts;
}

std::vector<double> one_late(int p, int late, double delay) {
  std::vector<double> a(static_cast<std::size_t>(p), 0.0);
  a[static_cast<std::size_t>(late)] = delay;
  return a;
}

TEST(PrrSchedule, EverySegmentReducedOnceThenDeliveredForEveryPUpTo64) {
  std::mt19937_64 rng(20180214);
  for (int p = 1; p <= 64; ++p) {
    const double tau = 1.0;
    std::vector<std::vector<double>> patterns;
    patterns.push_back(std::vector<double>(static_cast<std::size_t>(p), 0.0));  // flat: the ring
    for (double delay : {0.5, 1.0, 3.0, p / 2.0, p - 1.0, p + 0.5, 3.0 * p, 1e6}) {
      patterns.push_back(one_late(p, p / 2, delay));
      patterns.push_back(one_late(p, 0, delay));
    }
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (double spread : {2.0, p / 2.0, 2.0 * p, 10.0 * p}) {
      for (int trial = 0; trial < 3; ++trial) {
        std::vector<double> a(static_cast<std::size_t>(p));
        for (double& x : a) x = u(rng) * spread;
        patterns.push_back(a);
        std::vector<double> reversed(a.size());
        const double top = *std::max_element(a.begin(), a.end());
        std::transform(a.begin(), a.end(), reversed.begin(), [top](double x) { return top - x; });
        patterns.push_back(reversed);
        std::vector<double> tied(a.size());  // a few groups of equal arrivals
        std::transform(a.begin(), a.end(), tied.begin(), [](double x) { return std::floor(x / 4) * 4; });
        patterns.push_back(tied);
      }
    }
    if (p >= 3) {  // two late ranks, together and apart
      std::vector<double> a(static_cast<std::size_t>(p), 0.0);
      a[1] = 2.0 * p;
      a[2] = 2.0 * p;
      patterns.push_back(a);
      a[2] = p / 3.0;
      patterns.push_back(a);
    }
    for (const auto& a : patterns) {
      const Schedule s = make_schedule(a, tau);
      (void)check_schedule(s, a, tau);
      if (testing::Test::HasFailure()) {
        ADD_FAILURE() << "P = " << p << ", schedule:\n" << render(s);
        return;
      }
    }
  }
}

// A rank running PRR builds its own program alone (`only`): the same steps as in the whole
// schedule, in O(P) memory (every rank's programs took 25 GB for a simulated P = 560).
TEST(PrrSchedule, OneRanksProgramIsItsProgramInTheWholeSchedule) {
  std::mt19937_64 rng(20261128);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int p : {1, 2, 3, 5, 8, 13, 31, 40}) {
    std::vector<std::vector<double>> patterns{std::vector<double>(static_cast<std::size_t>(p), 0.0),
                                              one_late(p, p / 2, 3.0 * p), one_late(p, 0, 0.5 * p)};
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<double> a(static_cast<std::size_t>(p));
      for (double& x : a) x = u(rng) * 2.0 * p;
      patterns.push_back(a);
    }
    for (const auto& a : patterns) {
      const Schedule whole = make_schedule(a, 1.0);
      for (int r = 0; r < p; ++r) {
        const Schedule mine = make_schedule(a, 1.0, r);
        EXPECT_TRUE(mine.steps.empty());
        EXPECT_EQ(mine.ring, whole.ring);
        EXPECT_EQ(mine.order, whole.order);
        EXPECT_EQ(mine.first_send(r), whole.first_send(r));
        EXPECT_EQ(mine.successor(r), whole.successor(r));
        const auto& got = mine.program(r);
        const auto& want = whole.program(r);
        ASSERT_EQ(got.size(), want.size()) << "P = " << p << ", rank " << r;
        for (std::size_t k = 0; k < got.size(); ++k) {
          EXPECT_EQ(got[k].step, want[k].step);
          EXPECT_EQ(got[k].send_to, want[k].send_to);
          EXPECT_EQ(got[k].send_segment, want[k].send_segment);
          EXPECT_EQ(got[k].recv_from, want[k].recv_from);
          EXPECT_EQ(got[k].recv_segment, want[k].recv_segment);
          EXPECT_EQ(got[k].recv_reduce, want[k].recv_reduce);
        }
        for (int q = 0; q < p; ++q) {
          if (q != r) EXPECT_TRUE(mine.program(q).empty()) << "rank " << q << " of P = " << p;
        }
        if (testing::Test::HasFailure()) return;
      }
    }
  }
}

// Balanced arrivals (all within one tau), no tau: exactly the ring of allreduce_ring.cpp.
TEST(PrrSchedule, BalancedIsTheRing) {
  for (int p = 2; p <= 40; ++p) {
    for (const double tau : {1.0, 0.0}) {
      std::vector<double> a(static_cast<std::size_t>(p));
      for (int r = 0; r < p; ++r) a[static_cast<std::size_t>(r)] = 0.9 * r / p;
      const Schedule s = make_schedule(a, tau);
      ASSERT_TRUE(s.ring);
      ASSERT_EQ(s.steps.size(), static_cast<std::size_t>(2 * p - 2));
      for (int t = 0; t < p - 1; ++t) {
        for (const Transfer& x : s.steps[static_cast<std::size_t>(t)]) {
          EXPECT_TRUE(x.reduce);
          EXPECT_EQ(x.to, ring::right(x.from, p));
          EXPECT_EQ(x.segment, ring::reduce_scatter_send_segment(x.from, p, t));
        }
        for (const Transfer& x : s.steps[static_cast<std::size_t>(p - 1 + t)]) {
          EXPECT_FALSE(x.reduce);
          EXPECT_EQ(x.segment, ring::allgather_send_block(x.from, p, t));
        }
      }
      for (int r = 0; r < p; ++r) EXPECT_EQ(s.first_segment(r), ring::wrap(r - 1, p)) << "s_i of the ring";
    }
  }
}

// Proficz 2018: "the same total of P x (2P-2) sends and receives as the ring"; "a process arriving
// more than P tau after the next one performs only P-1 send and receive operations, while every
// other process does 2P-1". The totals hold for every pattern (checked above). The late process
// needs at least P of each: each of the P segments needs its contribution (a send) and brings it
// the result or the others' partial (a receive), one segment a message; ragged's late process
// does exactly P (it completes every segment), and with the totals fixed the others then average
// 2P-1 - 1/(P-1). In PRR's chain they do 2P each except the two ends of the early ranks.
TEST(PrrSchedule, AVeryLateProcessSendsAndReceivesPTimes) {
  for (int p = 2; p <= 64; ++p) {
    for (const int late : {0, 1, p - 1}) {
      const std::vector<double> a = one_late(p, late, p + 1.0);  // more than P tau after the next
      const Schedule s = make_schedule(a, 1.0);
      const Counts c = check_schedule(s, a, 1.0);
      SCOPED_TRACE("P = " + std::to_string(p) + ", late " + std::to_string(late));
      const auto ul = static_cast<std::size_t>(late);
      EXPECT_EQ(c.sends[ul], p);
      EXPECT_EQ(c.receives[ul], p);
      for (const RankStep& step : s.program(late)) {
        if (step.recv_from >= 0) EXPECT_TRUE(step.recv_reduce) << "the late process receives partials only";
      }
      int total = 0;
      for (int q = 0; q + 1 < p; ++q) {  // the early ranks along the ring, from the late one's successor
        const auto r = static_cast<std::size_t>(s.order[static_cast<std::size_t>(q)]);
        EXPECT_EQ(c.sends[r], q == p - 2 ? p : 2 * p) << "position " << q;
        EXPECT_EQ(c.receives[r], q == 0 ? p : 2 * p) << "position " << q;
      }
      for (int r = 0; r < p; ++r) total += c.sends[static_cast<std::size_t>(r)];
      EXPECT_EQ(total, p * (2 * p - 2));
      // Its agent receives the partials that come before its arrival (step A): the pre-steps
      // deliver partial i in step P-2+i.
      const std::int64_t ahead = std::min<std::int64_t>(p, std::max<std::int64_t>(0, s.last_arrival_step - p + 2));
      EXPECT_EQ(s.first_send(late), static_cast<std::size_t>(ahead));
      const std::vector<double> later = one_late(p, late, 2.0 * p);  // all P of them
      EXPECT_EQ(make_schedule(later, 1.0).first_send(late), static_cast<std::size_t>(p));
      // s_i: every early rank starts with the segment the pre-steps reduce first.
      EXPECT_EQ(s.chains.front().start, 0);
    }
  }
}

// After the last arrival the late process needs P steps and the early rank at ring position q
// P + q (the ring: 2P-2 each); the cost model is the mean of these.
TEST(PrrSchedule, FinishTimesMatchTheCostModel) {
  for (int p = 2; p <= 48; ++p) {
    for (int a = 0; a <= p + 2; ++a) {
      const std::vector<double> arrivals = one_late(p, 1 % p, a + 0.5);
      const Schedule s = make_schedule(arrivals, 1.0);
      const std::vector<std::int64_t> finish = finish_after_last_arrival(s);
      double sum = 0;
      for (std::int64_t f : finish) sum += static_cast<double>(f);
      CostInput x;
      x.procs = p;
      x.bytes = 0;
      x.alpha = 1.0;
      x.omega = a + 0.5;
      x.omega_last = x.omega;  // one late rank, the others together
      EXPECT_NEAR(cost::allreduce_prr(x), sum / p, 1e-9) << "P = " << p << ", A = " << a;
      if (a == 0) {
        for (std::int64_t f : finish) EXPECT_EQ(f, 2 * p - 2);
        EXPECT_NEAR(cost::allreduce_prr(x), cost::allreduce_ring(x), 1e-9);
      }
      if (a >= p - 1) {
        for (int q = 0; q < p; ++q) {
          const int r = s.order[static_cast<std::size_t>(q)];
          const int want = q == p - 1 ? p : q == p - 2 ? 2 * p - 2 : p + q + 1;
          EXPECT_EQ(finish[static_cast<std::size_t>(r)], want) << "position " << q;
        }
      }
    }
  }
}

// The example of the header (and of allreduce_prr.cpp): P = 4, rank 0 late by 5 tau.
TEST(PrrSchedule, HeaderExample) {
  const Schedule s = make_schedule(one_late(4, 0, 5.0), 1.0);
  EXPECT_EQ(render(s),
            "step 0: 1 -> 2: 2\n"
            "step 1: 1 -> 2: 1 2 -> 3: 2\n"
            "step 2: 1 -> 2: 0 2 -> 3: 1 3 -> 0: 2\n"
            "step 3: 1 -> 2: 3 2 -> 3: 0 3 -> 0: 1\n"
            "step 4: 2 -> 3: 3 3 -> 0: 0\n"
            "step 5: 0 -> 1: 2* 3 -> 0: 3\n"
            "step 6: 0 -> 1: 1* 1 -> 2: 2*\n"
            "step 7: 0 -> 1: 0* 1 -> 2: 1* 2 -> 3: 2*\n"
            "step 8: 0 -> 1: 3* 1 -> 2: 0* 2 -> 3: 1*\n"
            "step 9: 1 -> 2: 3* 2 -> 3: 0*\n"
            "step 10: 2 -> 3: 3*\n")
      << render(s);
  EXPECT_EQ(s.order, (std::vector<int>{1, 2, 3, 0}));
  EXPECT_EQ(s.first_send(0), 3u);  // rank 0's agent receives three partials
}

// auto on an imbalanced snapshot chooses among the arrival-aware allreduce algorithms by their
// models; never one of them for a non-commutative operator; a regular one on a balanced
// snapshot. Dispatch calls a snapshot imbalanced when omega reaches tau of the call's bytes, for
// allreduce the whole vector (35 ms for 4 MiB on 1 GbE), although PRR's steps move n/P bytes.
TEST(PrrSchedule, AutoChoosesAnArrivalAwareAllreduceOnlyWhenImbalanced) {
  const LinkModel link{50e-6, 1.0 / 119.5e6};
  const std::size_t bytes = std::size_t{4} << 20;  // 1M floats
  const auto call_with = [&](double late_by, bool commutative, Hints& hints) {
    std::vector<double> a(48, 0.0);
    a[1] = late_by;
    hints.set(std::make_shared<const ArrivalSnapshot>(a, link));
    CallInfo call;
    call.collective = Collective::allreduce;
    call.procs = 48;
    call.bytes = bytes;
    call.commutative = commutative;
    call.hints = &hints;
    call.backend = "sim";
    return call;
  };
  // tau of one segment (4 MiB / 48 ranks) is about 0.78 ms: 0.5 ms late is balanced, 5 ms is not
  Hints h1;
  EXPECT_FALSE(ragged::select(call_with(0.5e-3, true, h1), "auto").algorithm->restrictions.needs_arrival);
  // 5 ms late: prd's early reduce-scatter (about 37 ms) is mostly still to do, prr wins (the sim
  // agrees: 74.1 against 74.7 ms); from 10 ms on the late rank's single exchange wins.
  for (const double late_by : {5e-3, 50e-3, 100e-3, 1.0}) {
    Hints h;
    const std::string chosen = ragged::select(call_with(late_by, true, h), "auto").algorithm->name;
    EXPECT_EQ(chosen, late_by < 10e-3 ? "prr" : "prd");
    Hints n;
    EXPECT_EQ(ragged::select(call_with(late_by, false, n), "auto").algorithm->name, "reduce_bcast");
  }
}

}  // namespace test_prr_schedule_test
}  // namespace ragged::plans::prr
