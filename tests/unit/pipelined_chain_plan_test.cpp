// The segments of bcast "pipelined_chain": within their bounds, one segment where there is
// nothing to pipeline, segments that cover the message, and a time within a few percent of
// the best segment size of the chain's alpha-beta model when alpha / beta is what it assumes.
// Under held blocks (allgather lnbc): the owner-first order of each link and where a rank
// pauses for its block's send to the root.
#include "plans/pipelined_chain_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace test_pipelined_chain_plan_test {

namespace chain = ragged::plans::pipelined_chain;

namespace {

/// The chain's time in units of beta (alpha = latency_bytes): (P - 2 + S)(alpha + s beta).
double chain_time(std::size_t bytes, int procs, std::size_t segment) {
  const double s = static_cast<double>(segment);
  const double segments = std::ceil(static_cast<double>(bytes) / s);
  return (procs - 2 + segments) * (chain::latency_bytes + s);
}

TEST(PipelinedChainPlan, SegmentsStayWithinTheirBounds) {
  for (const int procs : {1, 2, 3, 4, 5, 16, 28, 48, 300}) {
    for (const std::size_t bytes :
         {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{1024}, std::size_t{1025}, std::size_t{65536},
          std::size_t{1} << 20, std::size_t{8} << 20, std::size_t{1} << 30}) {
      const std::size_t n = chain::segment_count(bytes, procs);
      EXPECT_GE(n, 1U);
      if (n > 1) EXPECT_GE(bytes / n, chain::min_segment_bytes) << "P=" << procs << " bytes=" << bytes;
      if (procs <= 2) EXPECT_EQ(n, 1U) << "nothing to pipeline on " << procs << " ranks";
    }
  }
  // longer chains take more segments, and so do longer messages
  EXPECT_LT(chain::segment_count(1 << 20, 4), chain::segment_count(1 << 20, 48));
  EXPECT_LT(chain::segment_count(1 << 20, 28), chain::segment_count(8 << 20, 28));
}

TEST(PipelinedChainPlan, SegmentsCoverTheMessage) {
  for (const int procs : {2, 3, 28, 48}) {
    for (const std::size_t element : {std::size_t{1}, std::size_t{4}, std::size_t{8}}) {
      for (const std::size_t count : {std::size_t{1}, std::size_t{7}, std::size_t{100003}, std::size_t{2} << 20}) {
        const std::size_t per = chain::segment_elements(count, element, procs);
        ASSERT_GT(per, 0U);
        const std::size_t n = chain::segments(count, per);
        EXPECT_GE(n * per, count);
        EXPECT_LT((n - 1) * per, count);
        EXPECT_LE(n, std::max<std::size_t>(1, chain::segment_count(count * element, procs)));
      }
    }
  }
}

TEST(PipelinedChainPlan, TheSegmentIsNearlyTheBestOfTheModel) {
  for (const int procs : {3, 8, 28, 48}) {
    for (const std::size_t bytes : {std::size_t{256} << 10, std::size_t{1} << 20, std::size_t{8} << 20}) {
      double best = chain_time(bytes, procs, bytes);
      for (std::size_t s = 256; s <= bytes; s += 256) best = std::min(best, chain_time(bytes, procs, s));
      const std::size_t n = chain::segment_count(bytes, procs);
      EXPECT_LE(chain_time(bytes, procs, (bytes + n - 1) / n), 1.03 * best) << "P=" << procs << " bytes=" << bytes;
    }
  }
}

TEST(PipelinedChainPlan, OwnerFirstOrderStartsWithTheOwnBlockAndSkipsTheSuccessors) {
  EXPECT_EQ(chain::owner_first_order(0, 5), (std::vector<int>{0, 4, 3, 2}));
  EXPECT_EQ(chain::owner_first_order(1, 5), (std::vector<int>{1, 0, 4, 3}));
  EXPECT_EQ(chain::owner_first_order(3, 5), (std::vector<int>{3, 2, 1, 0}));
  EXPECT_TRUE(chain::owner_first_order(4, 5).empty());  // the last rank sends nothing
  EXPECT_EQ(chain::owner_first_order(0, 2), (std::vector<int>{0}));
  EXPECT_TRUE(chain::owner_first_order(0, 1).empty());
  for (int procs = 2; procs <= 40; ++procs) {
    for (int v = 0; v + 1 < procs; ++v) {
      const std::vector<int> order = chain::owner_first_order(v, procs);
      SCOPED_TRACE("P=" + std::to_string(procs) + " v=" + std::to_string(v));
      ASSERT_EQ(order.size(), static_cast<std::size_t>(procs - 1));
      EXPECT_EQ(order.front(), v);
      const std::set<int> blocks(order.begin(), order.end());
      EXPECT_EQ(blocks.size(), order.size());  // every block once
      EXPECT_EQ(blocks.count(v + 1), 0U);      // never the successor's own
      EXPECT_GE(*blocks.begin(), 0);
      EXPECT_LT(*blocks.rbegin(), procs);
    }
  }
}

TEST(PipelinedChainPlan, EachRankForwardsInTheOrderItReceivesAfterItsOwnBlock) {
  // Rank v sends its own block, then what came from v - 1 in the order it came, less the last
  // (block v + 1, which v + 1 holds): nothing waits behind a block that comes later.
  for (int procs = 3; procs <= 40; ++procs) {
    for (int v = 1; v + 1 < procs; ++v) {
      std::vector<int> expected{v};
      const std::vector<int> in = chain::owner_first_order(v - 1, procs);
      ASSERT_EQ(in.back(), v + 1);
      expected.insert(expected.end(), in.begin(), in.end() - 1);
      EXPECT_EQ(chain::owner_first_order(v, procs), expected) << "P=" << procs << " v=" << v;
    }
  }
}

TEST(PipelinedChainPlan, EveryRankEndsWithEveryBlock) {
  for (int procs = 1; procs <= 40; ++procs) {
    for (int w = 1; w < procs; ++w) {
      std::vector<int> held = chain::owner_first_order(w - 1, procs);
      held.push_back(w);
      std::sort(held.begin(), held.end());
      std::vector<int> all(static_cast<std::size_t>(procs));
      for (int u = 0; u < procs; ++u) all[static_cast<std::size_t>(u)] = u;
      EXPECT_EQ(held, all) << "P=" << procs << " w=" << w;
    }
  }
}

TEST(PipelinedChainPlan, ARankPausesWhileTheRootSendsTheBlockBeforeItsOwn) {
  // The root asks for block v while it sends block v + 1; rank v pauses at that index.
  for (int procs = 2; procs <= 40; ++procs) {
    const std::vector<int> root = chain::owner_first_order(0, procs);
    EXPECT_GE(chain::owner_first_pause(0, procs), root.size());  // the root never pauses
    for (int v = 1; v + 1 < procs; ++v) {
      const std::size_t k = chain::owner_first_pause(v, procs);
      ASSERT_LT(k, root.size());
      EXPECT_EQ(root[k], v + 1) << "P=" << procs << " v=" << v;
      EXPECT_LT(k, chain::owner_first_order(v, procs).size());
    }
  }
}

// reduce "pipelined_chain": every rank once, the root last, and every hop from a rank to its
// successor (mod P), so that on ranks laid out by node only node boundaries are crossed.
TEST(PipelinedChainPlan, ReduceOrderVisitsEveryRankOnceAndEndsAtTheRoot) {
  for (int procs = 1; procs <= 40; ++procs) {
    for (int root = 0; root < procs; ++root) {
      const std::vector<int> order = chain::reduce_order(procs, root);
      ASSERT_EQ(order.size(), static_cast<std::size_t>(procs));
      EXPECT_EQ(order.back(), root) << "P " << procs << " root " << root;
      EXPECT_EQ(std::set<int>(order.begin(), order.end()).size(), static_cast<std::size_t>(procs));
      for (std::size_t i = 1; i < order.size(); ++i) {
        EXPECT_EQ(order[i], (order[i - 1] + 1) % procs) << "P " << procs << " root " << root << " hop " << i;
      }
    }
  }
  EXPECT_EQ(chain::reduce_order(5, 2), (std::vector<int>{3, 4, 0, 1, 2}));
}

}  // namespace

}  // namespace test_pipelined_chain_plan_test
