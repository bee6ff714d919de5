// The stale-synchronous allreduce (ragged/ssp.hpp, Iakymchuk et al. 2021, algorithm 1) on the simulator:
// - slack 0 is the exact allreduce of every iteration, on both topologies, every P of the sweep,
//   counts 0, 1, < P and larger, with ranks that arrive in a different order every iteration;
// - slack s > 0 with one slow rank: every element of every result comes from a contribution at
//   most s iterations old, every contribution is in it exactly once, the reported min_clock is
//   the oldest contribution used, and the fast ranks did use stale data (the slack took effect);
// - a peer that stops gives TimeoutError within the timeout, at construction and in a call;
// - bad arguments are named.
#include "ragged/ssp.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "ragged/error.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"

namespace ragged {
namespace test_ssp_test {

using Param = std::tuple<SspTopology, int>;

sim::Config on(int procs) {
  sim::Config c;
  c.platform = "cluster-1gbe-48";
  c.procs = procs;
  return c;
}

std::string name_of(SspTopology t) { return t == SspTopology::ring ? "ring" : "hypercube"; }

std::int64_t value(int rank, std::uint64_t clock, std::size_t j) {
  const std::uint64_t v = static_cast<std::uint64_t>(rank) * std::uint64_t{1000003} + clock * std::uint64_t{7919} +
                          static_cast<std::uint64_t>(j) * std::uint64_t{31};
  return static_cast<std::int64_t>(v % std::uint64_t{100000});
}

class Ssp : public testing::TestWithParam<Param> {};

TEST_P(Ssp, SlackZeroIsTheExactAllreduceOfEveryIteration) {
  const SspTopology topology = std::get<0>(GetParam());
  const int procs = std::get<1>(GetParam());
  const std::vector<std::size_t> counts{0, 1, static_cast<std::size_t>(std::max(1, procs - 1)), 1000};
  constexpr int iterations = 6;
  int checked = 0;
  sim::run(on(procs), [&](Comm& comm) {
    const int me = comm.rank();
    for (std::size_t count : counts) {
      SspOptions options;
      options.topology = topology;
      options.timeout = 60.0;
      SspAllreduce reduce(comm, count, DataType::int64, ReduceOp::sum(), options);
      for (int it = 1; it <= iterations; ++it) {
        // A different arrival order every iteration.
        comm.runtime().sleep_for(static_cast<double>((me * 7 + it * 3) % 5) * 200e-6);
        std::vector<std::int64_t> mine(count);
        for (std::size_t j = 0; j < count; ++j) mine[j] = value(me, static_cast<std::uint64_t>(it), j);
        std::vector<std::int64_t> out(count + 1, -7);
        const SspResult r = reduce(mine.data(), out.data());
        if (r.clock != static_cast<std::uint64_t>(it) || r.min_clock != r.clock) {
          throw test::CheckFailed("rank " + std::to_string(me) + " clock " + std::to_string(r.clock) + " min " +
                                  std::to_string(r.min_clock) + " at iteration " + std::to_string(it));
        }
        for (std::size_t j = 0; j < count; ++j) {
          std::int64_t want = 0;
          for (int q = 0; q < procs; ++q) want += value(q, static_cast<std::uint64_t>(it), j);
          if (out[j] != want) {
            throw test::CheckFailed(name_of(topology) + " rank " + std::to_string(me) + " count " +
                                    std::to_string(count) + " iteration " + std::to_string(it) + " element " +
                                    std::to_string(j) + ": " + std::to_string(out[j]) + " != " + std::to_string(want));
          }
        }
        if (out[count] != -7) throw test::CheckFailed("wrote past the end");
        // In place (contribution == result) on the last iteration.
        if (it == iterations && count != 0) {
          (void)reduce(out.data(), out.data());
        }
        if (me == 0) ++checked;
      }
      reduce.finish();
    }
  });
  EXPECT_EQ(checked, iterations * static_cast<int>(counts.size()));
}

TEST_P(Ssp, SlackBoundsTheStalenessAndCountsEveryContributionOnce) {
  const SspTopology topology = std::get<0>(GetParam());
  const int procs = std::get<1>(GetParam());
  if (procs < 2) GTEST_SKIP() << "nothing is stale alone";
  // On the ring every segment (>= 2P elements) holds clock elements of every rank, also the last
  // one beside the 3 counters, so a segment's clock is visible in its elements.
  const std::size_t count = 2 * static_cast<std::size_t>(procs) * static_cast<std::size_t>(procs) + 3;
  constexpr int iterations = 24;
  for (int slack : {1, 3}) {
    int stale_calls = 0;
    sim::run(on(procs), [&](Comm& comm) {
      const int me = comm.rank();
      SspOptions options;
      options.topology = topology;
      options.slack = slack;
      options.timeout = 60.0;
      // Element j carries rank (j % P)'s clock; the second vector counts contributions.
      SspAllreduce clocks(comm, count, DataType::int64, ReduceOp::sum(), options);
      for (int it = 1; it <= iterations; ++it) {
        // The last rank is slow: 2 ms per iteration, the others 0.1 ms.
        comm.runtime().sleep_for(me == procs - 1 ? 2e-3 : 1e-4);
        std::vector<std::int64_t> mine(count, 0);
        for (std::size_t j = 0; j < count; ++j) {
          if (static_cast<int>(j % static_cast<std::size_t>(procs)) == me) mine[j] = it;
        }
        // The last 3 elements count the contributions: 1 from everyone, exactly once each.
        for (std::size_t j = count - 3; j < count; ++j) mine[j] = 1;
        std::vector<std::int64_t> out(count);
        const SspResult r = clocks(mine.data(), out.data());
        const auto c = static_cast<std::int64_t>(r.clock);
        std::int64_t oldest = c;
        for (std::size_t j = 0; j + 3 < count; ++j) {
          if (out[j] < c - slack || out[j] < 1) {
            throw test::CheckFailed(name_of(topology) + " slack " + std::to_string(slack) + " rank " +
                                    std::to_string(me) + " clock " + std::to_string(c) + ": element " +
                                    std::to_string(j) + " is from clock " + std::to_string(out[j]));
          }
          oldest = std::min(oldest, out[j]);
        }
        for (std::size_t j = count - 3; j < count; ++j) {
          if (out[j] != procs) {
            throw test::CheckFailed(name_of(topology) + " rank " + std::to_string(me) + ": " + std::to_string(out[j]) +
                                    " contributions, expected " + std::to_string(procs));
          }
        }
        // min_clock is exactly the oldest contribution used when every segment holds every rank.
        if (static_cast<std::int64_t>(r.min_clock) != oldest) {
          throw test::CheckFailed("min_clock " + std::to_string(r.min_clock) + " but the oldest element is from " +
                                  std::to_string(oldest));
        }
        if (r.min_clock < r.clock) ++stale_calls;
      }
      clocks.finish();
    });
    EXPECT_GT(stale_calls, 0) << "slack " << slack << ": no call used stale data";
  }
}

TEST_P(Ssp, FreshDataKeepsFlowingAtALargeSlack) {
  // Nearly equal workers and a slack far above their spread: the data each rank uses must stay
  // as old as the spread plus one clock per step of the path it travels (a rank forwards what it
  // holds when it gets there), not drift to the slack. (A partial reduction's clock can stay the
  // same for several calls; holding two slots of equal clocks once starved the writer of credits
  // and froze min_clock at 1.) The ring's path is 2(P - 1) steps long: at P >= 16 that is beyond
  // the slack, and there is nothing to check.
  const SspTopology topology = std::get<0>(GetParam());
  const int procs = std::get<1>(GetParam());
  if (procs < 2) GTEST_SKIP() << "nothing is stale alone";
  int hops = 2;
  while ((2 << (hops - 2)) <= procs) ++hops;
  if (topology == SspTopology::ring) hops = 2 * (procs - 1);
  // 40 iterations against 40 / 1.1 for the slowest rank: 4 clocks of spread; up to 1.5 clocks
  // per step (measured: 20 over the 12 steps of the ring at P = 7), and a margin.
  const std::uint64_t bound = 6 + 3 * static_cast<std::uint64_t>(hops) / 2;
  if (bound >= 32) GTEST_SKIP() << "the path is longer than the slack";
  constexpr int iterations = 40;
  sim::run(on(procs), [&](Comm& comm) {
    SspOptions options;
    options.topology = topology;
    options.slack = 32;
    options.timeout = 60.0;
    SspAllreduce reduce(comm, 1000, DataType::float64, ReduceOp::sum(), options);
    std::vector<double> in(1000, 1.0);
    std::vector<double> out(1000);
    SspResult last;
    for (int it = 1; it <= iterations; ++it) {
      comm.runtime().sleep_for(2e-3 + 1e-4 * (comm.rank() % 3));
      last = reduce(in.data(), out.data());
    }
    reduce.finish();
    if (last.clock - last.min_clock > bound) {
      throw test::CheckFailed(name_of(topology) + " rank " + std::to_string(comm.rank()) + ": clock " +
                              std::to_string(last.clock) + " uses data from clock " + std::to_string(last.min_clock));
    }
  });
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (SspTopology t : {SspTopology::hypercube, SspTopology::ring}) {
    for (int p : {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 33}) out.emplace_back(t, p);
  }
  return out;
}

std::string param_name(const testing::TestParamInfo<Param>& p) {
  return name_of(std::get<0>(p.param)) + "_P" + std::to_string(std::get<1>(p.param));
}

INSTANTIATE_TEST_SUITE_P(Topologies, Ssp, testing::ValuesIn(params()), param_name);

TEST(SspFaults, AStoppedPeerGivesTimeoutErrorWithinTheTimeout) {
  for (SspTopology topology : {SspTopology::hypercube, SspTopology::ring}) {
    int timeouts = 0;
    sim::run(on(4), [&](Comm& comm) {
      SspOptions options;
      options.topology = topology;
      options.timeout = 0.05;
      SspAllreduce reduce(comm, 100, DataType::int32, ReduceOp::sum(), options);
      std::vector<std::int32_t> in(100, 1);
      std::vector<std::int32_t> out(100);
      (void)reduce(in.data(), out.data());
      if (comm.rank() == 3) return;  // stops after one iteration; its destructor's finish times out
      const double start = comm.runtime().now();
      try {
        (void)reduce(in.data(), out.data());
        throw test::CheckFailed("rank " + std::to_string(comm.rank()) + " finished without its stopped peer");
      } catch (const TimeoutError&) {
        const double took = comm.runtime().now() - start;
        if (took > 0.05 + 1e-3) throw test::CheckFailed("TimeoutError after " + std::to_string(took) + " s");
        ++timeouts;
      }
      // The object is unusable after a failure, and says so.
      try {
        (void)reduce(in.data(), out.data());
        throw test::CheckFailed("a failed ssp allreduce ran again");
      } catch (const InvalidArgument& e) {
        if (e.argument() != "this") throw;
      }
    });
    // Ranks 0-2 need rank 3's data in the second call (directly or through a partner).
    EXPECT_EQ(timeouts, 3) << name_of(topology);
  }
}

TEST(SspFaults, APeerThatNeverComesGivesTimeoutErrorAtConstruction) {
  int timeouts = 0;
  sim::run(on(3), [&](Comm& comm) {
    if (comm.rank() == 2) return;
    SspOptions options;
    options.timeout = 0.02;
    try {
      SspAllreduce reduce(comm, 10, DataType::int32, ReduceOp::sum(), options);
      throw test::CheckFailed("constructed without rank 2");
    } catch (const TimeoutError&) {
      ++timeouts;
    }
  });
  EXPECT_EQ(timeouts, 2);
}

TEST(SspFaults, BadArgumentsAreNamed) {
  sim::run(on(2), [&](Comm& comm) {
    const auto argument = [&](auto&& fn) -> std::string {
      try {
        fn();
      } catch (const InvalidArgument& e) {
        return e.argument();
      }
      return "";
    };
    SspOptions bad;
    bad.slack = -1;
    if (argument([&] { SspAllreduce r(comm, 1, DataType::int32, ReduceOp::sum(), bad); }) != "slack") {
      throw test::CheckFailed("negative slack accepted");
    }
    const ReduceOp left = ReduceOp::make_custom(
        "left", [](const void*, void*, std::size_t, DataType) {}, false);
    if (argument([&] { SspAllreduce r(comm, 1, DataType::int32, left, {}); }) != "op") {
      throw test::CheckFailed("non-commutative operator accepted");
    }
    SspAllreduce ok(comm, 4, DataType::int32, ReduceOp::sum(), {});
    std::vector<std::int32_t> out(4);
    if (argument([&] { (void)ok(nullptr, out.data()); }) != "contribution") {
      throw test::CheckFailed("null contribution accepted");
    }
  });
}

}  // namespace test_ssp_test
}  // namespace ragged
