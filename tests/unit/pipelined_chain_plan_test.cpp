// The segments of bcast "pipelined_chain": within their bounds, one segment where there is
// nothing to pipeline, segments that cover the message, and a time within a few percent of
// the best segment size of the chain's alpha-beta model when alpha / beta is what it assumes.
#include "plans/pipelined_chain_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

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

}  // namespace
