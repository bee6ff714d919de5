// The arrival runtime's pure parts: the estimators, ArrivalSnapshot's checks,
// and which background part a call asks for.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "arrival/background.hpp"
#include "ragged/arrival.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"

namespace ragged {
namespace test_arrival_estimators_test {

TEST(ArrivalEstimators, LinearExtrapolation) {
  EXPECT_DOUBLE_EQ(extrapolate_arrival(10.0, 10.1, 0.5), 10.2);
  EXPECT_DOUBLE_EQ(extrapolate_arrival(2.0, 2.3, 0.25), 3.2);
  EXPECT_DOUBLE_EQ(extrapolate_arrival(1.0, 4.0, 1.0), 4.0);
  EXPECT_THROW((void)extrapolate_arrival(0, 1, 0.0), InvalidArgument);
  EXPECT_THROW((void)extrapolate_arrival(0, 1, 1.5), InvalidArgument);
  EXPECT_THROW((void)extrapolate_arrival(0, 1, std::nan("")), InvalidArgument);
}

TEST(ArrivalEstimators, MovingAverage) {
  MovingAverage m(0.25);
  EXPECT_FALSE(m.predict().has_value());
  m.add(8.0);
  EXPECT_DOUBLE_EQ(*m.predict(), 8.0);  // the first sample is the average
  m.add(4.0);
  EXPECT_DOUBLE_EQ(*m.predict(), 0.25 * 4.0 + 0.75 * 8.0);
  m.add(4.0);
  EXPECT_DOUBLE_EQ(*m.predict(), 0.25 * 4.0 + 0.75 * 7.0);
  EXPECT_EQ(m.samples(), 3);
  MovingAverage last(1.0);
  last.add(3.0);
  last.add(5.0);
  EXPECT_DOUBLE_EQ(*last.predict(), 5.0);
  EXPECT_THROW(MovingAverage(0.0), InvalidArgument);
  EXPECT_THROW(MovingAverage(1.5), InvalidArgument);
}

TEST(ArrivalEstimators, MovingAverageIgnoresSamplesThatAreNotDurations) {
  MovingAverage m(0.5);
  m.add(std::nan(""));
  m.add(-1.0);  // a clock that went backwards
  m.add(std::numeric_limits<double>::infinity());
  EXPECT_FALSE(m.predict().has_value());
  m.add(2.0);
  m.add(-5.0);
  EXPECT_DOUBLE_EQ(*m.predict(), 2.0);
  EXPECT_EQ(m.samples(), 1);
}

TEST(ArrivalEstimators, AbsurdEstimatesAreClamped) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_DOUBLE_EQ(clamp_estimate(10.5, 10.0, 60.0), 10.5);    // sane: kept
  EXPECT_DOUBLE_EQ(clamp_estimate(9.0, 10.0, 60.0), 10.0);     // in the past: arrives now
  EXPECT_DOUBLE_EQ(clamp_estimate(-1e300, 10.0, 60.0), 10.0);  // negative
  EXPECT_DOUBLE_EQ(clamp_estimate(1e12, 10.0, 60.0), 70.0);    // far ahead: the horizon
  EXPECT_DOUBLE_EQ(clamp_estimate(inf, 10.0, 60.0), 10.0);     // not a number of seconds
  EXPECT_DOUBLE_EQ(clamp_estimate(-inf, 10.0, 60.0), 10.0);
  EXPECT_DOUBLE_EQ(clamp_estimate(std::nan(""), 10.0, 60.0), 10.0);
  EXPECT_DOUBLE_EQ(clamp_estimate(11.0, 10.0, -3.0), 10.0);  // a negative horizon is none
  EXPECT_DOUBLE_EQ(clamp_estimate(11.0, 10.0, std::nan("")), 10.0);
  // The extrapolation of a tiny fraction lands decades ahead; clamped, it is one horizon ahead.
  EXPECT_DOUBLE_EQ(clamp_estimate(extrapolate_arrival(0.0, 1e-3, 1e-12), 1e-3, 0.5), 0.501);
}

TEST(ArrivalSnapshot, ValuesAndChecks) {
  const ArrivalSnapshot s({3.0, 1.0, 2.5}, LinkModel{1e-5, 1e-9}, 7,
                          {ArrivalSource::measured, ArrivalSource::estimated, ArrivalSource::none});
  EXPECT_EQ(s.size(), 3);
  EXPECT_EQ(s.epoch(), 7u);
  EXPECT_DOUBLE_EQ(s.earliest(), 1.0);
  EXPECT_DOUBLE_EQ(s.latest(), 3.0);
  EXPECT_DOUBLE_EQ(s.imbalance(), 2.0);
  EXPECT_EQ(s.source(0), ArrivalSource::measured);
  EXPECT_EQ(s.source(2), ArrivalSource::none);
  EXPECT_DOUBLE_EQ(s.link().tau(1000), 1e-5 + 1e-6);
  EXPECT_EQ(s.background(), nullptr);
  EXPECT_THROW((void)s.arrival(3), InvalidArgument);

  EXPECT_THROW(ArrivalSnapshot({}, LinkModel{}), InvalidArgument);
  EXPECT_THROW(ArrivalSnapshot({0.0, std::numeric_limits<double>::infinity()}, LinkModel{}), InvalidArgument);
  EXPECT_THROW(ArrivalSnapshot({0.0, 1.0}, LinkModel{}, 0, {ArrivalSource::none}), InvalidArgument);
  EXPECT_THROW(ArrivalSnapshot({0.0}, LinkModel{-1.0, 0.0}), InvalidArgument);

  const auto flat = ArrivalSnapshot::flat(5);
  EXPECT_EQ(flat->size(), 5);
  EXPECT_DOUBLE_EQ(flat->imbalance(), 0.0);
  EXPECT_FALSE(flat->link().known());
  EXPECT_EQ(flat->source(4), ArrivalSource::estimated);
}

// Proficz 2021, §2: balanced when omega < tau; arrivals before known_at count as known_at; an
// unknown link model never calls a pattern balanced.
TEST(ArrivalSnapshots, BalancedMeansOmegaBelowTau) {
  const LinkModel link{1e-3, 1e-6};  // tau(1000 bytes) = 2 ms
  EXPECT_TRUE(ArrivalSnapshot({0.0, 1.9e-3, 1.0e-3}, link).balanced(1000));
  EXPECT_FALSE(ArrivalSnapshot({0.0, 2.0e-3, 1.0e-3}, link).balanced(1000));
  EXPECT_TRUE(ArrivalSnapshot({0.0, 2.0e-3, 1.0e-3}, link).balanced(1001));  // a longer tau
  EXPECT_FALSE(ArrivalSnapshot({0.0, 0.0}, LinkModel{}).balanced(1000));
  // Known only at 5 ms: 0 and 6 ms count as 5 and 6 ms.
  EXPECT_TRUE(ArrivalSnapshot({0.0, 6e-3}, link, 0, {}, 5e-3, nullptr).balanced(1000));
  EXPECT_FALSE(ArrivalSnapshot({0.0, 8e-3}, link, 0, {}, 5e-3, nullptr).balanced(1000));
}

TEST(ArrivalPlans, WhichBackgroundACallAsksFor) {
  using internal::BackgroundKind;
  using internal::plan_key;
  EXPECT_EQ(plan_key(Collective::allgather, "bdr", 400, 3).kind, BackgroundKind::bdr);
  EXPECT_EQ(plan_key(Collective::allgather, "bdr", 400, 3).root, 0);  // the root means nothing to BDR
  EXPECT_EQ(plan_key(Collective::allgather, "bslb", 400, 3).kind, BackgroundKind::bslb);
  EXPECT_EQ(plan_key(Collective::allgather, "bslb", 400, 3).root, 0);  // BSLB gathers at 0
  EXPECT_EQ(plan_key(Collective::gather, "bsls", 400, 3).root, 3);
  // A BSLB allgather streams its broadcast in the background too: not a BSLS gather's part.
  EXPECT_NE(plan_key(Collective::allgather, "bslb", 400, 0), plan_key(Collective::gather, "bsls", 400, 0));
  EXPECT_EQ(plan_key(Collective::allgather, "bgd", 400, 3).kind, BackgroundKind::bgd);
  EXPECT_EQ(plan_key(Collective::allgather, "bgd", 400, 3).root, 0);
  EXPECT_EQ(plan_key(Collective::gather, "sls", 400, 0).kind, BackgroundKind::none);
  // Every rank runs bcast sorted_chain's part, on a chain that starts at the call's root.
  EXPECT_EQ(plan_key(Collective::bcast, "sorted_chain", 400, 5).kind, BackgroundKind::sorted_chain);
  EXPECT_EQ(plan_key(Collective::bcast, "sorted_chain", 400, 5).root, 5);
  EXPECT_NE(plan_key(Collective::bcast, "sorted_chain", 400, 5), plan_key(Collective::bcast, "sorted_chain", 400, 4));
  EXPECT_EQ(plan_key(Collective::allgather, "ring", 400, 0), internal::PlanKey{});
  EXPECT_FALSE(plan_key(Collective::allgather, "bdr", 0, 0).runnable());
  EXPECT_TRUE(plan_key(Collective::allgather, "bdr", 1, 0).runnable());
  PlannedCall call{Collective::allgather, "bdr", 100, DataType::float64, 0};
  EXPECT_EQ(plan_key(call).block_bytes, 800u);
}

TEST(ArrivalPlans, RegisteredWithTheirRestriction) {
  const Registry& r = Registry::instance();
  for (const char* name : {"bdr", "bgd", "bslb"}) {
    ASSERT_TRUE(r.contains(Collective::allgather, name)) << name;
    EXPECT_TRUE(r.find(Collective::allgather, name).restrictions.needs_arrival) << name;
  }
  for (const char* name : {"bsls", "sls"}) {
    ASSERT_TRUE(r.contains(Collective::gather, name)) << name;
    EXPECT_TRUE(r.find(Collective::gather, name).restrictions.needs_arrival) << name;
  }
  EXPECT_FALSE(r.find(Collective::allgather, "ring").restrictions.needs_arrival);
}

}  // namespace test_arrival_estimators_test
}  // namespace ragged
