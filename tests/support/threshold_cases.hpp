// The threshold broadcast and reduce (ragged/threshold.hpp) checked on one rank of any backend:
// one call of a case, with inputs and expected results written as formulas of (rank, index,
// call salt) in int64 or float64 (small integers, exact in both), against which the result
// must be exact on the part the status documents and untouched elsewhere; at threshold 1 it
// must also equal the exact collective (ragged::bcast, ragged::reduce) bit for bit. A failed
// check throws test::CheckFailed. Shared by tests/sim/threshold_test.cpp and the mpirun
// driver tests/mpi_threshold/threshold_mpi_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "plans/binomial_tree.hpp"
#include "plans/threshold_plan.hpp"
#include "ragged/collectives.hpp"
#include "ragged/threshold.hpp"
#include "support/check.hpp"

namespace ragged::test::threshold {

enum class Kind { bcast, reduce_data, reduce_processes };

struct Case {
  Kind kind = Kind::bcast;
  int root = 0;
  std::size_t count = 0;
  double threshold = 1.0;
  bool in_place = false;         ///< reduce: in_place at the root
  bool float64 = false;          ///< the element type: float64, else int64
  bool max_op = false;           ///< reduce: max, else sum
  std::uint64_t salt = 0;        ///< varies the values from call to call
  double stagger_seconds = 0.0;  ///< each rank sleeps up to this long (a rank-dependent share) first
};

inline std::string describe(const Case& c) {
  const char* kinds[] = {"bcast", "reduce by data", "reduce by processes"};
  return std::string(kinds[static_cast<int>(c.kind)]) + " root " + std::to_string(c.root) + " count " +
         std::to_string(c.count) + " threshold " + std::to_string(c.threshold) + (c.in_place ? " in place" : "") +
         (c.float64 ? " float64" : " int64") + (c.max_op ? " max" : " sum") + " salt " + std::to_string(c.salt) +
         (c.stagger_seconds > 0 ? " staggered" : "");
}

/// What rank `rank` holds at `index` in call `salt`: 1..997, exact in float64 sums of many ranks.
inline std::int64_t value(int rank, std::size_t index, std::uint64_t salt) {
  return static_cast<std::int64_t>((static_cast<std::uint64_t>(rank) * 31 + index * 7 + salt * 13) % 997) + 1;
}

constexpr std::int64_t untouched = -7;  ///< what the buffers hold where the call must not write

/// A buffer of `n` elements of the case's type, f(i) each; `guard` more elements of `untouched`.
template <class F>
std::vector<std::byte> make(const Case& c, std::size_t n, std::size_t guard, F f) {
  std::vector<std::byte> out((n + guard) * 8);
  for (std::size_t i = 0; i < n + guard; ++i) {
    const std::int64_t v = i < n ? f(i) : untouched;
    if (c.float64) {
      const auto d = static_cast<double>(v);
      std::memcpy(out.data() + i * 8, &d, 8);
    } else {
      std::memcpy(out.data() + i * 8, &v, 8);
    }
  }
  return out;
}

inline std::int64_t at(const Case& c, const std::vector<std::byte>& buf, std::size_t i) {
  if (c.float64) {
    double d = 0;
    std::memcpy(&d, buf.data() + i * 8, 8);
    return static_cast<std::int64_t>(d);
  }
  std::int64_t v = 0;
  std::memcpy(&v, buf.data() + i * 8, 8);
  return v;
}

inline DataType type_of(const Case& c) { return c.float64 ? DataType::float64 : DataType::int64; }

constexpr std::size_t guard = 5;

/// Throws CheckFailed naming the case, the rank and the first wrong element.
inline void expect_buffer(const Case& c, int rank, const std::vector<std::byte>& got,
                          const std::vector<std::byte>& want, const std::string& what) {
  if (got == want) return;
  std::size_t i = 0;
  while (i + 1 < got.size() / 8 && at(c, got, i) == at(c, want, i)) ++i;
  throw CheckFailed(describe(c) + ", rank " + std::to_string(rank) + ": " + what + " element " + std::to_string(i) +
                    " is " + std::to_string(at(c, got, i)) + ", expected " + std::to_string(at(c, want, i)));
}

inline void expect_status(const Case& c, int rank, const ThresholdStatus& got, const ThresholdStatus& want) {
  if (got.elements == want.elements && got.contributors == want.contributors && got.complete == want.complete) return;
  throw CheckFailed(describe(c) + ", rank " + std::to_string(rank) + ": status {" + std::to_string(got.elements) +
                    ", " + std::to_string(got.contributors) + ", " + (got.complete ? "complete" : "partial") +
                    "}, expected {" + std::to_string(want.elements) + ", " + std::to_string(want.contributors) + ", " +
                    (want.complete ? "complete" : "partial") + "}");
}

/// Runs case `c` on this rank (every rank of the communicator runs the same case) and checks it.
inline void run_case(Comm& comm, const Case& c, const CollectiveOptions& options = {}) {
  const int procs = comm.size();
  const int me = comm.rank();
  const DataType type = type_of(c);
  if (c.stagger_seconds > 0) {
    const auto share = static_cast<double>((static_cast<std::uint64_t>(me) * 7 + c.salt * 3) % 5) / 4.0;
    comm.runtime().sleep_for(share * c.stagger_seconds);
  }
  if (c.kind == Kind::bcast) {
    const std::size_t m = plans::threshold::elements(c.threshold, c.count);
    const auto root_data = [&](std::size_t i) { return value(c.root, i, c.salt); };
    std::vector<std::byte> buf = me == c.root ? make(c, c.count, guard, root_data)
                                              : make(c, c.count, guard, [](std::size_t) { return untouched; });
    const ThresholdStatus s = bcast_threshold(comm, buf.data(), c.count, type, c.root, c.threshold, options);
    expect_status(c, me, s, {m, 1, m == c.count});
    const std::vector<std::byte> want =
        make(c, c.count, guard, [&](std::size_t i) { return me == c.root || i < m ? root_data(i) : untouched; });
    expect_buffer(c, me, buf, want, "buffer");
    if (c.threshold == 1.0) {  // the exact broadcast gives the same bytes
      std::vector<std::byte> exact = me == c.root ? make(c, c.count, guard, root_data)
                                                  : make(c, c.count, guard, [](std::size_t) { return untouched; });
      bcast(comm, exact.data(), c.count, type, c.root, options);
      expect_buffer(c, me, buf, exact, "against ragged::bcast,");
    }
    return;
  }
  const bool by_data = c.kind == Kind::reduce_data;
  const std::size_t m = by_data ? plans::threshold::elements(c.threshold, c.count) : c.count;
  const int n = by_data ? procs : plans::threshold::contributors(c.threshold, procs);
  const ReduceOp op = c.max_op ? ReduceOp::max() : ReduceOp::sum();
  const bool at_root = me == c.root;
  const bool in_place_here = c.in_place && at_root;
  const auto mine = [&](std::size_t i) { return value(me, i, c.salt); };
  const std::vector<std::byte> send = make(c, c.count, guard, mine);
  std::vector<std::byte> recv =
      in_place_here ? make(c, c.count, guard, mine) : make(c, c.count, guard, [](std::size_t) { return untouched; });
  const ThresholdStatus s =
      reduce_threshold(comm, in_place_here ? in_place : send.data(), recv.data(), c.count, type, op, c.root,
                       c.threshold, by_data ? ThresholdBy::data : ThresholdBy::processes, options);
  expect_status(c, me, s, {m, n, m == c.count && n == procs});
  const auto reduced = [&](std::size_t i) {
    std::int64_t acc = 0;  // below every value, for max too
    for (int v = 0; v < n; ++v) {
      const std::int64_t x = value(plans::binomial::absolute(v, c.root, procs), i, c.salt);
      acc = c.max_op ? (x > acc ? x : acc) : acc + x;
    }
    return acc;
  };
  const std::vector<std::byte> want = make(c, c.count, guard, [&](std::size_t i) {
    if (!at_root) return untouched;
    if (i < m) return reduced(i);
    return in_place_here ? mine(i) : untouched;
  });
  expect_buffer(c, me, recv, want, "recvbuf");
  if (c.threshold == 1.0) {  // the exact reduce gives the same bytes
    std::vector<std::byte> exact =
        in_place_here ? make(c, c.count, guard, mine) : make(c, c.count, guard, [](std::size_t) { return untouched; });
    reduce(comm, in_place_here ? in_place : send.data(), exact.data(), c.count, type, op, c.root, options);
    if (at_root) expect_buffer(c, me, recv, exact, "against ragged::reduce,");
  }
}

/// The thresholds of the sweeps: the quarters and a few odd ones.
inline const std::vector<double>& thresholds() {
  static const std::vector<double> t{0.25, 0.5, 0.75, 1.0, 0.1, 0.33, 0.9, 0.07};
  return t;
}

/// The sweep's cases at `root`: every threshold of thresholds(), counts 0, 1, 7 and 1000, the
/// broadcast and both reduces (in place and not), each with the next `salt`, which picks int64
/// or float64, sum or max, and whether the ranks stagger by up to `stagger_seconds`.
inline void add_sweep_cases(std::vector<Case>& cases, int root, double stagger_seconds, std::uint64_t& salt) {
  for (double t : thresholds()) {
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
      for (Kind kind : {Kind::bcast, Kind::reduce_data, Kind::reduce_processes}) {
        for (bool in_place : {false, true}) {
          if (kind == Kind::bcast && in_place) continue;
          ++salt;
          cases.push_back(Case{.kind = kind,
                               .root = root,
                               .count = count,
                               .threshold = t,
                               .in_place = in_place,
                               .float64 = salt % 2 == 0,
                               .max_op = salt % 3 == 0,
                               .salt = salt,
                               .stagger_seconds = salt % 2 == 1 ? stagger_seconds : 0.0});
        }
      }
    }
  }
}

/// A large float64 case (100003 elements) of the broadcast and of both reduces at `root` and
/// `threshold`, each with the next `salt`.
inline void add_large_cases(std::vector<Case>& cases, int root, double threshold, double stagger_seconds,
                            std::uint64_t& salt) {
  for (Kind kind : {Kind::bcast, Kind::reduce_data, Kind::reduce_processes}) {
    cases.push_back(Case{.kind = kind,
                         .root = root,
                         .count = 100003,
                         .threshold = threshold,
                         .float64 = true,
                         .salt = ++salt,
                         .stagger_seconds = stagger_seconds});
  }
}

}  // namespace ragged::test::threshold
