// The split of allgather early_late (plans/early_late_plan.hpp): which ranks are late, the early
// ranks, the runs of early blocks a late rank receives, and who sends them.
#include "plans/early_late_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <span>
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

// late_for is late_ranks with t = early_bytes beta + ceil(log2 P) alpha.
TEST(EarlyLatePlan, LateForUsesTheEarlyPhasesTime) {
  const std::vector<double> a{0, 0, 1e-3, 0, 0, 0, 0, 0};  // t below 1 ms: rank 2 late
  EXPECT_EQ(late_for(a, 1e-6, 1e-9, 1e5, 3), late_ranks(a, 1e5 * 1e-9 + 3 * 1e-6, 3));
  EXPECT_EQ(late_for(a, 1e-6, 1e-9, 1e5, 3), std::vector<int>{2});
  EXPECT_TRUE(late_for(a, 1e-6, 1e-9, 2e6, 3).empty());  // t = 2 ms: nobody late enough
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

// allreduce early_late's blocks: every block has exactly one owner, an early rank; each early
// rank's own block comes first; a late rank's block goes to its sender; owner_of finds it.
TEST(EarlyLatePlan, EveryBlockHasOneEarlyOwnerAndALateRanksIsItsSenders) {
  EXPECT_EQ(block_count(0, 4), 1u);
  EXPECT_EQ(block_count(262144, 560), 469u);  // 468.1 rounded up: the last blocks padded
  EXPECT_EQ(block_count(7, 7), 1u);
  EXPECT_EQ(block_count(8, 7), 2u);
  std::mt19937 rng(1129);
  for (int procs = 3; procs <= 40; ++procs) {
    std::vector<int> node(static_cast<std::size_t>(procs));
    for (int r = 0; r < procs; ++r) node[static_cast<std::size_t>(r)] = r / 4;
    for (int trial = 0; trial < 10; ++trial) {
      std::vector<double> a(static_cast<std::size_t>(procs), 0.0);
      for (int k = 0; k < 1 + trial % 3; ++k) a[rng() % static_cast<std::size_t>(procs)] = 9 + k;
      const std::vector<int> late = late_ranks(a, 1, max_late_reductions);
      const std::vector<int> early = early_ranks(procs, late);
      const auto owners =
          block_owners(procs, late, early, trial % 2 == 0 ? std::span<const int>(node) : std::span<const int>());
      std::vector<int> owned(static_cast<std::size_t>(procs), 0);
      for (int r = 0; r < procs; ++r) {
        const std::vector<int>& blocks = owners[static_cast<std::size_t>(r)];
        const bool is_late = std::find(late.begin(), late.end(), r) != late.end();
        if (is_late) {
          EXPECT_TRUE(blocks.empty()) << r;
          continue;
        }
        ASSERT_FALSE(blocks.empty());
        EXPECT_EQ(blocks[0], r);
        for (int j : blocks) ++owned[static_cast<std::size_t>(j)];
      }
      for (int j = 0; j < procs; ++j) EXPECT_EQ(owned[static_cast<std::size_t>(j)], 1) << j;
      for (std::size_t i = 0; i < late.size(); ++i) {
        const int sender = sender_for(late[i], static_cast<int>(i), early,
                                      trial % 2 == 0 ? std::span<const int>(node) : std::span<const int>());
        EXPECT_EQ(owner_of(late[i], owners), sender);
      }
      for (int e : early) EXPECT_EQ(owner_of(e, owners), -1) << e;
    }
  }
}

}  // namespace test_early_late_plan_test
}  // namespace ragged::plans::early_late
