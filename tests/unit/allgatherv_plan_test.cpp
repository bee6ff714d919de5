// The allgatherv plans: the pipelined ring's pieces, run as a schedule on every rank at once,
// match sender and receiver piece by piece and only ever forward a piece that arrived in an
// earlier iteration; Bruck's rotated offsets pack the blocks in rotated order.
#include "plans/allgatherv_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

namespace test_allgatherv_plan_test {

namespace plan = ragged::plans::allgatherv;

namespace {

using Piece = std::pair<int, std::size_t>;  // (block, piece)

/// The pieces rank `rank` sends (first = 0) or receives (first = 1), in order.
std::vector<Piece> sequence(const std::vector<int>& counts, std::size_t per, int rank, int first) {
  const auto procs = static_cast<int>(counts.size());
  std::vector<Piece> out;
  plan::Cursor c;
  while (c.step < procs - 1) {
    const int block = plan::block_at(rank, procs, first, c.step);
    out.emplace_back(block, c.piece);
    plan::advance(c, plan::pieces(static_cast<std::size_t>(counts[static_cast<std::size_t>(block)]), per));
  }
  return out;
}

std::vector<std::vector<int>> shapes(int procs) {
  std::vector<std::vector<int>> out;
  const auto p = static_cast<std::size_t>(procs);
  out.emplace_back(p, 5);
  out.emplace_back(p, 0);
  std::vector<int> spike(p, 0);
  spike[p / 2] = 23;
  out.push_back(spike);
  std::vector<int> mixed(p);
  for (std::size_t i = 0; i < p; ++i) mixed[i] = static_cast<int>((i * 7 + 3) % 10);
  out.push_back(mixed);
  return out;
}

TEST(AllgathervPlan, PipelinedRingPiecesMatchAndArriveBeforeTheyAreForwarded) {
  for (int procs = 1; procs <= 17; ++procs) {
    for (const std::vector<int>& counts : shapes(procs)) {
      for (std::size_t per : {std::size_t{1}, std::size_t{3}, std::size_t{64}}) {
        for (int r = 0; r < procs; ++r) {
          const std::vector<Piece> sends = sequence(counts, per, r, 0);
          const std::vector<Piece> receives = sequence(counts, per, r, 1);
          // What rank r receives is what its left neighbour sends, piece for piece.
          EXPECT_EQ(receives, sequence(counts, per, (r + procs - 1) % procs, 0)) << "P=" << procs << " r=" << r;
          EXPECT_EQ(plan::iterations(counts, per, r), std::max(sends.size(), receives.size()));
          // Iteration i sends a piece of its own block or one received in an earlier iteration.
          std::map<Piece, std::size_t> arrived;
          for (std::size_t i = 0; i < receives.size(); ++i) arrived.emplace(receives[i], i);
          for (std::size_t i = 0; i < sends.size(); ++i) {
            if (sends[i].first == r) continue;
            const auto it = arrived.find(sends[i]);
            ASSERT_NE(it, arrived.end()) << "P=" << procs << " r=" << r << " i=" << i;
            EXPECT_LT(it->second, i) << "P=" << procs << " r=" << r << " i=" << i;
          }
          // Every other block arrives whole: all its pieces.
          std::size_t expected = 0;
          for (int b = 0; b < procs; ++b) {
            if (b != r) expected += plan::pieces(static_cast<std::size_t>(counts[static_cast<std::size_t>(b)]), per);
          }
          EXPECT_EQ(receives.size(), expected);
        }
      }
    }
  }
}

TEST(AllgathervPlan, SegmentsAreAtLeastTheSmallestAndGrowWithTheData) {
  EXPECT_EQ(plan::segment_elements(0, 8, 4), ragged::plans::pipelined_chain::min_segment_bytes / 8);
  EXPECT_EQ(plan::segment_elements(100, 4096, 4), 1U);
  EXPECT_GT(plan::segment_elements(64u << 20, 1, 4), plan::segment_elements(1u << 20, 1, 4));
  EXPECT_EQ(plan::pieces(0, 7), 1U);
  EXPECT_EQ(plan::pieces(7, 7), 1U);
  EXPECT_EQ(plan::pieces(8, 7), 2U);
}

TEST(AllgathervPlan, RotatedOffsetsPackTheBlocksFromTheRanksOwn) {
  const std::vector<int> counts{2, 0, 1, 3, 1};
  EXPECT_EQ(plan::rotated_offsets(counts, 0), (std::vector<std::size_t>{0, 2, 2, 3, 6, 7}));
  EXPECT_EQ(plan::rotated_offsets(counts, 3), (std::vector<std::size_t>{0, 3, 4, 6, 6, 7}));
}

}  // namespace
}  // namespace test_allgatherv_plan_test
