// The threshold broadcast and reduce under mpirun (tests/mpi_threshold/CMakeLists.txt runs it
// with RAGGED_WINDOW=rma and =emulated): every root, the thresholds of the sim sweep, counts 0,
// 1, 7, 1000 and 100003, bcast, reduce by data and by processes, in place and not, every other
// call with staggered arrivals, all on one communicator back to back; then consecutive calls
// with a slow rank (cross-call safety on a real transport). Every result is checked exactly
// (tests/support/threshold_cases.hpp), threshold 1 against ragged::bcast and ragged::reduce.
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "mpi/harness.hpp"
#include "ragged/error.hpp"
#include "ragged/mpi.hpp"
#include "ragged/threshold.hpp"
#include "support/threshold_cases.hpp"

namespace ragged {
namespace {

using test::threshold::Case;
using test::threshold::Kind;

/// Runs `cases` on every rank; one verdict for the lot.
void run_cases(Comm& comm, const std::vector<Case>& cases, const std::string& step, mpitest::Tally& tally) {
  CollectiveOptions options;
  options.timeout = 60.0;
  bool ok = true;
  try {
    for (const Case& c : cases) test::threshold::run_case(comm, c, options);
  } catch (const std::exception& e) {
    ok = false;
    mpitest::say(step + ": " + e.what());
  }
  mpitest::tally_step(tally, step, ok);
}

int run() {
  mpitest::Tally tally;
  const auto comm = mpi::make_comm(MPI_COMM_WORLD);
  const int p = comm->size();
  std::uint64_t salt = 0;
  for (int root = 0; root < p; ++root) {
    std::vector<Case> cases;
    test::threshold::add_sweep_cases(cases, root, 1e-3, salt);
    for (double t : {0.25, 1.0}) test::threshold::add_large_cases(cases, root, t, 0.0, salt);
    run_cases(*comm, cases, "sweep root " + std::to_string(root), tally);
  }
  // Consecutive calls, a slow rank every third call: the others run ahead as far as the
  // protocol lets them.
  for (Kind kind : {Kind::bcast, Kind::reduce_data, Kind::reduce_processes}) {
    std::vector<Case> cases;
    const double ts[] = {0.25, 1.0, 0.5, 0.1, 0.75};
    for (std::uint64_t k = 0; k < 30; ++k) {
      Case c;
      c.kind = kind;
      c.root = static_cast<int>((k / 4) % static_cast<std::uint64_t>(p));
      c.threshold = ts[k % 5];
      c.count = 100 + 37 * k;
      c.salt = ++salt;
      c.float64 = k % 2 == 0;
      c.stagger_seconds = k % 3 == 0 ? 5e-3 : 0.0;
      cases.push_back(c);
    }
    run_cases(*comm, cases, std::string("drift ") + (kind == Kind::bcast ? "bcast" : "reduce"), tally);
  }
  // A stopped peer: after one call together the last rank makes no more; every other rank
  // returns or raises TimeoutError within the timeout, and some do (bcast: the last rank is a
  // leaf, whose parent waits for its acknowledgement; reduce: the root waits for its data). Each
  // kind on a communicator of its own (the protocol state after a timeout is unknown), freed
  // by every rank together at the end of the step: the window's destruction is collective, and
  // must come before MPI_Finalize.
  if (p > 1) {
    std::vector<std::unique_ptr<Comm>> kept;
    for (Kind kind : {Kind::bcast, Kind::reduce_data}) {
      kept.push_back(mpi::make_comm(MPI_COMM_WORLD));
      Comm& c = *kept.back();
      // The call made together creates the window and may wait for ranks that share the cores
      // with other tests (5 ranks and their progress threads on 2 cores in CI): a generous
      // timeout. Only the call that the last rank never makes is held to 0.5 s.
      CollectiveOptions together;
      together.timeout = 30.0;
      CollectiveOptions o;
      o.timeout = 0.5;
      std::vector<double> v(64, 1.0);
      std::vector<double> out(64, 0.0);
      const auto call = [&](const CollectiveOptions& opts) {
        if (kind == Kind::bcast) {
          (void)bcast_threshold(c, v.data(), v.size(), DataType::float64, 0, 0.5, opts);
        } else {
          (void)reduce_threshold(c, v.data(), out.data(), v.size(), DataType::float64, ReduceOp::sum(), 0, 0.5,
                                 ThresholdBy::data, opts);
        }
      };
      bool ok = true;
      long timeouts = 0;
      try {
        call(together);  // creates the window
        if (c.rank() != p - 1) {
          const auto start = std::chrono::steady_clock::now();
          try {
            call(o);
          } catch (const TimeoutError&) {
            ++timeouts;
          }
          const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          // 1.5 s of slack for the scheduler: MPICH's ranks poll, and 5 of them on 2 cores took
          // over 1 s to raise a 0.5 s timeout once in CI (a hang would still take 30 s).
          ok = took < 0.5 + 1.5;
        }
      } catch (const std::exception& e) {
        ok = false;
        mpitest::say(std::string("stopped peer: ") + e.what());
      }
      long all = 0;
      MPI_Allreduce(&timeouts, &all, 1, MPI_LONG, MPI_SUM, mpitest::verdict_comm());
      mpitest::tally_step(tally,
                          std::string("stopped peer, ") + (kind == Kind::bcast ? "bcast" : "reduce") +
                              ": TimeoutError within the timeout",
                          ok && all > 0);
    }
  }
  return mpitest::tally_verdict(tally);
}

}  // namespace
}  // namespace ragged

int main(int argc, char** argv) { return ragged::mpitest::main_of(&argc, &argv, ragged::run); }
