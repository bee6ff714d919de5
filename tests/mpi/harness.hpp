// Shared by the mpirun tests: verdicts every rank agrees on, and a tally.
//
// A check that fails on one rank must not leave the others waiting for it forever, and the
// ranks must agree on whether a step passed so that they stay in step. After each step every
// rank contributes its verdict to a non-blocking MPI_Iallreduce on a private communicator;
// if the other ranks do not all reach it within a deadline (one of them is stuck in
// communication that a failed rank abandoned), the job is aborted with a message.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <thread>

#include "ragged/mpi.hpp"

namespace ragged::mpitest {

/// A duplicate of MPI_COMM_WORLD reserved for verdicts.
inline MPI_Comm verdict_comm() {
  static MPI_Comm comm = [] {
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    return c;
  }();
  return comm;
}

/// MPICH 4.0 raises the errors that MPI_Wait, MPI_Test and MPI_Waitany find (a truncated
/// receive) on MPI_COMM_WORLD's error handler, not on the handler of the request's communicator
/// as Open MPI does (docs/portability.md): a truncated receive on the backend's duplicate, which
/// returns errors, would abort the job. The drivers that check that it becomes a TransportError
/// let MPI_COMM_WORLD return errors too, on MPICH only.
inline void completion_errors_return() {
#if defined(MPICH)
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#endif
}

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

inline int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

/// The bitwise OR of every rank's `flags`. Aborts the job when the ranks do not all
/// arrive within `deadline_s` seconds.
inline int agree_flags(int flags, const std::string& step, double deadline_s = 90.0) {
  int all = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(&flags, &all, 1, MPI_INT, MPI_BOR, verdict_comm(), &request);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(deadline_s);
  for (;;) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done != 0) return all;
    if (std::chrono::steady_clock::now() > deadline) {
      std::printf("[rank %d] %s: the other ranks did not reach the verdict within %.0f s (flags here: %d); aborting\n",
                  world_rank(), step.c_str(), deadline_s, flags);
      std::fflush(stdout);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

/// True iff every rank passed `ok` (see agree_flags).
inline bool all_agree(bool ok, const std::string& step, double deadline_s = 90.0) {
  return agree_flags(ok ? 0 : 1, step, deadline_s) == 0;
}

/// Prints a line prefixed with the rank, at once (mpirun forwards whole lines).
inline void say(const std::string& line) {
  std::printf("[rank %d] %s\n", world_rank(), line.c_str());
  std::fflush(stdout);
}

struct Tally {
  long passed = 0;
  long failed = 0;
  long skipped = 0;
};

/// Counts a step every rank judged `ok` on its own: passed when all agree (all_agree, with
/// `deadline_s`), failed otherwise. Returns whether it passed.
inline bool count_step(Tally& tally, const std::string& what, bool ok, double deadline_s = 90.0) {
  const bool all = all_agree(ok, what, deadline_s);
  if (all) {
    ++tally.passed;
  } else {
    ++tally.failed;
  }
  return all;
}

/// count_step, and rank 0 names a failed step.
inline bool tally_step(Tally& tally, const std::string& what, bool ok, double deadline_s = 90.0) {
  const bool all = count_step(tally, what, ok, deadline_s);
  if (!all && world_rank() == 0) say("FAILED: " + what);
  return all;
}

/// A driver's exit code: rank 0 prints the tally; 0 when nothing failed and something passed.
inline int tally_verdict(const Tally& tally) {
  if (world_rank() == 0) {
    std::printf("%ld passed, %ld failed\n", tally.passed, tally.failed);
    std::fflush(stdout);
  }
  return tally.failed == 0 && tally.passed > 0 ? 0 : 1;
}

/// The exit code of a driver that runs under its own Session: rank 0 prints "<what> on <P>
/// ranks: <passed> passed, <failed> failed"; 0 when nothing failed.
inline int ranks_verdict(const char* what, const Tally& tally) {
  if (world_rank() == 0) {
    std::printf("%s on %d ranks: %ld passed, %ld failed\n", what, world_size(), tally.passed, tally.failed);
  }
  return tally.failed != 0 ? 1 : 0;
}

/// Ends the whole job after `program` caught `e` (the other ranks may be waiting for this one).
[[noreturn]] inline void abort_job(const char* program, const std::exception& e) {
  std::fprintf(stderr, "%s: %s\n", program, e.what());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::abort();  // MPI_Abort does not return
}

/// How main_of starts: whether MPI's errors on completion return (completion_errors_return),
/// and the words before why the backend did not start.
struct MainOptions {
  bool return_completion_errors = false;
  const char* cannot_start = "cannot start";
};

/// A test driver's main(): starts MPI (a ragged::mpi::Session), returns `run()`'s exit code, and
/// aborts the job naming the rank when `run` throws (so the other ranks do not wait for it).
template <class Run>
int main_of(int* argc, char*** argv, Run run, const MainOptions& options = {}) {
  std::unique_ptr<mpi::Session> session;
  try {
    session = std::make_unique<mpi::Session>(argc, argv);
    if (options.return_completion_errors) completion_errors_return();
  } catch (const std::exception& e) {
    std::printf("%s: %s\n", options.cannot_start, e.what());
    return 2;
  }
  try {
    return run();
  } catch (const std::exception& e) {
    std::printf("[rank %d] fatal: %s\n", world_rank(), e.what());
    std::fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return 2;
}

}  // namespace ragged::mpitest
