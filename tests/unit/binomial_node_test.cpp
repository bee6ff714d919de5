// node(), subtree_ranks() and head() of plans/binomial_tree.hpp: a gather and a scatter run
// on sets of block numbers, for every P <= 300 and every root, end with every block where it
// belongs (the gather's root holds block i at position i; every rank of the scatter its own).
#include <gtest/gtest.h>

#include <vector>

#include "plans/binomial_tree.hpp"

namespace ragged::plans::binomial {
namespace test_binomial_node_test {

constexpr int max_procs = 300;

using Blocks = std::vector<int>;  // block numbers (= the ranks they belong to)

/// The run `rank` sends its parent in a gather: its own block, then each child's run at the
/// child's offset (checked against what node() says).
Blocks gather_run(const std::vector<Node>& nodes, int rank) {
  const Node& n = nodes[static_cast<unsigned>(rank)];
  Blocks run(static_cast<unsigned>(n.size), -1);
  run[0] = rank;
  for (const Edge& c : n.children) {
    const Blocks sub = gather_run(nodes, c.rank);
    EXPECT_EQ(static_cast<int>(sub.size()), c.size);
    EXPECT_EQ(nodes[static_cast<unsigned>(c.rank)].parent, rank);
    EXPECT_EQ(nodes[static_cast<unsigned>(c.rank)].vrank, c.vrank);
    for (int j = 0; j < c.size; ++j) {
      EXPECT_EQ(run[static_cast<unsigned>(c.offset + j)], -1);  // runs do not overlap
      run[static_cast<unsigned>(c.offset + j)] = sub[static_cast<unsigned>(j)];
    }
  }
  return run;
}

/// The scatter below `rank`, which received `run`: keeps block 0, forwards each child's part.
void scatter_from(const std::vector<Node>& nodes, int rank, const Blocks& run, std::vector<int>& kept) {
  const Node& n = nodes[static_cast<unsigned>(rank)];
  ASSERT_EQ(static_cast<int>(run.size()), n.size);
  kept[static_cast<unsigned>(rank)] = run[0];
  for (const Edge& c : n.children) {
    const Blocks sub(run.begin() + c.offset, run.begin() + c.offset + c.size);
    scatter_from(nodes, c.rank, sub, kept);
  }
}

std::vector<Node> nodes_of(int procs, int root) {
  std::vector<Node> nodes;
  for (int rank = 0; rank < procs; ++rank) nodes.push_back(node(rank, root, procs));
  return nodes;
}

TEST(BinomialNode, GatherPutsEveryBlockInPlaceAtTheRoot) {
  for (int procs = 1; procs <= max_procs; ++procs) {
    for (int root = 0; root < procs; ++root) {
      const std::vector<Node> nodes = nodes_of(procs, root);
      const Node& top = nodes[static_cast<unsigned>(root)];
      ASSERT_EQ(top.parent, -1);
      ASSERT_EQ(top.size, procs);
      Blocks recvbuf(static_cast<unsigned>(procs), -1);
      recvbuf[static_cast<unsigned>(root)] = root;
      for (const Edge& c : top.children) {
        const Blocks run = gather_run(nodes, c.rank);
        ASSERT_EQ(subtree_ranks(c.vrank, root, procs), run);
        // The root's placement: the run starts at block c.rank and wraps after head() blocks.
        const int head_blocks = head(c.rank, c.size, procs);
        for (int j = 0; j < c.size; ++j) {
          const int at = j < head_blocks ? c.rank + j : j - head_blocks;
          ASSERT_EQ(recvbuf[static_cast<unsigned>(at)], -1);
          recvbuf[static_cast<unsigned>(at)] = run[static_cast<unsigned>(j)];
        }
      }
      for (int i = 0; i < procs; ++i) ASSERT_EQ(recvbuf[static_cast<unsigned>(i)], i) << procs << " " << root;
    }
  }
}

TEST(BinomialNode, ScatterGivesEveryRankItsBlock) {
  for (int procs = 1; procs <= max_procs; ++procs) {
    for (int root = 0; root < procs; ++root) {
      const std::vector<Node> nodes = nodes_of(procs, root);
      std::vector<int> kept(static_cast<unsigned>(procs), -1);
      kept[static_cast<unsigned>(root)] = root;
      for (const Edge& c : nodes[static_cast<unsigned>(root)].children) {
        // The root's packing: blocks c.rank.. up to P-1, then from block 0.
        const int head_blocks = head(c.rank, c.size, procs);
        Blocks run;
        for (int j = 0; j < c.size; ++j) run.push_back(j < head_blocks ? c.rank + j : j - head_blocks);
        scatter_from(nodes, c.rank, run, kept);
      }
      for (int i = 0; i < procs; ++i) ASSERT_EQ(kept[static_cast<unsigned>(i)], i) << procs << " " << root;
    }
  }
}

TEST(BinomialNode, AgreesWithTheRelativeTree) {
  for (int procs = 1; procs <= 64; ++procs) {
    for (int root = 0; root < procs; ++root) {
      for (int rank = 0; rank < procs; ++rank) {
        const Node n = node(rank, root, procs);
        const int v = relative(rank, root, procs);
        EXPECT_EQ(n.vrank, v);
        EXPECT_EQ(n.size, subtree_size(v, procs));
        const std::vector<int> kids = children(v, procs);
        ASSERT_EQ(n.children.size(), kids.size());
        for (std::size_t k = 0; k < kids.size(); ++k) {
          EXPECT_EQ(n.children[k].vrank, kids[k]);
          EXPECT_EQ(n.children[k].rank, absolute(kids[k], root, procs));
          EXPECT_EQ(n.children[k].offset, kids[k] - v);
        }
      }
    }
  }
}

TEST(BinomialNode, HeadCountsTheBlocksBeforeTheWrap) {
  EXPECT_EQ(head(0, 8, 8), 8);
  EXPECT_EQ(head(6, 2, 8), 2);
  EXPECT_EQ(head(6, 4, 8), 2);
  EXPECT_EQ(head(7, 1, 8), 1);
  EXPECT_EQ(head(5, 0, 8), 0);
}

}  // namespace test_binomial_node_test
}  // namespace ragged::plans::binomial
