// SLT's chain and step model (Proficz 2018, §4.1, plans/slt_order.hpp): the order,
// figure 6 of Proficz 2018 as an exact test (the regular linear tree 14 tau, SLT
// 12 tau), what the agent receives ahead, and the cost model against the step
// model.
#include "plans/slt_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "plans/cost_model.hpp"

namespace ragged::plans::slt {
namespace test_slt_order_test {

TEST(SltOrder, LatestAtPositionZeroTiesInRankOrder) {
  EXPECT_EQ(chain_order(std::vector<double>{3.0, 1.0, 2.0, 1.0, 5.0}), (std::vector<int>{4, 0, 2, 1, 3}));
  for (int p = 1; p <= 40; ++p) {
    const std::vector<double> flat(static_cast<std::size_t>(p), 7.0);
    EXPECT_TRUE(is_rank_order(chain_order(flat))) << "equal arrivals keep pipelined_linear's chain, P = " << p;
  }
  EXPECT_FALSE(is_rank_order(std::vector<int>{1, 0}));
}

// Figure 6: P = 4, 5 segments, process 0 late by 4 tau. The regular linear tree of the figure
// starts its pipeline at process 0 (chain 0 -> 1 -> 2 -> 3, so position 0 is process 3): 14 tau.
// SLT puts process 0 at position 0: 12 tau. Neither receives for a process before it arrives.
TEST(SltOrder, Figure6) {
  const std::vector<double> arrival{4, 0, 0, 0};
  const StepModel regular = step_model(std::vector<int>{3, 2, 1, 0}, arrival, 5, false);
  EXPECT_DOUBLE_EQ(regular.total, 14);
  const std::vector<int> sorted = chain_order(arrival);
  EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3}));
  const StepModel slt = step_model(sorted, arrival, 5, false);
  EXPECT_DOUBLE_EQ(slt.total, 12);
  // Process 0 (position 0 of SLT) is done when its last result leaves: 10 tau; process 3, at the
  // far end, when the last result arrives.
  EXPECT_DOUBLE_EQ(slt.done[0], 10);
  EXPECT_DOUBLE_EQ(slt.done[3], 12);
  EXPECT_DOUBLE_EQ(regular.done[0], 14);
  // With the agent receiving for process 0, partials a and b wait for it: 11 tau.
  const StepModel background = step_model(sorted, arrival, 5, true);
  EXPECT_EQ(background.early[0], 2u);
  EXPECT_DOUBLE_EQ(background.total, 11);
}

// The cost model: the mean over the ranks of the time after the last arrival, position 0 late by
// W steps, the agent receiving. Once every partial reached position 0 before it arrived (W >=
// P-1+S) the step model (separate links) and the cost model (a switch port shared by partials and
// results) agree; before, the cost model adds the partials still on their way, R = P-1+S-W, where
// the step model adds only max(0, P-1-W).
TEST(SltOrder, CostModelIsTheMeanOfTheStepModel) {
  for (int p = 2; p <= 40; p += 3) {
    for (std::size_t segments : {std::size_t{1}, std::size_t{5}, std::size_t{128}}) {
      for (int w : {0, 1, p / 2, p - 1, p + 7, 300, p - 1 + static_cast<int>(segments)}) {
        std::vector<double> arrival(static_cast<std::size_t>(p), 0.0);
        arrival[1] = w;  // rank 1 late: SLT's position 0
        const std::vector<int> chain = chain_order(arrival);
        if (w > 0) ASSERT_EQ(chain[0], 1);
        const StepModel m = step_model(chain, arrival, segments, true);
        double sum = 0;
        for (double d : m.done) sum += d - w;
        CostInput x;
        x.procs = p;
        x.bytes = static_cast<double>(segments) * 32 * 1024;
        x.alpha = 1.0;  // one step per segment
        x.omega = w + 0.5;
        x.omega_last = x.omega;  // one late rank, the others together
        const double on_the_way = std::max(0, p - 1 + static_cast<int>(segments) - w);
        const double step_fill = std::max(0, p - 1 - w);
        EXPECT_NEAR(cost::allreduce_slt(x), sum / p + on_the_way - step_fill, 1e-9)
            << "P = " << p << ", S = " << segments << ", W = " << w;
        if (w == 0) {  // balanced: pipelined_linear's (2(P-1) + S - 1) for the far end
          EXPECT_DOUBLE_EQ(m.total, 2.0 * (p - 1) + static_cast<double>(segments) - 1);
        }
      }
    }
  }
}

// What a rank's agent receives ahead: the partials that reach it by its arrival.
TEST(SltOrder, EarlyReceivesArePartialsBeforeTheArrival) {
  const int p = 6;
  std::vector<double> arrival(p, 0.0);
  arrival[2] = 20;
  const std::vector<int> chain = chain_order(arrival);
  const StepModel m = step_model(chain, arrival, 10, true);
  // Position 0 (rank 2): partial t arrives at step P-1+t = 5+t; by step 20 all ten.
  EXPECT_EQ(m.early[2], 10u);
  // The far end never receives a partial; the others arrive at 0, before any.
  EXPECT_EQ(m.early[static_cast<std::size_t>(chain.back())], 0u);
  for (int r = 0; r < p; ++r) {
    if (r != 2) EXPECT_EQ(m.early[static_cast<std::size_t>(r)], 0u) << r;
  }
  // Without estimates (all equal) nothing is received ahead: the chain is pipelined_linear's.
  const StepModel flat = step_model(chain_order(std::vector<double>(p, 0.0)), std::vector<double>(p, 0.0), 10, true);
  EXPECT_EQ(std::accumulate(flat.early.begin(), flat.early.end(), std::size_t{0}), 0u);
}

}  // namespace test_slt_order_test
}  // namespace ragged::plans::slt
