// The oracle of Träff's trees (Träff 2018) against what the lemmas promise, checked in
// the α-β model independently of how the oracle decides.
#include "plans/traff_tree.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "traff_support.hpp"

namespace test_traff_tree_test {

namespace traff = ragged::plans::traff;
using ragged::test::model_finish;

namespace {

traff::Params params_for(int p, int root, traff::Cost cost = traff::Cost::lemma1, std::int64_t threshold = -1) {
  traff::Params params;
  params.procs = p;
  params.root = root;
  params.cost = cost;
  params.direct_threshold = threshold;
  return params;
}

std::vector<std::int64_t> random_sizes(int p, std::mt19937_64& rng, std::int64_t max, double zero_share) {
  std::uniform_int_distribution<std::int64_t> size(1, max);
  std::bernoulli_distribution zero(zero_share);
  std::vector<std::int64_t> out(static_cast<std::size_t>(p));
  for (auto& m : out) m = zero(rng) ? 0 : size(rng);
  return out;
}

std::int64_t sum(const std::vector<std::int64_t>& v) { return std::accumulate(v.begin(), v.end(), std::int64_t{0}); }

// Every rank is in exactly one subtree, carried amounts add up, and (without
// degradation) every child's subtree is exactly its cube, a run of consecutive ranks.
void check_structure(const std::vector<traff::Node>& tree, const std::vector<std::int64_t>& sizes,
                     const traff::Params& params) {
  const int p = params.procs;
  std::int64_t direct_total = 0;
  for (int i = 0; i < p; ++i) {
    const traff::Node& n = tree[static_cast<std::size_t>(i)];
    std::int64_t expect = sizes[static_cast<std::size_t>(i)];
    for (const traff::Child& c : n.children) {
      const traff::Node& cn = tree[static_cast<std::size_t>(c.rank)];
      ASSERT_EQ(cn.parent, i);
      ASSERT_EQ(cn.level, c.level);
      ASSERT_EQ(cn.carried, c.elements);
      ASSERT_FALSE(cn.direct);
      ASSERT_EQ(c.below, c.rank < i);
      ASSERT_TRUE(c.cube.contains(c.rank));
      expect += c.elements;
      const std::vector<int> members = traff::subtree_ranks(tree, c.rank);
      std::int64_t member_sum = 0;
      for (int m : members) {
        ASSERT_TRUE(c.cube.contains(m));
        member_sum += sizes[static_cast<std::size_t>(m)];
      }
      ASSERT_EQ(member_sum, c.elements);
      if (params.direct_threshold < 0) {
        ASSERT_EQ(static_cast<int>(members.size()), c.cube.size());
      }
    }
    ASSERT_EQ(n.carried, expect) << "rank " << i;
    if (i == params.root) {
      ASSERT_EQ(n.parent, -1);
      ASSERT_EQ(n.level, -1);
    } else {
      ASSERT_GE(n.parent, 0);
      ASSERT_LT(n.parent, p);
      if (n.direct) {
        ASSERT_EQ(n.parent, params.root);
        ASSERT_GT(n.carried, params.direct_threshold);
        direct_total += n.carried;
      }
    }
  }
  ASSERT_EQ(tree[static_cast<std::size_t>(params.root)].carried + direct_total, sum(sizes));
  if (params.direct_threshold < 0) {
    const std::vector<int> all = traff::subtree_ranks(tree, params.root);
    ASSERT_EQ(static_cast<int>(all.size()), p);
  }
}

}  // namespace

TEST(TraffGeometry, CubesPartnersAndFixedRoots) {
  // p = 11: level 2 cubes [0,3] [4,7] [8,10]; [8,10] has no partner at level 2.
  EXPECT_EQ(traff::levels(1), 0);
  EXPECT_EQ(traff::levels(2), 1);
  EXPECT_EQ(traff::levels(11), 4);
  EXPECT_EQ(traff::levels(1024), 10);
  EXPECT_EQ(traff::cube(5, 2, 11), (traff::Range{4, 7}));
  EXPECT_EQ(traff::partner(5, 2, 11), (traff::Range{0, 3}));
  EXPECT_EQ(traff::cube(9, 2, 11), (traff::Range{8, 10}));
  EXPECT_EQ(traff::partner(9, 2, 11).size(), 0);
  EXPECT_EQ(traff::cube(9, 3, 11), (traff::Range{8, 10}));
  EXPECT_EQ(traff::partner(9, 3, 11), (traff::Range{0, 7}));
  EXPECT_EQ(traff::fixed_root(traff::cube(9, 3, 11), 0), 10);
  EXPECT_EQ(traff::fixed_root(traff::cube(9, 3, 11), 9), 9);  // the given root leads its own cubes
  EXPECT_EQ(traff::fixed_root(traff::cube(2, 1, 11), 9), 3);
  EXPECT_EQ(traff::partner(10, 0, 11).size(), 0);
  EXPECT_EQ(traff::partner(10, 1, 11), (traff::Range{8, 9}));
}

TEST(TraffOracle, HandWorkedSameSizes) {
  // p = 4, root 0, all blocks 1. Level 0: 0 takes 1 (root), 3 takes 2 (tie: upper).
  // Level 1: 0 takes 3 with 2 elements.
  const std::vector<std::int64_t> m{1, 1, 1, 1};
  const auto tree = traff::oracle(m, params_for(4, 0));
  ASSERT_EQ(tree[0].children.size(), 2u);
  EXPECT_EQ(tree[0].children[0], (traff::Child{1, 0, 1, false, {1, 1}}));
  EXPECT_EQ(tree[0].children[1], (traff::Child{3, 1, 2, false, {2, 3}}));
  EXPECT_EQ(tree[3].parent, 0);
  EXPECT_EQ(tree[3].children, (std::vector<traff::Child>{{2, 0, 1, true, {2, 2}}}));
  EXPECT_EQ(tree[2].parent, 3);
  EXPECT_EQ(tree[1].parent, 0);
  EXPECT_EQ(tree[0].carried, 4);
}

TEST(TraffOracle, HandWorkedTwoBlocks) {
  // The two-blocks problem of §5, p = 8, root 4: only ranks 0 and 7 hold data, and each
  // block travels once (0 -> 4 and 7 -> 4); every other edge is empty.
  const std::vector<std::int64_t> m{5, 0, 0, 0, 0, 0, 0, 5};
  const auto tree = traff::oracle(m, params_for(8, 4));
  EXPECT_EQ(tree[1].parent, 0);  // level 0: equal estimates (0), less data sends
  EXPECT_EQ(tree[2].parent, 3);  // full tie: the upper cube receives
  EXPECT_EQ(tree[5].parent, 4);  // the root's cube receives
  EXPECT_EQ(tree[6].parent, 7);
  EXPECT_EQ(tree[3].parent, 0);  // level 1: [0,1] carries 5, [2,3] carries 0
  EXPECT_EQ(tree[7].parent, 4);
  EXPECT_EQ(tree[0].parent, 4);  // level 2
  std::int64_t nonempty = 0;
  for (const auto& n : tree)
    for (const auto& c : n.children) nonempty += c.elements > 0 ? 1 : 0;
  EXPECT_EQ(nonempty, 2);
}

TEST(TraffOracle, EstimateRulesDiffer) {
  // p = 8, root 7. Level 0: rank 1 takes rank 0 (equal lemma-1 estimates 0, more data
  // receives; lemma 4: 1 + 9 > 1), rank 3 takes rank 2 (full tie: upper). Level 1, cube
  // [0,1] carries 10 with root block 9, cube [2,3] carries 8 with root block 4:
  // lemma 1 compares 10 - 9 = 1 with 8 - 4 = 4, so rank 3 receives;
  // lemma 4 compares 10 with 8, so rank 1 receives.
  const std::vector<std::int64_t> m{1, 9, 4, 4, 0, 0, 0, 0};
  const auto t1 = traff::oracle(m, params_for(8, 7, traff::Cost::lemma1));
  const auto t4 = traff::oracle(m, params_for(8, 7, traff::Cost::lemma4));
  EXPECT_EQ(t1[0].parent, 1);
  EXPECT_EQ(t4[0].parent, 1);
  EXPECT_EQ(t1[1].parent, 3);
  EXPECT_EQ(t1[1].carried, 10);
  EXPECT_EQ(t4[3].parent, 1);
  EXPECT_EQ(t4[3].carried, 8);
}

// Lemma 1: every gather root other than the given root finishes its cube in exactly
// β Σ_{i in cube, i != g} m_i (α = 0): no root ever waits for its child. Lemma 2: the
// given root finishes in β Σ_{i != r} m_i plus the penalty β (M_d' - m_{r_d'} - Σ_{j<d'} M_j).
// Theorem 1: ⌈log2 p⌉ α when β = 0.
TEST(TraffOracle, LemmasOneTwoAndTheoremOneInTheModel) {
  std::mt19937_64 rng(3);
  for (int p = 1; p <= 300; ++p) {
    for (int trial = 0; trial < 3; ++trial) {
      const int root = static_cast<int>(rng() % static_cast<std::uint64_t>(p));
      const auto m = random_sizes(p, rng, trial == 0 ? 10 : 1000, trial == 2 ? 0.5 : 0.0);
      const traff::Params params = params_for(p, root);
      const auto tree = traff::oracle(m, params);
      check_structure(tree, m, params);
      for (int v = 0; v < p; ++v) {
        if (v == root) continue;
        const double t = model_finish(tree, m, v, 0.0, 1.0, false);
        ASSERT_EQ(t, static_cast<double>(tree[static_cast<std::size_t>(v)].carried - m[static_cast<std::size_t>(v)]))
            << "p " << p << " rank " << v;
      }
      double penalty = 0;
      double before = 0;
      for (const traff::Child& c : tree[static_cast<std::size_t>(root)].children) {
        penalty = std::max(penalty, static_cast<double>(c.elements - m[static_cast<std::size_t>(c.rank)]) - before);
        before += static_cast<double>(c.elements);
      }
      const double others = static_cast<double>(sum(m) - m[static_cast<std::size_t>(root)]);
      ASSERT_EQ(model_finish(tree, m, root, 0.0, 1.0, false), others + penalty) << "p " << p;
      ASSERT_LE(model_finish(tree, m, root, 1.0, 0.0, false), traff::levels(p)) << "p " << p;
    }
  }
}

// Lemma 4: with a copy of the own block (cost β m_i), every gather root other than the
// given root finishes in β Σ_{i in cube} m_i.
TEST(TraffOracle, LemmaFourInTheModel) {
  std::mt19937_64 rng(4);
  for (int p = 1; p <= 300; ++p) {
    const int root = static_cast<int>(rng() % static_cast<std::uint64_t>(p));
    const auto m = random_sizes(p, rng, 1000, 0.2);
    const traff::Params params = params_for(p, root, traff::Cost::lemma4);
    const auto tree = traff::oracle(m, params);
    check_structure(tree, m, params);
    for (int v = 0; v < p; ++v) {
      if (v == root) continue;
      ASSERT_EQ(model_finish(tree, m, v, 0.0, 1.0, true),
                static_cast<double>(tree[static_cast<std::size_t>(v)].carried))
          << "p " << p << " rank " << v;
    }
  }
}

// A fixed binomial tree can pay ⌈log2 p⌉ β m for one far block; Träff's tree sends it once.
TEST(TraffOracle, FarBlockTravelsOnce) {
  for (int p = 2; p <= 256; ++p) {
    std::vector<std::int64_t> m(static_cast<std::size_t>(p), 0);
    m[static_cast<std::size_t>(p - 1)] = 1000;
    const auto tree = traff::oracle(m, params_for(p, 0));
    ASSERT_EQ(model_finish(tree, m, 0, 0.0, 1.0, false), 1000.0);
  }
}

TEST(TraffOracle, DegradationThresholds) {
  std::mt19937_64 rng(5);
  for (int p = 1; p <= 200; ++p) {
    const int root = static_cast<int>(rng() % static_cast<std::uint64_t>(p));
    const auto m = random_sizes(p, rng, 100, 0.3);
    // Off (negative) and a threshold nobody reaches give the plain tree.
    const auto plain = traff::oracle(m, params_for(p, root));
    EXPECT_EQ(traff::oracle(m, params_for(p, root, traff::Cost::lemma1, sum(m))), plain);
    // Threshold 0: every non-empty block goes straight to the root: the linear algorithm.
    const traff::Params zero = params_for(p, root, traff::Cost::lemma1, 0);
    const auto linear = traff::oracle(m, zero);
    check_structure(linear, m, zero);
    for (int i = 0; i < p; ++i) {
      if (i == root || m[static_cast<std::size_t>(i)] == 0) continue;
      ASSERT_EQ(linear[static_cast<std::size_t>(i)].parent, root) << "p " << p << " rank " << i;
      ASSERT_EQ(linear[static_cast<std::size_t>(i)].carried, m[static_cast<std::size_t>(i)]);
    }
    // In between: senders above the threshold go direct, the rest forward as usual.
    const std::int64_t t = 150;
    const traff::Params mid = params_for(p, root, traff::Cost::lemma1, t);
    const auto tree = traff::oracle(m, mid);
    check_structure(tree, m, mid);
    for (int i = 0; i < p; ++i) {
      const traff::Node& n = tree[static_cast<std::size_t>(i)];
      if (i == root) continue;
      if (n.parent != root) ASSERT_LE(n.carried, t) << "p " << p << " rank " << i;
    }
  }
}

TEST(TraffLayout, ChildrenAroundTheOwnBlockInRankOrder) {
  // Rank 5 at p = 16 receives {4} (level 0, below), [6,7] (level 1, above),
  // [0,3] (level 2, below): buffer = [0..3] [4] [5] [6,7].
  traff::Node n;
  n.children = {{4, 0, 10, true, {4, 4}}, {7, 1, 20, false, {6, 7}}, {2, 2, 40, true, {0, 3}}};
  const traff::Layout l = traff::layout(n, 3);
  EXPECT_EQ(l.own, 50);
  EXPECT_EQ(l.child, (std::vector<std::int64_t>{40, 53, 0}));
}

}  // namespace test_traff_tree_test
