// measure_clock_offset on the sim backend, with every rank's clock skewed by a
// known amount through a Comm decorator: the estimate must recover the skew to
// within half the round trip it reports.
#include "ragged/clock.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "ragged/error.hpp"
#include "ragged/sim.hpp"
#include "support/sim_platform.hpp"

namespace ragged {
namespace test_clock_test {

/// The inner runtime with `skew` seconds added to its clock.
class SkewedRuntime final : public Runtime {
 public:
  SkewedRuntime(Runtime& inner, double skew) : inner_(inner), skew_(skew) {}
  [[nodiscard]] double now() const override { return inner_.now() + skew_; }
  void sleep_for(double seconds) override { inner_.sleep_for(seconds); }
  void compute(double flops) override { inner_.compute(flops); }
  void charge(double flops) override { inner_.charge(flops); }
  std::unique_ptr<Daemon> spawn_daemon(const std::string& name, std::function<void()> fn) override {
    return inner_.spawn_daemon(name, std::move(fn));
  }
  std::unique_ptr<Mutex> make_mutex() override { return inner_.make_mutex(); }
  std::unique_ptr<ConditionVariable> make_condition_variable() override { return inner_.make_condition_variable(); }
  std::unique_ptr<Semaphore> make_semaphore(unsigned initial) override { return inner_.make_semaphore(initial); }
  [[nodiscard]] std::string backend() const override { return inner_.backend(); }

 private:
  Runtime& inner_;
  double skew_;
};

/// The inner Comm, read through a skewed clock.
class SkewedComm final : public Comm {
 public:
  SkewedComm(Comm& inner, double skew) : inner_(inner), runtime_(inner.runtime(), skew) {}
  [[nodiscard]] int rank() const override { return inner_.rank(); }
  [[nodiscard]] int size() const override { return inner_.size(); }
  [[nodiscard]] Runtime& runtime() override { return runtime_; }
  [[nodiscard]] std::string backend() const override { return inner_.backend(); }
  Request isend(int dest, int tag, const void* data, std::size_t bytes) override {
    return inner_.isend(dest, tag, data, bytes);
  }
  Request irecv(int source, int tag, void* data, std::size_t capacity) override {
    return inner_.irecv(source, tag, data, capacity);
  }
  std::unique_ptr<Window> create_window(std::size_t bytes, int notifications) override {
    return inner_.create_window(bytes, notifications);
  }

 private:
  Comm& inner_;
  SkewedRuntime runtime_;
};

constexpr int tag = 4242;

/// A skew of up to about a second either way, different for every rank.
double skew_of(int rank) { return 0.25 * rank - 0.4 + (rank % 3 == 0 ? 0.013 : 0.0); }

void expect_recovered(const std::string& platform, int procs, double max_round_trip) {
  REQUIRE_PLATFORM(platform);
  sim::Config config;
  config.platform = platform;
  config.procs = procs;
  sim::run(config, [&](Comm& comm) {
    SkewedComm skewed(comm, skew_of(comm.rank()));
    const ClockOffset got = measure_clock_offset(skewed, tag);
    if (comm.rank() == 0) {
      EXPECT_EQ(got.offset, 0.0);
      EXPECT_EQ(got.round_trip, 0.0);
      return;
    }
    const double expected = skew_of(comm.rank()) - skew_of(0);
    EXPECT_GT(got.round_trip, 0.0) << "rank " << comm.rank();
    EXPECT_LT(got.round_trip, max_round_trip) << "rank " << comm.rank();
    EXPECT_LE(std::abs(got.offset - expected), got.round_trip / 2 + 1e-12)
        << "rank " << comm.rank() << ": offset " << got.offset << ", skew " << expected;
  });
}

TEST(SimClock, OffsetsRecoverTheSkewOnOneCluster) { expect_recovered("cluster-1gbe-48", 7, 1e-3); }

TEST(SimClock, OffsetsRecoverTheSkewAcrossTheBackbone) {
  // Ranks 30.. are in the other cluster, 10 ms away: round trips of about 20 ms.
  expect_recovered("two-clusters-30-30", 33, 0.05);
}

TEST(SimClock, OneRankHasNoOffset) {
  sim::run(sim::Config{.platform = "cluster-1gbe-48", .procs = 1}, [](Comm& comm) {
    SkewedComm skewed(comm, 3.0);
    const ClockOffset got = measure_clock_offset(skewed, tag);
    EXPECT_EQ(got.offset, 0.0);
    EXPECT_EQ(got.round_trip, 0.0);
  });
}

TEST(SimClock, RoundsMustBePositive) {
  sim::run(sim::Config{.platform = "cluster-1gbe-48", .procs = 2}, [](Comm& comm) {
    try {
      (void)measure_clock_offset(comm, tag, 0);
      ADD_FAILURE() << "rounds = 0 was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("rounds"), std::string::npos) << e.what();
    }
  });
}

}  // namespace test_clock_test
}  // namespace ragged
