// The recursive-halving / recursive-doubling block plan, executed on
// contribution counts per block for every power of two up to 256: after the
// reduce-scatter v holds block v reduced over all, after the allgather every
// block everywhere; element ranges cover the vector for ragged counts.
#include "plans/rabenseifner_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace rs = ragged::plans::rabenseifner;

namespace {

TEST(RabenseifnerPlan, ReduceScatterThenAllgather) {
  for (int p = 1; p <= 256; p *= 2) {
    const auto up = static_cast<std::size_t>(p);
    // c[v][b][x]: copies of x's data in v's block b; -1 marks a block v does not hold (allgather)
    std::vector<std::vector<std::vector<int>>> c(up, std::vector<std::vector<int>>(up, std::vector<int>(up, 0)));
    for (std::size_t v = 0; v < up; ++v) {
      for (std::size_t b = 0; b < up; ++b) c[v][b][v] = 1;
    }
    for (int mask = p / 2; mask >= 1; mask /= 2) {
      // what v sends (the half its peer keeps) and what v reduces into (the half it keeps) are
      // disjoint, so the messages can be applied in place one after the other
      for (int v = 0; v < p; ++v) {
        const int peer = v ^ mask;
        const rs::BlockRange send = rs::reduce_scatter_send(v, mask);
        const rs::BlockRange theirs = rs::reduce_scatter_recv(peer, mask);
        ASSERT_EQ(send.first, theirs.first);
        ASSERT_EQ(send.blocks, theirs.blocks);
        ASSERT_EQ(send.blocks, mask);
        // the window before the step is the aligned 2*mask blocks around v; send and keep split it
        const rs::BlockRange keep = rs::reduce_scatter_recv(v, mask);
        ASSERT_EQ(std::min(keep.first, send.first), v & ~(2 * mask - 1));
        ASSERT_TRUE(keep.first <= v && v < keep.first + keep.blocks);
        for (int b = send.first; b < send.first + send.blocks; ++b) {
          for (std::size_t x = 0; x < up; ++x) {
            c[static_cast<std::size_t>(peer)][static_cast<std::size_t>(b)][x] +=
                c[static_cast<std::size_t>(v)][static_cast<std::size_t>(b)][x];
          }
        }
      }
    }
    for (std::size_t v = 0; v < up; ++v) {
      for (std::size_t x = 0; x < up; ++x) ASSERT_EQ(c[v][v][x], 1) << "p=" << p << " v=" << v << " x=" << x;
      for (std::size_t b = 0; b < up; ++b) {
        if (b != v) c[v][b].assign(up, -1);  // partial sums that are no longer used
      }
    }
    for (int mask = 1; mask < p; mask *= 2) {
      for (int v = 0; v < p; ++v) {  // in place, as above: held and received blocks are disjoint
        const int peer = v ^ mask;
        const rs::BlockRange send = rs::allgather_send(v, mask);
        ASSERT_EQ(send.first, rs::allgather_recv(peer, mask).first);
        for (int b = send.first; b < send.first + send.blocks; ++b) {
          const auto& block = c[static_cast<std::size_t>(v)][static_cast<std::size_t>(b)];
          ASSERT_NE(block[0], -1) << "sends a block it does not hold";
          auto& to = c[static_cast<std::size_t>(peer)][static_cast<std::size_t>(b)];
          ASSERT_EQ(to[0], -1) << "receives a block it holds";
          to = block;
        }
      }
    }
    for (std::size_t v = 0; v < up; ++v) {
      for (std::size_t b = 0; b < up; ++b) {
        for (std::size_t x = 0; x < up; ++x) ASSERT_EQ(c[v][b][x], 1);
      }
    }
  }
}

TEST(RabenseifnerPlan, ElementRangesFollowTheBlocks) {
  for (int p = 1; p <= 256; p *= 2) {
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, static_cast<std::size_t>(p) + 1, std::size_t{100003}}) {
      const rs::ElementRange all = rs::elements(rs::BlockRange{0, p}, count, p);
      EXPECT_EQ(all.first, 0U);
      EXPECT_EQ(all.size, count);
      for (int mask = 1; mask < p; mask *= 2) {
        for (int v = 0; v < p; ++v) {
          const rs::ElementRange mine = rs::elements(rs::kept(v, mask), count, p);
          const rs::ElementRange theirs = rs::elements(rs::kept(v ^ mask, mask), count, p);
          const rs::ElementRange both = rs::elements(rs::kept(v, 2 * mask), count, p);
          EXPECT_EQ(mine.size + theirs.size, both.size);
          EXPECT_EQ(std::min(mine.first, theirs.first), both.first);
          EXPECT_EQ(std::max(mine.first, theirs.first),
                    both.first + (mine.first < theirs.first ? mine.size : theirs.size));
        }
      }
    }
  }
}

}  // namespace
