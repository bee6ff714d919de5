// The threshold broadcast and reduce (ragged/threshold.hpp, Iakymchuk et al. 2021, §III-B) on the simulator.
//  * Sweep: P = 1..9, 16, 33; every root for P <= 9 (three roots above); thresholds 0.25, 0.5,
//    0.75, 1 and 0.1, 0.33, 0.9, 0.07; counts 0, 1, 7 and a large one; bcast, reduce by data and
//    reduce by processes, in place and not, int64 and float64, sum and max; every call on one
//    communicator, back to back, every other one with staggered arrivals: the result is exact on
//    the part the status documents, the rest untouched, threshold 1 equals ragged::bcast and
//    ragged::reduce bit for bit (tests/support/threshold_cases.hpp).
//  * Drift: ranks far apart from call to call (one rank slow every third call, another every
//    fifth) through consecutive calls that change threshold, root, count and collective.
//  * A stopped peer: TimeoutError within the timeout, never a hang, on first use of the window
//    and once it exists.
//  * Arguments: InvalidArgument naming each one, on every rank, before any communication.
#include "ragged/threshold.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "plans/binomial_tree.hpp"
#include "plans/threshold_plan.hpp"
#include "ragged/error.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/threshold_cases.hpp"

namespace ragged {
namespace test_threshold_test {

using test::threshold::Case;
using test::threshold::Kind;
using test::threshold::run_case;

sim::Config config_of(int procs) {
  sim::Config c;
  c.platform = "cluster-1gbe-48";
  c.procs = procs;
  return c;
}

std::vector<int> roots_of(int procs) {
  std::vector<int> roots;
  if (procs <= 9) {
    for (int r = 0; r < procs; ++r) roots.push_back(r);
  } else {
    roots = {0, procs / 2, procs - 1};
  }
  return roots;
}

class ThresholdSweep : public testing::TestWithParam<int> {};

TEST_P(ThresholdSweep, ExactOnTheDocumentedPartUntouchedElsewhere) {
  const int procs = GetParam();
  std::vector<Case> cases;
  std::uint64_t salt = 0;
  for (int root : roots_of(procs)) test::threshold::add_sweep_cases(cases, root, 2e-3, salt);
  // A large count at a few thresholds, from the first and the last root.
  for (int root : {0, procs - 1}) {
    for (double t : {0.25, 1.0, 0.33}) test::threshold::add_large_cases(cases, root, t, 1e-3, salt);
  }
  std::vector<int> done(static_cast<std::size_t>(procs), 0);
  sim::run(config_of(procs), [&](Comm& comm) {
    CollectiveOptions options;
    options.timeout = 60.0;  // simulated seconds: far beyond any of these calls
    for (const Case& c : cases) run_case(comm, c, options);
    done[static_cast<std::size_t>(comm.rank())] = static_cast<int>(cases.size());
  });
  for (int r = 0; r < procs; ++r) EXPECT_EQ(done[static_cast<std::size_t>(r)], static_cast<int>(cases.size()));
}

INSTANTIATE_TEST_SUITE_P(Procs, ThresholdSweep, testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 33),
                         [](const testing::TestParamInfo<int>& p) { return "P" + std::to_string(p.param); });

// Consecutive calls whose ranks drift far apart: rank 2 sleeps long before every third call and
// the last rank before every fifth, so that fast ranks run a call or more ahead of the slow ones
// (as far as the protocol lets them) while thresholds, roots, counts and collectives change
// from call to call and the windows grow (re-created) in the middle. Three sequences: bcasts
// only (nothing else synchronizes the ranks: a parent may finish call k before its inner child
// read call k's data, and start call k+1), reduces only, and the three kinds mixed.
enum class Sequence { bcast_only, reduce_only, mixed };

void drift_case(int procs, Sequence sequence) {
  std::vector<Case> cases;
  const double ts[] = {0.25, 1.0, 0.5, 0.1, 0.75, 0.33, 1.0, 0.9};
  for (std::uint64_t k = 0; k < 60; ++k) {
    Case c;
    switch (sequence) {
      case Sequence::bcast_only:
        c.kind = Kind::bcast;
        break;
      case Sequence::reduce_only:
        c.kind = k % 2 == 0 ? Kind::reduce_data : Kind::reduce_processes;
        break;
      case Sequence::mixed:
        c.kind = static_cast<Kind>(k % 3);
        break;
    }
    // The same root for stretches of calls (so the same parents), then another.
    c.root = static_cast<int>((k / 7) % static_cast<std::uint64_t>(procs));
    c.threshold = ts[k % 8];
    c.count = k < 30 ? 64 + k : 5000 + 17 * k;
    c.salt = k + 1;
    c.float64 = k % 4 == 1;
    c.in_place = k % 5 == 2;
    cases.push_back(c);
  }
  sim::run(config_of(procs), [&](Comm& comm) {
    CollectiveOptions options;
    options.timeout = 60.0;
    for (std::size_t k = 0; k < cases.size(); ++k) {
      if (comm.rank() == 2 % procs && k % 3 == 0) comm.runtime().sleep_for(0.05);
      if (comm.rank() == comm.size() - 1 && k % 5 == 0) comm.runtime().sleep_for(0.03);
      run_case(comm, cases[k], options);
    }
  });
}

TEST(ThresholdDrift, ConsecutiveBcastsStayExact) {
  for (int procs : {3, 5, 8, 13}) drift_case(procs, Sequence::bcast_only);
}

TEST(ThresholdDrift, ConsecutiveReducesStayExact) {
  for (int procs : {3, 5, 8, 13}) drift_case(procs, Sequence::reduce_only);
}

TEST(ThresholdDrift, ConsecutiveMixedCallsStayExact) {
  for (int procs : {3, 5, 8, 13}) drift_case(procs, Sequence::mixed);
}

// A rank that stops: the others raise TimeoutError within the timeout or complete, and the
// simulation ends (nothing hangs). On the first call (the window does not exist yet: the
// cache's bounded barrier) and on a later one (the protocol's notifications).
enum class Outcome { completed, timed_out, other };

void stopped_peer_case(int procs, int absent, int root, bool window_exists, bool reduce, ThresholdBy by) {
  constexpr double timeout = 0.25;
  std::vector<Outcome> outcome(static_cast<std::size_t>(procs), Outcome::other);
  std::vector<double> after(static_cast<std::size_t>(procs), 0.0);
  std::vector<std::string> what(static_cast<std::size_t>(procs));
  sim::run(config_of(procs), [&](Comm& comm) {
    const auto me = static_cast<std::size_t>(comm.rank());
    std::vector<double> buf(100, 1.0);
    std::vector<double> out(100, 0.0);
    CollectiveOptions options;
    options.timeout = timeout;
    const auto call = [&] {
      if (reduce) {
        (void)reduce_threshold(comm, buf.data(), out.data(), buf.size(), DataType::float64, ReduceOp::sum(), root, 0.5,
                               by, options);
      } else {
        (void)bcast_threshold(comm, buf.data(), buf.size(), DataType::float64, root, 0.5, options);
      }
    };
    if (window_exists) call();  // every rank, once: the window now exists
    if (comm.rank() == absent) {
      outcome[me] = Outcome::completed;
      return;  // stops
    }
    const double t0 = comm.runtime().now();
    try {
      call();
      outcome[me] = Outcome::completed;
    } catch (const TimeoutError& e) {
      outcome[me] = Outcome::timed_out;
      what[me] = e.what();
    } catch (const std::exception& e) {
      what[me] = e.what();
    }
    after[me] = comm.runtime().now() - t0;
  });
  const std::string where = std::string(reduce ? "reduce" : "bcast") + " P=" + std::to_string(procs) + " absent " +
                            std::to_string(absent) + " root " + std::to_string(root) +
                            (window_exists ? " (window exists)" : " (first call)");
  int timed_out = 0;
  for (int r = 0; r < procs; ++r) {
    const auto i = static_cast<std::size_t>(r);
    EXPECT_NE(outcome[i], Outcome::other) << where << ", rank " << r << ": " << what[i];
    EXPECT_LE(after[i], timeout + 1e-3) << where << ", rank " << r;
    if (outcome[i] == Outcome::timed_out) ++timed_out;
  }
  // A rank outside the stages a process threshold keeps takes no part: its absence is not
  // noticed (P = 5 at 0.5 keeps the relative ranks 0..3).
  const bool needed = !(reduce && by == ThresholdBy::processes) ||
                      plans::binomial::relative(absent, root, procs) < plans::threshold::contributors(0.5, procs);
  if (!needed && window_exists) {
    EXPECT_EQ(timed_out, 0) << where;
    return;
  }
  EXPECT_GE(timed_out, 1) << where;
  // The root needs every contributor (reduce) or waits for its children (bcast).
  if (root != absent) EXPECT_EQ(outcome[static_cast<std::size_t>(root)], Outcome::timed_out) << where;
}

TEST(ThresholdFaults, AStoppedPeerGivesTimeoutErrorNeverAHang) {
  for (bool window_exists : {false, true}) {
    for (int absent : {0, 2, 4}) {
      stopped_peer_case(5, absent, 0, window_exists, false, ThresholdBy::data);
      stopped_peer_case(5, absent, 1, window_exists, true, ThresholdBy::data);
      stopped_peer_case(5, absent, 0, window_exists, true, ThresholdBy::processes);
    }
  }
}

// Every argument is checked on every rank before anything is sent, so each rank throws the
// same InvalidArgument and none waits for another.
TEST(ThresholdArguments, InvalidArgumentNamesTheArgument) {
  sim::run(config_of(3), [&](Comm& comm) {
    std::vector<std::int64_t> buf(8, 1);
    std::vector<std::int64_t> out(8, 0);
    const auto expect = [&](const std::string& argument, auto&& fn) {
      try {
        fn();
      } catch (const InvalidArgument& e) {
        RAGGED_CHECK_EQ(e.argument(), argument);
        return;
      }
      throw test::CheckFailed("no InvalidArgument('" + argument + "')");
    };
    const auto bc = [&](void* b, std::size_t n, int root, double t, DataType type = DataType::int64) {
      return [=, &comm] { (void)bcast_threshold(comm, b, n, type, root, t); };
    };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (double t : {0.0, -0.5, 1.5, nan, std::numeric_limits<double>::infinity()}) {
      expect("threshold", bc(buf.data(), 8, 0, t));
      expect("threshold", [&] {
        (void)reduce_threshold(comm, buf.data(), out.data(), 8, DataType::int64, ReduceOp::sum(), 0, t,
                               ThresholdBy::data);
      });
    }
    expect("root", bc(buf.data(), 8, -1, 0.5));
    expect("root", bc(buf.data(), 8, 3, 0.5));
    expect("buffer", bc(nullptr, 8, 0, 0.5));
    expect("buffer", bc(const_cast<void*>(in_place), 8, 0, 0.5));
    expect("type", bc(buf.data(), 8, 0, 0.5, static_cast<DataType>(99)));
    const auto rd = [&](const void* s, void* r, ReduceOp op, int root, ThresholdBy by,
                        DataType type = DataType::int64) {
      return [=, &comm] { (void)reduce_threshold(comm, s, r, 8, type, op, root, 0.5, by); };
    };
    const ReduceOp minus = ReduceOp::make_custom(
        "minus", [](const void*, void*, std::size_t, DataType) {}, false);
    expect("op", rd(buf.data(), out.data(), minus, 0, ThresholdBy::data));
    expect("op", rd(buf.data(), out.data(), ReduceOp::make_custom("none", {}, true), 0, ThresholdBy::data));
    expect("type", rd(buf.data(), out.data(), ReduceOp::sum(), 0, ThresholdBy::data, DataType::byte));
    expect("by", rd(buf.data(), out.data(), ReduceOp::sum(), 0, static_cast<ThresholdBy>(7)));
    expect("root", rd(buf.data(), out.data(), ReduceOp::sum(), 5, ThresholdBy::processes));
    expect("sendbuf", rd(nullptr, out.data(), ReduceOp::sum(), 0, ThresholdBy::data));
    if (comm.rank() != 0) expect("sendbuf", rd(in_place, out.data(), ReduceOp::sum(), 0, ThresholdBy::data));
    if (comm.rank() == 0) expect("recvbuf", rd(buf.data(), nullptr, ReduceOp::sum(), 0, ThresholdBy::processes));
    if (comm.rank() == 0) {
      expect("recvbuf", rd(buf.data(), const_cast<void*>(in_place), ReduceOp::sum(), 0, ThresholdBy::data));
    }
    // Still usable afterwards: nothing was left half-done.
    test::threshold::Case c;
    c.count = 8;
    c.threshold = 0.5;
    run_case(comm, c);
  });
}

}  // namespace test_threshold_test
}  // namespace ragged
