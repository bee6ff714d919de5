// The two trees of bcast "double_tree": for every n up to 200, each is a binary tree over the
// nodes 1..n whose parent and child links agree, no deeper than depth(n); no node is an inner
// node of both; and the segment count stays within its bounds, even where it can be.
#include "plans/double_tree_plan.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <vector>

namespace test_double_tree_plan_test {

namespace trees = ragged::plans::double_tree;

namespace {

/// Levels below the root of node x in `tree` over 1..n, by walking its parents (-1 on a cycle).
int level(int tree, int x, int n) {
  int steps = 0;
  for (int y = x; trees::parent(tree, y, n) != trees::none; y = trees::parent(tree, y, n)) {
    if (++steps > n) return -1;
  }
  return steps;
}

TEST(DoubleTreePlan, EachTreeIsABinaryTreeOverEveryNode) {
  for (int n = 1; n <= 200; ++n) {
    for (int tree = 0; tree < 2; ++tree) {
      const int top = trees::root(tree, n);
      ASSERT_GE(top, 1);
      ASSERT_LE(top, n);
      EXPECT_EQ(trees::parent(tree, top, n), trees::none) << "n=" << n << " tree " << tree;
      std::vector<int> parent_count(static_cast<std::size_t>(n) + 1, 0);
      for (int x = 1; x <= n; ++x) {
        const int p = trees::parent(tree, x, n);
        if (x != top) {
          ASSERT_GE(p, 1) << "n=" << n << " tree " << tree << " node " << x;
          ASSERT_LE(p, n);
          const std::array<int, 2> siblings = trees::children(tree, p, n);
          EXPECT_TRUE(siblings[0] == x || siblings[1] == x) << "n=" << n << " tree " << tree << " node " << x;
        }
        for (const int c : trees::children(tree, x, n)) {
          if (c == trees::none) continue;
          ASSERT_GE(c, 1);
          ASSERT_LE(c, n);
          EXPECT_EQ(trees::parent(tree, c, n), x) << "n=" << n << " tree " << tree << " child " << c;
          ++parent_count[static_cast<std::size_t>(c)];
        }
        const int l = level(tree, x, n);
        EXPECT_GE(l, 0) << "n=" << n << " tree " << tree << " node " << x << " is on a cycle";
        EXPECT_LE(l, trees::depth(n)) << "n=" << n << " tree " << tree << " node " << x;
      }
      for (int x = 1; x <= n; ++x) EXPECT_EQ(parent_count[static_cast<std::size_t>(x)], x == top ? 0 : 1);
    }
  }
}

TEST(DoubleTreePlan, NoNodeIsInnerInBothTrees) {
  for (int n = 1; n <= 200; ++n) {
    int inner_somewhere = 0;
    for (int x = 1; x <= n; ++x) {
      bool inner[2];
      for (int tree = 0; tree < 2; ++tree) {
        const std::array<int, 2> c = trees::children(tree, x, n);
        inner[tree] = c[0] != trees::none || c[1] != trees::none;
      }
      EXPECT_FALSE(inner[0] && inner[1]) << "n=" << n << " node " << x;
      inner_somewhere += inner[0] || inner[1] ? 1 : 0;
    }
    // Every node forwards in one of the trees, but node 1 when n is odd (a leaf of both).
    EXPECT_EQ(inner_somewhere, n - n % 2) << "n=" << n;
  }
}

TEST(DoubleTreePlan, TheSmallTreesAreTheDrawnOnes) {
  // n = 6, as drawn at the top of double_tree_plan.hpp.
  EXPECT_EQ(trees::root(0, 6), 4);
  EXPECT_EQ(trees::children(0, 4, 6), (std::array<int, 2>{2, 6}));
  EXPECT_EQ(trees::children(0, 2, 6), (std::array<int, 2>{1, 3}));
  EXPECT_EQ(trees::children(0, 6, 6), (std::array<int, 2>{5, trees::none}));
  EXPECT_EQ(trees::root(1, 6), 3);
  EXPECT_EQ(trees::children(1, 3, 6), (std::array<int, 2>{5, 1}));
  EXPECT_EQ(trees::children(1, 5, 6), (std::array<int, 2>{6, 4}));
  EXPECT_EQ(trees::children(1, 1, 6), (std::array<int, 2>{2, trees::none}));
  // n = 1: the one node is both roots.
  EXPECT_EQ(trees::root(0, 1), 1);
  EXPECT_EQ(trees::root(1, 1), 1);
  EXPECT_EQ(trees::depth(1), 0);
  EXPECT_EQ(trees::depth(47), 5);
}

TEST(DoubleTreePlan, SegmentCountsStayWithinTheirBounds) {
  for (const int procs : {1, 2, 3, 4, 7, 28, 48, 300}) {
    for (const std::size_t bytes :
         {std::size_t{0}, std::size_t{1}, std::size_t{1024}, std::size_t{2048}, std::size_t{3000}, std::size_t{65536},
          std::size_t{1} << 20, std::size_t{1} << 30}) {
      const std::size_t n = trees::segment_count(bytes, procs);
      EXPECT_GE(n, 1U);
      if (procs <= 2) EXPECT_EQ(n, 1U);
      if (n > 1) {
        EXPECT_GE(bytes / n, ragged::plans::pipelined_chain::min_segment_bytes) << "P=" << procs << " bytes=" << bytes;
        if (bytes / ragged::plans::pipelined_chain::min_segment_bytes >= n + 1) EXPECT_EQ(n % 2, 0U);
      }
    }
  }
  // Large messages: many segments, smaller ones for more levels (a longer fill to amortise).
  EXPECT_GT(trees::segment_count(std::size_t{8} << 20, 48), 20U);
  EXPECT_LT(trees::segment_count(std::size_t{8} << 20, 4), trees::segment_count(std::size_t{8} << 20, 300));
  // A filling source takes shorter segments (about twice as many), within the same bounds.
  for (const int procs : {4, 8, 28, 48}) {
    for (const std::size_t bytes : {std::size_t{64} << 10, std::size_t{1} << 20, std::size_t{8} << 20}) {
      const std::size_t plain = trees::segment_count(bytes, procs);
      const std::size_t streamed = trees::segment_count(bytes, procs, true);
      EXPECT_GE(streamed, plain) << "P=" << procs << " bytes=" << bytes;
      EXPECT_LE(streamed, 2 * plain + 2) << "P=" << procs << " bytes=" << bytes;
      EXPECT_GE(bytes / streamed, ragged::plans::pipelined_chain::min_segment_bytes);
    }
  }
  EXPECT_GT(trees::segment_count(std::size_t{8} << 20, 28, true), trees::segment_count(std::size_t{8} << 20, 28));
  // Whole elements, covering the message.
  for (const std::size_t count : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{262144}}) {
    const std::size_t per = trees::segment_elements(count, 4, 28);
    EXPECT_GE(per, 1U);
    EXPECT_GE(ragged::plans::pipelined_chain::segments(count, per) * per, count);
  }
}

}  // namespace

}  // namespace test_double_tree_plan_test
