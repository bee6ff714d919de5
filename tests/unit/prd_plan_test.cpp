// The plan of allreduce "prd" (plans/prd_plan.hpp) as a pure function: the late rank is the
// latest estimate (ties: the highest rank), the early ranks are every other rank earliest first,
// the pieces tile the vector exactly once for every P up to 64 and every count around the
// boundaries, the number of waves follows sqrt(n beta / alpha) within its limits, and the cost
// model is the one in the header of allreduce_prd.cpp.
#include "plans/prd_plan.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <vector>

#include "plans/cost_model.hpp"

namespace ragged::plans::prd {
namespace test_prd_plan_test {

constexpr double alpha = 50e-6;
constexpr double beta = 1.0 / 119.5e6;

TEST(PrdPlan, LateIsTheLatestEstimateAndEarlyTheOthersEarliestFirst) {
  const std::vector<double> a{3.0, 1.0, 2.0, 1.0, 5.0, 0.5};
  const Plan plan = make_plan(a, 1 << 20, alpha, beta);
  EXPECT_EQ(plan.late, 4);
  EXPECT_EQ(plan.early, (std::vector<int>{5, 1, 3, 2, 0}));
  EXPECT_EQ(plan.position(4), -1);
  EXPECT_EQ(plan.position(5), 0);
  EXPECT_EQ(plan.position(0), 4);
}

TEST(PrdPlan, TiesGoToTheHighestRank) {
  const std::vector<double> flat(7, 0.0);
  const Plan plan = make_plan(flat, 1000, alpha, beta);
  EXPECT_EQ(plan.late, 6);
  EXPECT_EQ(plan.early, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  const std::vector<double> two_late{0, 9, 0, 9};
  EXPECT_EQ(make_plan(two_late, 1000, alpha, beta).late, 3);
}

TEST(PrdPlan, FewerThanTwoRanksIsRejected) {
  const std::vector<double> one{0.0};
  EXPECT_THROW(make_plan(one, 8, alpha, beta), std::invalid_argument);
}

TEST(PrdPlan, PiecesTileTheVectorExactlyOnce) {
  std::mt19937 rng(7);
  for (int procs = 2; procs <= 64; ++procs) {
    const int blocks = procs - 1;
    for (int rounds = 1; rounds <= max_rounds; rounds += (rounds < 4 ? 1 : 5)) {
      std::vector<std::size_t> counts{0,
                                      1,
                                      static_cast<std::size_t>(blocks),
                                      static_cast<std::size_t>(blocks) + 1,
                                      static_cast<std::size_t>(blocks * rounds) - 1,
                                      static_cast<std::size_t>(blocks * rounds) + 1,
                                      1000003};
      counts.push_back(std::uniform_int_distribution<std::size_t>(0, 50000)(rng));
      for (std::size_t count : counts) {
        SCOPED_TRACE("P " + std::to_string(procs) + " rounds " + std::to_string(rounds) + " count " +
                     std::to_string(count));
        std::vector<int> covered(count, 0);
        std::size_t next = 0;
        for (int j = 0; j < blocks; ++j) {
          std::size_t previous = SIZE_MAX;
          for (int r = 0; r < rounds; ++r) {
            const Piece p = piece(count, blocks, rounds, j, r);
            ASSERT_EQ(p.offset, next) << "block " << j << " round " << r;  // block-major, contiguous
            ASSERT_LE(p.count, previous);                                  // round 0 is a largest piece of its block
            previous = p.count;
            for (std::size_t i = 0; i < p.count; ++i) ++covered[p.offset + i];
            next += p.count;
          }
        }
        ASSERT_EQ(next, count);
        for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(covered[i], 1) << "element " << i;
      }
    }
  }
}

TEST(PrdPlan, RoundsFollowTheSquareRootWithinLimits) {
  // n beta / alpha = 4 MiB / 119.5 MB/s / 50 us = 702: sqrt 26.5, capped at max_rounds.
  EXPECT_EQ(rounds_for(4u << 20, 47, alpha, beta), max_rounds);
  // 64 KiB over 3 blocks: sqrt(10.97) = 3.3 -> 3, and 64 KiB / (3 * 4 KiB) = 5 allows it.
  EXPECT_EQ(rounds_for(64u << 10, 3, alpha, beta), 3);
  // Pieces are kept at min_piece_bytes or more: 1 MiB over 47 blocks allows 5 waves.
  EXPECT_EQ(rounds_for(1u << 20, 47, alpha, beta), 5);
  EXPECT_EQ(rounds_for(16, 3, alpha, beta), 1);
  EXPECT_EQ(rounds_for(0, 3, alpha, beta), 1);
  // An unknown link model plans with auto's defaults; a broken one with a single wave.
  EXPECT_EQ(rounds_for(4u << 20, 47, 0, 0), max_rounds);
  EXPECT_EQ(rounds_for(4u << 20, 47, NAN, beta), 1);
  EXPECT_EQ(make_plan(std::vector<double>{0, 1}, 4u << 20, alpha, beta).rounds, max_rounds);
}

TEST(PrdPlan, CostModelIsTheHeadersFormula) {
  CostInput x;
  x.procs = 48;
  x.bytes = 4u << 20;
  x.alpha = alpha;
  x.beta = beta;
  const double q = 47;
  const double rs = 46 * (alpha + x.bytes / q * beta);
  const double waves = 17 * (alpha + x.bytes / 16 * beta);
  EXPECT_DOUBLE_EQ(cost::allreduce_prd(x), rs + waves);
  x.omega = 0.05;  // the reduce-scatter is over before the late rank arrives
  x.omega_last = x.omega;
  EXPECT_DOUBLE_EQ(cost::allreduce_prd(x), waves);
  // One late process far behind: prd needs less after the arrival than prr and the ring.
  EXPECT_LT(cost::allreduce_prd(x), cost::allreduce_prr(x));
  EXPECT_LT(cost::allreduce_prd(x), cost::allreduce_ring(x));
}

}  // namespace test_prd_plan_test
}  // namespace ragged::plans::prd
