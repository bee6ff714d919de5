// The arithmetic of the threshold broadcast and reduce (plans/threshold_plan.hpp): the data a
// data threshold keeps, the stages and ranks a process threshold keeps, and the tree facts the
// protocol relies on, for every P up to 300.
#include "plans/threshold_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <vector>

#include "plans/binomial_tree.hpp"

namespace ragged::plans::threshold {
namespace test_threshold_plan_test {

constexpr int max_procs = 300;

TEST(ThresholdPlan, ElementsAreTheCeilingOfTheFraction) {
  EXPECT_EQ(elements(1.0, 0), 0U);
  EXPECT_EQ(elements(0.25, 0), 0U);
  EXPECT_EQ(elements(0.25, 1), 1U);
  EXPECT_EQ(elements(0.25, 7), 2U);  // 1.75
  EXPECT_EQ(elements(0.5, 7), 4U);   // 3.5
  EXPECT_EQ(elements(0.75, 7), 6U);  // 5.25
  EXPECT_EQ(elements(1.0, 7), 7U);
  EXPECT_EQ(elements(0.25, 1000000), 250000U);
  EXPECT_EQ(elements(0.1, 10), 1U);    // 1.0000000000000000 in double
  EXPECT_EQ(elements(0.07, 100), 7U);  // 7.000000000000001 in double: snapped, not 8
  EXPECT_EQ(elements(0.3, 10), 3U);    // 3.0000000000000004 in double
  EXPECT_EQ(elements(1e-300, 5), 1U);  // a positive threshold keeps at least one
  EXPECT_EQ(elements(0.999999, 10), 10U);
  EXPECT_EQ(elements(0.333, 1000), 333U);
  EXPECT_EQ(elements(0.3331, 1000), 334U);  // 333.1
}

TEST(ThresholdPlan, ElementsAreMonotoneAndBounded) {
  for (std::size_t count : {1U, 2U, 3U, 7U, 100U, 1023U}) {
    std::size_t last = 0;
    for (int k = 1; k <= 100; ++k) {
      const double t = k / 100.0;
      const std::size_t m = elements(t, count);
      EXPECT_GE(m, 1U);
      EXPECT_LE(m, count);
      EXPECT_GE(m, last) << "count " << count << " t " << t;
      EXPECT_GE(static_cast<double>(m), t * static_cast<double>(count) - 1e-6);
      EXPECT_LT(static_cast<double>(m) - 1, t * static_cast<double>(count));
      last = m;
    }
    EXPECT_EQ(elements(1.0, count), count);
  }
}

TEST(ThresholdPlan, StageOfIsOnePlusTheHighestBit) {
  EXPECT_EQ(stage_of(0), 0);
  EXPECT_EQ(stage_of(1), 1);
  EXPECT_EQ(stage_of(2), 2);
  EXPECT_EQ(stage_of(3), 2);
  EXPECT_EQ(stage_of(4), 3);
  EXPECT_EQ(stage_of(7), 3);
  EXPECT_EQ(stage_of(8), 4);
  EXPECT_EQ(stage_of(255), 8);
}

TEST(ThresholdPlan, ContributorsForThePapersThirtyTwoRanks) {
  // Iakymchuk et al. 2021, fig. 10: with 32 ranks, 75 % and 100 % keep the same stages (the last stage
  // brings half the ranks).
  EXPECT_EQ(contributors(0.25, 32), 8);
  EXPECT_EQ(contributors(0.5, 32), 16);
  EXPECT_EQ(contributors(0.75, 32), 32);
  EXPECT_EQ(contributors(1.0, 32), 32);
  EXPECT_EQ(contributors(0.26, 32), 16);  // 9 ranks needed
  EXPECT_EQ(contributors(0.25, 33), 16);  // 9 ranks needed
  EXPECT_EQ(contributors(0.5, 33), 32);   // 17 needed
  EXPECT_EQ(contributors(0.51, 33), 32);  // 17 needed: 32 is enough
  EXPECT_EQ(contributors(0.97, 33), 33);  // 33 needed (32.01)
  EXPECT_EQ(contributors(0.99, 33), 33);
  EXPECT_EQ(contributors(0.25, 5), 2);  // 2 needed
  EXPECT_EQ(contributors(0.5, 5), 4);   // 3 needed
  EXPECT_EQ(contributors(0.75, 5), 4);  // 4 needed
  EXPECT_EQ(contributors(0.8, 5), 4);   // 4 needed
  EXPECT_EQ(contributors(0.81, 5), 5);  // 5 needed
  EXPECT_EQ(contributors(1e-9, 9), 1);  // the root alone
}

TEST(ThresholdPlan, ContributorsAreTheFewestWholeStagesThatSuffice) {
  for (int procs = 1; procs <= max_procs; ++procs) {
    for (int k = 1; k <= 100; ++k) {
      const double t = k / 100.0;
      const int n = contributors(t, procs);
      const auto needed = static_cast<int>(elements(t, static_cast<std::size_t>(procs)));
      ASSERT_GE(n, needed) << "P " << procs << " t " << t;
      ASSERT_LE(n, procs);
      // whole stages: a power of two, or all the ranks
      ASSERT_TRUE(n == procs || (n & (n - 1)) == 0) << "P " << procs << " t " << t << " n " << n;
      // the fewest: one stage less is not enough
      const int s = stages(t, procs);
      ASSERT_EQ(involved(s, procs), n);
      if (s > 0) ASSERT_LT(involved(s - 1, procs), needed) << "P " << procs << " t " << t;
    }
    EXPECT_EQ(contributors(1.0, procs), procs);
  }
}

TEST(ThresholdPlan, KeptRanksFormTheTreeOfTheirOwnNumber) {
  // Dropping the last stages leaves a binomial tree with the same parents: for every kept
  // rank, its parent is kept, and its children in the tree of n ranks are exactly its
  // children in the tree of P ranks that are kept.
  for (int procs = 1; procs <= max_procs; ++procs) {
    for (int s = 0; s <= binomial::rounds(procs); ++s) {
      const int n = involved(s, procs);
      for (int v = 0; v < n; ++v) {
        ASSERT_TRUE(contributes(v, n));
        if (v != 0) ASSERT_TRUE(contributes(binomial::parent(v), n));
        std::vector<int> kept;
        for (int c : binomial::children(v, procs)) {
          if (contributes(c, n)) kept.push_back(c);
        }
        ASSERT_EQ(binomial::children(v, n), kept) << "P " << procs << " n " << n << " v " << v;
        ASSERT_LE(stage_of(v), s);
      }
      for (int v = n; v < procs; ++v) ASSERT_GT(stage_of(v), s);
    }
  }
}

TEST(ThresholdPlan, DistanceIndicesNameThePeerWhateverTheRoot) {
  // The protocol's notification slots are indexed by the distance 2^j between parent and
  // child: for every rank x and every root, the parents (and children) x sees at distance
  // index j are one and the same absolute rank, (x - 2^j) mod P (x + 2^j mod P), and the
  // indices stay below ceil(log2 P).
  for (int procs = 2; procs <= 64; ++procs) {
    for (int x = 0; x < procs; ++x) {
      std::vector<std::set<int>> parents(static_cast<std::size_t>(binomial::rounds(procs)));
      std::vector<std::set<int>> children(parents.size());
      for (int root = 0; root < procs; ++root) {
        const int v = binomial::relative(x, root, procs);
        if (v != 0) {
          const int j = distance_index(binomial::lowest_bit(v));
          ASSERT_LT(j, binomial::rounds(procs));
          parents[static_cast<std::size_t>(j)].insert(binomial::absolute(binomial::parent(v), root, procs));
        }
        for (int c : binomial::children(v, procs)) {
          const int j = distance_index(c - v);
          ASSERT_LT(j, binomial::rounds(procs));
          children[static_cast<std::size_t>(j)].insert(binomial::absolute(c, root, procs));
        }
      }
      for (std::size_t j = 0; j < parents.size(); ++j) {
        ASSERT_LE(parents[j].size(), 1U) << "P " << procs << " x " << x << " j " << j;
        ASSERT_LE(children[j].size(), 1U) << "P " << procs << " x " << x << " j " << j;
        if (!parents[j].empty()) ASSERT_EQ(*parents[j].begin(), (x - (1 << j) + procs) % procs);
        if (!children[j].empty()) ASSERT_EQ(*children[j].begin(), (x + (1 << j)) % procs);
      }
    }
  }
}

TEST(ThresholdPlan, LeavesAreTheNodesWithoutChildren) {
  EXPECT_TRUE(is_leaf(1, 8));
  EXPECT_FALSE(is_leaf(2, 8));
  EXPECT_TRUE(is_leaf(3, 8));
  EXPECT_FALSE(is_leaf(4, 8));
  EXPECT_TRUE(is_leaf(4, 5));  // its children would be 5 and 6
  EXPECT_FALSE(is_leaf(0, 2));
  EXPECT_TRUE(is_leaf(0, 1));
}

}  // namespace test_threshold_plan_test
}  // namespace ragged::plans::threshold
