// The Bruck plan, executed on rotated views for every P up to 300.
#include "plans/bruck_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace test_bruck_plan_test {

namespace bruck = ragged::plans::bruck;

namespace {

TEST(BruckPlan, RoundsAreCeilLog2) {
  EXPECT_EQ(bruck::rounds(1), 0);
  EXPECT_EQ(bruck::rounds(2), 1);
  EXPECT_EQ(bruck::rounds(3), 2);
  EXPECT_EQ(bruck::rounds(4), 2);
  EXPECT_EQ(bruck::rounds(5), 3);
  EXPECT_EQ(bruck::rounds(33), 6);
  for (int p = 2; p <= 300; ++p) {
    const int r = bruck::rounds(p);
    EXPECT_LT(1 << (r - 1), p);
    EXPECT_GE(1 << r, p);
  }
}

TEST(BruckPlan, RotatedViewsFillWithTheRightBlocks) {
  for (int p = 1; p <= 300; ++p) {
    const auto up = static_cast<std::size_t>(p);
    // view[r][i]: the block at position i of rank r, -1 if none yet
    std::vector<std::vector<int>> view(up, std::vector<int>(up, -1));
    for (int r = 0; r < p; ++r) view[static_cast<std::size_t>(r)][0] = r;
    int filled = 1;
    for (int k = 0; k < bruck::rounds(p); ++k) {
      auto next = view;
      for (int r = 0; r < p; ++r) {
        const bruck::Round mine = bruck::round(r, p, k);
        const bruck::Round theirs = bruck::round(mine.send_to, p, k);
        ASSERT_EQ(theirs.recv_from, r);
        ASSERT_EQ(mine.blocks, theirs.blocks);
        ASSERT_EQ(mine.distance, filled) << "receives right after what it holds";
        for (int i = 0; i < mine.blocks; ++i) {
          const int b = view[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
          ASSERT_GE(b, 0) << "sends a position it has not filled";
          auto& slot = next[static_cast<std::size_t>(mine.send_to)]
                           [static_cast<std::size_t>(mine.distance) + static_cast<std::size_t>(i)];
          ASSERT_EQ(slot, -1) << "overwrites a filled position";
          slot = b;
        }
      }
      view = next;
      filled = std::min(2 * filled, p);
    }
    for (int r = 0; r < p; ++r) {
      for (int i = 0; i < p; ++i) {
        EXPECT_EQ(view[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)], bruck::block_at(r, p, i))
            << "p=" << p << " r=" << r << " i=" << i;
        EXPECT_EQ(bruck::block_at(r, p, i), (r + i) % p);
      }
    }
  }
}

}  // namespace

}  // namespace test_bruck_plan_test
