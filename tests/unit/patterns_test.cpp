// The test data of tests/support/patterns.hpp tells every rank's block apart: a block that
// lands in another rank's place, or shifted within the buffer, differs from the one expected.
// (The earlier ((7 r + 13 i) mod 17) + 1 repeated every 17 ranks and every 17 elements: at
// P = 33 blocks r and r + 17 were equal, and a swap between them went unseen.)
#include "support/patterns.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <set>

namespace ragged {
namespace test_patterns_test {

TEST(Patterns, AtEveryIndexEveryRankBelowThePeriodGivesADifferentValue) {
  for (std::size_t i = 0; i < 300; ++i) {
    std::set<std::int64_t> seen;
    for (int r = 0; r < static_cast<int>(test::pattern_period); ++r) {
      const std::int64_t v = test::pattern(r, i);
      ASSERT_GE(v, 1);
      ASSERT_LE(v, static_cast<std::int64_t>(test::pattern_period));
      seen.insert(v);
    }
    EXPECT_EQ(seen.size(), test::pattern_period) << "index " << i;
  }
}

/// Whether rank a's elements [from, from + n) equal rank b's elements [to, to + n).
bool same_run(int a, std::size_t from, int b, std::size_t to, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    if (test::pattern(a, from + k) != test::pattern(b, to + k)) return false;
  }
  return true;
}

TEST(Patterns, NoRankOrShiftRepeatsARunOfFourElements) {
  // Every pair of ranks of P = 64 and every shift of up to 2 000 elements: no run of four
  // elements of one block equals the other's at the place it should be.
  for (int a = 0; a < 64; ++a) {
    for (int b = 0; b < 64; ++b) {
      for (std::size_t shift = 0; shift <= 2000; shift += (shift < 64 ? 1 : 17)) {
        if (a == b && shift == 0) continue;
        EXPECT_FALSE(same_run(a, shift, b, 0, 4)) << "rank " << a << " shifted by " << shift << " and rank " << b;
      }
    }
  }
}

}  // namespace test_patterns_test
}  // namespace ragged
