// The power-of-two fold and recursive-doubling partners, executed on
// contribution counts for every P up to 300: every rank ends with every
// rank's contribution exactly once.
#include "plans/recursive_doubling_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace test_recursive_doubling_plan_test {

namespace rd = ragged::plans::recursive;

namespace {

TEST(RecursiveDoublingPlan, PowersOfTwo) {
  EXPECT_EQ(rd::pof2(1), 1);
  EXPECT_EQ(rd::pof2(2), 2);
  EXPECT_EQ(rd::pof2(3), 2);
  EXPECT_EQ(rd::pof2(7), 4);
  EXPECT_EQ(rd::pof2(8), 8);
  EXPECT_EQ(rd::pof2(33), 32);
  for (int p = 1; p <= 300; ++p) {
    EXPECT_LE(rd::pof2(p), p);
    EXPECT_GT(2 * rd::pof2(p), p);
    EXPECT_EQ(1 << rd::steps(p), rd::pof2(p));
    EXPECT_EQ(rd::rem(p), p - rd::pof2(p));
  }
}

TEST(RecursiveDoublingPlan, VirtualRanksAreABijection) {
  for (int p = 1; p <= 300; ++p) {
    std::vector<int> seen(static_cast<std::size_t>(rd::pof2(p)), 0);
    int sitting_out = 0;
    for (int r = 0; r < p; ++r) {
      const int v = rd::vrank(r, p);
      const int f = rd::fold_partner(r, p);
      if (f >= 0) {
        EXPECT_EQ(rd::fold_partner(f, p), r);
        EXPECT_EQ(f / 2, r / 2) << "folds inside a pair";
      }
      if (v < 0) {
        ++sitting_out;
        EXPECT_GE(f, 0) << "a rank that sits out has someone to hand its data to";
        EXPECT_GE(rd::vrank(f, p), 0);
        continue;
      }
      ASSERT_LT(v, rd::pof2(p));
      EXPECT_EQ(rd::real_rank(v, p), r);
      ++seen[static_cast<std::size_t>(v)];
    }
    EXPECT_EQ(sitting_out, rd::rem(p));
    for (int n : seen) EXPECT_EQ(n, 1);
  }
}

TEST(RecursiveDoublingPlan, EveryRankGetsEveryContributionOnce) {
  for (int p = 1; p <= 300; ++p) {
    const auto up = static_cast<std::size_t>(p);
    std::vector<std::vector<int>> c(up, std::vector<int>(up, 0));  // c[r][x]: copies of x's data on r
    for (std::size_t r = 0; r < up; ++r) c[r][r] = 1;
    const auto add = [&](std::vector<int>& to, const std::vector<int>& from) {
      for (std::size_t x = 0; x < up; ++x) to[x] += from[x];
    };
    for (int r = 0; r < p; ++r) {
      if (rd::vrank(r, p) < 0) add(c[static_cast<std::size_t>(rd::fold_partner(r, p))], c[static_cast<std::size_t>(r)]);
    }
    for (int mask = 1; mask < rd::pof2(p); mask <<= 1) {
      auto next = c;
      for (int r = 0; r < p; ++r) {
        const int v = rd::vrank(r, p);
        if (v < 0) continue;
        const int peer = rd::partner(v, mask, p);
        ASSERT_EQ(rd::partner(rd::vrank(peer, p), mask, p), r);
        add(next[static_cast<std::size_t>(r)], c[static_cast<std::size_t>(peer)]);
      }
      c = next;
    }
    for (int r = 0; r < p; ++r) {
      if (rd::vrank(r, p) < 0) c[static_cast<std::size_t>(r)] = c[static_cast<std::size_t>(rd::fold_partner(r, p))];
    }
    for (std::size_t r = 0; r < up; ++r) {
      for (std::size_t x = 0; x < up; ++x) EXPECT_EQ(c[r][x], 1) << "p=" << p << " r=" << r << " x=" << x;
    }
  }
}

TEST(RecursiveDoublingPlan, FirstRanksCutTheBlocksIntoOneRunPerVirtualRankHoldingItsRealRank) {
  for (int p = 1; p <= 300; ++p) {
    EXPECT_EQ(rd::first_rank(0, p), 0);
    EXPECT_EQ(rd::first_rank(rd::pof2(p), p), p);
    for (int v = 0; v < rd::pof2(p); ++v) {
      const int first = rd::first_rank(v, p);
      const int end = rd::first_rank(v + 1, p);
      EXPECT_EQ(end - first, v < rd::rem(p) ? 2 : 1) << "p=" << p << " v=" << v;
      EXPECT_EQ(rd::real_rank(v, p), end - 1) << "p=" << p << " v=" << v;  // the run ends with the rank itself
      if (end - first == 2) EXPECT_EQ(rd::fold_partner(end - 1, p), first);
    }
  }
}

}  // namespace

}  // namespace test_recursive_doubling_plan_test
