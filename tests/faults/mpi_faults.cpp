// Faults under mpirun; the simulator's deterministic twin is
// tests/sim/fault_test.cpp.
//  1. A rank that never arrives, for every registered algorithm of every collective (not
//     "native": MPI's own collectives have no timeout), the absent rank the last one and then
//     the root: every rank that needs its data raises TimeoutError within the call's timeout
//     and no rank raises anything else. Each case runs on a fresh duplicate communicator, kept
//     until the end: the messages left behind for the absent rank stay on it (Open MPI hands
//     messages of a freed communicator to the next one that gets its context id).
//  2. The same behind a Monitor: arrive() raises TimeoutError within MonitorOptions::timeout,
//     and every agent thread stops (finalize names the silent rank; the late rank's returns).
//  3. An MPI error inside the agent (a stray message on its tag, longer than its records:
//     MPI_ERR_TRUNCATE) reaches the caller as TransportError instead of ending the process,
//     and the others time out instead of hanging.
// Every step ends with a verdict all ranks agree on (tests/mpi/harness.hpp).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "internal/common.hpp"
#include "mpi/harness.hpp"
#include "ragged/arrival.hpp"
#include "ragged/error.hpp"
#include "ragged/mpi.hpp"
#include "ragged/registry.hpp"
#include "support/faults.hpp"

namespace {

using namespace ragged;

constexpr double call_timeout = 0.3;  // seconds; every call here takes far less when all come
// A case of part 1 needs no call to succeed (a rank that does not need the absent rank's data may
// time out too), so its timeout can be shorter: it sets the test's time (two cases of every
// algorithm each wait this long).
constexpr double absent_timeout = 0.1;
constexpr double late_by = 0.5;  // how late a loaded 2-core machine (or ThreadSanitizer) may throw

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/// Every communicator of a case, kept until MPI_Finalize (see the top of this file).
std::vector<std::unique_ptr<Comm>>& kept() {
  static std::vector<std::unique_ptr<Comm>> comms;
  return comms;
}

Comm& fresh_comm() {
  kept().push_back(mpi::make_comm(MPI_COMM_WORLD));
  return *kept().back();
}

void absent_rank(mpitest::Tally& tally) {
  const int procs = mpitest::world_size();
  const int me = mpitest::world_rank();
  for (Collective c : all_collectives) {
    for (const Algorithm* a : Registry::instance().list(c, "mpi")) {
      if (!a->restrictions.backend.empty()) continue;  // native
      for (int absent : {procs - 1, 0}) {
        const int root = 0;
        const std::string what = std::string(name_of(c)) + " " + a->name + " without rank " + std::to_string(absent);
        bool ok = true;
        {
          Comm* comm = &fresh_comm();
          if (me != absent) {
            CollectiveOptions o;
            o.timeout = absent_timeout;
            std::string text;
            const double t0 = now();
            const test::Outcome got = test::call_collective(*comm, c, a->name, root, o, text);
            const double after = now() - t0;
            if (got == test::Outcome::other_error) {
              mpitest::say(what + ": " + text);
              ok = false;
            }
            if (test::must_time_out(c, me, root, absent) && got != test::Outcome::timed_out) {
              mpitest::say(what + ": " + test::name_of(got) + " without the absent rank's data, after " +
                           std::to_string(after) + " s");
              ok = false;
            }
            if (after > absent_timeout + late_by) {
              mpitest::say(what + ": returned after " + std::to_string(after) + " s");
              ok = false;
            }
          }
        }
        mpitest::tally_step(tally, what, ok);
      }
    }
  }
}

MonitorOptions monitor_options() {
  MonitorOptions mo;
  mo.link = LinkModel{50e-6, 1e-8};
  mo.timeout = call_timeout;
  mo.warm_up = false;
  return mo;
}

void monitor_never_arrives(mpitest::Tally& tally) {
  const int procs = mpitest::world_size();
  const int absent = procs - 1;
  const int me = mpitest::world_rank();
  bool ok = true;
  {
    Comm* comm = &fresh_comm();
    Monitor monitor(*comm, monitor_options());
    std::vector<int> in(8, me), out(8 * static_cast<std::size_t>(procs));
    for (int epoch = 0; epoch < 3; ++epoch) {
      monitor.processing_start();
      monitor.processing_end();
      CollectiveOptions o;
      o.timeout = 30.0;
      o.hints.set(monitor.arrive());
      allgather(*comm, in.data(), out.data(), in.size(), DataType::int32, o);
    }
    if (me == absent) {
      std::this_thread::sleep_for(std::chrono::duration<double>(4 * call_timeout));
    } else {
      monitor.processing_start();
      monitor.processing_end();
      const double t0 = now();
      try {
        (void)monitor.arrive();
        mpitest::say("arrive() returned without the absent rank's record");
        ok = false;
      } catch (const TimeoutError&) {
        if (now() - t0 > call_timeout + late_by) {
          mpitest::say("arrive() timed out after " + std::to_string(now() - t0) + " s");
          ok = false;
        }
      }
    }
    const double t1 = now();
    try {
      monitor.finalize();
      if (me != absent) {
        mpitest::say("finalize() returned without the absent rank's goodbye");
        ok = false;
      }
    } catch (const TimeoutError& e) {
      const bool named = std::string(e.what()).find("rank(s) " + std::to_string(absent)) != std::string::npos;
      if (me == absent || !named) {
        mpitest::say(std::string("finalize(): ") + e.what());
        ok = false;
      }
    }
    if (now() - t1 > call_timeout + late_by) {
      mpitest::say("finalize() took " + std::to_string(now() - t1) + " s");
      ok = false;
    }
  }
  mpitest::tally_step(tally, "monitor: a rank that never arrives", ok);
}

void agent_error(mpitest::Tally& tally) {
  const int me = mpitest::world_rank();
  constexpr int victim = 1;
  bool ok = true;
  {
    Comm* comm = &fresh_comm();
    Monitor monitor(*comm, monitor_options());
    if (me == 0) {  // a stray message on the agents' tag, longer than their records
      std::vector<char> junk(1024, 'x');
      comm->send(victim, internal::tag_agent, junk.data(), junk.size(), 10.0);
    }
    // The victim's agent meets the stray message before it has this epoch's record to send.
    if (me == victim) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    monitor.processing_start();
    monitor.processing_end();
    auto outcome = [](auto&& f) -> std::string {
      try {
        f();
        return "returned";
      } catch (const TransportError& e) {
        return std::string("TransportError: ") + e.what();
      } catch (const TimeoutError&) {
        return "TimeoutError";
      }
    };
    const std::string arrived = outcome([&] { (void)monitor.arrive(); });
    const std::string finalized = outcome([&] { monitor.finalize(); });
    const std::string want = me == victim ? "TransportError" : "TimeoutError";
    if (arrived.rfind(want, 0) != 0 || finalized.rfind(want, 0) != 0) {
      mpitest::say("arrive(): " + arrived + "; finalize(): " + finalized + "; expected " + want);
      ok = false;
    }
  }
  mpitest::tally_step(tally, "an MPI error inside the agent", ok);
}

}  // namespace

int main(int argc, char** argv) {
  // The session outlives the handler: an exception must abort the job, not reach MPI_Finalize
  // while the other ranks still communicate.
  ragged::mpi::Session session(&argc, &argv);
  try {
    mpitest::completion_errors_return();
    mpitest::Tally tally;
    absent_rank(tally);
    monitor_never_arrives(tally);
    agent_error(tally);
    const int code = mpitest::ranks_verdict("mpi fault tests", tally);
    kept().clear();
    return code;
  } catch (const std::exception& e) {
    mpitest::abort_job("test_mpi_faults", e);
  }
}
