// allgather push (arrival-reactive) on the simulator, under arrival patterns: ranks reach the
// call at different times, so that the ranks that arrive find some blocks already there and
// scatter their own to the ranks that wait, which forward it. Two platforms: one with an
// eager protocol (units travel before their receive is posted, as over Open MPI's TCP) and the
// 1 GbE cluster without one (a send waits for its receive). Consecutive calls with different
// patterns and sizes, back to back, check that calls keep their messages apart; every block
// is compared exactly, and the bytes past the receive buffer stay untouched.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/patterns.hpp"
#include "support/sim_platform.hpp"

namespace ragged {
namespace test_push_test {

using Bytes = std::vector<std::byte>;

/// 16 hosts of 100 Mbit/s, 50 us latency, a 64 KiB eager limit (Open MPI's TCP).
std::string eager_platform() {
  static const std::string path = test::cluster_platform(
      "ragged-push", {{"eager_limit", "65536"}, {"rendezvous_round_trips", "1"}},
      R"(prefix="host-" suffix="" bw="12.5MBps" lat="50us" sharing_policy="SPLITDUPLEX" loopback_bw="6GBps" )"
      R"(loopback_lat="0.5us")");
  return path;
}

enum class Pattern { together, last_late, first_late, staircase, reversed, random };
constexpr Pattern patterns[] = {Pattern::together,  Pattern::last_late, Pattern::first_late,
                                Pattern::staircase, Pattern::reversed,  Pattern::random};

/// Seconds rank `r` of `procs` computes before call `call` under `pattern`.
double delay(Pattern pattern, int r, int procs, int call) {
  switch (pattern) {
    case Pattern::together:
      return 0;
    case Pattern::last_late:
      return r == procs - 1 ? 0.2 : 0;
    case Pattern::first_late:
      return r == 0 ? 0.05 : 0;
    case Pattern::staircase:
      return 0.01 * r;
    case Pattern::reversed:
      return 0.01 * (procs - 1 - r);
    case Pattern::random: {
      std::mt19937 random(static_cast<unsigned>(1000 * call + r));
      return std::uniform_real_distribution<double>(0, 0.1)(random);
    }
  }
  return 0;
}

void run_patterns(const std::string& platform, int procs) {
  if (!test::can_load(platform)) GTEST_SKIP() << "this process simulates another platform";
  // int32 counts: one unit below min_payload, a few units, units at the message limit
  const std::vector<std::size_t> counts{1, 3000, 40000};
  const auto p = static_cast<std::size_t>(procs);
  sim::Config config;
  config.platform = platform;
  config.procs = procs;
  int checked = 0;
  sim::run(config, [&](Comm& comm) {
    const int me = comm.rank();
    CollectiveOptions options;
    options.algorithm = "push";
    options.timeout = 600.0;
    int call = 0;
    for (Pattern pattern : patterns) {
      for (std::size_t count : counts) {
        for (bool inplace : {false, true}) {
          const std::size_t block = count * 4;
          Bytes recv(p * block + 48, std::byte{0x3C});
          std::vector<Bytes> rows;
          for (int r = 0; r < procs; ++r) {
            rows.push_back(test::make_buffer(DataType::int32, count,
                                             [r, call](std::size_t i) { return test::pattern(r + 100 * call, i); }));
          }
          const std::byte* mine = rows[static_cast<std::size_t>(me)].data();
          if (inplace) std::memcpy(recv.data() + static_cast<std::size_t>(me) * block, mine, block);
          comm.runtime().sleep_for(delay(pattern, me, procs, call));
          allgather(comm, inplace ? in_place : mine, recv.data(), count, DataType::int32, options);
          for (std::size_t j = 0; j < p; ++j) {
            if (std::memcmp(recv.data() + j * block, rows[j].data(), block) != 0) {
              throw test::CheckFailed("push P " + std::to_string(procs) + " call " + std::to_string(call) + " rank " +
                                      std::to_string(me) + ": block " + std::to_string(j) + " differs");
            }
          }
          for (std::size_t i = p * block; i < recv.size(); ++i) {
            if (recv[i] != std::byte{0x3C}) throw test::CheckFailed("push wrote past the end");
          }
          if (me == 0) ++checked;
          ++call;
        }
      }
    }
  });
  EXPECT_EQ(checked, static_cast<int>(std::size(patterns) * counts.size() * 2));
}

class Push : public testing::TestWithParam<int> {};

TEST_P(Push, GathersExactlyUnderEveryArrivalPatternWithAnEagerProtocol) { run_patterns(eager_platform(), GetParam()); }

TEST_P(Push, GathersExactlyUnderEveryArrivalPatternWithoutOne) { run_patterns("cluster-1gbe-48", GetParam()); }

INSTANTIATE_TEST_SUITE_P(Procs, Push, testing::Values(2, 3, 4, 5, 8, 13, 16));

}  // namespace test_push_test
}  // namespace ragged
