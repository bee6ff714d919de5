// The one-sided collectives of Iakymchuk et al. 2021, §IV (allreduce onesided_ring, alltoall onesided) on the
// sim backend, beyond the registry sweeps: small segments (many per chunk) and few slots, many
// consecutive calls on one communicator with staggered arrivals (a fast rank starts call k+1
// while its neighbours still read call k: the cross-call protocol), counts that change from call
// to call (the cached window is re-created larger, and reused when smaller), inputs that differ
// per call (so a stale piece would show), and a peer that stops between calls (TimeoutError,
// not a hang).
#include "ragged/onesided.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"

namespace ragged {
namespace test_onesided_test {

constexpr double call_timeout = 0.5;  // simulated seconds: every call here takes far less

sim::Config config(int procs) {
  sim::Config c;
  c.platform = "cluster-1gbe-48";
  c.procs = procs;
  return c;
}

/// Rank `rank`'s input at `index` in call `call`: different in every call.
std::int64_t value(int rank, std::size_t index, int call) {
  return static_cast<std::int64_t>(rank + 1) * 1000003 + static_cast<std::int64_t>(index % 9973) * 7 + call * 131;
}

/// A delay before each call, different per rank and per call: up to 6 ms, far more than a call.
double stagger(int rank, int call) { return static_cast<double>((rank * 5 + call * 3) % 7) * 1e-3; }

/// The counts of consecutive calls: growing (re-creation), shrinking (reuse), empty, below P.
/// `large` is 20000, or less where every element is a segment of its own (a message each).
std::vector<std::size_t> call_counts(int procs, std::size_t large = 20000) {
  const auto p = static_cast<std::size_t>(procs);
  return {1000, 5, 0, large, 1, p > 1 ? p - 1 : 1, large, 3 * p + 1, 0, 777};
}

/// `timeout`: far beyond any call of the exactness tests (one-element segments on 1 GbE with one
/// slot pay a round trip per element), call_timeout for the fault test.
CollectiveOptions options(const std::string& algorithm, std::size_t segment_bytes, int slots, double timeout = 600.0) {
  CollectiveOptions o;
  o.algorithm = algorithm;
  o.timeout = timeout;
  o.hints.set(std::make_shared<OneSidedTuning>(OneSidedTuning{.segment_bytes = segment_bytes, .slots = slots}));
  return o;
}

using Param = std::tuple<int, std::size_t, int>;  // P, segment bytes, slots

class OneSidedRing : public testing::TestWithParam<Param> {};

TEST_P(OneSidedRing, ConsecutiveStaggeredCallsOfChangingCountsReduceExactly) {
  const int procs = std::get<0>(GetParam());
  const CollectiveOptions o = options("onesided_ring", std::get<1>(GetParam()), std::get<2>(GetParam()));
  // One-element segments put one message per element and step: 2003 elements there, not 20000.
  const std::vector<std::size_t> counts = call_counts(procs, std::get<1>(GetParam()) <= 8 ? 2003 : 20000);
  int checked = 0;
  sim::run(config(procs), [&](Comm& comm) {
    const int me = comm.rank();
    for (std::size_t c = 0; c < counts.size(); ++c) {
      const int call = static_cast<int>(c);
      const std::size_t n = counts[c];
      comm.runtime().sleep_for(stagger(me, call));
      std::vector<std::int64_t> in(n);
      for (std::size_t i = 0; i < n; ++i) in[i] = value(me, i, call);
      std::vector<std::int64_t> out(n + 1, -1);  // one guard element
      const bool inplace = c % 2 == 1;
      if (inplace) std::copy(in.begin(), in.end(), out.begin());
      const Algorithm& ran =
          allreduce(comm, inplace ? in_place : in.data(), out.data(), n, DataType::int64, ReduceOp::sum(), o);
      RAGGED_CHECK_EQ(ran.name, std::string("onesided_ring"));
      for (std::size_t i = 0; i < n; ++i) {
        std::int64_t expected = 0;
        for (int r = 0; r < procs; ++r) expected += value(r, i, call);
        if (out[i] != expected) {
          throw test::CheckFailed("rank " + std::to_string(me) + " call " + std::to_string(call) + " count " +
                                  std::to_string(n) + " element " + std::to_string(i) + ": " + std::to_string(out[i]) +
                                  ", expected " + std::to_string(expected));
        }
      }
      RAGGED_CHECK_EQ(out[n], std::int64_t{-1});
      if (me == 0) ++checked;
    }
  });
  EXPECT_EQ(checked, static_cast<int>(counts.size()));
}

std::vector<Param> ring_params() {
  std::vector<Param> out;
  for (int p : {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 33}) {
    out.emplace_back(p, 256, 4);  // many segments per chunk
    if (p <= 9) {
      out.emplace_back(p, 8, 1);                     // one element per segment, one slot
      out.emplace_back(p, 1000, 2);                  // a few segments, two slots
      out.emplace_back(p, std::size_t{1} << 20, 4);  // one segment per chunk
    }
  }
  return out;
}

std::string ring_name(const testing::TestParamInfo<Param>& info) {
  return "P" + std::to_string(std::get<0>(info.param)) + "_seg" + std::to_string(std::get<1>(info.param)) + "_slots" +
         std::to_string(std::get<2>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Sim, OneSidedRing, testing::ValuesIn(ring_params()), ring_name);

class OneSidedAlltoall : public testing::TestWithParam<int> {};

TEST_P(OneSidedAlltoall, ConsecutiveStaggeredCallsOfChangingCountsExchangeExactly) {
  const int procs = GetParam();
  const CollectiveOptions o = options("onesided", 0, 1);
  const std::vector<std::size_t> counts = call_counts(procs);
  int checked = 0;
  sim::run(config(procs), [&](Comm& comm) {
    const int me = comm.rank();
    const auto p = static_cast<std::size_t>(procs);
    for (std::size_t c = 0; c < counts.size(); ++c) {
      const int call = static_cast<int>(c);
      const std::size_t n = counts[c] / 10 + (counts[c] != 0 ? 1 : 0);  // elements per block
      comm.runtime().sleep_for(stagger(me, call));
      // Block j of rank r holds value(r, j * n + i, call).
      std::vector<std::int64_t> in(p * n);
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = value(me, i, call);
      std::vector<std::int64_t> out(p * n + 1, -1);
      const bool inplace = c % 2 == 1;
      if (inplace) std::copy(in.begin(), in.end(), out.begin());
      const Algorithm& ran = alltoall(comm, inplace ? in_place : in.data(), out.data(), n, DataType::int64, o);
      RAGGED_CHECK_EQ(ran.name, std::string("onesided"));
      for (std::size_t from = 0; from < p; ++from) {
        for (std::size_t i = 0; i < n; ++i) {
          const std::int64_t expected = value(static_cast<int>(from), static_cast<std::size_t>(me) * n + i, call);
          if (out[from * n + i] != expected) {
            throw test::CheckFailed("rank " + std::to_string(me) + " call " + std::to_string(call) + " block of " +
                                    std::to_string(from) + " element " + std::to_string(i) + ": " +
                                    std::to_string(out[from * n + i]) + ", expected " + std::to_string(expected));
          }
        }
      }
      RAGGED_CHECK_EQ(out[p * n], std::int64_t{-1});
      if (me == 0) ++checked;
    }
  });
  EXPECT_EQ(checked, static_cast<int>(counts.size()));
}

INSTANTIATE_TEST_SUITE_P(Sim, OneSidedAlltoall, testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 33),
                         [](const testing::TestParamInfo<int>& info) { return "P" + std::to_string(info.param); });

/// Every rank calls once; then rank `stopped` leaves and the others call again with the same
/// count (the window exists: no barrier, the protocol's own waits must time out).
void stopped_peer(bool allreduce_case, int procs, int stopped) {
  std::vector<int> timed_out(static_cast<std::size_t>(procs), 0);
  std::vector<double> took(static_cast<std::size_t>(procs), 0);
  sim::run(config(procs), [&](Comm& comm) {
    const int me = comm.rank();
    const std::size_t n = 3000;
    std::vector<std::int64_t> in(n * static_cast<std::size_t>(procs), me);
    std::vector<std::int64_t> out(in.size());
    const CollectiveOptions o = options(allreduce_case ? "onesided_ring" : "onesided", 512, 2, call_timeout);
    const auto once = [&] {
      if (allreduce_case) {
        allreduce(comm, in.data(), out.data(), n, DataType::int64, ReduceOp::sum(), o);
      } else {
        alltoall(comm, in.data(), out.data(), n, DataType::int64, o);
      }
    };
    once();
    if (me == stopped) return;
    const double t0 = comm.runtime().now();
    try {
      once();
    } catch (const TimeoutError&) {
      timed_out[static_cast<std::size_t>(me)] = 1;
    }
    took[static_cast<std::size_t>(me)] = comm.runtime().now() - t0;
  });
  for (int r = 0; r < procs; ++r) {
    if (r == stopped) continue;
    EXPECT_EQ(timed_out[static_cast<std::size_t>(r)], 1) << "rank " << r << " of " << procs;
    EXPECT_LE(took[static_cast<std::size_t>(r)], call_timeout + 1e-3) << "rank " << r;
  }
}

TEST(OneSidedFaults, APeerThatStopsBetweenCallsGivesTimeoutError) {
  for (bool allreduce_case : {true, false}) {
    for (int procs : {2, 3, 5}) {
      for (int stopped : {0, procs - 1}) stopped_peer(allreduce_case, procs, stopped);
    }
  }
}

}  // namespace test_onesided_test
}  // namespace ragged
