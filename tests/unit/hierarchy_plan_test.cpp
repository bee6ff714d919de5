// plans::hierarchy: the grouping of ranks by node, the representatives, the slices and the alltoall
// packing between node leaders, executed on sets of block labels over many layouts (P up to 64,
// even, uneven, round-robin and random): every rank must end with the block every rank sent it.
#include "plans/hierarchy_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <utility>
#include <vector>

namespace ragged::plans::hierarchy {
namespace test_hierarchy_plan_test {

/// Node numbers in order of their lowest rank, as NodeLayout keeps them.
std::vector<int> renumbered(const std::vector<int>& raw) {
  std::vector<int> map(raw.size() + 1, -1);
  std::vector<int> out;
  int next = 0;
  for (const int n : raw) {
    if (map[static_cast<std::size_t>(n)] < 0) map[static_cast<std::size_t>(n)] = next++;
    out.push_back(map[static_cast<std::size_t>(n)]);
  }
  return out;
}

std::vector<std::vector<int>> layouts() {
  std::vector<std::vector<int>> out;
  std::mt19937 rng(7);
  for (int p = 1; p <= 64; ++p) {
    for (int m = 1; m <= 5; ++m) {  // m consecutive ranks per node, the last node smaller
      std::vector<int> l;
      for (int r = 0; r < p; ++r) l.push_back(r / m);
      out.push_back(l);
    }
    for (int k = 2; k <= 4; ++k) {  // dealt round-robin to k nodes
      std::vector<int> l;
      for (int r = 0; r < p; ++r) l.push_back(r % k);
      out.push_back(renumbered(l));
    }
    std::vector<int> l;
    std::uniform_int_distribution<int> node(0, std::max(0, p / 3));
    for (int r = 0; r < p; ++r) l.push_back(node(rng));
    out.push_back(renumbered(l));
  }
  out.push_back({0, 0, 0, 1, 1, 1, 1, 1, 2, 2});  // 3+5+2
  out.push_back({0, 1, 1, 1, 1, 2, 2, 3, 3, 3});  // 1+4+2+3
  return out;
}

TEST(HierarchyPlan, SplitIsTheInverseOfNodeAndLocalIndex) {
  for (const auto& l : layouts()) {
    const Split s = split(l);
    ASSERT_EQ(s.procs(), static_cast<int>(l.size()));
    int seen = 0;
    for (int n = 0; n < s.nodes(); ++n) {
      const auto& m = s.members[static_cast<std::size_t>(n)];
      ASSERT_FALSE(m.empty());
      for (std::size_t i = 0; i < m.size(); ++i) {
        EXPECT_EQ(s.node_of[static_cast<std::size_t>(m[i])], n);
        EXPECT_EQ(s.local_of[static_cast<std::size_t>(m[i])], static_cast<int>(i));
        if (i > 0) EXPECT_LT(m[i - 1], m[i]);
        ++seen;
      }
    }
    EXPECT_EQ(seen, s.procs());
    EXPECT_EQ(pays(s), s.nodes() >= 2 && max_per_node(s) >= 2);
  }
}

TEST(HierarchyPlan, RepresentativesAreOnePerNodeWithTheRootOnItsNode) {
  for (const auto& l : layouts()) {
    const Split s = split(l);
    for (int root = -1; root < s.procs(); ++root) {
      const std::vector<int> reps = representatives(s, root);
      ASSERT_EQ(static_cast<int>(reps.size()), s.nodes());
      for (int n = 0; n < s.nodes(); ++n) {
        const int r = reps[static_cast<std::size_t>(n)];
        EXPECT_EQ(s.node_of[static_cast<std::size_t>(r)], n);
        if (root < 0 || s.node_of[static_cast<std::size_t>(root)] != n) {
          EXPECT_EQ(s.local_of[static_cast<std::size_t>(r)], 0);
        } else {
          EXPECT_EQ(r, root);
        }
      }
    }
  }
}

// hierarchical_arrival's representatives: each node's latest rank, the lowest among equals; with
// every arrival equal, the leaders. Checked against a brute force over every rank of the node, with
// arrivals that tie often (a few distinct values) and never.
TEST(HierarchyPlan, LatestRepresentativesAreEachNodesLatestRankLowestOnTies) {
  std::mt19937 rng(11);
  for (const auto& l : layouts()) {
    const Split s = split(l);
    const std::vector<double> equal(l.size(), 2.5);
    EXPECT_EQ(latest_representatives(s, equal), representatives(s));
    for (const int distinct : {2, 3, 1000}) {
      std::vector<double> arrivals;
      for (std::size_t r = 0; r < l.size(); ++r) arrivals.push_back(static_cast<double>(rng() % distinct) * 1e-3);
      const std::vector<int> reps = latest_representatives(s, arrivals);
      const std::vector<double> at = node_arrivals(s, arrivals);
      ASSERT_EQ(static_cast<int>(reps.size()), s.nodes());
      ASSERT_EQ(static_cast<int>(at.size()), s.nodes());
      for (int n = 0; n < s.nodes(); ++n) {
        const int rep = reps[static_cast<std::size_t>(n)];
        EXPECT_EQ(s.node_of[static_cast<std::size_t>(rep)], n);
        EXPECT_EQ(at[static_cast<std::size_t>(n)], arrivals[static_cast<std::size_t>(rep)]);
        for (const int r : s.members[static_cast<std::size_t>(n)]) {
          const double a = arrivals[static_cast<std::size_t>(r)];
          EXPECT_LE(a, arrivals[static_cast<std::size_t>(rep)]);
          if (a == arrivals[static_cast<std::size_t>(rep)]) EXPECT_LE(rep, r);
        }
      }
    }
  }
  // one node 0..3, rank 2 latest; then 1 and 2 tie: the lower
  const Split one = split(std::vector<int>{0, 0, 0, 0});
  EXPECT_EQ(latest_representatives(one, std::vector<double>{0, 1, 3, 2}), std::vector<int>{2});
  EXPECT_EQ(latest_representatives(one, std::vector<double>{0, 3, 3, 2}), std::vector<int>{1});
  EXPECT_EQ(node_arrivals(one, std::vector<double>{0, 3, 3, 2}), std::vector<double>{3});
}

TEST(HierarchyPlan, ConsecutiveEqualOnlyForBySlotEvenNodes) {
  EXPECT_TRUE(consecutive_equal(split(std::vector<int>{0, 0, 1, 1, 2, 2})));
  EXPECT_FALSE(consecutive_equal(split(std::vector<int>{0, 0, 1, 1, 2})));
  EXPECT_FALSE(consecutive_equal(split(std::vector<int>{0, 1, 0, 1})));
  EXPECT_TRUE(consecutive_equal(split(std::vector<int>{0, 1, 2})));
}

TEST(HierarchyPlan, SlicesCoverTheVectorInOrder) {
  for (std::size_t count : {0, 1, 2, 7, 100, 1001}) {
    for (int parts = 1; parts <= 17; ++parts) {
      std::size_t next = 0;
      for (int i = 0; i < parts; ++i) {
        const auto [first, second] = slice(count, parts, i);
        EXPECT_EQ(first, next);
        EXPECT_LE(second - first, count / static_cast<std::size_t>(parts) + 1);
        next = second;
      }
      EXPECT_EQ(next, count);
    }
  }
}

// The alltoall through leaders on labels: block (from, to). Gather, pack, exchange, unpack,
// scatter exactly as alltoall_hierarchical does, and check every rank's row.
TEST(HierarchyPlan, AlltoallPackingDeliversEveryBlock) {
  using Label = std::pair<int, int>;
  for (const auto& l : layouts()) {
    const Split s = split(l);
    const auto p = static_cast<std::size_t>(s.procs());
    const int k = s.nodes();
    // Leader a's message to b, as packed.
    std::vector<std::vector<std::vector<Label>>> sent(static_cast<std::size_t>(k),
                                                      std::vector<std::vector<Label>>(static_cast<std::size_t>(k)));
    for (int a = 0; a < k; ++a) {
      const auto& mine = s.members[static_cast<std::size_t>(a)];
      std::vector<Label> gathered;
      for (const int r : mine) {
        for (std::size_t t = 0; t < p; ++t) gathered.emplace_back(r, static_cast<int>(t));
      }
      for (int b = 0; b < k; ++b) {
        const std::size_t nb = s.members[static_cast<std::size_t>(b)].size();
        ASSERT_EQ(pair_blocks(s, a, b), mine.size() * nb);
        for (std::size_t i = 0; i < mine.size(); ++i) {
          for (std::size_t j = 0; j < nb; ++j) {
            sent[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)].push_back(
                gathered[gathered_index(s, b, i, j)]);
          }
        }
      }
    }
    for (int a = 0; a < k; ++a) {
      const auto& mine = s.members[static_cast<std::size_t>(a)];
      const std::size_t n = mine.size();
      std::vector<Label> rows(n * p, Label{-1, -1});
      for (int b = 0; b < k; ++b) {
        const auto& got = sent[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)];
        const std::size_t nb = s.members[static_cast<std::size_t>(b)].size();
        for (std::size_t j = 0; j < nb; ++j) {
          for (std::size_t i = 0; i < n; ++i) rows[scatter_index(s, b, j, i)] = got[j * n + i];
        }
      }
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t r = 0; r < p; ++r) {
          EXPECT_EQ(rows[i * p + r], Label(static_cast<int>(r), mine[i])) << "node " << a << " row " << i;
        }
      }
    }
  }
}

}  // namespace test_hierarchy_plan_test
}  // namespace ragged::plans::hierarchy
