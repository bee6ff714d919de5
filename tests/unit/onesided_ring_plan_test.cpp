// The onesided ring plan: the two ends of every link agree on the stream, each put depends on the
// receive that completes its data, and the whole ring, executed on sets of contributing ranks with
// the algorithm's order of puts and takes and its slot rule (put s waits for the right
// neighbour's take of s - K), ends with every element reduced over every rank exactly once, never
// deadlocks, and never overwrites data before it is put.
#include "plans/onesided_ring_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/onesided_ring_exec.hpp"

namespace test_onesided_ring_plan_test {

namespace plan = ragged::plans::onesided_ring;
namespace ring = ragged::plans::ring;

namespace {

bool same(const plan::Piece& a, const plan::Piece& b) {
  return a.chunk == b.chunk && a.offset == b.offset && a.count == b.count;
}

std::string label(int p, std::size_t count, std::size_t esize, std::size_t seg, std::size_t slots) {
  return "P=" + std::to_string(p) + " count=" + std::to_string(count) + " esize=" + std::to_string(esize) +
         " segment=" + std::to_string(seg) + " slots=" + std::to_string(slots);
}

/// Runs the ring on masks (tests/support/onesided_ring_exec.hpp); returns "" or what went wrong.
std::string execute(int p, std::size_t count, std::size_t esize, std::size_t seg, std::size_t slots) {
  return ragged::test::execute_onesided_ring(count, p, plan::segments_per_chunk(count, p, esize, seg), slots);
}

const std::vector<int> procs{1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 33, 64};

std::vector<std::size_t> counts(int p) {
  const auto n = static_cast<std::size_t>(p);
  return {0, 1, n - 1 + (p == 1 ? 1 : 0), n, n + 1, 3 * n + 2, 1000, 4099};
}

TEST(OneSidedRingPlan, SegmentsCoverTheLargestChunk) {
  EXPECT_EQ(plan::segments_per_chunk(0, 4, 8, 1024), 1U);
  EXPECT_EQ(plan::segments_per_chunk(4096, 4, 8, 8192), 1U);  // chunk of 8 KiB in one segment
  EXPECT_EQ(plan::segments_per_chunk(4097, 4, 8, 8192), 2U);  // chunk 0 has 1025 elements
  EXPECT_EQ(plan::segments_per_chunk(4096, 4, 8, 1000), 9U);  // 8192 / 1000 rounded up
  EXPECT_EQ(plan::segments_per_chunk(10, 3, 4, 0), 16U);      // segment 0 counts as 1 byte
  EXPECT_EQ(plan::slot_elements(4097, 4, 2), 513U);
}

TEST(OneSidedRingPlan, BothEndsOfALinkAgreeAndPutsFollowTheirData) {
  for (int p : procs) {
    for (std::size_t count : counts(p)) {
      for (std::size_t seg : {std::size_t{1}, std::size_t{24}, std::size_t{1000}, std::size_t{1} << 20}) {
        const std::size_t m = plan::segments_per_chunk(count, p, 8, seg);
        for (int r = 0; r < p; ++r) {
          const auto sends = plan::send_stream(count, p, r, m);
          const auto theirs = plan::recv_stream(count, p, ring::right(r, p), m);
          ASSERT_EQ(sends.size(), theirs.size()) << label(p, count, 8, seg, 0);
          for (std::size_t s = 0; s < sends.size(); ++s) {
            ASSERT_TRUE(same(sends[s], theirs[s]) && sends[s].step == theirs[s].step) << label(p, count, 8, seg, 0);
          }
          const auto recvs = plan::recv_stream(count, p, r, m);
          const std::size_t first = plan::first_step_pieces(sends);
          for (std::size_t s = first; s < sends.size(); ++s) {
            ASSERT_LT(s - first, recvs.size());
            ASSERT_TRUE(same(sends[s], recvs[s - first])) << label(p, count, 8, seg, 0) << " s=" << s;
            ASSERT_EQ(sends[s].step, recvs[s - first].step + 1);
          }
          if (p > 1 && count > 0) {
            ASSERT_FALSE(sends.empty());
          } else {
            ASSERT_TRUE(sends.empty() && recvs.empty());
          }
        }
      }
    }
  }
}

TEST(OneSidedRingPlan, TheRingOnSetsReducesEveryElementOnceWithoutDeadlock) {
  for (int p : procs) {
    for (std::size_t count : counts(p)) {
      for (std::size_t seg : {std::size_t{8}, std::size_t{40}, std::size_t{1000}, std::size_t{1} << 20}) {
        for (std::size_t slots : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{4}, std::size_t{16}}) {
          const std::string error = execute(p, count, 8, seg, slots);
          ASSERT_EQ(error, "") << label(p, count, 8, seg, slots);
        }
      }
    }
  }
}

}  // namespace

}  // namespace test_onesided_ring_plan_test
