// The rooted baselines (bcast, reduce, gather, scatter) on the sim backend: for
// every P of the sweep, one simulation per algorithm runs the roots of the sweep (test::sweep_roots), every count
// of the sweep, every datatype, in place and not, and compares every result
// exactly with a formula. Inputs and expected results are built once per test,
// before the simulation, and shared read-only by the ranks (simulated ranks live
// in this process); results are compared bytewise, which is exact because every
// value is a small integer (or a power of two) in every datatype.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/patterns.hpp"
#include "support/registered.hpp"
#include "support/sim_sweep.hpp"

namespace ragged {
namespace test_rooted_test {

using test::CheckFailed;
using test::pattern;
using Bytes = std::vector<std::byte>;

constexpr std::size_t guard_bytes = 64;
constexpr std::byte sentinel{0xA5};
constexpr std::array<DataType, 5> every_type{DataType::int32, DataType::int64, DataType::float32, DataType::float64,
                                             DataType::byte};
constexpr std::array<OpKind, 4> builtin_ops{OpKind::sum, OpKind::prod, OpKind::min, OpKind::max};

std::size_t type_index(DataType type) { return static_cast<std::size_t>(type); }

/// The value rank `rank` contributes at `index` to a product: 1 or 2, so a product over
/// P ranks is a power of two, exact in float and double and wrapping in int32.
std::int64_t prod_pattern(int rank, std::size_t index) { return pattern(rank, index) % 2 + 1; }

/// Everything a (collective, P) simulation reads: built once, before it starts.
struct Data {
  int procs = 0;
  std::size_t max_count = 0;
  /// rows[type][r]: pattern(r, i) for i < max_count, as `type`; block r of any count is a prefix.
  std::array<std::vector<Bytes>, 5> rows;
  /// prod_rows[type][r]: prod_pattern(r, i).
  std::array<std::vector<Bytes>, 5> prod_rows;
  /// reduced[type][op]: the expected reduction over all P ranks, max_count elements.
  std::array<std::array<Bytes, 4>, 5> reduced;
};

Data make_data(int procs, bool for_reduce) {
  Data d;
  d.procs = procs;
  for (std::size_t c : test::sweep_counts(procs)) d.max_count = std::max(d.max_count, c);
  for (DataType type : every_type) {
    const std::size_t t = type_index(type);
    for (int r = 0; r < procs; ++r) {
      d.rows[t].push_back(test::make_buffer(type, d.max_count, [r](std::size_t i) { return pattern(r, i); }));
    }
    if (!for_reduce || type == DataType::byte) continue;
    for (int r = 0; r < procs; ++r) {
      d.prod_rows[t].push_back(test::make_buffer(type, d.max_count, [r](std::size_t i) { return prod_pattern(r, i); }));
    }
    for (std::size_t o = 0; o < builtin_ops.size(); ++o) {
      const OpKind kind = builtin_ops[o];
      d.reduced[t][o] = test::make_buffer(type, d.max_count, [&](std::size_t i) -> std::int64_t {
        if (kind != OpKind::prod) return test::reduced(kind, procs, i);
        std::int64_t acc = 1;  // at most 2^33 for P = 33: no int64 overflow; make_buffer wraps it for int32
        for (int r = 0; r < procs; ++r) acc *= prod_pattern(r, i);
        return acc;
      });
    }
  }
  return d;
}

/// What a rank was doing, for failure messages.
struct Where {
  const char* algorithm;
  int rank;
  int root;
  std::size_t count;
  DataType type;
  bool in_place;
  const char* op = "";
};

std::int64_t element_at(const std::byte* p, DataType type, std::size_t i) {
  const std::size_t size = size_of(type);
  Bytes one(p + i * size, p + (i + 1) * size);
  return test::element(one, type, 0);
}

[[noreturn]] void fail(const Where& w, const std::string& what) {
  std::ostringstream os;
  os << w.algorithm << " rank " << w.rank << " root " << w.root << " count " << w.count << " type " << name_of(w.type)
     << (w.in_place ? " in place" : "") << (*w.op != 0 ? " op " : "") << w.op << ": " << what;
  throw CheckFailed(os.str());
}

/// `count` elements at `got` equal those at `want`, bit for bit.
void check_equal(const std::byte* got, const std::byte* want, std::size_t count, const Where& w, const char* what) {
  const std::size_t size = size_of(w.type);
  if (count == 0 || std::memcmp(got, want, count * size) == 0) return;
  std::size_t i = 0;
  while (std::memcmp(got + i * size, want + i * size, size) == 0) ++i;
  fail(w, std::string(what) + ": element " + std::to_string(i) + " is " + std::to_string(element_at(got, w.type, i)) +
              ", expected " + std::to_string(element_at(want, w.type, i)));
}

/// A buffer of `bytes` bytes followed by a guard, all filled with the sentinel.
Bytes guarded(std::size_t bytes) { return Bytes(bytes + guard_bytes, sentinel); }

void check_guard(const Bytes& buf, const Where& w) {
  for (std::size_t i = buf.size() - guard_bytes; i < buf.size(); ++i) {
    if (buf[i] != sentinel) fail(w, "wrote past the end of its buffer");
  }
}

/// Every rank calls `call(root)` with a root outside 0..P-1 and must get InvalidArgument("root").
template <class Call>
void expect_bad_root_rejected(Comm& comm, Call call) {
  for (int bad : {-1, comm.size(), comm.size() + 5}) {
    bool threw = false;
    try {
      call(bad);
    } catch (const InvalidArgument& e) {
      threw = true;
      RAGGED_CHECK_EQ(e.argument(), std::string("root"));
    }
    RAGGED_CHECK(threw);
  }
}

/// A gather or a scatter `fn` (the same arguments) rejects a bad root (expect_bad_root_rejected).
template <class Fn>
void expect_bad_root_rejected_by(Comm& comm, Fn fn, const CollectiveOptions& opts) {
  const auto P = static_cast<std::size_t>(comm.size());
  expect_bad_root_rejected(comm, [&](int root) {
    std::vector<std::int32_t> x(P);
    fn(comm, x.data(), x.data(), 1, DataType::int32, root, opts);
  });
}

/// Calls `check(w)` for every root of the sweep (test::sweep_roots), count of the sweep, datatype and in place or not,
/// in that order, `w` naming the case at rank `me` of `algorithm`.
template <class Check>
void for_every_case_in_place_or_not(int procs, const std::string& algorithm, int me, Check check) {
  for (const int root : test::sweep_roots(procs)) {
    for (std::size_t count : test::sweep_counts(procs)) {
      for (DataType type : every_type) {
        for (bool in_place : {false, true}) check(Where{algorithm.c_str(), me, root, count, type, in_place});
      }
    }
  }
}

using Param = std::tuple<std::string, int>;  // algorithm name, P

std::string param_name(const testing::TestParamInfo<Param>& info) {
  return std::get<0>(info.param) + "_P" + std::to_string(std::get<1>(info.param));
}

std::vector<Param> params(Collective collective) {
  std::vector<Param> out;
  for (const std::string& name : test::registered(collective)) {
    for (int p : test::sweep_procs()) out.emplace_back(name, p);
  }
  return out;
}

// ------------------------------------------------------------------------- bcast

class Bcast : public testing::TestWithParam<Param> {};

TEST_P(Bcast, EveryRootCountAndTypeGetsTheRootsData) {
  const auto& [name, procs] = GetParam();
  const BcastFn fn = Registry::instance().bcast(name);
  const Data data = make_data(procs, false);
  const std::string algorithm = "bcast " + name;
  test::simulate(procs, [&](Comm& comm) {
    const int me = comm.rank();
    const CollectiveOptions opts = test::sweep_options();
    expect_bad_root_rejected(comm, [&](int root) {
      std::int32_t x = 0;
      fn(comm, &x, 1, DataType::int32, root, opts);
    });
    for (const int root : test::sweep_roots(procs)) {
      for (std::size_t count : test::sweep_counts(procs)) {
        for (DataType type : every_type) {
          const Where w{algorithm.c_str(), me, root, count, type, false};
          const std::size_t bytes = count * size_of(type);
          const Bytes& want = data.rows[type_index(type)][static_cast<std::size_t>(root)];
          Bytes buf = guarded(bytes);
          if (me == root) std::memcpy(buf.data(), want.data(), bytes);
          fn(comm, count == 0 ? nullptr : buf.data(), count, type, root, opts);
          check_equal(buf.data(), want.data(), count, w, "buffer");
          check_guard(buf, w);
        }
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Rooted, Bcast, testing::ValuesIn(params(Collective::bcast)), param_name);

// ------------------------------------------------------------------------ gather

class Gather : public testing::TestWithParam<Param> {};

TEST_P(Gather, EveryRootCountTypeAndInPlaceGathersInRankOrder) {
  const auto& [name, procs] = GetParam();
  const GatherFn fn = Registry::instance().gather(name);
  const Data data = make_data(procs, false);
  const std::string algorithm = "gather " + name;
  test::simulate(procs, [&](Comm& comm) {
    const int me = comm.rank();
    const auto P = static_cast<std::size_t>(procs);
    const CollectiveOptions opts = test::sweep_options();
    expect_bad_root_rejected_by(comm, fn, opts);
    for_every_case_in_place_or_not(procs, algorithm, me, [&](const Where& w) {
      const auto [root, count, type, in_place] = std::tuple(w.root, w.count, w.type, w.in_place);
      const std::size_t bytes = count * size_of(type);
      const auto& rows = data.rows[type_index(type)];
      const Bytes& mine = rows[static_cast<std::size_t>(me)];
      const void* send = count == 0 ? nullptr : mine.data();
      if (me != root) {
        fn(comm, send, nullptr, count, type, root, opts);  // recvbuf is not significant here
        return;
      }
      Bytes out = guarded(P * bytes);
      if (in_place) {
        std::memcpy(out.data() + static_cast<std::size_t>(root) * bytes, mine.data(), bytes);
        send = ragged::in_place;
      }
      fn(comm, send, out.data(), count, type, root, opts);
      for (std::size_t r = 0; r < P; ++r) {
        check_equal(out.data() + r * bytes, rows[r].data(), count, w, ("block " + std::to_string(r)).c_str());
      }
      check_guard(out, w);
    });
  });
}

INSTANTIATE_TEST_SUITE_P(Rooted, Gather, testing::ValuesIn(params(Collective::gather)), param_name);

// ----------------------------------------------------------------------- scatter

class Scatter : public testing::TestWithParam<Param> {};

TEST_P(Scatter, EveryRootCountTypeAndInPlaceDeliversEachRankItsBlock) {
  const auto& [name, procs] = GetParam();
  const ScatterFn fn = Registry::instance().scatter(name);
  const Data data = make_data(procs, false);
  const std::string algorithm = "scatter " + name;
  test::simulate(procs, [&](Comm& comm) {
    const int me = comm.rank();
    const auto P = static_cast<std::size_t>(procs);
    const CollectiveOptions opts = test::sweep_options();
    expect_bad_root_rejected_by(comm, fn, opts);
    for_every_case_in_place_or_not(procs, algorithm, me, [&](const Where& w) {
      const auto [root, count, type, in_place] = std::tuple(w.root, w.count, w.type, w.in_place);
      const std::size_t bytes = count * size_of(type);
      const auto& rows = data.rows[type_index(type)];
      const Bytes& want = rows[static_cast<std::size_t>(me)];
      Bytes out = guarded(bytes);
      if (me != root) {
        fn(comm, nullptr, count == 0 ? nullptr : out.data(), count, type, root, opts);  // sendbuf: not here
        check_equal(out.data(), want.data(), count, w, "recvbuf");
        check_guard(out, w);
        return;
      }
      Bytes send = guarded(P * bytes);
      for (std::size_t r = 0; r < P; ++r) std::memcpy(send.data() + r * bytes, rows[r].data(), bytes);
      // MPI_Scatter's MPI_IN_PLACE: the root passes it as recvbuf and keeps its block in sendbuf.
      void* recv = in_place ? const_cast<void*>(ragged::in_place) : out.data();
      fn(comm, count == 0 ? nullptr : send.data(), recv, count, type, root, opts);
      for (std::size_t r = 0; r < P; ++r) {
        check_equal(send.data() + r * bytes, rows[r].data(), count, w, "sendbuf (must stay unchanged)");
      }
      if (!in_place) check_equal(out.data(), want.data(), count, w, "recvbuf");
      for (std::size_t i = 0; i < out.size() && in_place; ++i) {
        if (out[i] != sentinel) fail(w, "in place, yet wrote to the root's unused buffer");
      }
      check_guard(out, w);
      check_guard(send, w);
    });
  });
}

INSTANTIATE_TEST_SUITE_P(Rooted, Scatter, testing::ValuesIn(params(Collective::scatter)), param_name);

// ------------------------------------------------------------------------ reduce

class Reduce : public testing::TestWithParam<Param> {};

TEST_P(Reduce, EveryRootCountTypeOperatorAndInPlaceReducesExactly) {
  const auto& [name, procs] = GetParam();
  const ReduceFn fn = Registry::instance().reduce(name);
  const Data data = make_data(procs, true);
  const std::string algorithm = "reduce " + name;
  test::simulate(procs, [&](Comm& comm) {
    const int me = comm.rank();
    const CollectiveOptions opts = test::sweep_options();
    expect_bad_root_rejected(comm, [&](int root) {
      std::int32_t x = 1;
      std::int32_t y = 0;
      fn(comm, &x, &y, 1, DataType::int32, ReduceOp::sum(), root, opts);
    });
    for (const int root : test::sweep_roots(procs)) {
      for (std::size_t count : test::sweep_counts(procs)) {
        for (DataType type : test::all_types) {
          for (std::size_t o = 0; o < builtin_ops.size(); ++o) {
            const ReduceOp op = test::builtin_op(builtin_ops[o]);
            for (bool in_place : {false, true}) {
              Where w{algorithm.c_str(), me, root, count, type, in_place};
              w.op = op.label.c_str();
              const std::size_t bytes = count * size_of(type);
              const std::size_t t = type_index(type);
              const auto& rows = builtin_ops[o] == OpKind::prod ? data.prod_rows[t] : data.rows[t];
              const Bytes& mine = rows[static_cast<std::size_t>(me)];
              const void* send = count == 0 ? nullptr : mine.data();
              if (me != root) {
                fn(comm, send, nullptr, count, type, op, root, opts);  // recvbuf is not significant here
                continue;
              }
              Bytes out = guarded(bytes);
              if (in_place) {
                std::memcpy(out.data(), mine.data(), bytes);
                send = ragged::in_place;
              }
              fn(comm, send, out.data(), count, type, op, root, opts);
              check_equal(out.data(), data.reduced[t][o].data(), count, w, "recvbuf");
              check_guard(out, w);
            }
          }
        }
      }
    }
  });
}

using test::concatenation;
using test::interval;

TEST_P(Reduce, NonCommutativeOperatorKeepsRankOrderForEveryRoot) {
  const auto& [name, procs] = GetParam();
  const ReduceFn fn = Registry::instance().reduce(name);
  const std::string algorithm = "reduce " + name;
  std::size_t max_count = 0;
  for (std::size_t c : test::sweep_counts(procs)) max_count = std::max(max_count, c);
  std::vector<std::vector<std::int64_t>> rows;
  for (int r = 0; r < procs; ++r) rows.emplace_back(max_count, interval(r, r));
  const std::vector<std::int64_t> want(max_count, interval(0, procs - 1));
  const ReduceOp op = concatenation();
  test::simulate(procs, [&](Comm& comm) {
    const int me = comm.rank();
    const CollectiveOptions opts = test::sweep_options();
    for (const int root : test::sweep_roots(procs)) {
      for (std::size_t count : test::sweep_counts(procs)) {
        for (bool in_place : {false, true}) {
          Where w{algorithm.c_str(), me, root, count, DataType::int64, in_place};
          w.op = "concat";
          const auto& mine = rows[static_cast<std::size_t>(me)];
          const void* send = mine.data();
          if (me != root) {
            fn(comm, send, nullptr, count, DataType::int64, op, root, opts);
            continue;
          }
          Bytes out = guarded(count * 8);
          if (in_place) {
            std::memcpy(out.data(), mine.data(), count * 8);
            send = ragged::in_place;
          }
          fn(comm, send, out.data(), count, DataType::int64, op, root, opts);
          check_equal(out.data(), reinterpret_cast<const std::byte*>(want.data()), count, w, "recvbuf");
          check_guard(out, w);
        }
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Rooted, Reduce, testing::ValuesIn(params(Collective::reduce)), param_name);

TEST(ReduceRegistry, BinomialTakesNonCommutativeOperators) {
  EXPECT_FALSE(Registry::instance().find(Collective::reduce, "binomial").restrictions.commutative_only);
}

}  // namespace test_rooted_test
}  // namespace ragged
