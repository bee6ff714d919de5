// The ring plan: segments partition any vector, and the allgather and
// reduce-scatter schedules, executed on sets, give every rank what it needs.
#include "plans/ring_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace test_ring_plan_test {

namespace ring = ragged::plans::ring;

namespace {

constexpr int max_procs = 300;

TEST(RingPlan, WrapAndNeighbors) {
  EXPECT_EQ(ring::wrap(-1, 5), 4);
  EXPECT_EQ(ring::wrap(-11, 5), 4);
  EXPECT_EQ(ring::wrap(12, 5), 2);
  for (int p = 1; p <= max_procs; ++p) {
    for (int r = 0; r < p; ++r) {
      EXPECT_EQ(ring::left(ring::right(r, p), p), r);
      EXPECT_EQ(ring::right(r, p), (r + 1) % p);
    }
  }
}

TEST(RingPlan, SegmentsPartitionTheVectorNearlyEvenly) {
  for (int p = 1; p <= max_procs; p += (p < 40 ? 1 : 13)) {
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, static_cast<std::size_t>(p) - 1,
                              static_cast<std::size_t>(p), static_cast<std::size_t>(p) + 1, std::size_t{100003}}) {
      std::size_t next = 0;
      std::size_t smallest = count;
      std::size_t largest = 0;
      for (int i = 0; i < p; ++i) {
        ASSERT_EQ(ring::segment_offset(count, p, i), next) << "p=" << p << " count=" << count << " i=" << i;
        const std::size_t n = ring::segment_size(count, p, i);
        next += n;
        smallest = std::min(smallest, n);
        largest = std::max(largest, n);
        // longer segments first, so segment 0 is a longest one
        EXPECT_LE(n, ring::segment_size(count, p, 0));
      }
      EXPECT_EQ(next, count);
      EXPECT_EQ(ring::segment_offset(count, p, p), count);
      EXPECT_LE(largest - smallest, 1U);
    }
  }
}

TEST(RingPlan, AllgatherDeliversEveryBlockOnce) {
  for (int p = 1; p <= max_procs; ++p) {
    // held[r][b]: rank r holds block b
    std::vector<std::vector<int>> held(static_cast<std::size_t>(p), std::vector<int>(static_cast<std::size_t>(p), 0));
    for (int r = 0; r < p; ++r) held[static_cast<std::size_t>(r)][static_cast<std::size_t>(r)] = 1;
    for (int s = 0; s < p - 1; ++s) {
      std::vector<std::pair<int, int>> deliveries;  // (to, block), applied after every rank sent
      for (int r = 0; r < p; ++r) {
        const int b = ring::allgather_send_block(r, p, s);
        const int to = ring::right(r, p);
        ASSERT_EQ(held[static_cast<std::size_t>(r)][static_cast<std::size_t>(b)], 1) << "sends what it lacks";
        ASSERT_EQ(ring::allgather_recv_block(to, p, s), b) << "receiver expects another block";
        ASSERT_EQ(held[static_cast<std::size_t>(to)][static_cast<std::size_t>(b)], 0) << "duplicate delivery";
        deliveries.emplace_back(to, b);
      }
      for (const auto& [to, b] : deliveries) held[static_cast<std::size_t>(to)][static_cast<std::size_t>(b)] = 1;
    }
    for (int r = 0; r < p; ++r) {
      for (int b = 0; b < p; ++b) EXPECT_EQ(held[static_cast<std::size_t>(r)][static_cast<std::size_t>(b)], 1);
    }
  }
}

TEST(RingPlan, ReduceScatterLeavesRankRWithSegmentRReducedOverAll) {
  for (int p = 1; p <= 120; ++p) {
    const auto up = static_cast<std::size_t>(p);
    // contrib[r][seg][c]: how often rank c's data is in rank r's copy of segment seg
    std::vector<std::vector<std::vector<int>>> contrib(up, std::vector<std::vector<int>>(up, std::vector<int>(up, 0)));
    for (std::size_t r = 0; r < up; ++r) {
      for (std::size_t seg = 0; seg < up; ++seg) contrib[r][seg][r] = 1;
    }
    for (int s = 0; s < p - 1; ++s) {
      std::vector<std::pair<int, std::vector<int>>> messages(up);  // (segment, contributions) sent by rank r
      for (int r = 0; r < p; ++r) {
        const int seg = ring::reduce_scatter_send_segment(r, p, s);
        ASSERT_EQ(ring::reduce_scatter_recv_segment(ring::right(r, p), p, s), seg);
        messages[static_cast<std::size_t>(r)] = {seg,
                                                 contrib[static_cast<std::size_t>(r)][static_cast<std::size_t>(seg)]};
      }
      for (int r = 0; r < p; ++r) {
        const auto& [seg, data] = messages[static_cast<std::size_t>(r)];
        auto& mine = contrib[static_cast<std::size_t>(ring::right(r, p))][static_cast<std::size_t>(seg)];
        for (std::size_t c = 0; c < up; ++c) mine[c] += data[c];
      }
    }
    for (std::size_t r = 0; r < up; ++r) {
      for (std::size_t c = 0; c < up; ++c) EXPECT_EQ(contrib[r][r][c], 1) << "p=" << p << " r=" << r << " c=" << c;
    }
  }
}

}  // namespace

}  // namespace test_ring_plan_test
