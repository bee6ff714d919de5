// The neighbor-exchange plan, executed on sets for every even P up to 300:
// partners agree, nothing is sent twice or before it is held, and after P/2
// steps every rank holds every block.
#include "plans/nex_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace test_nex_plan_test {

namespace nex = ragged::plans::nex;

namespace {

TEST(NexPlan, EveryRankGetsEveryBlockExactlyOnce) {
  for (int p = 2; p <= 300; p += 2) {
    const auto up = static_cast<std::size_t>(p);
    std::vector<std::vector<int>> held(up, std::vector<int>(up, 0));
    for (std::size_t r = 0; r < up; ++r) held[r][r] = 1;
    ASSERT_EQ(nex::steps(p), p / 2);
    for (int s = 0; s < nex::steps(p); ++s) {
      std::vector<std::pair<int, int>> deliveries;  // (to, block), applied after every rank sent
      for (int r = 0; r < p; ++r) {
        const nex::Step mine = nex::step(r, p, s);
        const nex::Step theirs = nex::step(mine.peer, p, s);
        ASSERT_EQ(theirs.peer, r) << "p=" << p << " s=" << s << " r=" << r;
        ASSERT_TRUE(mine.peer == (r + 1) % p || mine.peer == (r + p - 1) % p) << "a ring neighbor";
        // what r sends is what the peer expects from r, in the same place of the buffer
        ASSERT_EQ(mine.send_first, theirs.recv_first);
        ASSERT_EQ(mine.send_blocks, theirs.recv_blocks);
        ASSERT_EQ(mine.send_blocks, s == 0 ? 1 : 2);
        for (int b = mine.send_first; b < mine.send_first + mine.send_blocks; ++b) {
          ASSERT_LT(b, p);
          ASSERT_EQ(held[static_cast<std::size_t>(r)][static_cast<std::size_t>(b)], 1) << "sends what it lacks";
          ASSERT_EQ(held[static_cast<std::size_t>(mine.peer)][static_cast<std::size_t>(b)], 0) << "duplicate";
          deliveries.emplace_back(mine.peer, b);
        }
      }
      for (const auto& [to, b] : deliveries) held[static_cast<std::size_t>(to)][static_cast<std::size_t>(b)] = 1;
    }
    for (std::size_t r = 0; r < up; ++r) {
      for (std::size_t b = 0; b < up; ++b) EXPECT_EQ(held[r][b], 1) << "p=" << p << " r=" << r << " b=" << b;
    }
  }
}

TEST(NexPlan, SixRanksMatchThePicture) {
  // the received pairs of the picture in nex_plan.hpp (A=0, B=1, C=2)
  const int expected[6][3] = {{0, 2, 1}, {0, 1, 2}, {1, 0, 2}, {1, 2, 0}, {2, 1, 0}, {2, 0, 1}};
  for (int r = 0; r < 6; ++r) {
    for (int s = 0; s < 3; ++s) EXPECT_EQ(nex::received_pair(r, 6, s), expected[r][s]) << "r=" << r << " s=" << s;
  }
}

}  // namespace

}  // namespace test_nex_plan_test
