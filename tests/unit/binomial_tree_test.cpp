// The binomial tree of plans/binomial_tree.hpp, checked exhaustively in absolute
// ranks for every P <= 300 and every root.
#include "plans/binomial_tree.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ragged::plans::binomial {
namespace test_binomial_tree_test {

constexpr int max_procs = 300;

struct AbsoluteTree {
  std::vector<int> parent;                 // -1 for the root
  std::vector<std::vector<int>> children;  // absolute, in the order children() gives
};

/// children(v, procs) for every relative rank v: the same for every root.
std::vector<std::vector<int>> relative_children(int procs) {
  std::vector<std::vector<int>> kids;
  for (int v = 0; v < procs; ++v) kids.push_back(children(v, procs));
  return kids;
}

/// The tree in absolute ranks, built with relative(), parent() and absolute().
void build(int procs, int root, const std::vector<std::vector<int>>& kids, AbsoluteTree& t) {
  t.parent.assign(static_cast<unsigned>(procs), -2);
  t.children.resize(static_cast<unsigned>(procs));
  for (int rank = 0; rank < procs; ++rank) {
    const int v = relative(rank, root, procs);
    const int pv = parent(v);
    t.parent[static_cast<unsigned>(rank)] = pv < 0 ? -1 : absolute(pv, root, procs);
    auto& out = t.children[static_cast<unsigned>(rank)];
    out.clear();
    for (int c : kids[static_cast<unsigned>(v)]) out.push_back(absolute(c, root, procs));
  }
}

TEST(BinomialTree, RelativeAndAbsoluteAreInverse) {
  for (int procs = 1; procs <= max_procs; ++procs) {
    for (int root = 0; root < procs; ++root) {
      EXPECT_EQ(relative(root, root, procs), 0);
      for (int rank = 0; rank < procs; ++rank) {
        const int v = relative(rank, root, procs);
        ASSERT_GE(v, 0);
        ASSERT_LT(v, procs);
        ASSERT_EQ(v, ((rank - root) % procs + procs) % procs);
        ASSERT_EQ(absolute(v, root, procs), rank);
      }
    }
  }
}

TEST(BinomialTree, EveryRankButTheRootHasExactlyOneParentThatListsIt) {
  for (int procs = 1; procs <= max_procs; ++procs) {
    const auto kids = relative_children(procs);
    AbsoluteTree t;
    for (int root = 0; root < procs; ++root) {
      build(procs, root, kids, t);
      std::vector<int> times_child(static_cast<unsigned>(procs), 0);
      for (int rank = 0; rank < procs; ++rank) {
        for (int c : t.children[static_cast<unsigned>(rank)]) {
          ASSERT_GE(c, 0);
          ASSERT_LT(c, procs);
          ++times_child[static_cast<unsigned>(c)];
          ASSERT_EQ(t.parent[static_cast<unsigned>(c)], rank) << "P=" << procs << " root=" << root;
        }
      }
      for (int rank = 0; rank < procs; ++rank) {
        const auto r = static_cast<unsigned>(rank);
        if (rank == root) {
          ASSERT_EQ(t.parent[r], -1);
          ASSERT_EQ(times_child[r], 0);
        } else {
          ASSERT_GE(t.parent[r], 0) << "P=" << procs << " root=" << root << " rank=" << rank;
          ASSERT_EQ(times_child[r], 1) << "P=" << procs << " root=" << root << " rank=" << rank;
        }
      }
    }
  }
}

TEST(BinomialTree, IsConnectedAndNoDeeperThanCeilLog2P) {
  for (int procs = 1; procs <= max_procs; ++procs) {
    const auto kids = relative_children(procs);
    AbsoluteTree t;
    for (int root = 0; root < procs; ++root) {
      build(procs, root, kids, t);
      std::vector<int> depth(static_cast<unsigned>(procs), -1);
      std::vector<int> queue{root};
      depth[static_cast<unsigned>(root)] = 0;
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const int u = queue[head];
        for (int c : t.children[static_cast<unsigned>(u)]) {
          ASSERT_EQ(depth[static_cast<unsigned>(c)], -1) << "reached twice";
          depth[static_cast<unsigned>(c)] = depth[static_cast<unsigned>(u)] + 1;
          queue.push_back(c);
        }
      }
      ASSERT_EQ(static_cast<int>(queue.size()), procs) << "P=" << procs << " root=" << root;
      int deepest = 0;
      for (int d : depth) deepest = d > deepest ? d : deepest;
      ASSERT_LE(deepest, rounds(procs));
      ASSERT_EQ(static_cast<int>(t.children[static_cast<unsigned>(root)].size()), rounds(procs));
    }
  }
}

TEST(BinomialTree, SubtreesAreContiguousRelativeRangesWhoseSizesSumUp) {
  for (int procs = 1; procs <= max_procs; ++procs) {
    ASSERT_EQ(subtree_size(0, procs), procs);
    for (int v = 0; v < procs; ++v) {
      const int size = subtree_size(v, procs);
      ASSERT_GE(size, 1);
      ASSERT_LE(v + size, procs);
      const std::vector<int> kids = children(v, procs);
      ASSERT_EQ(static_cast<int>(kids.size()), child_count(v, procs));
      // The children's subtrees tile (v, v + size) without gaps, in list order.
      int next = v + 1;
      int sum = 1;
      for (int c : kids) {
        ASSERT_EQ(c, next) << "P=" << procs << " v=" << v;
        next += subtree_size(c, procs);
        sum += subtree_size(c, procs);
      }
      ASSERT_EQ(next, v + size) << "P=" << procs << " v=" << v;
      ASSERT_EQ(sum, size);
    }
  }
}

TEST(BinomialTree, ChildrenComeNearestFirstWithSubtreesOfOneTwoFour) {
  for (int procs = 1; procs <= max_procs; ++procs) {
    for (int v = 0; v < procs; ++v) {
      const std::vector<int> kids = children(v, procs);
      for (std::size_t i = 0; i < kids.size(); ++i) {
        // The i-th child sits at distance 2^i and its subtree holds 2^i ranks; only the
        // last child's subtree may be cut short by the end of the ranks.
        ASSERT_EQ(kids[i] - v, 1 << i) << "P=" << procs << " v=" << v;
        if (i + 1 < kids.size()) {
          ASSERT_EQ(subtree_size(kids[i], procs), 1 << i) << "P=" << procs << " v=" << v;
        } else {
          ASSERT_LE(subtree_size(kids[i], procs), 1 << i);
          ASSERT_EQ(kids[i] + subtree_size(kids[i], procs), v + subtree_size(v, procs));
        }
      }
    }
  }
}

TEST(BinomialTree, MatchesAHandDrawnTreeForThirteenRanks) {
  // The picture in binomial_tree.hpp.
  EXPECT_EQ(children(0, 13), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(children(1, 13), (std::vector<int>{}));
  EXPECT_EQ(children(2, 13), (std::vector<int>{3}));
  EXPECT_EQ(children(4, 13), (std::vector<int>{5, 6}));
  EXPECT_EQ(children(6, 13), (std::vector<int>{7}));
  EXPECT_EQ(children(8, 13), (std::vector<int>{9, 10, 12}));
  EXPECT_EQ(children(10, 13), (std::vector<int>{11}));
  EXPECT_EQ(children(12, 13), (std::vector<int>{}));
  EXPECT_EQ(subtree_size(8, 13), 5);
  EXPECT_EQ(subtree_size(12, 13), 1);
  EXPECT_EQ(parent(12), 8);
  EXPECT_EQ(parent(7), 6);
  EXPECT_EQ(parent(0), -1);
  // With root 5, absolute rank 4 is relative rank 12.
  EXPECT_EQ(relative(4, 5, 13), 12);
  EXPECT_EQ(absolute(parent(relative(4, 5, 13)), 5, 13), 0);
}

TEST(BinomialTree, RoundsIsCeilLog2) {
  EXPECT_EQ(rounds(1), 0);
  EXPECT_EQ(rounds(2), 1);
  EXPECT_EQ(rounds(3), 2);
  EXPECT_EQ(rounds(4), 2);
  EXPECT_EQ(rounds(5), 3);
  EXPECT_EQ(rounds(256), 8);
  EXPECT_EQ(rounds(257), 9);
  EXPECT_EQ(ceil_pow2(1), 1);
  EXPECT_EQ(ceil_pow2(33), 64);
}

}  // namespace test_binomial_tree_test
}  // namespace ragged::plans::binomial
