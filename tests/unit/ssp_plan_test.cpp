// The plans of the stale-synchronous allreduce (plans/ssp_plan.hpp): every send has its receive
// on the same channel, one writer per (receiver, channel), and executing the plan step by step
// on sets of contributions gives every rank every contribution of every segment exactly once.
#include "plans/ssp_plan.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace ragged::plans::ssp {
namespace test_ssp_plan_test {

using Sets = std::vector<std::vector<std::multiset<int>>>;  // [rank][segment]

void check(Topology topology, int procs) {
  SCOPED_TRACE(testing::Message() << (topology == Topology::ring ? "ring" : "hypercube") << " P=" << procs);
  const int n_steps = steps(topology, procs);
  const int n_segments = segments(topology, procs);
  std::vector<std::vector<Step>> plans;
  for (int r = 0; r < procs; ++r) {
    plans.push_back(plan(topology, procs, r));
    ASSERT_EQ(static_cast<int>(plans.back().size()), n_steps);
  }
  Sets have(static_cast<std::size_t>(procs), std::vector<std::multiset<int>>(static_cast<std::size_t>(n_segments)));
  for (int r = 0; r < procs; ++r) {
    for (auto& s : have[static_cast<std::size_t>(r)]) s.insert(r);
  }
  for (int t = 0; t < n_steps; ++t) {
    // Sends read the state before this step's receives (each rank sends, then receives).
    const Sets before = have;
    for (int r = 0; r < procs; ++r) {
      const Step& s = plans[static_cast<std::size_t>(r)][static_cast<std::size_t>(t)];
      if (s.send_to >= 0) {
        ASSERT_LT(s.send_to, procs);
        ASSERT_NE(s.send_to, r);
        const Step& peer = plans[static_cast<std::size_t>(s.send_to)][static_cast<std::size_t>(t)];
        EXPECT_EQ(peer.recv_from, r) << "step " << t;
        EXPECT_EQ(peer.recv_segment, s.send_segment) << "step " << t;
      }
      if (s.recv_from >= 0) {
        const Step& peer = plans[static_cast<std::size_t>(s.recv_from)][static_cast<std::size_t>(t)];
        ASSERT_EQ(peer.send_to, r) << "step " << t;
        const auto& got = before[static_cast<std::size_t>(s.recv_from)][static_cast<std::size_t>(s.recv_segment)];
        auto& mine = have[static_cast<std::size_t>(r)][static_cast<std::size_t>(s.recv_segment)];
        if (s.apply == Apply::copy) {
          mine = got;
        } else {
          for (int x : got) {
            EXPECT_EQ(mine.count(x), 0U) << "rank " << r << " step " << t << " reduces " << x << " twice";
            mine.insert(x);
          }
        }
      }
    }
  }
  std::multiset<int> all;
  for (int r = 0; r < procs; ++r) all.insert(r);
  for (int r = 0; r < procs; ++r) {
    for (int g = 0; g < n_segments; ++g) {
      EXPECT_EQ(have[static_cast<std::size_t>(r)][static_cast<std::size_t>(g)], all) << "rank " << r << " seg " << g;
    }
  }
}

TEST(SspPlan, EveryRankGetsEveryContributionOnceOnTheHypercube) {
  for (int p = 1; p <= 40; ++p) check(Topology::hypercube, p);
}

TEST(SspPlan, EveryRankGetsEveryContributionOnceOnTheRing) {
  for (int p = 1; p <= 40; ++p) check(Topology::ring, p);
}

TEST(SspPlan, StepCounts) {
  EXPECT_EQ(steps(Topology::hypercube, 1), 2);
  EXPECT_EQ(steps(Topology::hypercube, 8), 5);
  EXPECT_EQ(steps(Topology::hypercube, 12), 5);
  EXPECT_EQ(steps(Topology::ring, 1), 0);
  EXPECT_EQ(steps(Topology::ring, 5), 8);
  EXPECT_EQ(segments(Topology::ring, 5), 5);
  EXPECT_EQ(segments(Topology::hypercube, 5), 1);
  // P = 6: rank 4 folds into 0 first and gets the result from it last.
  const std::vector<Step> p4 = plan(Topology::hypercube, 6, 4);
  EXPECT_EQ(p4.front().send_to, 0);
  EXPECT_EQ(p4.back().recv_from, 0);
  EXPECT_EQ(p4.back().apply, Apply::copy);
  EXPECT_EQ(plan(Topology::hypercube, 6, 0)[2].send_to, 2);
  EXPECT_THROW((void)plan(Topology::ring, 4, 4), std::invalid_argument);
}

}  // namespace test_ssp_plan_test
}  // namespace ragged::plans::ssp
