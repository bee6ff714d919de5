// gatherv and scatterv under mpirun, against the MPI library's own
// MPI_Gatherv / MPI_Scatterv: every registered algorithm, the eight block-size
// problems of Träff 2018, §5 (plus all-empty blocks), roots 0, p/2 and p-1, displacements in
// rank order and reversed with gaps, in place and not. Each result is compared
// byte for byte with a formula and with what `native` produced for the same call.
// The ranks agree on every verdict (tests/mpi/harness.hpp), so a failure on one
// rank never leaves the others waiting. Exit status 0 iff every case passed.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "../mpi/harness.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/irregular.hpp"
#include "ragged/mpi.hpp"
#include "ragged/registry.hpp"

namespace ragged {
namespace {

constexpr std::int32_t sentinel = -7;

std::int32_t value_of(int rank, int j) { return rank * 1000 + j + 1; }

// The problems of Träff 2018 (§5) with b = 3 (spikes: rho = 5 on every 5th rank), and zeros.
std::vector<int> counts_for(int problem, int p) {
  const int b = 3;
  std::vector<int> m(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i) {
    int& x = m[static_cast<std::size_t>(i)];
    switch (problem) {
      case 0:
        x = b;
        break;  // same
      case 1:
        x = 1 + (i * 5 + 2) % (2 * b);
        break;  // random (a fixed draw in [1, 2b])
      case 2:
        x = b / 2 + 1 + (i * 3) % b;
        break;  // bucket
      case 3:
        x = i % 5 == 2 ? 5 * b : 1;
        break;  // spikes
      case 4:
        x = 2 * b * (i + 1) / p;
        break;  // increasing
      case 5:
        x = 2 * b * (p - i) / p + 1;
        break;  // decreasing
      case 6:
        x = i % 2 == 0 ? b + b / 2 : b - b / 2;
        break;  // alternating
      case 7:
        x = (i == 0 || i == p - 1) ? b : 0;
        break;  // two blocks
      default:
        x = 0;
        break;  // all empty
    }
  }
  return m;
}

const char* problem_name(int problem) {
  static const char* names[] = {"same",       "random",      "bucket", "spikes", "increasing",
                                "decreasing", "alternating", "two",    "zeros"};
  return names[problem];
}

// Layout 0: rank order back to back; 1: reversed rank order with a one-element gap.
int displs_for(int layout, const std::vector<int>& counts, std::vector<int>& displs) {
  const int p = static_cast<int>(counts.size());
  displs.assign(counts.size(), 0);
  int at = 0;
  for (int k = 0; k < p; ++k) {
    const int i = layout == 0 ? k : p - 1 - k;
    displs[static_cast<std::size_t>(i)] = at;
    at += counts[static_cast<std::size_t>(i)] + layout;
  }
  return at + 2;
}

// Roots 0, p/2 and p-1.
std::vector<int> roots_of(int p) {
  std::vector<int> r{0};
  if (p / 2 != 0) r.push_back(p / 2);
  if (p - 1 != p / 2 && p - 1 != 0) r.push_back(p - 1);
  return r;
}

/// A root's whole buffer: rank r's values value_of(r, j) at displs[r] + j, `sentinel` around them.
std::vector<std::int32_t> laid_out(const std::vector<int>& counts, const std::vector<int>& displs, int length) {
  std::vector<std::int32_t> all(static_cast<std::size_t>(length), sentinel);
  for (int r = 0; r < static_cast<int>(counts.size()); ++r) {
    for (int j = 0; j < counts[static_cast<std::size_t>(r)]; ++j) {
      all[static_cast<std::size_t>(displs[static_cast<std::size_t>(r)] + j)] = value_of(r, j);
    }
  }
  return all;
}

std::string case_name(const char* collective, const Algorithm& alg, int problem, int root, int layout, bool inplace) {
  return std::string(collective) + "/" + alg.name + " " + problem_name(problem) + " root " + std::to_string(root) +
         " layout " + std::to_string(layout) + (inplace ? " in place" : "");
}

/// One case of a sweep: a problem's counts, a root, a layout of the displacements, in place or not.
struct SweepCase {
  int problem;
  std::vector<int> counts;
  int root;
  int layout;
  bool inplace;
  std::vector<int> displs;
  int length;  ///< of the root's buffer
};

/// Calls `check(c)` for every problem, root of roots_of(p), layout and in place or not, in that order.
template <class Check>
void for_every_case(int p, Check check) {
  for (int problem = 0; problem < 9; ++problem) {
    const std::vector<int> counts = counts_for(problem, p);
    for (int root : roots_of(p)) {
      for (int layout = 0; layout < 2; ++layout) {
        for (bool inplace : {false, true}) {
          std::vector<int> displs;
          const int length = displs_for(layout, counts, displs);
          check(SweepCase{problem, counts, root, layout, inplace, displs, length});
        }
      }
    }
  }
}

struct Counter {
  long passed = 0;
  long failed = 0;
};

void verdict(bool ok, const std::string& what, Counter& counter) {
  const bool all = mpitest::all_agree(ok, what);
  if (all) {
    ++counter.passed;
  } else {
    ++counter.failed;
    if (!ok) mpitest::say("FAILED: " + what);
  }
}

// Runs `fn` and turns an exception into a failed verdict (with its text).
template <class F>
bool guarded(F fn, const std::string& what) {
  try {
    fn();
    return true;
  } catch (const std::exception& e) {
    mpitest::say(what + ": " + e.what());
    return false;
  }
}

void sweep_gatherv(Comm& comm, const Algorithm& alg, GathervFn native, Counter& counter) {
  const int p = comm.size();
  const int me = comm.rank();
  const CollectiveOptions opts{};
  const GathervFn fn = Registry::instance().gatherv(alg.name);
  for_every_case(p, [&](const SweepCase& c) {
    const auto& [problem, counts, root, layout, inplace, displs, length] = c;
    std::vector<std::int32_t> mine(static_cast<std::size_t>(counts[static_cast<std::size_t>(me)]));
    for (int j = 0; j < static_cast<int>(mine.size()); ++j) mine[static_cast<std::size_t>(j)] = value_of(me, j);
    std::vector<std::int32_t> got(static_cast<std::size_t>(length), sentinel);
    std::vector<std::int32_t> ref(static_cast<std::size_t>(length), sentinel);
    const bool here = inplace && me == root;
    if (here) {
      for (int j = 0; j < counts[static_cast<std::size_t>(me)]; ++j) {
        got[static_cast<std::size_t>(displs[static_cast<std::size_t>(me)] + j)] = value_of(me, j);
        ref[static_cast<std::size_t>(displs[static_cast<std::size_t>(me)] + j)] = value_of(me, j);
      }
    }
    const std::string what = case_name("gatherv", alg, problem, root, layout, inplace);
    bool ok = guarded(
        [&] {
          fn(comm, here ? ragged::in_place : mine.data(), counts[static_cast<std::size_t>(me)], got.data(), counts,
             displs, DataType::int32, root, opts);
          native(comm, here ? ragged::in_place : mine.data(), counts[static_cast<std::size_t>(me)], ref.data(), counts,
                 displs, DataType::int32, root, opts);
        },
        what);
    if (ok && me == root) {
      const std::vector<std::int32_t> want = laid_out(counts, displs, length);
      ok = got == want && ref == want;
    }
    verdict(ok, what, counter);
  });
}

void sweep_scatterv(Comm& comm, const Algorithm& alg, ScattervFn native, Counter& counter) {
  const int p = comm.size();
  const int me = comm.rank();
  const CollectiveOptions opts{};
  const ScattervFn fn = Registry::instance().scatterv(alg.name);
  for_every_case(p, [&](const SweepCase& c) {
    const auto& [problem, counts, root, layout, inplace, displs, length] = c;
    std::vector<std::int32_t> all = laid_out(counts, displs, length);
    const int count = counts[static_cast<std::size_t>(me)];
    std::vector<std::int32_t> got(static_cast<std::size_t>(count) + 2, sentinel);
    std::vector<std::int32_t> ref(static_cast<std::size_t>(count) + 2, sentinel);
    const bool here = inplace && me == root;
    void* recv_got = here ? const_cast<void*>(ragged::in_place) : got.data();
    void* recv_ref = here ? const_cast<void*>(ragged::in_place) : ref.data();
    const std::string what = case_name("scatterv", alg, problem, root, layout, inplace);
    bool ok = guarded(
        [&] {
          fn(comm, all.data(), counts, displs, recv_got, count, DataType::int32, root, opts);
          native(comm, all.data(), counts, displs, recv_ref, count, DataType::int32, root, opts);
        },
        what);
    if (ok && !here) {
      std::vector<std::int32_t> want(static_cast<std::size_t>(count) + 2, sentinel);
      for (int j = 0; j < count; ++j) want[static_cast<std::size_t>(j)] = value_of(me, j);
      ok = got == want && ref == want;
    }
    verdict(ok, what, counter);
  });
}

int run() {
  const auto comm = mpi::make_comm(MPI_COMM_WORLD);
  const Registry& registry = Registry::instance();
  Counter counter;
  const GathervFn native_gatherv = registry.gatherv("native");
  const ScattervFn native_scatterv = registry.scatterv("native");
  for (const Algorithm* alg : registry.list(Collective::gatherv, "mpi")) {
    sweep_gatherv(*comm, *alg, native_gatherv, counter);
  }
  for (const Algorithm* alg : registry.list(Collective::scatterv, "mpi")) {
    sweep_scatterv(*comm, *alg, native_scatterv, counter);
  }
  if (comm->rank() == 0) {
    std::printf("irregular: %ld passed, %ld failed on %d ranks\n", counter.passed, counter.failed, comm->size());
    std::fflush(stdout);
  }
  return counter.failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace ragged

int main(int argc, char** argv) { return ragged::mpitest::main_of(&argc, &argv, ragged::run); }
