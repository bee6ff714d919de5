// Runs every case of the conformance suite on the mpi backend, under mpirun
// (conformance.mpi.npN). Prints one line per case and exits non-zero if any case
// failed on any rank.
//
// Every case runs on a fresh Comm over MPI_COMM_WORLD. Afterwards the ranks agree on the
// verdict (a non-blocking allreduce with a deadline, tests/mpi/harness.hpp) and rank 0
// prints it with each failed rank's message. A rank that failed while the others still
// wait for it cannot leave them hanging: the agreement's deadline, or a watchdog on each
// case, prints what happened and ends the job with MPI_Abort.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "conformance/cases.hpp"
#include "mpi/harness.hpp"
#include "ragged/error.hpp"
#include "ragged/mpi.hpp"

namespace {

using namespace ragged;

/// A case still running after this long is taken as a deadlock.
constexpr double case_limit_s = 100.0;
/// How long the ranks that finished a case wait for the others.
constexpr double verdict_limit_s = 60.0;
constexpr std::size_t message_bytes = 512;

/// Aborts the job when the case it watches runs past case_limit_s.
class Watchdog {
 public:
  Watchdog()
      : thread_([this] {
          while (!stop_.load()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            const int index = current_.load();
            if (index < 0) continue;
            const double elapsed = MPI_Wtime() - started_.load();
            if (elapsed > case_limit_s) {
              std::printf("[rank %d] %s: still running after %.0f s (deadlock?); aborting\n", mpitest::world_rank(),
                          conformance::cases()[static_cast<std::size_t>(index)].name.c_str(), elapsed);
              std::fflush(stdout);
              MPI_Abort(MPI_COMM_WORLD, 4);
            }
          }
        }) {}
  ~Watchdog() {
    stop_ = true;
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void watch(int index) {
    started_ = MPI_Wtime();
    current_ = index;
  }
  void idle() { current_ = -1; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<int> current_{-1};
  std::atomic<double> started_{0.0};
  std::thread thread_;
};

/// Rank 0 prints every failed rank's message (the ranks are in step again here).
void report_failure(const std::string& name, const std::string& message, bool failed_here) {
  const int rank = mpitest::world_rank();
  const int size = mpitest::world_size();
  std::vector<char> mine(message_bytes, '\0');
  if (failed_here) {
    const std::string text = message.empty() ? std::string("failed") : message;
    std::copy_n(text.begin(), std::min(text.size(), message_bytes - 1), mine.begin());
  }
  std::vector<char> all(rank == 0 ? message_bytes * static_cast<std::size_t>(size) : 0);
  MPI_Gather(mine.data(), static_cast<int>(message_bytes), MPI_CHAR, all.data(), static_cast<int>(message_bytes),
             MPI_CHAR, 0, mpitest::verdict_comm());
  if (rank != 0) return;
  std::printf("%s: FAILED\n", name.c_str());
  for (int r = 0; r < size; ++r) {
    const char* text = all.data() + static_cast<std::size_t>(r) * message_bytes;
    if (text[0] != '\0') std::printf("    rank %d: %s\n", r, text);
  }
  std::fflush(stdout);
}

int run_suite() {
  const int rank = mpitest::world_rank();
  const int size = mpitest::world_size();
  int passed = 0;
  int failed = 0;
  int skipped = 0;
  Watchdog watchdog;
  const auto& suite = conformance::cases();
  for (std::size_t i = 0; i < suite.size(); ++i) {
    const conformance::Case& c = suite[i];
    if (c.min_procs > size) {
      ++skipped;
      if (rank == 0) std::printf("%s: skipped (needs %d ranks)\n", c.name.c_str(), c.min_procs);
      continue;
    }
    bool ok = true;
    std::string message;
    watchdog.watch(static_cast<int>(i));
    try {
      const auto comm = mpi::make_comm(MPI_COMM_WORLD);
      c.run(*comm);
    } catch (const std::exception& e) {
      ok = false;
      message = e.what();
    } catch (...) {
      ok = false;
      message = "an exception that is not a std::exception";
    }
    watchdog.idle();
    if (!ok) {
      // Printed at once: if the others are stuck waiting for this rank, this line is all we get.
      std::printf("[rank %d] %s: %s\n", rank, c.name.c_str(), message.c_str());
      std::fflush(stdout);
    }
    if (mpitest::all_agree(ok, c.name, verdict_limit_s)) {
      ++passed;
      if (rank == 0) std::printf("%s: ok\n", c.name.c_str());
    } else {
      ++failed;
      report_failure(c.name, message, !ok);
    }
    if (rank == 0) std::fflush(stdout);
  }
  if (rank == 0) {
    std::printf("conformance on mpi with %d ranks: %d passed, %d failed, %d skipped\n", size, passed, failed, skipped);
    std::fflush(stdout);
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return mpitest::main_of(&argc, &argv, run_suite,
                          {.return_completion_errors = true, .cannot_start = "cannot start the mpi backend"});
}
