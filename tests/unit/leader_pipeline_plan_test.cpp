// plans::leader_pipeline: every leader receives every other node's chunk exactly once, from the
// ring's previous leader, who had it one step earlier; the node-major order covers every rank once.
#include "plans/leader_pipeline_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace test_leader_pipeline_plan {

using namespace ragged::plans;

TEST(LeaderPipelinePlan, EveryLeaderGetsEveryOtherChunkOnceFromItsPredecessorOneStepAfterIt) {
  for (int k = 1; k <= 40; ++k) {
    for (int n = 0; n < k; ++n) {
      std::vector<int> seen(static_cast<std::size_t>(k), 0);
      seen[static_cast<std::size_t>(n)] = 1;  // its own
      for (int s = 0; s + 1 < k; ++s) {
        const int c = leader_pipeline::received_at(k, n, s);
        ++seen[static_cast<std::size_t>(c)];
        // What node n gets at step s, its predecessor had by step s - 1 (its own chunk at s = 0).
        const int before = (n - 1 + k) % k;
        if (s == 0) {
          EXPECT_EQ(c, before);
        } else {
          EXPECT_EQ(c, leader_pipeline::received_at(k, before, s - 1));
        }
      }
      for (int c = 0; c < k; ++c) EXPECT_EQ(seen[static_cast<std::size_t>(c)], 1) << "k " << k << " node " << n;
    }
  }
}

TEST(LeaderPipelinePlan, NodeMajorOrderCoversEveryRankOnceAndKnowsWhenItIsRankOrder) {
  // Uneven nodes of 3 + 5 + 2 ranks, consecutive: the identity.
  const std::vector<int> even{0, 0, 0, 1, 1, 1, 1, 1, 2, 2};
  const leader_pipeline::Order a = leader_pipeline::order(hierarchy::split(even));
  EXPECT_TRUE(a.identity);
  EXPECT_EQ(a.first, (std::vector<std::size_t>{0, 3, 8}));
  // Round-robin placement (rank r on node r mod 3): not rank order.
  const std::vector<int> rr{0, 1, 2, 0, 1, 2, 0};
  const leader_pipeline::Order b = leader_pipeline::order(hierarchy::split(rr));
  EXPECT_FALSE(b.identity);
  EXPECT_EQ(b.rank_at, (std::vector<int>{0, 3, 6, 1, 4, 2, 5}));
  EXPECT_EQ(b.first, (std::vector<std::size_t>{0, 3, 5}));
  std::vector<int> sorted = b.rank_at;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> all(rr.size());
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(sorted, all);
}

TEST(LeaderPipelinePlan, PiecesCoverAChunk) {
  EXPECT_EQ(leader_pipeline::pieces(0, 16), 0U);
  EXPECT_EQ(leader_pipeline::pieces(1, 16), 1U);
  EXPECT_EQ(leader_pipeline::pieces(16, 16), 1U);
  EXPECT_EQ(leader_pipeline::pieces(17, 16), 2U);
}

}  // namespace test_leader_pipeline_plan
