// LogGP's per-message gap g, a property of the simulated platform: a platform
// that declares ragged/message_gap makes every rank start its messages at least
// g apart and be done with the messages it receives at least g apart; a lone
// message pays only the network; a platform without the property is unchanged.
//
// One process can load one platform (ctest runs every test in a process of its
// own); a test whose platform another test of this process loaded first skips.
// The tests belong to the SimBackend suite so that the sanitizer tier (the asan
// test preset takes sim.SimBackend.*) runs the gap's code paths too.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ragged/error.hpp"
#include "ragged/sim.hpp"
#include "support/sim_platform.hpp"

namespace ragged {
namespace test_message_gap_test {

constexpr double tick = 1e-9;  // now() counts whole nanoseconds

// The test platform: 16 hosts, 5 us per host link (10 us between two hosts), 1 GB/s (a
// byte takes 1 ns), and g = 2 us, far from every other time so that a missing or doubled
// gap cannot go unnoticed.
constexpr double test_latency = 10e-6;
constexpr double test_gap = 2e-6;
constexpr double one_byte = test_latency + 1e-9;

/// When k one-byte messages sent at once to (or from) one host arrive: they share its link.
constexpr double together(int k) { return test_latency + k * 1e-9; }

/// The test platform, written once per process (every test run in parallel has its own).
std::string gap_platform() {
  static const std::string path =
      test::cluster_platform("ragged-message-gap", {{"message_gap", "2us"}},
                             R"(prefix="node-" suffix="" bw="1GBps" lat="5us" loopback_bw="1GBps" loopback_lat="1us")");
  return path;
}

sim::Config on(const std::string& platform, int procs) {
  sim::Config c;
  c.platform = platform;
  c.procs = procs;
  return c;
}

/// Rank 0 receives one byte from each of ranks 1..k, all sent at once; returns the times
/// at which rank 0's receives completed, in completion order.
std::vector<double> gather_one_byte_each(const sim::Config& config) {
  std::vector<double> done;
  sim::run(config, [&](Comm& comm) {
    const int k = comm.size() - 1;
    if (comm.rank() == 0) {
      std::vector<std::byte> in(static_cast<std::size_t>(k));
      std::vector<Request> receives;
      for (int i = 1; i <= k; ++i) receives.push_back(comm.irecv(i, 0, &in[static_cast<std::size_t>(i - 1)], 1));
      while (comm.wait_any(receives) != Comm::npos) done.push_back(comm.runtime().now());
    } else {
      const std::byte b{1};
      comm.send(0, 0, &b, 1);
    }
  });
  return done;
}

/// Rank 0 sends one byte to each of ranks 1..k at once; returns when each receiver had it.
std::vector<double> scatter_one_byte_each(const sim::Config& config) {
  std::vector<double> done(static_cast<std::size_t>(config.procs), -1);
  sim::run(config, [&](Comm& comm) {
    const int k = comm.size() - 1;
    if (comm.rank() == 0) {
      const std::byte b{1};
      std::vector<Request> sends;
      for (int i = 1; i <= k; ++i) sends.push_back(comm.isend(i, 0, &b, 1));
      comm.wait_all(sends);
    } else {
      std::byte b{};
      comm.recv(0, 0, &b, 1);
    }
    done[static_cast<std::size_t>(comm.rank())] = comm.runtime().now();
  });
  return done;
}

TEST(SimBackend, MessageGapPlatformDeclaresItsGap) {
  REQUIRE_PLATFORM(gap_platform());
  EXPECT_DOUBLE_EQ(sim::message_gap(on(gap_platform(), 2)), test_gap);
  sim::Config c = on(gap_platform(), 2);
  c.message_gap = 0.25e-6;
  EXPECT_DOUBLE_EQ(sim::message_gap(c), 0.25e-6);
  c.message_gap = -1.0;
  EXPECT_THROW((void)sim::message_gap(c), InvalidArgument);
  EXPECT_THROW(sim::run(c, [](Comm&) {}), InvalidArgument);
}

TEST(SimBackend, MessageGapRootCompletesItsReceivesAGapApart) {
  REQUIRE_PLATFORM(gap_platform());
  constexpr int k = 9;
  const std::vector<double> done = gather_one_byte_each(on(gap_platform(), k + 1));
  ASSERT_EQ(done.size(), static_cast<std::size_t>(k));
  // All k bytes arrive together after one latency; the root is done with them a gap apart.
  EXPECT_NEAR(done.front(), together(k), tick);
  EXPECT_GE(done.back() - done.front(), (k - 1) * test_gap - tick);
  for (int j = 0; j < k; ++j) EXPECT_NEAR(done[static_cast<std::size_t>(j)], together(k) + j * test_gap, tick) << j;
}

TEST(SimBackend, MessageGapLoneMessageIsNotDelayed) {
  REQUIRE_PLATFORM(gap_platform());
  const std::vector<double> done = gather_one_byte_each(on(gap_platform(), 2));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_NEAR(done[0], one_byte, tick);
  // Nor are messages further apart than the gap: each one alone on the wire.
  std::vector<double> got(2, -1);
  sim::run(on(gap_platform(), 2), [&](Comm& comm) {
    std::byte b{1};
    for (int m = 0; m < 2; ++m) {
      if (comm.rank() == 0) {
        comm.send(1, 0, &b, 1);
        comm.runtime().sleep_for(3 * test_gap);
      } else {
        comm.recv(0, 0, &b, 1);
        got[static_cast<std::size_t>(m)] = comm.runtime().now();
      }
    }
  });
  EXPECT_NEAR(got[0], one_byte, tick);
  EXPECT_NEAR(got[1], 2 * one_byte + 3 * test_gap, tick);
}

TEST(SimBackend, MessageGapSenderStartsItsSendsAGapApart) {
  REQUIRE_PLATFORM(gap_platform());
  constexpr int k = 6;
  const std::vector<double> done = scatter_one_byte_each(on(gap_platform(), k + 1));
  for (int i = 1; i <= k; ++i) EXPECT_NEAR(done[static_cast<std::size_t>(i)], one_byte + (i - 1) * test_gap, tick) << i;
  // The root's sends complete when their bytes arrived: the last one (k - 1) gaps late.
  EXPECT_NEAR(done[0], one_byte + (k - 1) * test_gap, tick);
}

TEST(SimBackend, MessageGapSendCompletesWhenItsBytesArriveNotWhenTheReceiverIsDone) {
  REQUIRE_PLATFORM(gap_platform());
  // Ranks 1 and 2 send to rank 0 at once: both bytes arrive together, rank 0 is done with
  // the second a gap later, but both senders are done at the arrival.
  std::vector<double> done(3, -1);
  sim::run(on(gap_platform(), 3), [&](Comm& comm) {
    std::byte b{1};
    if (comm.rank() == 0) {
      std::array<std::byte, 2> in{};
      std::vector<Request> r;
      r.push_back(comm.irecv(1, 0, &in[0], 1));
      r.push_back(comm.irecv(2, 0, &in[1], 1));
      comm.wait_all(r);
    } else {
      comm.send(0, 0, &b, 1);
    }
    done[static_cast<std::size_t>(comm.rank())] = comm.runtime().now();
  });
  EXPECT_NEAR(done[0], together(2) + test_gap, tick);
  EXPECT_NEAR(done[1], together(2), tick);
  EXPECT_NEAR(done[2], together(2), tick);
}

TEST(SimBackend, MessageGapDaemonsShareTheirRanksGap) {
  REQUIRE_PLATFORM(gap_platform());
  // Rank 0's main actor and its daemon each send one byte at once, to ranks 1 and 2: one
  // of the two sends starts a gap after the other.
  std::vector<double> done(3, -1);
  sim::run(on(gap_platform(), 3), [&](Comm& comm) {
    std::byte b{1};
    if (comm.rank() == 0) {
      auto daemon = comm.runtime().spawn_daemon("second", [&comm] {
        const std::byte c{2};
        comm.send(2, 0, &c, 1);
      });
      comm.send(1, 0, &b, 1);
      daemon->join();
    } else {
      comm.recv(0, 0, &b, 1);
      done[static_cast<std::size_t>(comm.rank())] = comm.runtime().now();
    }
  });
  std::vector<double> receivers{done[1], done[2]};
  std::sort(receivers.begin(), receivers.end());
  EXPECT_NEAR(receivers[0], one_byte, tick);
  EXPECT_NEAR(receivers[1], one_byte + test_gap, tick);
}

TEST(SimBackend, MessageGapConfigOverridesThePlatform) {
  REQUIRE_PLATFORM(gap_platform());
  constexpr int k = 5;
  sim::Config c = on(gap_platform(), k + 1);
  c.message_gap = 0.0;  // the bare network: every byte done after one latency
  for (double t : gather_one_byte_each(c)) EXPECT_NEAR(t, together(k), tick);
  c.message_gap = 3e-6;
  const std::vector<double> done = gather_one_byte_each(c);
  ASSERT_EQ(done.size(), static_cast<std::size_t>(k));
  for (int j = 0; j < k; ++j) EXPECT_NEAR(done[static_cast<std::size_t>(j)], together(k) + j * 3e-6, tick) << j;
  // The override lasts one run: the next gets the platform's gap again.
  const std::vector<double> again = gather_one_byte_each(on(gap_platform(), k + 1));
  EXPECT_NEAR(again.back(), together(k) + (k - 1) * test_gap, tick);
}

TEST(SimBackend, MessageGapPlatformWithoutTheGapIsUnchanged) {
  REQUIRE_PLATFORM("cluster-1gbe-48");
  constexpr int k = 9;
  EXPECT_EQ(sim::message_gap(on("cluster-1gbe-48", k + 1)), 0.0);
  // The k bytes arrive together after one latency (50 us; they share the root's link) and
  // the root is done with all of them at once.
  const double arrival = 50e-6 + k / 119.5e6;
  const std::vector<double> done = gather_one_byte_each(on("cluster-1gbe-48", k + 1));
  ASSERT_EQ(done.size(), static_cast<std::size_t>(k));
  for (double t : done) EXPECT_NEAR(t, arrival, tick);
  const std::vector<double> sent = scatter_one_byte_each(on("cluster-1gbe-48", k + 1));
  for (double t : sent) EXPECT_NEAR(t, arrival, tick);
}

TEST(SimBackend, MessageGapInfinibandQdr560DeclaresHalfAMicrosecond) {
  REQUIRE_PLATFORM("infiniband-qdr-560");
  EXPECT_DOUBLE_EQ(sim::message_gap(on("infiniband-qdr-560", 560)), 0.5e-6);
  // Ranks 16..25 (node 1) send one byte each to rank 0 (node 0): 1.7 us, then a gap each.
  sim::Config c = on("infiniband-qdr-560", 26);
  std::vector<double> done;
  sim::run(c, [&](Comm& comm) {
    std::byte b{1};
    if (comm.rank() == 0) {
      std::vector<std::byte> in(10);
      std::vector<Request> r;
      for (int i = 16; i < 26; ++i) r.push_back(comm.irecv(i, 0, &in[static_cast<std::size_t>(i - 16)], 1));
      while (comm.wait_any(r) != Comm::npos) done.push_back(comm.runtime().now());
    } else if (comm.rank() >= 16) {
      comm.send(0, 0, &b, 1);
    }
  });
  ASSERT_EQ(done.size(), 10u);
  // The 10 bytes share node 1's HCA and node 0's link, so they arrive a few ns apart.
  EXPECT_NEAR(done.front(), 1.7e-6, 5 * tick);
  EXPECT_NEAR(done.back() - done.front(), 9 * 0.5e-6, 5 * tick);
}

}  // namespace test_message_gap_test
}  // namespace ragged
