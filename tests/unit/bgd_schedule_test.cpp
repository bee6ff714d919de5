// The BGD schedule (plans/bgd_schedule.hpp) as a pure function: every P from 1
// to 64 with random, tied, one-late and reversed arrival patterns, checked
// against the properties the design states, plus the example of figure 4 of
// Proficz 2021 step by step.
#include "plans/bgd_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "ragged/error.hpp"

namespace ragged::plans::bgd {
namespace test_bgd_schedule_test {

/// Checks every structural property of `s` for `arrivals` and `tau`.
void check_schedule(const Schedule& s, const std::vector<double>& arrivals, double tau) {
  const int p = static_cast<int>(arrivals.size());
  SCOPED_TRACE("P = " + std::to_string(p) + ", tau = " + std::to_string(tau));
  ASSERT_EQ(s.procs, p);
  ASSERT_EQ(s.steps.size(), s.slot.size());
  ASSERT_EQ(s.own_slot.size(), arrivals.size());
  ASSERT_EQ(s.programs.size(), arrivals.size());
  const double t0 = p == 0 ? 0 : *std::min_element(arrivals.begin(), arrivals.end());

  // has[r][seg]: rank r holds segment seg before the current step.
  std::vector<std::vector<char>> has(static_cast<std::size_t>(p), std::vector<char>(static_cast<std::size_t>(p), 0));
  std::size_t transfers = 0;
  std::int64_t previous_slot = -1;
  std::vector<std::vector<RankStep>> programs(static_cast<std::size_t>(p));
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    const auto& step = s.steps[k];
    ASSERT_FALSE(step.empty()) << "empty step " << k << " kept";
    ASSERT_GT(s.slot[k], previous_slot) << "steps out of order";
    previous_slot = s.slot[k];
    if (!s.ring) {
      // A rank owns its segment from its own slot on, and that slot is when it has arrived.
      for (int r = 0; r < p; ++r) {
        if (s.own_slot[static_cast<std::size_t>(r)] <= s.slot[k])
          has[static_cast<std::size_t>(r)][static_cast<std::size_t>(r)] = 1;
      }
    } else {
      for (int r = 0; r < p; ++r) has[static_cast<std::size_t>(r)][static_cast<std::size_t>(r)] = 1;
    }
    std::set<int> senders;
    std::set<int> receivers;
    for (const Transfer& t : step) {
      ASSERT_TRUE(t.from >= 0 && t.from < p && t.to >= 0 && t.to < p && t.segment >= 0 && t.segment < p);
      ASSERT_NE(t.from, t.to);
      ASSERT_TRUE(senders.insert(t.from).second) << "rank " << t.from << " sends twice in step " << k;
      ASSERT_TRUE(receivers.insert(t.to).second) << "rank " << t.to << " receives twice in step " << k;
      ASSERT_TRUE(has[static_cast<std::size_t>(t.from)][static_cast<std::size_t>(t.segment)])
          << "rank " << t.from << " sends segment " << t.segment << " it does not hold in step " << k;
      ASSERT_FALSE(has[static_cast<std::size_t>(t.to)][static_cast<std::size_t>(t.segment)])
          << "rank " << t.to << " receives segment " << t.segment << " a second time";
      if (!s.ring && t.segment == t.from) {
        // The own segment leaves no earlier than the slot that starts after the arrival.
        const double slot_start = t0 + static_cast<double>(s.slot[k]) * tau;
        ASSERT_GE(slot_start + 1e-9 * std::max(1.0, std::abs(slot_start)), arrivals[static_cast<std::size_t>(t.from)])
            << "rank " << t.from << " sends its own segment before it arrives";
      }
      auto& from = programs[static_cast<std::size_t>(t.from)];
      if (from.empty() || from.back().step != static_cast<int>(k)) from.push_back(RankStep{static_cast<int>(k)});
      from.back().send_to = t.to;
      from.back().send_segment = t.segment;
      auto& to = programs[static_cast<std::size_t>(t.to)];
      if (to.empty() || to.back().step != static_cast<int>(k)) to.push_back(RankStep{static_cast<int>(k)});
      to.back().recv_from = t.from;
      to.back().recv_segment = t.segment;
    }
    for (const Transfer& t : step) has[static_cast<std::size_t>(t.to)][static_cast<std::size_t>(t.segment)] = 1;
    transfers += step.size();
  }
  // Every segment reaches every other rank exactly once.
  ASSERT_EQ(transfers, p <= 1 ? 0u : static_cast<std::size_t>(p) * static_cast<std::size_t>(p - 1));
  for (int r = 0; r < p; ++r) {
    for (int seg = 0; seg < p; ++seg) {
      ASSERT_TRUE(p <= 1 || has[static_cast<std::size_t>(r)][static_cast<std::size_t>(seg)])
          << "rank " << r << " never gets segment " << seg;
    }
  }
  // The per-rank programs are the steps seen from each rank; the background part sends only
  // forwarded segments.
  for (int r = 0; r < p; ++r) {
    const auto& prog = s.program(r);
    const auto& want = programs[static_cast<std::size_t>(r)];
    ASSERT_EQ(prog.size(), want.size()) << "rank " << r;
    for (std::size_t i = 0; i < prog.size(); ++i) {
      ASSERT_EQ(prog[i].step, want[i].step);
      ASSERT_EQ(prog[i].send_to, want[i].send_to);
      ASSERT_EQ(prog[i].send_segment, want[i].send_segment);
      ASSERT_EQ(prog[i].recv_from, want[i].recv_from);
      ASSERT_EQ(prog[i].recv_segment, want[i].recv_segment);
    }
    const std::size_t stop = s.first_own_send(r);
    for (std::size_t i = 0; i < stop; ++i) ASSERT_NE(prog[i].send_segment, r) << "rank " << r;
    if (p > 1) ASSERT_LT(stop, prog.size()) << "rank " << r << " never sends its own segment";
  }
}

TEST(BgdSchedule, EveryProcessCountAndRandomArrivals) {
  std::mt19937_64 rng(20261121);
  for (int p = 1; p <= 64; ++p) {
    for (int trial = 0; trial < 4; ++trial) {
      const double tau = std::uniform_real_distribution<double>(1e-5, 2e-3)(rng);
      const double spread = std::uniform_real_distribution<double>(0, 30 * tau)(rng);
      std::vector<double> arrivals(static_cast<std::size_t>(p));
      for (double& a : arrivals) a = 1.0 + std::uniform_real_distribution<double>(0, spread)(rng);
      if (trial == 1) {  // ties: whole multiples of tau
        for (double& a : arrivals) a = 1.0 + tau * static_cast<double>(std::uniform_int_distribution<int>(0, 5)(rng));
      }
      if (trial == 2) {  // one late rank, the others together
        std::fill(arrivals.begin(), arrivals.end(), 2.0);
        arrivals[static_cast<std::size_t>(p / 2)] = 2.0 + 7 * tau;
      }
      if (trial == 3) {  // reversed: rank r arrives r tau/2 early
        for (int r = 0; r < p; ++r) arrivals[static_cast<std::size_t>(r)] = 3.0 - r * tau / 2;
      }
      check_schedule(make_schedule(arrivals, tau), arrivals, tau);
    }
  }
}

TEST(BgdSchedule, BalancedOrUnknownTauGivesExactlyTheRing) {
  for (int p : {2, 3, 7, 16}) {
    for (const auto& [arrivals_spread, tau] :
         std::vector<std::pair<double, double>>{{0.0, 1e-3}, {0.9e-3, 1e-3}, {5e-3, 0.0}, {5e-3, -1.0}}) {
      std::vector<double> arrivals(static_cast<std::size_t>(p), 0.0);
      arrivals.back() = arrivals_spread;
      const Schedule s = make_schedule(arrivals, tau);
      ASSERT_TRUE(s.ring);
      ASSERT_EQ(s.steps.size(), static_cast<std::size_t>(p - 1));
      for (std::size_t j = 0; j < s.steps.size(); ++j) {
        ASSERT_EQ(s.steps[j].size(), static_cast<std::size_t>(p));
        for (const Transfer& t : s.steps[j]) {
          EXPECT_EQ(t.to, (t.from + 1) % p);
          EXPECT_EQ(t.segment, ((t.from - static_cast<int>(j)) % p + p) % p);
        }
      }
    }
  }
}

// A spread that overflows over a tiny tau (found by tests/fuzz/bgd_fuzz.cpp): (a - t0) / tau is
// infinite, and the slot of the late ranks used to be NaN converted to an integer (undefined;
// the asan preset's UBSan reports it). They are simply very late.
TEST(BgdSchedule, OverflowingSpreadOverATinyTau) {
  const std::vector<double> arrivals{-1e300, 1e300, 0.0, 1e300};
  const double tau = 1e-300;
  const Schedule s = make_schedule(arrivals, tau);
  ASSERT_FALSE(s.ring);
  EXPECT_EQ(s.own_slot[0], 0);
  EXPECT_GT(s.own_slot[2], 0);
  EXPECT_EQ(s.own_slot[1], s.own_slot[2]);  // all beyond the cap
  EXPECT_EQ(s.own_slot[1], s.own_slot[3]);
  std::size_t transfers = 0;
  for (const auto& step : s.steps) transfers += step.size();
  EXPECT_EQ(transfers, 12u) << "every segment still reaches every other rank once";
}

TEST(BgdSchedule, ThrowsOnNonFiniteArrivals) {
  EXPECT_THROW(make_schedule(std::vector<double>{0.0, NAN}, 1.0), InvalidArgument);
}

// Figure 4 of Proficz 2021: P = 4, rank 0 late by 2 tau. Slots 0 and 1 spread segments 1..3 among
// ranks 1..3 and to rank 0 (in its background); when rank 0 arrives (slot 2) its segment
// spreads in two steps, where the ring would need three.
TEST(BgdSchedule, Figure4Example) {
  const std::vector<double> arrivals{2.0, 0.0, 0.0, 0.0};
  const Schedule s = make_schedule(arrivals, 1.0);
  check_schedule(s, arrivals, 1.0);
  ASSERT_FALSE(s.ring);
  EXPECT_EQ(s.own_slot, (std::vector<std::int64_t>{2, 0, 0, 0}));
  std::vector<std::vector<std::vector<int>>> got;
  for (const auto& step : s.steps) {
    std::vector<std::vector<int>> transfers;
    for (const Transfer& t : step) transfers.push_back({t.from, t.to, t.segment});
    std::sort(transfers.begin(), transfers.end());
    got.push_back(transfers);
  }
  // "from->to:segment". Rank 0 receives 3 and then 1 in its background and forwards 3 to rank 2
  // before it arrives; from its arrival its own segment takes two steps.
  const std::vector<std::vector<std::vector<int>>> want{
      {{1, 2, 1}, {2, 3, 2}, {3, 0, 3}},
      {{0, 2, 3}, {1, 3, 1}, {2, 0, 1}, {3, 1, 2}},
      {{0, 1, 0}, {2, 0, 2}},
      {{0, 2, 0}, {1, 3, 0}, {3, 1, 3}},
  };
  EXPECT_EQ(got, want);
  EXPECT_EQ(s.slot, (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(s.first_own_send(0), 2u);  // rank 0's background: steps 0 and 1
  // Rank 0's own segment: two steps after its arrival everyone has it.
  std::int64_t last_slot_with_0 = -1;
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    for (const Transfer& t : s.steps[k]) {
      if (t.segment == 0) last_slot_with_0 = s.slot[k];
    }
  }
  EXPECT_EQ(last_slot_with_0, 3);
  EXPECT_EQ(s.steps.size(), 4u);
}

}  // namespace test_bgd_schedule_test
}  // namespace ragged::plans::bgd
