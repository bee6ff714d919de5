// The sim backend itself: simulated times that follow from the platform files'
// numbers (CM02: latency + size / bandwidth, max-min sharing), determinism,
// and how failures and deadlocks of the simulated program are reported.
//
// One process can load one platform. Tests on cluster-1gbe-48 (the default)
// run in any process; tests on another platform skip when the process already
// loaded a different one (ctest runs every test in a process of its own).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/sim_platform.hpp"

namespace ragged {
namespace test_sim_backend_test {

// cluster-1gbe-48: 25 us per host link, 119.5 MB/s, loopback 0.5 us / 6 GB/s, 36.8 Gflop/s per core.
constexpr double gbe_latency = 50e-6;
constexpr double gbe_bandwidth = 119.5e6;
constexpr double gbe_loop_latency = 0.5e-6;
constexpr double gbe_loop_bandwidth = 6e9;
constexpr double gbe_speed = 36.8e9;
constexpr double tick = 1e-9;  // now() counts whole nanoseconds

double gbe_time(double bytes) { return gbe_latency + bytes / gbe_bandwidth; }

sim::Config gbe(int procs) {
  sim::Config c;
  c.platform = "cluster-1gbe-48";
  c.procs = procs;
  return c;
}

// ------------------------------------------------------------------ times

TEST(SimBackend, MessageTakesLatencyPlusSizeOverBandwidth) {
  for (const std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{1000000}, std::size_t{4} << 20}) {
    std::vector<double> done(2, -1);
    sim::run(gbe(2), [&](Comm& comm) {
      std::vector<std::byte> buf(bytes);
      if (comm.rank() == 0) {
        comm.send(1, 0, buf.data(), bytes);
      } else {
        EXPECT_EQ(comm.recv(0, 0, buf.data(), bytes).bytes, bytes);
      }
      done[static_cast<std::size_t>(comm.rank())] = comm.runtime().now();
    });
    EXPECT_NEAR(done[0], gbe_time(static_cast<double>(bytes)), tick) << bytes;
    EXPECT_NEAR(done[1], gbe_time(static_cast<double>(bytes)), tick) << bytes;
  }
}

TEST(SimBackend, NothingMovesBeforeTheReceiveIsPosted) {
  std::vector<double> done(2, -1);
  sim::run(gbe(2), [&](Comm& comm) {
    std::vector<std::byte> buf(500000);
    if (comm.rank() == 0) {
      comm.send(1, 0, buf.data(), buf.size());
    } else {
      comm.runtime().sleep_for(0.25);
      comm.recv(0, 0, buf.data(), buf.size());
    }
    done[static_cast<std::size_t>(comm.rank())] = comm.runtime().now();
  });
  EXPECT_NEAR(done[0], 0.25 + gbe_time(500000), tick);
  EXPECT_NEAR(done[1], 0.25 + gbe_time(500000), tick);
}

TEST(SimBackend, TwoSendersShareTheReceiversLink) {
  const double bytes = 2e6;
  std::vector<double> done(3, -1);
  sim::run(gbe(3), [&](Comm& comm) {
    std::vector<std::byte> a(2000000);
    std::vector<std::byte> b(2000000);
    if (comm.rank() == 0) {
      Request reqs[2] = {comm.irecv(1, 0, a.data(), a.size()), comm.irecv(2, 0, b.data(), b.size())};
      comm.wait_all(reqs);
    } else {
      comm.send(0, 0, a.data(), a.size());
    }
    done[static_cast<std::size_t>(comm.rank())] = comm.runtime().now();
  });
  for (double t : done) EXPECT_NEAR(t, gbe_latency + 2 * bytes / gbe_bandwidth, tick);
}

TEST(SimBackend, LinksAreFullDuplex) {
  std::vector<double> done(2, -1);
  sim::run(gbe(2), [&](Comm& comm) {
    std::vector<std::byte> out(3000000);
    std::vector<std::byte> in(3000000);
    const int peer = 1 - comm.rank();
    comm.sendrecv(peer, 0, out.data(), out.size(), peer, 0, in.data(), in.size());
    done[static_cast<std::size_t>(comm.rank())] = comm.runtime().now();
  });
  for (double t : done) EXPECT_NEAR(t, gbe_time(3e6), tick);
}

TEST(SimBackend, RanksSharingANodeUseItsLoopback) {
  // 49 ranks on 48 nodes: rank 48 runs on node-0 beside rank 0.
  double done = -1;
  sim::run(gbe(49), [&](Comm& comm) {
    std::vector<std::byte> buf(1200000);
    if (comm.rank() == 48) comm.send(0, 0, buf.data(), buf.size());
    if (comm.rank() == 0) {
      comm.recv(48, 0, buf.data(), buf.size());
      done = comm.runtime().now();
    }
  });
  EXPECT_NEAR(done, gbe_loop_latency + 1.2e6 / gbe_loop_bandwidth, tick);
}

TEST(SimBackend, ComputeUsesTheHostSpeedAndSleepIsExact) {
  std::vector<double> t(3, -1);
  sim::run(gbe(1), [&](Comm& comm) {
    Runtime& rt = comm.runtime();
    rt.compute(gbe_speed / 4);
    t[0] = rt.now();
    rt.charge(gbe_speed / 8);
    t[1] = rt.now();
    rt.sleep_for(0.125);
    t[2] = rt.now();
  });
  EXPECT_DOUBLE_EQ(t[0], 0.25);
  EXPECT_DOUBLE_EQ(t[1], 0.375);
  EXPECT_DOUBLE_EQ(t[2], 0.5);
}

TEST(SimBackend, TimeoutsAreSimulatedSeconds) {
  double thrown_at = -1;
  sim::run(gbe(2), [&](Comm& comm) {
    if (comm.rank() != 1) return;
    int v = 0;
    try {
      comm.recv(0, 0, &v, sizeof v, 0.375);
    } catch (const TimeoutError&) {
      thrown_at = comm.runtime().now();
    }
  });
  EXPECT_DOUBLE_EQ(thrown_at, 0.375);
}

TEST(SimBackend, WaitAnyReturnsWhenTheFirstMessageLands) {
  double returned = -1;
  std::size_t index = 99;
  sim::run(gbe(3), [&](Comm& comm) {
    std::vector<std::byte> buf(1000000);
    std::vector<std::byte> other(1000000);
    if (comm.rank() == 0) {
      std::vector<Request> reqs;
      reqs.push_back(comm.irecv(1, 0, buf.data(), buf.size()));
      reqs.push_back(comm.irecv(2, 0, other.data(), other.size()));
      index = comm.wait_any(reqs);
      returned = comm.runtime().now();
      comm.wait_all(reqs);
    } else if (comm.rank() == 1) {
      comm.runtime().sleep_for(0.5);
      comm.send(0, 0, buf.data(), buf.size());
    } else {
      comm.runtime().sleep_for(0.125);
      comm.send(0, 0, buf.data(), 1000);
    }
  });
  EXPECT_EQ(index, 1u);
  EXPECT_NEAR(returned, 0.125 + gbe_time(1000), tick);  // no polling interval in it
}

TEST(SimBackend, PutNotifyLandsAfterOneTransfer) {
  double seen = -1;
  sim::run(gbe(2), [&](Comm& comm) {
    auto win = comm.create_window(800000, 1);
    const double t0 = comm.runtime().now();
    if (comm.rank() == 0) {
      std::vector<std::byte> data(800000, std::byte{7});
      win->put_notify(1, 0, data.data(), data.size(), 0, 1);
      win->flush();
    } else {
      EXPECT_EQ(win->notify_wait_some(0, 1), 0);
      seen = comm.runtime().now() - t0;
      EXPECT_EQ(win->local()[799999], std::byte{7});
    }
  });
  EXPECT_NEAR(seen, gbe_time(800000), 2 * tick);
}

TEST(SimBackend, UnsuccessfulTestCostsAMicrosecondSoPollingLoopsProgress) {
  long polls = 0;
  double done = -1;
  sim::run(gbe(2), [&](Comm& comm) {
    int v = 0;
    if (comm.rank() == 0) {
      comm.runtime().sleep_for(0.001);
      comm.send(1, 0, &v, sizeof v);
    } else {
      Request r = comm.irecv(0, 0, &v, sizeof v);
      while (!r.test()) ++polls;
      done = comm.runtime().now();
    }
  });
  EXPECT_GE(done, 0.001 + gbe_time(sizeof(int)));
  EXPECT_LE(done, 0.001 + gbe_time(sizeof(int)) + 1e-6 + tick);
  EXPECT_NEAR(static_cast<double>(polls), (0.001 + gbe_time(sizeof(int))) / 1e-6, 2.0);
}

// ------------------------------------------------------------------ determinism

std::vector<double> busy_pattern() {
  std::vector<double> times;
  sim::run(gbe(7), [&](Comm& comm) {
    const int p = comm.size();
    const int r = comm.rank();
    std::vector<std::vector<std::byte>> in(static_cast<std::size_t>(p));
    std::vector<std::vector<std::byte>> out(static_cast<std::size_t>(p));
    std::vector<Request> reqs;
    for (int s = 0; s < p; ++s) {
      in[static_cast<std::size_t>(s)].resize(300000);
      reqs.push_back(comm.irecv(any_source, 1, in[static_cast<std::size_t>(s)].data(), 300000));
    }
    comm.runtime().compute(1e7 * (r + 1));
    for (int d = 0; d < p; ++d) {
      out[static_cast<std::size_t>(d)].resize(static_cast<std::size_t>(1000 + 37000 * ((r * 3 + d) % 7)));
      reqs.push_back(
          comm.isend(d, 1, out[static_cast<std::size_t>(d)].data(), out[static_cast<std::size_t>(d)].size()));
    }
    for (std::size_t k = 0; k < reqs.size(); ++k) {
      (void)comm.wait_any(reqs);
      if (r == 3) times.push_back(comm.runtime().now());
    }
    barrier(comm);
    if (r == 3) times.push_back(comm.runtime().now());
  });
  return times;
}

TEST(SimBackend, RepeatedRunsGiveIdenticalTimes) {
  const std::vector<double> first = busy_pattern();
  ASSERT_EQ(first.size(), 15u);
  sim::run(gbe(1), [](Comm& comm) { comm.runtime().sleep_for(12345.678); });  // a later start clock
  const std::vector<double> second = busy_pattern();
  EXPECT_EQ(first, second);
}

// ------------------------------------------------------------------ failures

TEST(SimBackend, ADeadlockIsAnErrorNamingWhatEachRankWaitsFor) {
  try {
    sim::run(gbe(2), [](Comm& comm) {
      int v = 0;
      comm.recv(1 - comm.rank(), 5, &v, sizeof v);
    });
    FAIL() << "expected a deadlock error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("deadlock"), std::string::npos) << what;
    EXPECT_NE(what.find("rank 0 (main) blocked in Request::wait on recv(source=1, tag=5"), std::string::npos) << what;
    EXPECT_NE(what.find("rank 1 (main) blocked in Request::wait on recv(source=0, tag=5"), std::string::npos) << what;
  }
  // The engine is still usable.
  int sum = 0;
  sim::run(gbe(2), [&](Comm& comm) { sum += comm.rank() + 1; });
  EXPECT_EQ(sum, 3);
}

// Transfers have no actor of their own (an actor-free SimGrid comm each): 200 ranks that post a
// send to every other at once keep 39,800 transfers in flight, more than the ~30,000 actor
// stacks Linux's default vm.max_map_count let a process map, and every message still lands.
TEST(SimBackend, TransfersInFlightAreNotActors) {
  constexpr int procs = 200;
  std::vector<int> sums(procs, 0);
  sim::run(gbe(procs), [&](Comm& comm) {
    std::vector<int> in(procs, -1);
    std::vector<Request> requests;
    const int mine = 1000 + comm.rank();
    for (int peer = 0; peer < comm.size(); ++peer) {
      if (peer == comm.rank()) continue;
      requests.push_back(comm.irecv(peer, 3, &in[static_cast<std::size_t>(peer)], sizeof(int)));
      requests.push_back(comm.isend(peer, 3, &mine, sizeof mine));
    }
    comm.wait_all(requests);
    for (int peer = 0; peer < comm.size(); ++peer) {
      if (peer != comm.rank())
        sums[static_cast<std::size_t>(comm.rank())] += in[static_cast<std::size_t>(peer)] - 1000 - peer;
    }
    sums[static_cast<std::size_t>(comm.rank())] += in[static_cast<std::size_t>(comm.rank())] == -1 ? 0 : 1;
  });
  for (int r = 0; r < procs; ++r) EXPECT_EQ(sums[static_cast<std::size_t>(r)], 0) << "rank " << r;
}

TEST(SimBackend, TheFirstExceptionOfARankIsRethrown) {
  try {
    sim::run(gbe(3), [](Comm& comm) {
      if (comm.rank() == 1) {
        comm.runtime().sleep_for(0.01);
        throw std::runtime_error("boom in rank 1");
      }
      int v = 0;
      comm.recv(1, 0, &v, sizeof v);  // never comes: the run is abandoned instead
    });
    FAIL() << "expected the rank's exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "boom in rank 1");
  }
}

TEST(SimBackend, ADaemonBlockedForeverWhenItsRankEndsIsADeadlock) {
  std::unique_ptr<Daemon> outlives_the_run;  // a handle destroyed after its run does nothing
  try {
    sim::run(gbe(1), [&](Comm& comm) {
      outlives_the_run = comm.runtime().spawn_daemon("agent", [&comm] {
        int v = 0;
        comm.recv(0, 9, &v, sizeof v);
      });
    });
    FAIL() << "expected a deadlock error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("rank 0 (agent) blocked in Request::wait on recv(source=0, tag=9"), std::string::npos) << what;
  }
}

TEST(SimBackend, JoiningABlockedDaemonIsADeadlock) {
  try {
    sim::run(gbe(1), [](Comm& comm) {
      auto agent = comm.runtime().spawn_daemon("agent", [&comm] {
        int v = 0;
        comm.recv(0, 9, &v, sizeof v);
      });
      agent->join();
    });
    FAIL() << "expected a deadlock error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("rank 0 (main) blocked in Daemon::join"), std::string::npos) << what;
  }
}

TEST(SimBackend, ADaemonsExceptionIsRethrown) {
  EXPECT_THROW(sim::run(gbe(2),
                        [](Comm& comm) {
                          auto d =
                              comm.runtime().spawn_daemon("bad", [] { throw InvalidArgument("x", "from daemon"); });
                          d->join();
                        }),
               InvalidArgument);
}

TEST(SimBackend, MutexDeadlockBetweenRankAndDaemonIsReported) {
  try {
    sim::run(gbe(1), [](Comm& comm) {
      Runtime& rt = comm.runtime();
      auto a = rt.make_mutex();
      auto b = rt.make_mutex();
      auto d = rt.spawn_daemon("locker", [&] {
        std::lock_guard<Mutex> lb(*b);
        rt.sleep_for(0.01);
        std::lock_guard<Mutex> la(*a);
      });
      std::lock_guard<Mutex> la(*a);
      rt.sleep_for(0.01);
      std::lock_guard<Mutex> lb(*b);
      d->join();
    });
    FAIL() << "expected a deadlock error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("rank 0 (main) blocked in Mutex::lock"), std::string::npos) << what;
    EXPECT_NE(what.find("rank 0 (locker) blocked in Mutex::lock"), std::string::npos) << what;
  }
}

TEST(SimBackend, BadArgumentsNameTheArgument) {
  sim::run(gbe(2), [](Comm& comm) {
    int v = 0;
    auto name = [](auto&& f) -> std::string {
      try {
        f();
      } catch (const InvalidArgument& e) {
        return e.argument();
      }
      return "";
    };
    EXPECT_EQ(name([&] { (void)comm.isend(2, 0, &v, 4); }), "dest");
    EXPECT_EQ(name([&] { (void)comm.irecv(-2, 0, &v, 4); }), "source");
    EXPECT_EQ(name([&] { (void)comm.isend(0, max_tag + 1, &v, 4); }), "tag");
    EXPECT_EQ(name([&] { (void)comm.isend(0, 0, nullptr, 4); }), "data");
    EXPECT_EQ(name([&] { comm.runtime().sleep_for(-1); }), "seconds");
    EXPECT_EQ(name([&] { comm.runtime().compute(-1); }), "flops");
    auto win = comm.create_window(8, 2);
    EXPECT_EQ(name([&] { win->put_notify(2, 0, &v, 4, 0, 1); }), "target");
    EXPECT_EQ(name([&] { win->put_notify(0, 9, &v, 0, 0, 1); }), "offset");
    EXPECT_EQ(name([&] { win->put_notify(0, 6, &v, 4, 0, 1); }), "size");
    EXPECT_EQ(name([&] { win->put_notify(0, 0, &v, 4, 2, 1); }), "id");
    EXPECT_EQ(name([&] { win->put_notify(0, 0, &v, 4, 0, 0); }), "value");
    EXPECT_EQ(name([&] { (void)win->notify_wait_some(2, 1); }), "first");
    EXPECT_EQ(name([&] { (void)win->notify_wait_some(1, 2); }), "count");
    EXPECT_EQ(name([&] { (void)comm.create_window(8, -1); }), "notifications");
  });
  EXPECT_THROW(sim::run(gbe(0), [](Comm&) {}), InvalidArgument);
}

TEST(SimBackend, TruncationIsATransportErrorWithMpisCode) {
  sim::run(gbe(2), [](Comm& comm) {
    std::vector<std::byte> buf(64);
    if (comm.rank() == 0) {
      comm.send(1, 0, buf.data(), 64);
    } else {
      try {
        comm.recv(0, 0, buf.data(), 16);
        ADD_FAILURE() << "expected TransportError";
      } catch (const TransportError& e) {
        EXPECT_EQ(e.code(), 15);  // Open MPI's MPI_ERR_TRUNCATE
        EXPECT_NE(std::string(e.what()).find("64 bytes"), std::string::npos) << e.what();
      }
    }
  });
}

// ------------------------------------------------------------------ platforms

TEST(SimBackend, ShippedPlatformsResolveAndUnknownNamesAreRejected) {
  const auto names = sim::shipped_platforms();
  for (const char* expected :
       {"cluster-1gbe-48", "infiniband-qdr-560", "two-clusters-30-30", "two-clusters-20-40", "three-clusters-18-30-12",
        "four-clusters-16-4-24-12", "skylake-fdr-32", "marenostrum4-opa-32", "galileo-opa-16x4"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  for (const auto& name : names) {
    const std::string path = sim::platform_path(name);
    EXPECT_TRUE(std::filesystem::is_regular_file(path)) << path;
    EXPECT_EQ(sim::platform_path(path), path);  // a path to an existing file resolves to itself
  }
  try {
    (void)sim::platform_path("no-such-platform");
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "platform");
    EXPECT_NE(std::string(e.what()).find("cluster-1gbe-48"), std::string::npos) << e.what();
  }
}

TEST(SimBackend, ASecondPlatformInOneProcessIsRejected) {
  REQUIRE_PLATFORM("cluster-1gbe-48");
  sim::Config other = gbe(2);
  other.platform = "two-clusters-30-30";
  try {
    sim::run(other, [](Comm&) {});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "platform");
  }
}

TEST(SimBackend, RanksFillTheHostsInNaturalOrder) {
  REQUIRE_PLATFORM("cluster-1gbe-48");
  const sim::Placement pl = sim::placement(gbe(50));
  ASSERT_EQ(pl.host.size(), 50u);
  for (int r = 0; r < 50; ++r) {
    EXPECT_EQ(pl.host[static_cast<std::size_t>(r)], "node-" + std::to_string(r % 48));
    EXPECT_EQ(pl.zone[static_cast<std::size_t>(r)], "tryton-1gbe");
  }
}

TEST(SimBackend, TwoClustersAreSplitByZoneAndJoinedByTheBackbone) {
  REQUIRE_PLATFORM("two-clusters-20-40");
  sim::Config c;
  c.platform = "two-clusters-20-40";
  c.procs = 60;
  const sim::Placement pl = sim::placement(c);
  for (int r = 0; r < 60; ++r) {
    EXPECT_EQ(pl.zone[static_cast<std::size_t>(r)], r < 20 ? "nancy" : "rennes") << r;
    EXPECT_EQ(pl.host[static_cast<std::size_t>(r)],
              r < 20 ? "nancy-" + std::to_string(r) : "rennes-" + std::to_string(r - 20));
  }
  // Local: 50 us + S / 119.5 MB/s. Across: 25 us + 10 ms + 25 us + S / rate, where one flow's
  // rate is the 128 KiB TCP window per round trip (131072 B / 20.1 ms = 6.52 MB/s).
  double local = -1;
  double remote = -1;
  sim::run(c, [&](Comm& comm) {
    std::vector<std::byte> buf(1000000);
    if (comm.rank() == 0) {
      comm.send(1, 0, buf.data(), buf.size());
      comm.send(20, 0, buf.data(), buf.size());
    }
    if (comm.rank() == 1) {
      comm.recv(0, 0, buf.data(), buf.size());
      local = comm.runtime().now();
    }
    if (comm.rank() == 20) {
      const double t0 = comm.runtime().now();
      comm.recv(0, 0, buf.data(), buf.size());
      remote = comm.runtime().now() - t0;
    }
  });
  EXPECT_NEAR(local, 50e-6 + 1e6 / 119.5e6, tick);
  EXPECT_NEAR(remote - local, 10.05e-3 + 1e6 / (131072 / (2 * 10.05e-3)), 2 * tick);  // sent after the local one
}

TEST(SimBackend, TheBackboneIsSharedByAllCrossingFlows) {
  REQUIRE_PLATFORM("two-clusters-30-30");
  sim::Config c;
  c.platform = "two-clusters-30-30";
  c.procs = 60;
  std::vector<double> done(60, -1);
  sim::run(c, [&](Comm& comm) {
    // Every rank of the first cluster sends to every rank of the second: 900 flows at once.
    std::vector<std::byte> buf(30 * 200000);
    const int r = comm.rank();
    std::vector<Request> requests;
    for (int k = 0; k < 30; ++k) {
      std::byte* block = buf.data() + static_cast<std::size_t>(k) * 200000;
      requests.push_back(r < 30 ? comm.isend(30 + k, 0, block, 200000) : comm.irecv(k, 0, block, 200000));
    }
    comm.wait_all(requests);
    done[static_cast<std::size_t>(r)] = comm.runtime().now();
  });
  // Alone, each flow would move 6.52 MB/s (its TCP window), 900 of them 5.9 GB/s, 30 per node
  // 196 MB/s: the backbone's 1195 MB/s is the bottleneck, shared evenly (1.33 MB/s a flow).
  for (double t : done) EXPECT_NEAR(t, 10.05e-3 + 200000.0 * 900 / 1195e6, 2 * tick);
}

TEST(SimBackend, ThreeClustersShareTheirAccessLinks) {
  REQUIRE_PLATFORM("three-clusters-18-30-12");
  sim::Config c;
  c.platform = "three-clusters-18-30-12";
  c.procs = 60;
  const sim::Placement pl = sim::placement(c);
  for (int r = 0; r < 60; ++r) {
    const char* zone = r < 18 ? "lyon" : r < 48 ? "nancy" : "rennes";
    const int index = r < 18 ? r : r < 48 ? r - 18 : r - 48;
    EXPECT_EQ(pl.zone[static_cast<std::size_t>(r)], zone) << r;
    EXPECT_EQ(pl.host[static_cast<std::size_t>(r)], std::string(zone) + "-" + std::to_string(index)) << r;
  }
  // A lone message across: 25 us + 5 ms + 5 ms + 25 us + S / (131072 B / 20.1 ms), as on the
  // two-cluster platforms.
  double lone = -1;
  sim::run(c, [&](Comm& comm) {
    std::vector<std::byte> buf(1000000);
    if (comm.rank() == 17) comm.send(59, 0, buf.data(), buf.size());
    if (comm.rank() == 59) {
      comm.recv(17, 0, buf.data(), buf.size());
      lone = comm.runtime().now();
    }
  });
  EXPECT_NEAR(lone, 10.05e-3 + 1e6 / (131072 / (2 * 10.05e-3)), tick);
  // Every lyon rank sends to every rank of nancy and rennes: 18 x 42 = 756 flows, 4.9 GB/s at
  // their windows' rates, all through lyon's access link (1195 MB/s up), which they share
  // evenly; nancy's and rennes' links down carry 540 and 216 of them, below their capacity.
  std::vector<double> done(60, -1);
  sim::run(c, [&](Comm& comm) {
    const int r = comm.rank();
    std::vector<std::byte> buf(42 * 200000);
    std::vector<Request> requests;
    if (r < 18) {
      for (int k = 0; k < 42; ++k)
        requests.push_back(comm.isend(18 + k, 0, buf.data() + static_cast<std::size_t>(k) * 200000, 200000));
    } else {
      for (int k = 0; k < 18; ++k)
        requests.push_back(comm.irecv(k, 0, buf.data() + static_cast<std::size_t>(k) * 200000, 200000));
    }
    const double t0 = comm.runtime().now();
    comm.wait_all(requests);
    done[static_cast<std::size_t>(r)] = comm.runtime().now() - t0;
  });
  for (double t : done) EXPECT_NEAR(t, 10.05e-3 + 200000.0 * 756 / 1195e6, 2 * tick);
}

TEST(SimBackend, FourClustersAreTenMillisecondsApart) {
  REQUIRE_PLATFORM("four-clusters-16-4-24-12");
  sim::Config c;
  c.platform = "four-clusters-16-4-24-12";
  c.procs = 56;
  const sim::Placement pl = sim::placement(c);
  EXPECT_EQ(pl.host[15], "grenoble-15");
  EXPECT_EQ(pl.zone[16], "lille");
  EXPECT_EQ(pl.host[19], "lille-3");
  EXPECT_EQ(pl.host[20], "nancy-0");
  EXPECT_EQ(pl.zone[55], "rennes");
  EXPECT_EQ(pl.host[55], "rennes-11");
  // From lille to each other site, one message each, at once: every one alone on its route.
  std::vector<double> arrived(56, -1);
  sim::run(c, [&](Comm& comm) {
    std::vector<std::byte> buf(100000);
    const int r = comm.rank();
    if (r == 16) {
      std::vector<Request> requests;
      for (int to : {0, 20, 44}) requests.push_back(comm.isend(to, 0, buf.data(), buf.size()));
      comm.send(17, 0, buf.data(), buf.size());
      comm.wait_all(requests);
    }
    if (r == 0 || r == 20 || r == 44 || r == 17) {
      comm.recv(16, 0, buf.data(), buf.size());
      arrived[static_cast<std::size_t>(r)] = comm.runtime().now();
    }
  });
  for (int r : {0, 20, 44}) {
    EXPECT_NEAR(arrived[static_cast<std::size_t>(r)], 10.05e-3 + 1e5 / (131072 / (2 * 10.05e-3)), tick) << r;
  }
  // Inside lille, sent at once with the three others on the node's link: 50 us + S at a share of 119.5 MB/s.
  EXPECT_LT(arrived[17], 10e-3);
}

TEST(SimBackend, InfinibandNodesShareTheirHca) {
  REQUIRE_PLATFORM("infiniband-qdr-560");
  sim::Config c;
  c.platform = "infiniband-qdr-560";
  c.procs = 560;
  const sim::Placement pl = sim::placement(c);
  EXPECT_EQ(pl.host[17], "node-1-core-1");
  EXPECT_EQ(pl.zone[17], "node-1");
  EXPECT_EQ(pl.host[559], "node-34-core-15");
  std::vector<double> done(560, -1);
  sim::run(c, [&](Comm& comm) {
    std::vector<std::byte> buf(3200000);
    const int r = comm.rank();
    if (r < 16) comm.send(r + 16, 0, buf.data(), buf.size());  // node 0 -> node 1, all 16 cores at once
    if (r >= 16 && r < 32) comm.recv(r - 16, 0, buf.data(), buf.size());
    if (r == 32) comm.send(33, 0, buf.data(), buf.size());  // inside node 2
    if (r == 33) comm.recv(32, 0, buf.data(), buf.size());
    done[static_cast<std::size_t>(r)] = comm.runtime().now();
  });
  for (int r = 0; r < 32; ++r) EXPECT_NEAR(done[static_cast<std::size_t>(r)], 1.7e-6 + 16 * 3.2e6 / 3.2e9, tick) << r;
  EXPECT_NEAR(done[33], 0.5e-6 + 3.2e6 / 3.2e9, tick);
}

// The clusters of Iakymchuk et al. 2021 (platforms/README.md): one message between two nodes.
void expect_node_to_node(const char* platform, int procs, int to, double latency, double bandwidth) {
  sim::Config c;
  c.platform = platform;
  c.procs = procs;
  for (const std::size_t bytes : {std::size_t{0}, std::size_t{1} << 20}) {
    std::vector<double> done(static_cast<std::size_t>(procs), -1);
    sim::run(c, [&](Comm& comm) {
      std::vector<std::byte> buf(bytes);
      if (comm.rank() == 0) comm.send(to, 0, buf.data(), bytes);
      if (comm.rank() == to) comm.recv(0, 0, buf.data(), bytes);
      done[static_cast<std::size_t>(comm.rank())] = comm.runtime().now();
    });
    EXPECT_NEAR(done[static_cast<std::size_t>(to)], latency + static_cast<double>(bytes) / bandwidth, tick)
        << platform << " " << bytes;
  }
}

TEST(SimBackend, SkylakeFdrNodes) {
  REQUIRE_PLATFORM("skylake-fdr-32");
  expect_node_to_node("skylake-fdr-32", 32, 31, 0.7e-6, 6e9);
}

TEST(SimBackend, MareNostrum4OmniPathNodes) {
  REQUIRE_PLATFORM("marenostrum4-opa-32");
  expect_node_to_node("marenostrum4-opa-32", 32, 31, 1e-6, 12e9);
}

TEST(SimBackend, GalileoFourRanksPerNodeShareTheirHfi) {
  REQUIRE_PLATFORM("galileo-opa-16x4");
  sim::Config c;
  c.platform = "galileo-opa-16x4";
  c.procs = 64;
  const sim::Placement pl = sim::placement(c);
  EXPECT_EQ(pl.host[5], "node-1-core-1");
  EXPECT_EQ(pl.zone[5], "node-1");
  EXPECT_EQ(pl.host[63], "node-15-core-3");
  expect_node_to_node("galileo-opa-16x4", 64, 63, 1e-6, 10e9);  // a lone flow: the core's 10 GBps
  std::vector<double> done(64, -1);
  sim::run(c, [&](Comm& comm) {
    std::vector<std::byte> buf(1200000);
    const int r = comm.rank();
    if (r < 4) comm.send(r + 4, 0, buf.data(), buf.size());  // node 0 -> node 1, the 4 cores at once
    if (r >= 4 && r < 8) comm.recv(r - 4, 0, buf.data(), buf.size());
    done[static_cast<std::size_t>(r)] = comm.runtime().now();
  });
  for (int r = 0; r < 8; ++r) EXPECT_NEAR(done[static_cast<std::size_t>(r)], 1e-6 + 4 * 1.2e6 / 12e9, tick) << r;
}

}  // namespace test_sim_backend_test
}  // namespace ragged
