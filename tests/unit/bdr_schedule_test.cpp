// The BDR schedule (listing 2 of Proficz 2021) as a pure function: every P from 1
// to 64 with random, tied, one-late and reversed arrival patterns, checked
// against the properties the listing guarantees, plus the example of figure 4
// step by step.
//
// How "pre-steps only while the receiver has not arrived" is read: the listing
// guarantees that every pre-step ends before the LAST arrival (pre-step s of
// S ends (S-s-1) tau before it) and that its sender has arrived when it starts;
// it does not keep an early receiver from receiving in a pre-step (early ranks
// receive from each other too, which is what lets the ring part end early).
// These tests check what the listing guarantees.
#include "plans/bdr_schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "plans/binomial_tree.hpp"
#include "plans/ring_plan.hpp"
#include "plans/sorted_order.hpp"

namespace ragged::plans::bdr {
namespace test_bdr_schedule_test {

/// Checks every structural property of `s` for `arrivals` and `tau`.
void check_schedule(const Schedule& s, const std::vector<double>& arrivals, double tau) {
  const int p = static_cast<int>(arrivals.size());
  SCOPED_TRACE("P = " + std::to_string(p) + ", tau = " + std::to_string(tau));
  ASSERT_EQ(s.procs, p);
  ASSERT_EQ(s.steps.size(), s.listing_step.size());
  const std::vector<std::int64_t> ps_no = pre_step_counts(arrivals, tau);
  ASSERT_EQ(s.pre_step_budget, ps_no);
  const std::int64_t big_s = p == 0 ? 0 : *std::max_element(ps_no.begin(), ps_no.end());
  ASSERT_EQ(s.listing_pre_steps, big_s);
  const double latest = *std::max_element(arrivals.begin(), arrivals.end());

  // has[r][seg]: rank r holds segment seg (before the current step).
  std::vector<std::vector<char>> has(static_cast<std::size_t>(p), std::vector<char>(static_cast<std::size_t>(p), 0));
  for (int r = 0; r < p; ++r) has[static_cast<std::size_t>(r)][static_cast<std::size_t>(r)] = 1;
  std::size_t transfers = 0;
  std::int64_t previous_listing = -1;
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    const auto& step = s.steps[k];
    ASSERT_FALSE(step.empty()) << "empty step " << k << " kept";
    ASSERT_GT(s.listing_step[k], previous_listing) << "steps out of order";
    previous_listing = s.listing_step[k];
    const bool pre = static_cast<int>(k) < s.pre_steps;
    ASSERT_EQ(pre, s.listing_step[k] < big_s) << "step " << k;
    std::set<int> senders;
    std::set<int> receivers;
    for (const Transfer& t : step) {
      ASSERT_TRUE(t.from >= 0 && t.from < p && t.to >= 0 && t.to < p && t.segment >= 0 && t.segment < p);
      ASSERT_NE(t.from, t.to);
      ASSERT_TRUE(senders.insert(t.from).second) << "rank " << t.from << " sends twice in step " << k;
      ASSERT_TRUE(receivers.insert(t.to).second) << "rank " << t.to << " receives twice in step " << k;
      // Data dependency: only what the sender had before this step.
      ASSERT_TRUE(has[static_cast<std::size_t>(t.from)][static_cast<std::size_t>(t.segment)])
          << "rank " << t.from << " forwards segment " << t.segment << " it does not have in step " << k;
      ASSERT_FALSE(has[static_cast<std::size_t>(t.to)][static_cast<std::size_t>(t.segment)])
          << "rank " << t.to << " receives segment " << t.segment << " a second time";
      if (pre) {
        // A pre-step sends the sender's own segment, to r-1, r-2, ... (line 24).
        ASSERT_EQ(t.segment, t.from);
        // The sender has arrived when the step starts: the step starts (S - s) tau before the last arrival.
        const auto s_listing = static_cast<double>(s.listing_step[k]);
        const double step_start = latest - (static_cast<double>(big_s) - s_listing) * tau;
        ASSERT_LE(arrivals[static_cast<std::size_t>(t.from)], step_start + 1e-9 * std::max(1.0, std::abs(latest)))
            << "rank " << t.from << " sends before it arrives";
        // ... and the step ends by the last arrival.
        ASSERT_LE(step_start + tau, latest + 1e-9 * std::max(1.0, std::abs(latest)));
        // The slowest rank(s) never send in a pre-step.
        ASSERT_GT(ps_no[static_cast<std::size_t>(t.from)], 0);
      } else {
        ASSERT_EQ(t.to, ring::right(t.from, p)) << "a ring step goes to the right neighbour";
      }
    }
    for (const Transfer& t : step) has[static_cast<std::size_t>(t.to)][static_cast<std::size_t>(t.segment)] = 1;
    transfers += step.size();
  }
  // Every segment reached every rank exactly once (the checks above rule out a second time).
  for (int r = 0; r < p; ++r) {
    for (int seg = 0; seg < p; ++seg) {
      ASSERT_TRUE(has[static_cast<std::size_t>(r)][static_cast<std::size_t>(seg)])
          << "rank " << r << " never gets segment " << seg;
    }
  }
  ASSERT_EQ(transfers, static_cast<std::size_t>(p) * static_cast<std::size_t>(std::max(p - 1, 0)));

  // Programs agree with the steps; before a rank's first send it only receives.
  std::size_t program_ops = 0;
  for (int r = 0; r < p; ++r) {
    const auto& prog = s.program(r);
    int last = -1;
    for (const RankStep& st : prog) {
      ASSERT_GT(st.step, last);
      last = st.step;
      ASSERT_TRUE(st.send_to >= 0 || st.recv_from >= 0);
      bool found_send = st.send_to < 0;
      bool found_recv = st.recv_from < 0;
      for (const Transfer& t : s.steps[static_cast<std::size_t>(st.step)]) {
        if (t.from == r && t.to == st.send_to && t.segment == st.send_segment) found_send = true;
        if (t.to == r && t.from == st.recv_from && t.segment == st.recv_segment) found_recv = true;
      }
      ASSERT_TRUE(found_send && found_recv) << "program of rank " << r << " step " << st.step;
      program_ops += static_cast<std::size_t>(st.send_to >= 0) + static_cast<std::size_t>(st.recv_from >= 0);
    }
    const std::size_t first = s.first_send(r);
    for (std::size_t i = 0; i < first; ++i) ASSERT_LT(prog[i].send_to, 0);
    if (first < prog.size()) ASSERT_GE(prog[first].send_to, 0);
  }
  ASSERT_EQ(program_ops, 2 * transfers);
}

std::vector<double> random_arrivals(int p, std::mt19937_64& rng, double spread) {
  std::uniform_real_distribution<double> u(0.0, spread);
  std::vector<double> a(static_cast<std::size_t>(p));
  for (double& x : a) x = u(rng);
  return a;
}

TEST(BdrSchedule, EveryProcessCountAndRandomArrivals) {
  std::mt19937_64 rng(20240601);
  for (int p = 1; p <= 64; ++p) {
    for (int trial = 0; trial < 12; ++trial) {
      const double tau = 1.0;
      // Spreads from well under tau (no pre-steps) to many tau (all pre-sends done early).
      const double spread = std::pow(2.0, trial - 3) * p / 4.0;
      std::vector<double> a = random_arrivals(p, rng, spread);
      if (trial % 3 == 1) {  // ties: arrivals on a coarse grid
        for (double& x : a) x = std::floor(x / 2) * 2;
      }
      check_schedule(make_schedule(a, tau), a, tau);
    }
  }
}

TEST(BdrSchedule, OneLateAndOneEarly) {
  for (int p = 1; p <= 64; ++p) {
    for (int late_by : {0, 1, 2, 3, 7, p, 3 * p, p * p}) {
      for (int who : {0, p / 2, p - 1}) {
        std::vector<double> late(static_cast<std::size_t>(p), 0.0);
        late[static_cast<std::size_t>(who)] = late_by;
        check_schedule(make_schedule(late, 1.0), late, 1.0);
        std::vector<double> early(static_cast<std::size_t>(p), static_cast<double>(late_by));
        early[static_cast<std::size_t>(who)] = 0;
        check_schedule(make_schedule(early, 1.0), early, 1.0);
      }
    }
  }
}

TEST(BdrSchedule, FlatArrivalsGiveExactlyTheRing) {
  for (int p = 1; p <= 64; ++p) {
    for (double tau : {0.0, 1e-6, 1.0}) {
      const std::vector<double> flat(static_cast<std::size_t>(p), 5.0);
      const Schedule s = make_schedule(flat, tau);
      check_schedule(s, flat, tau);
      ASSERT_EQ(s.pre_steps, 0);
      ASSERT_EQ(static_cast<int>(s.steps.size()), std::max(p - 1, 0));
      for (std::size_t k = 0; k < s.steps.size(); ++k) {
        ASSERT_EQ(static_cast<int>(s.steps[k].size()), p);
        for (const Transfer& t : s.steps[k]) {
          ASSERT_EQ(t.segment, ring::allgather_send_block(t.from, p, static_cast<int>(k)));
        }
      }
    }
  }
}

TEST(BdrSchedule, UnknownTauMeansNoPreSteps) {
  const std::vector<double> a{0.0, 10.0, 3.0, 7.0};
  for (double tau : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    const Schedule s = make_schedule(a, tau);
    EXPECT_EQ(s.pre_steps, 0);
    EXPECT_EQ(s.listing_pre_steps, 0);
    EXPECT_EQ(s.steps.size(), 3u);
  }
}

TEST(BdrSchedule, PreStepCountsAreWholeStepsBeforeTheLastArrival) {
  // (max a - a_q) / tau, rounded down; values a hair under an integer (rounding of
  // measured times) count as that integer.
  const double tau = 1e-3 / 3;  // not representable exactly
  const std::vector<double> a{2 * tau, 0.0, 0.5 * tau, 1.999 * tau};
  EXPECT_EQ(pre_step_counts(a, tau), (std::vector<std::int64_t>{0, 2, 1, 0}));
  const std::vector<double> b{7 * tau * (1 - 1e-12), 0.0};
  EXPECT_EQ(pre_step_counts(b, tau), (std::vector<std::int64_t>{0, 7}));
  // A huge imbalance is capped, and the schedule does not grow with it.
  const std::vector<double> c{0.0, 1e30};
  const Schedule s = make_schedule(c, 1.0);
  check_schedule(s, c, 1.0);
  EXPECT_EQ(s.pre_steps, 1);      // rank 0 sends its segment early
  EXPECT_EQ(s.steps.size(), 2u);  // and rank 1's goes round the ring when it arrives
}

TEST(BdrSchedule, ThrowsOnNonFiniteArrivals) {
  const std::vector<double> a{0.0, std::nan("")};
  EXPECT_ANY_THROW(make_schedule(a, 1.0));
}

// Figure 4 of Proficz 2021: P = 4, rank 0 late by 2 tau.
TEST(BdrSchedule, Figure4Example) {
  const double tau = 1.0;
  const std::vector<double> a{2 * tau, 0, 0, 0};
  const Schedule s = make_schedule(a, tau);
  check_schedule(s, a, tau);
  EXPECT_EQ(s.pre_step_budget, (std::vector<std::int64_t>{0, 2, 2, 2}));
  ASSERT_EQ(s.pre_steps, 2);
  ASSERT_EQ(s.steps.size(), 5u);
  const auto sorted = [](std::vector<Transfer> v) {
    std::sort(v.begin(), v.end(), [](const Transfer& x, const Transfer& y) { return x.from < y.from; });
    std::vector<std::array<int, 3>> out;
    for (const Transfer& t : v) out.push_back({t.from, t.to, t.segment});
    return out;
  };
  using T = std::vector<std::array<int, 3>>;
  EXPECT_EQ(sorted(s.steps[0]), (T{{1, 0, 1}, {2, 1, 2}, {3, 2, 3}}));
  EXPECT_EQ(sorted(s.steps[1]), (T{{1, 3, 1}, {2, 0, 2}, {3, 1, 3}}));
  EXPECT_EQ(sorted(s.steps[2]), (T{{0, 1, 0}, {1, 2, 1}, {2, 3, 2}, {3, 0, 3}}));
  EXPECT_EQ(sorted(s.steps[3]), (T{{1, 2, 0}}));
  EXPECT_EQ(sorted(s.steps[4]), (T{{2, 3, 0}}));
  // Rank 0's background part: the two pre-step receives before its first send.
  EXPECT_EQ(s.first_send(0), 2u);

  // Elapsed times when every step takes tau and the steps run back to back from the first
  // arrival (the figure's time axis): rank r leaves at the end of its last step.
  const auto elapsed = [&](const Schedule& sch) {
    std::vector<double> e;
    for (int r = 0; r < 4; ++r) {
      const double exit = (sch.program(r).back().step + 1) * tau;
      e.push_back(exit - a[static_cast<std::size_t>(r)]);
    }
    return e;
  };
  EXPECT_EQ(elapsed(s), (std::vector<double>{1, 4, 5, 5}));
  // The plain ring waits for rank 0: steps 2, 3, 4 of the same time axis.
  const Schedule ring = make_schedule(std::vector<double>(4, 0.0), tau);
  std::vector<double> ring_e;
  for (int r = 0; r < 4; ++r)
    ring_e.push_back(2 * tau + (ring.program(r).back().step + 1) * tau - a[static_cast<std::size_t>(r)]);
  EXPECT_EQ(ring_e, (std::vector<double>{3, 5, 5, 5}));
}

TEST(SortedOrder, TiesInRankOrder) {
  const std::vector<double> a{3.0, 1.0, 2.0, 1.0, 5.0};
  EXPECT_EQ(sorted::earliest_first(a), (std::vector<int>{1, 3, 2, 0, 4}));
  EXPECT_EQ(sorted::latest_first(a), (std::vector<int>{4, 0, 2, 1, 3}));
  EXPECT_EQ(sorted::gather_order(a, 2), (std::vector<int>{1, 3, 0, 4}));
  EXPECT_EQ(sorted::gather_order(std::vector<double>{0.0}, 0), std::vector<int>{});
}

TEST(SortedOrder, ChainsStartOrEndAtTheRootWhereverItArrives) {
  const std::vector<double> a{3.0, 1.0, 2.0, 1.0, 5.0};
  EXPECT_EQ(sorted::bcast_chain(a, 2), (std::vector<int>{2, 1, 3, 0, 4}));
  EXPECT_EQ(sorted::reduce_chain(a, 2), (std::vector<int>{1, 3, 0, 4, 2}));
  // The latest rank as the root: it still heads the bcast chain and ends the reduce chain.
  EXPECT_EQ(sorted::bcast_chain(a, 4), (std::vector<int>{4, 1, 3, 2, 0}));
  EXPECT_EQ(sorted::reduce_chain(a, 4), (std::vector<int>{1, 3, 2, 0, 4}));
  EXPECT_EQ(sorted::bcast_chain(std::vector<double>{0.0}, 0), std::vector<int>{0});
  EXPECT_EQ(sorted::reduce_chain(std::vector<double>{7.0}, 0), std::vector<int>{0});
  // Every rank once, whatever the pattern.
  const std::vector<double> b{0.5, 0.5, 0.1, 0.9, 0.1, 0.0, 0.5};
  for (int root = 0; root < 7; ++root) {
    for (const std::vector<int>& chain : {sorted::bcast_chain(b, root), sorted::reduce_chain(b, root)}) {
      std::vector<int> seen = chain;
      std::sort(seen.begin(), seen.end());
      EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
      EXPECT_EQ(sorted::position_in(chain, root), chain.front() == root ? 0U : 6U);
    }
  }
  EXPECT_EQ(sorted::position_in(std::vector<int>{3, 1}, 2), 2U);
}

TEST(SortedOrder, SbnTreesPutEveryRankAfterOrBeforeItsSubtree) {
  const std::vector<double> a{3.0, 1.0, 2.0, 1.0, 5.0};
  EXPECT_EQ(sorted::sbn_gather_tree(a, 2), (std::vector<int>{2, 4, 0, 1, 3}));
  EXPECT_EQ(sorted::sbn_scatter_tree(a, 2), (std::vector<int>{2, 4, 1, 3, 0}));
  EXPECT_EQ(sorted::sbn_scatter_children(0, 5), (std::vector<int>{2, 4, 1}));
  EXPECT_EQ(sorted::sbn_gather_tree(std::vector<double>{0.0}, 0), std::vector<int>{0});
  // Every rank once, the root at position 0, and in the gather's tree every non-root rank arrives
  // no earlier than every rank of its subtree (the scatter's: no later), for every P up to 40,
  // every root and arrivals drawn with ties.
  std::uint64_t x = 12345;
  const auto next = [&x] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>((x >> 33) % 7);  // few values: many ties
  };
  for (int procs = 1; procs <= 40; ++procs) {
    std::vector<double> arrivals(static_cast<std::size_t>(procs));
    for (double& t : arrivals) t = next();
    for (int root = 0; root < procs; ++root) {
      const std::vector<int> gather = sorted::sbn_gather_tree(arrivals, root);
      const std::vector<int> scatter = sorted::sbn_scatter_tree(arrivals, root);
      for (const std::vector<int>* tree : {&gather, &scatter}) {
        std::vector<int> seen = *tree;
        std::sort(seen.begin(), seen.end());
        for (int r = 0; r < procs; ++r) ASSERT_EQ(seen[static_cast<std::size_t>(r)], r);
        ASSERT_EQ(tree->front(), root);
      }
      for (int v = 1; v < procs; ++v) {
        const int size = binomial::subtree_size(v, procs);
        for (int d = v + 1; d < v + size; ++d) {
          const auto at = [&](const std::vector<int>& t, int position) {
            return arrivals[static_cast<std::size_t>(t[static_cast<std::size_t>(position)])];
          };
          ASSERT_GE(at(gather, v), at(gather, d)) << "P " << procs << " root " << root << " position " << v;
          ASSERT_LE(at(scatter, v), at(scatter, d)) << "P " << procs << " root " << root << " position " << v;
        }
      }
    }
  }
}

TEST(SortedOrder, ChainEarlyCountsTheSegmentsThatComeBeforeTheArrival) {
  // Root at 0, step 1, 3 segments. Position 1 arrives at 10: all three reach it by then (at 1, 2,
  // 3) and its agent forwards them, so position 2 (arriving at 4) holds segments 0 and 1 by then
  // (at 2 and 3), segment 2 at 4 as well: all three. Position 3 arrives at 0: none.
  EXPECT_EQ(sorted::chain_early(std::vector<double>{0, 10, 4, 0}, 3, 1.0), (std::vector<std::size_t>{0, 3, 3, 0}));
  // Everybody together: nothing comes early.
  EXPECT_EQ(sorted::chain_early(std::vector<double>{5, 5, 5}, 4, 1.0), (std::vector<std::size_t>{0, 0, 0}));
  // A late root: nothing comes before it.
  EXPECT_EQ(sorted::chain_early(std::vector<double>{9, 1, 2}, 2, 1.0), (std::vector<std::size_t>{0, 0, 0}));
  // Position 1 arrives at 1.5: its agent takes segment 0 (at 1), its foreground segment 1 (at 2);
  // position 2 (at 10) has 0 at 2 and 1 at 3, both early.
  EXPECT_EQ(sorted::chain_early(std::vector<double>{0, 1.5, 10}, 2, 1.0), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(sorted::chain_early(std::vector<double>{0}, 2, 1.0), (std::vector<std::size_t>{0}));
}

TEST(SortedOrder, ChainSegmentsFewerWhenArrivalsHideTheFill) {
  // 4 MiB over 1 GbE, 48 ranks: together, the fill favours many segments; spread 1 ms apart, fewer.
  const double alpha = 50e-6;
  const double beta = 1 / 119.5e6;
  const std::vector<double> together(48, 0.0);
  std::vector<double> spread(48);
  for (std::size_t k = 0; k < spread.size(); ++k) spread[k] = 1e-3 * static_cast<double>(k);
  const std::size_t n_together = sorted::chain_segment_count(together, std::size_t{4} << 20, alpha, beta, 1024);
  const std::size_t n_spread = sorted::chain_segment_count(spread, std::size_t{4} << 20, alpha, beta, 1024);
  EXPECT_GT(n_together, n_spread);
  EXPECT_GE(n_spread, 1U);
  // The mean it minimises is never below one message's time after the arrival, m beta + alpha.
  EXPECT_GE(sorted::chain_mean_elapsed(spread, 4 << 20, static_cast<double>(n_spread), alpha, beta),
            alpha + (4 << 20) * beta);
  EXPECT_EQ(sorted::chain_segment_count(together, 0, alpha, beta, 1024), 1U);
}

}  // namespace test_bdr_schedule_test
}  // namespace ragged::plans::bdr
