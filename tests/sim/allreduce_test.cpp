// Every allreduce algorithm of the registry on the sim backend (the
// arrival-aware ones, slt and prr, without a snapshot: their regular
// counterparts; with snapshots below). One simulation per (algorithm, P)
// runs, back to back on every rank, every count of the sweep {0, 1, P-1, P+1,
// large (test::sweep_large_count)} in every datatype with sum, prod, min and max, in place and not,
// and compares the result bit for bit with the reduction computed by formula:
// values are small integers (for prod, 1 or 2, so products are powers of two),
// exact in every type; int32 products wrap as int64's do modulo 2^32.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "ragged/arrival.hpp"
#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/patterns.hpp"
#include "support/registered.hpp"
#include "support/sim_sweep.hpp"

namespace ragged {
namespace test_allreduce_test {

using Bytes = std::vector<std::byte>;

constexpr std::size_t guard_bytes = 48;
constexpr std::byte fill{0xC3};
constexpr std::array<DataType, 4> types{DataType::int32, DataType::int64, DataType::float32, DataType::float64};
constexpr std::array<OpKind, 4> kinds{OpKind::sum, OpKind::prod, OpKind::min, OpKind::max};

using test::builtin_op;

/// What rank `rank` contributes at `index` under `kind`.
std::int64_t input(OpKind kind, int rank, std::size_t index) {
  return kind == OpKind::prod ? test::pattern(rank, index) % 2 + 1 : test::pattern(rank, index);
}

/// The reduction over ranks 0..procs-1 at `index`, in int64 (at most 2^33 for prod with P = 33:
/// no overflow; make_buffer's conversion to int32 wraps it as the int32 reduction does).
std::int64_t expected(OpKind kind, int procs, std::size_t index) {
  if (kind != OpKind::prod) return test::reduced(kind, procs, index);
  std::int64_t acc = 1;
  for (int r = 0; r < procs; ++r) acc *= input(kind, r, index);
  return acc;
}

/// Inputs and expected results for the largest count; smaller counts use prefixes.
/// Built before the simulation and only read by the ranks.
struct Data {
  std::array<std::array<std::vector<Bytes>, 2>, types.size()> inputs;  // [type][prod ? 1 : 0][rank]
  std::array<std::array<Bytes, kinds.size()>, types.size()> results;   // [type][op]
};

std::size_t input_set(OpKind kind) { return kind == OpKind::prod ? 1 : 0; }

Data make_data(int procs, std::size_t max_count) {
  Data d;
  for (std::size_t t = 0; t < types.size(); ++t) {
    for (OpKind kind : {OpKind::sum, OpKind::prod}) {
      for (int r = 0; r < procs; ++r) {
        d.inputs[t][input_set(kind)].push_back(
            test::make_buffer(types[t], max_count, [&](std::size_t i) { return input(kind, r, i); }));
      }
    }
    for (std::size_t o = 0; o < kinds.size(); ++o) {
      const OpKind kind = kinds[o];
      d.results[t][o] = test::make_buffer(types[t], max_count, [&](std::size_t i) { return expected(kind, procs, i); });
    }
  }
  return d;
}

std::string where(const std::string& name, int rank, std::size_t count, DataType type, OpKind kind, bool inplace) {
  std::ostringstream os;
  os << "allreduce " << name << " rank " << rank << " count " << count << " " << name_of(type) << " "
     << builtin_op(kind).label << (inplace ? " in place" : "");
  return os.str();
}

void check_rejects_null_buffers(Comm& comm, AllreduceFn fn) {
  const CollectiveOptions none;
  std::array<std::int32_t, 4> buf{};
  test::check_rejects_null_buffers(buf.data(), [&](const void* send, void* recv) {
    fn(comm, send, recv, 1, DataType::int32, ReduceOp::sum(), none);
  });
}

using Param = std::tuple<std::string, int>;

/// One algorithm at one P: its function, the sweep's counts and the data, built before the
/// simulation.
class AllreduceSweep : public testing::TestWithParam<Param> {
 protected:
  // plain members, not structured bindings: the rank lambda captures them
  const std::string name = std::get<0>(GetParam());
  const int procs = std::get<1>(GetParam());
  const AllreduceFn fn = Registry::instance().allreduce(name);
  const std::vector<std::size_t> counts = test::sweep_counts(procs);
  const Data data = make_data(procs, *std::max_element(counts.begin(), counts.end()));
};

class Allreduce : public AllreduceSweep {};

TEST_P(Allreduce, EveryCountTypeOpAndInPlaceReducesExactly) {
  int calls = 0;
  test::simulate(procs, [&](Comm& comm) {
    const auto me = static_cast<std::size_t>(comm.rank());
    check_rejects_null_buffers(comm, fn);
    const CollectiveOptions options = test::sweep_options();
    for (std::size_t count : counts) {
      for (std::size_t t = 0; t < types.size(); ++t) {
        const DataType type = types[t];
        const std::size_t bytes = count * size_of(type);
        for (std::size_t o = 0; o < kinds.size(); ++o) {
          const ReduceOp op = builtin_op(kinds[o]);
          const std::byte* mine = data.inputs[t][input_set(kinds[o])][me].data();
          for (bool inplace : {false, true}) {
            Bytes recv(bytes + guard_bytes, fill);
            if (inplace) std::memcpy(recv.data(), mine, bytes);
            fn(comm, inplace ? in_place : mine, recv.data(), count, type, op, options);
            if (bytes != 0 && std::memcmp(recv.data(), data.results[t][o].data(), bytes) != 0) {
              const Bytes got(recv.begin(), recv.begin() + static_cast<std::ptrdiff_t>(bytes));
              std::size_t i = 0;
              while (test::element(got, type, i) == test::element(data.results[t][o], type, i)) ++i;
              throw test::CheckFailed(where(name, comm.rank(), count, type, kinds[o], inplace) + ": element " +
                                      std::to_string(i) + " is " + std::to_string(test::element(got, type, i)) +
                                      ", expected " + std::to_string(test::element(data.results[t][o], type, i)));
            }
            for (std::size_t i = bytes; i < recv.size(); ++i) {
              if (recv[i] != fill) {
                throw test::CheckFailed(where(name, comm.rank(), count, type, kinds[o], inplace) +
                                        ": wrote past the end");
              }
            }
            if (me == 0) ++calls;
          }
        }
      }
    }
  });
  EXPECT_EQ(calls, static_cast<int>(counts.size() * types.size() * kinds.size() * 2));
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (const std::string& name : test::registered(Collective::allreduce)) {
    for (int p : test::sweep_procs()) out.emplace_back(name, p);
  }
  return out;
}

std::string param_name(const testing::TestParamInfo<Param>& param) {
  return std::get<0>(param.param) + "_P" + std::to_string(std::get<1>(param.param));
}

INSTANTIATE_TEST_SUITE_P(Baselines, Allreduce, testing::ValuesIn(params()), param_name);

// ------------------------------------------------------------------ arrival-aware (slt, prr)

// The arrival-aware allreduce algorithms with hand-built snapshots (no agent: everything in the
// foreground): no snapshot, flat, random, reversed, one late (early, middle and last rank), one
// early, and one late far beyond P tau, every count of the sweep, int32 and float64, sum, prod and
// max, in place and not, back to back. Wrong estimates cost time, never exactness.
enum class Arrivals { none, flat, random, reversed, late_first, late_middle, late_last, very_late, one_early };
constexpr Arrivals every_arrival[] = {Arrivals::none,      Arrivals::flat,       Arrivals::random,
                                      Arrivals::reversed,  Arrivals::late_first, Arrivals::late_middle,
                                      Arrivals::late_last, Arrivals::very_late,  Arrivals::one_early};

std::shared_ptr<const ArrivalSnapshot> snapshot_of(Arrivals kind, int procs) {
  std::vector<double> a(static_cast<std::size_t>(procs), 0.0);
  const auto at = [&](int r) -> double& { return a[static_cast<std::size_t>(r)]; };
  for (int r = 0; r < procs; ++r) at(r) = static_cast<double>((r * 7919) % 23) * 0.4e-3;  // 0 .. 8.8 ms
  const double top = *std::max_element(a.begin(), a.end());
  switch (kind) {
    case Arrivals::none:
      return nullptr;
    case Arrivals::flat:
      std::fill(a.begin(), a.end(), 0.0);
      break;
    case Arrivals::random:
      break;
    case Arrivals::reversed:
      for (double& x : a) x = top - x;
      break;
    case Arrivals::late_first:
    case Arrivals::late_middle:
    case Arrivals::late_last:
    case Arrivals::very_late:
      std::fill(a.begin(), a.end(), 0.0);
      at(kind == Arrivals::late_first  ? 0
         : kind == Arrivals::late_last ? procs - 1
                                       : procs / 2) = kind == Arrivals::very_late ? 2.0 : 8e-3;
      break;
    case Arrivals::one_early:
      std::fill(a.begin(), a.end(), 8e-3);
      at(procs - 1) = 0;
      break;
  }
  return std::make_shared<const ArrivalSnapshot>(std::move(a), LinkModel{50e-6, 1.0 / 119.5e6}, 0);
}

class AllreduceArrival : public AllreduceSweep {};

TEST_P(AllreduceArrival, EverySnapshotCountTypeAndOpReducesExactly) {
  int calls = 0;
  test::simulate(procs, [&](Comm& comm) {
    const auto me = static_cast<std::size_t>(comm.rank());
    bool inplace = false;
    for (Arrivals kind : every_arrival) {
      CollectiveOptions options = test::sweep_options();
      options.hints.set<ArrivalSnapshot>(snapshot_of(kind, procs));
      for (std::size_t count : counts) {
        for (std::size_t t : {std::size_t{0}, std::size_t{3}}) {  // int32, float64
          if (count > 1000 && t != 0) continue;                   // the large count once is enough
          const DataType type = types[t];
          const std::size_t bytes = count * size_of(type);
          for (std::size_t o : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {  // sum, prod, max
            const std::byte* mine = data.inputs[t][input_set(kinds[o])][me].data();
            inplace = !inplace;
            Bytes recv(bytes + guard_bytes, fill);
            if (inplace) std::memcpy(recv.data(), mine, bytes);
            fn(comm, inplace ? in_place : mine, recv.data(), count, type, builtin_op(kinds[o]), options);
            const std::string what = where(name, comm.rank(), count, type, kinds[o], inplace) + " arrivals " +
                                     std::to_string(static_cast<int>(kind));
            if (bytes != 0 && std::memcmp(recv.data(), data.results[t][o].data(), bytes) != 0) {
              throw test::CheckFailed(what + ": wrong result");
            }
            for (std::size_t i = bytes; i < recv.size(); ++i) {
              if (recv[i] != fill) throw test::CheckFailed(what + ": wrote past the end");
            }
            if (me == 0) ++calls;
          }
        }
      }
    }
  });
  EXPECT_GT(calls, 0);
}

std::vector<Param> arrival_params() {
  std::vector<Param> out;
  for (const std::string& name : test::registered(Collective::allreduce, test::Which::arrival_aware)) {
    for (int p : test::sweep_procs()) out.emplace_back(name, p);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Arrival, AllreduceArrival, testing::ValuesIn(arrival_params()), param_name);

}  // namespace test_allreduce_test
}  // namespace ragged
