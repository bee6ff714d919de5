// The split of allgather early_late (plans/early_late_plan.hpp): which ranks are late, the early
// ranks, the runs of early blocks a late rank receives, and who sends them.
#include "plans/early_late_plan.hpp"

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

namespace ragged::plans::early_late {
namespace test_early_late_plan_test {

TEST(EarlyLatePlan, TheHeaderExample) {
  const std::vector<double> a{0, 1, 0, 9, 0, 1};
  EXPECT_EQ(late_ranks(a, 2, 3), std::vector<int>({3}));
  EXPECT_EQ(early_ranks(6, {3}), std::vector<int>({0, 1, 2, 4, 5}));
  EXPECT_EQ(early_runs(6, {3}), (std::vector<std::pair<int, int>>{{0, 3}, {4, 6}}));
}

TEST(EarlyLatePlan, LateRanksAreTheLatestFirstAndOnlyFew) {
  const std::vector<double> a{5, 0, 7, 0, 0, 6, 0, 0};
  EXPECT_EQ(late_ranks(a, 1, 3), std::vector<int>({2, 5, 0}));                             // latest first
  EXPECT_EQ(late_ranks(a, 5.5, 3), std::vector<int>({2, 5}));                              // 5 - 0 is not more than 5.5
  EXPECT_TRUE(late_ranks(a, 1, 2).empty());                                                // three late ones: too many
  EXPECT_TRUE(late_ranks(a, 7, 3).empty());                                                // nobody is late enough
  EXPECT_TRUE(late_ranks(std::vector<double>{0, 9}, 1, 3).empty());                        // P < 3
  EXPECT_TRUE(late_ranks(std::vector<double>{0, 9, 9, 9}, 1, 3).empty());                  // fewer than two early
  EXPECT_EQ(late_ranks(std::vector<double>{0, 9, 9, 0}, 1, 3), std::vector<int>({1, 2}));  // ties: rank order
  EXPECT_EQ(max_late(1), 1);
  EXPECT_EQ(max_late(2), 1);
  EXPECT_EQ(max_late(560), 10);
  EXPECT_EQ(max_late(1024), 10);
}

// Every rank is early or late, never both; the runs cover exactly the early ranks' blocks.
TEST(EarlyLatePlan, RunsCoverTheEarlyBlocksForRandomSplits) {
  std::mt19937 rng(1128);
  for (int procs = 3; procs <= 40; ++procs) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> a(static_cast<std::size_t>(procs));
      for (double& x : a) x = std::uniform_real_distribution<double>(0, 10)(rng);
      const std::vector<int> late = late_ranks(a, 6, max_late(procs));
      const std::vector<int> early = early_ranks(procs, late);
      ASSERT_EQ(late.size() + early.size(), static_cast<std::size_t>(procs));
      std::vector<int> covered(static_cast<std::size_t>(procs), 0);
      for (const auto& [first, last] : early_runs(procs, late)) {
        ASSERT_LT(first, last);
        for (int r = first; r < last; ++r) ++covered[static_cast<std::size_t>(r)];
      }
      for (int r : early) EXPECT_EQ(covered[static_cast<std::size_t>(r)], 1) << r;
      for (int r : late) EXPECT_EQ(covered[static_cast<std::size_t>(r)], 0) << r;
    }
  }
}

TEST(EarlyLatePlan, TheSenderIsAnEarlyRankOfTheLateRanksNodeWhenThereIsOne) {
  const std::vector<int> node{0, 0, 0, 1, 1, 1};
  const std::vector<int> early{0, 1, 2, 4, 5};
  EXPECT_EQ(sender_for(3, 0, early, node), 4);
  EXPECT_EQ(sender_for(3, 0, early, {}), 0);  // no layout: spread by the late rank's index
  EXPECT_EQ(sender_for(3, 7, early, {}), 2);
  const std::vector<int> alone{0, 0, 1};  // rank 2 alone on its node
  EXPECT_EQ(sender_for(2, 1, std::vector<int>{0, 1}, alone), 1);
}

}  // namespace test_early_late_plan_test
}  // namespace ragged::plans::early_late
