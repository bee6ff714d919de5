// Faults on the simulator, deterministic:
//  * a rank that never arrives: every registered algorithm of every collective, the absent
//    rank the last one, the root, or neither, with and without an arrival snapshot naming it
//    late; every rank that needs its data raises TimeoutError within the call's timeout, no
//    rank raises anything else, and the simulation ends;
//  * the same behind a Monitor: arrive() raises TimeoutError within MonitorOptions::timeout,
//    and every agent still stops (finalize names the silent rank);
//  * an error inside the agent (a stray message on its tag, truncated) reaches the caller as
//    TransportError, and the others time out instead of hanging;
//  * an estimate decades ahead is clamped to the horizon and the results stay exact (the clamp
//    itself, with NaN and estimates in the past, is unit-tested in tests/unit/arrival_test.cpp).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "internal/common.hpp"
#include "ragged/arrival.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "support/faults.hpp"
#include "support/registered.hpp"

namespace ragged {
namespace test_fault_test {

constexpr double call_timeout = 0.25;  // simulated seconds: every call here takes far less
constexpr double slack = 1e-3;         // a poll of the simulated wait_any

const LinkModel platform_link{50e-6, 1.0 / 119.5e6};

sim::Config gbe(int procs) {
  sim::Config c;
  c.procs = procs;
  return c;
}

/// The platform's link (no start-up measurement) and the calls' timeout.
MonitorOptions fault_monitor_options() {
  MonitorOptions mo;
  mo.link = platform_link;
  mo.timeout = call_timeout;
  return mo;
}

struct Seen {
  test::Outcome outcome = test::Outcome::completed;
  double after = 0;  ///< seconds from the call to its return or throw
  std::string what;
};

void absent_rank_case(Collective collective, const std::string& name, int procs, int root, int absent,
                      bool with_snapshot) {
  std::vector<Seen> seen(static_cast<std::size_t>(procs));
  sim::run(gbe(procs), [&](Comm& comm) {
    if (comm.rank() == absent) return;  // never arrives
    CollectiveOptions o;
    o.timeout = call_timeout;
    if (with_snapshot) {
      std::vector<double> at(static_cast<std::size_t>(procs), 0.0);
      at[static_cast<std::size_t>(absent)] = 1.0;  // predicted late; never comes
      o.hints.set(std::make_shared<const ArrivalSnapshot>(std::move(at), platform_link));
    }
    Seen& s = seen[static_cast<std::size_t>(comm.rank())];
    const double t0 = comm.runtime().now();
    s.outcome = test::call_collective(comm, collective, name, root, o, s.what);
    s.after = comm.runtime().now() - t0;
  });
  for (int r = 0; r < procs; ++r) {
    if (r == absent) continue;
    const Seen& s = seen[static_cast<std::size_t>(r)];
    const std::string where = std::string(name_of(collective)) + " " + name + " P=" + std::to_string(procs) + " root " +
                              std::to_string(root) + " absent " + std::to_string(absent) +
                              (with_snapshot ? " (snapshot)" : "") + ", rank " + std::to_string(r);
    EXPECT_NE(s.outcome, test::Outcome::other_error) << where << ": " << s.what;
    EXPECT_LE(s.after, call_timeout + slack) << where << ": " << name_of(s.outcome);
    if (test::must_time_out(collective, r, root, absent)) {
      EXPECT_EQ(s.outcome, test::Outcome::timed_out) << where << " finished without the absent rank's data";
    }
  }
}

TEST(Faults, ARankThatNeverArrivesTimesOutEveryAlgorithm) {
  for (Collective c : all_collectives) {
    for (const std::string& name : test::registered(c)) {
      const bool aware = Registry::instance().find(c, name).restrictions.needs_arrival;
      for (int procs : {2, 5}) {
        absent_rank_case(c, name, procs, 0, procs - 1, false);
        absent_rank_case(c, name, procs, 0, 0, false);  // the root, for the rooted ones
        if (procs > 2) absent_rank_case(c, name, procs, 1, 2, false);
        if (aware) absent_rank_case(c, name, procs, 0, procs - 1, true);
      }
    }
  }
}

TEST(Faults, MonitorRankThatNeverArrivesTimesOutAndEveryAgentStops) {
  constexpr int procs = 4;
  constexpr int absent = 3;
  std::vector<std::string> arrive(procs), finalize(procs);
  std::vector<double> arrive_after(procs, -1), finalize_after(procs, -1);
  sim::run(gbe(procs), [&](Comm& comm) {
    const auto me = static_cast<std::size_t>(comm.rank());
    Monitor monitor(comm, fault_monitor_options());
    std::vector<int> in(8, comm.rank()), out(8 * procs);
    for (int epoch = 0; epoch < 3; ++epoch) {  // in step
      monitor.processing_start();
      comm.runtime().sleep_for(1e-3 * comm.rank());
      monitor.processing_end();
      CollectiveOptions o;
      o.hints.set(monitor.arrive());
      allgather(comm, in.data(), out.data(), in.size(), DataType::int32, o);
    }
    if (comm.rank() == absent) {
      comm.runtime().sleep_for(10 * call_timeout);  // long gone; then it stops
    } else {
      monitor.processing_start();
      monitor.processing_end();
      const double t0 = comm.runtime().now();
      try {
        (void)monitor.arrive();
        arrive[me] = "returned";
      } catch (const TimeoutError& e) {
        arrive[me] = "TimeoutError";
      }
      arrive_after[me] = comm.runtime().now() - t0;
    }
    const double t1 = comm.runtime().now();
    try {
      monitor.finalize();
      finalize[me] = "returned";
    } catch (const TimeoutError& e) {
      finalize[me] = std::string("TimeoutError: ") + e.what();
    }
    finalize_after[me] = comm.runtime().now() - t1;
  });
  for (int r = 0; r < procs; ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (r == absent) {
      EXPECT_EQ(finalize[i], "returned") << "the late rank got every goodbye";
      continue;
    }
    EXPECT_EQ(arrive[i], "TimeoutError") << "rank " << r;
    EXPECT_NEAR(arrive_after[i], call_timeout, slack) << "rank " << r;
    EXPECT_NE(finalize[i].find("rank(s) 3 within"), std::string::npos) << "rank " << r << ": " << finalize[i];
    EXPECT_LE(finalize_after[i], call_timeout + slack) << "rank " << r;
  }
}

TEST(Faults, AnErrorInTheAgentReachesTheCallerAsTransportError) {
  constexpr int procs = 3;
  constexpr int victim = 1;
  std::vector<std::string> arrive(procs), finalize(procs);
  sim::run(gbe(procs), [&](Comm& comm) {
    const auto me = static_cast<std::size_t>(comm.rank());
    Monitor monitor(comm, fault_monitor_options());
    if (comm.rank() == 0) {  // a stray message on the agents' tag, longer than their records
      std::vector<char> junk(1024, 'x');
      comm.send(victim, internal::tag_agent, junk.data(), junk.size(), call_timeout);
    }
    // The victim's agent meets the stray message before it has this epoch's record to send.
    if (comm.rank() == victim) comm.runtime().sleep_for(0.01);
    monitor.processing_start();
    monitor.processing_end();
    auto record = [](std::string& where, auto&& f) {
      try {
        f();
        where = "returned";
      } catch (const TransportError& e) {
        where = std::string("TransportError: ") + e.what();
      } catch (const TimeoutError& e) {
        where = "TimeoutError";
      }
    };
    record(arrive[me], [&] { (void)monitor.arrive(); });
    record(finalize[me], [&] { monitor.finalize(); });
  });
  EXPECT_EQ(arrive[victim].rfind("TransportError", 0), 0U) << arrive[victim];
  EXPECT_EQ(finalize[victim].rfind("TransportError", 0), 0U) << finalize[victim];
  for (int r : {0, 2}) {
    EXPECT_EQ(arrive[static_cast<std::size_t>(r)], "TimeoutError") << "rank " << r;
    EXPECT_EQ(finalize[static_cast<std::size_t>(r)], "TimeoutError") << "rank " << r;
  }
}

TEST(Faults, AFarFutureEstimateIsClampedAndResultsStayExact) {
  constexpr int procs = 5;
  constexpr int epochs = 4;
  std::vector<std::vector<double>> arrivals(epochs);
  bool exact = true;
  sim::run(gbe(procs), [&](Comm& comm) {
    MonitorOptions mo;
    mo.link = platform_link;
    mo.timeout = 10.0;
    mo.horizon_s = 0.5;
    Monitor monitor(comm, mo);
    std::vector<int> in(16), out(16 * procs);
    for (int epoch = 0; epoch < epochs; ++epoch) {
      monitor.processing_start();
      comm.runtime().sleep_for(1e-3);
      // 1e-12 of the work after 1 ms: an estimate some thirty years ahead.
      if (comm.rank() == 1) monitor.edge(1e-12);
      comm.runtime().sleep_for(1e-3);
      monitor.processing_end();
      auto snap = monitor.arrive();
      if (comm.rank() == 0)
        arrivals[static_cast<std::size_t>(epoch)].assign(snap->arrivals().begin(), snap->arrivals().end());
      CollectiveOptions o;
      o.timeout = 10.0;
      o.hints.set(snap);
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = comm.rank() * 100 + epoch * 10 + static_cast<int>(i);
      allgather(comm, in.data(), out.data(), in.size(), DataType::int32, o);
      for (int r = 0; r < procs; ++r) {
        for (std::size_t i = 0; i < in.size(); ++i) {
          if (out[static_cast<std::size_t>(r) * in.size() + i] != r * 100 + epoch * 10 + static_cast<int>(i)) {
            exact = false;
          }
        }
      }
    }
    monitor.finalize();
  });
  EXPECT_TRUE(exact);
  for (int epoch = 0; epoch < epochs; ++epoch) {
    const auto& a = arrivals[static_cast<std::size_t>(epoch)];
    ASSERT_EQ(a.size(), static_cast<std::size_t>(procs));
    // Rank 1's estimate is clamped to the horizon: at most 0.5 s after it was made.
    EXPECT_GT(a[1] - a[0], 0.4) << "epoch " << epoch;
    EXPECT_LE(a[1] - a[0], 0.5) << "epoch " << epoch;
  }
}

TEST(Faults, RanksThatAllTimeOutAtOneInstantEndInOneCleanError) {
  // Every rank waits for a message nobody sends, with the same timeout: the first to time out
  // fails the run and wakes the others, which time out at that same simulated instant and may
  // run and exit before its wake-up is handled. The run must end in the timeout, not crash (it
  // did: the wake-up released the semaphore of an actor that had already exited; and so did
  // ranks that ran two different broadcasts under one bcast call).
  for (const int procs : {2, 3, 5, 8}) {
    sim::Config config;
    config.platform = "cluster-1gbe-48";
    config.procs = procs;
    try {
      sim::run(config, [](Comm& comm) {
        int value = 0;
        Request r = comm.irecv((comm.rank() + 1) % comm.size(), 7, &value, sizeof value);
        r.wait(Timeout{1.0});
      });
      ADD_FAILURE() << "P=" << procs << ": no error";
    } catch (const TimeoutError& e) {
      EXPECT_NE(std::string(e.what()).find("no completion within"), std::string::npos) << e.what();
    }
  }
}

}  // namespace test_fault_test
}  // namespace ragged
