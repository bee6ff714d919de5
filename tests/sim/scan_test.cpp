// The prefix reductions (scan, exscan), reduce_scatter_block and reduce_scatter on the sim backend: for every P
// of the sweep, one simulation per algorithm runs every count of the sweep, every datatype, every
// built-in operator, in place and not, and compares each rank's result exactly with the prefix of
// test::pattern() over the ranks below it (and itself, for scan), or with its block of the
// reduction over every rank. A non-commutative operator checks that operands stay in rank order;
// exscan must leave rank 0's recvbuf unwritten.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
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
namespace test_scan_test {

using test::pattern;
using Bytes = std::vector<std::byte>;

constexpr std::size_t guard_bytes = 64;
constexpr std::byte sentinel{0xA5};
constexpr std::array<OpKind, 4> builtin_ops{OpKind::sum, OpKind::prod, OpKind::min, OpKind::max};

/// Rank `rank`'s value at `index` for a product: 1 or 2, so every prefix product is a power of
/// two, exact in float and double (and wrapping alike in int32).
std::int64_t prod_pattern(int rank, std::size_t index) { return pattern(rank, index) % 2 + 1; }
std::int64_t operand(OpKind kind, int rank, std::size_t index) {
  return kind == OpKind::prod ? prod_pattern(rank, index) : pattern(rank, index);
}
std::int64_t combine(OpKind kind, std::int64_t a, std::int64_t b) {
  switch (kind) {
    case OpKind::sum:
      return a + b;
    case OpKind::prod:
      return a * b;
    case OpKind::min:
      return std::min(a, b);
    case OpKind::max:
      return std::max(a, b);
    case OpKind::custom:
      break;
  }
  throw std::logic_error("not a built-in operator");
}

/// inclusive[o][r][i]: operand_0 ∘ ... ∘ operand_r at element i, for the largest count of the sweep.
struct Prefixes {
  std::size_t max_count = 0;
  std::array<std::vector<std::vector<std::int64_t>>, 4> inclusive;
};

Prefixes make_prefixes(int procs) {
  Prefixes d;
  for (std::size_t c : test::sweep_counts(procs)) d.max_count = std::max(d.max_count, c);
  for (std::size_t o = 0; o < builtin_ops.size(); ++o) {
    const OpKind kind = builtin_ops[o];
    auto& rows = d.inclusive[o];
    rows.assign(static_cast<std::size_t>(procs), std::vector<std::int64_t>(d.max_count));
    for (std::size_t i = 0; i < d.max_count; ++i) rows[0][i] = operand(kind, 0, i);
    for (int r = 1; r < procs; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      for (std::size_t i = 0; i < d.max_count; ++i) rows[ur][i] = combine(kind, rows[ur - 1][i], operand(kind, r, i));
    }
  }
  return d;
}

void check_bytes(const Bytes& got, const Bytes& want, const std::string& what) {
  if (std::memcmp(got.data(), want.data(), want.size()) != 0) {
    std::size_t i = 0;
    while (got[i] == want[i]) ++i;
    throw test::CheckFailed(what + ": byte " + std::to_string(i) + " differs");
  }
  for (std::size_t i = want.size(); i < got.size(); ++i) {
    if (got[i] != sentinel) throw test::CheckFailed(what + ": wrote past the end of recvbuf");
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

/// Runs one sweep of `collective` (scan or exscan) with algorithm `name` on `procs` ranks.
void sweep(Collective collective, const std::string& name, int procs) {
  const bool inclusive = collective == Collective::scan;
  const ScanFn fn = inclusive ? Registry::instance().scan(name) : Registry::instance().exscan(name);
  const Prefixes data = make_prefixes(procs);
  test::simulate(procs, [&](Comm& comm) {
    const int me = comm.rank();
    const auto ume = static_cast<std::size_t>(me);
    const CollectiveOptions opts = test::sweep_options();
    std::int32_t x = 1;
    test::check_rejects_null_buffers(
        &x, [&](void* s, void* r) { fn(comm, s, r, 1, DataType::int32, ReduceOp::sum(), opts); });
    for (std::size_t count : test::sweep_counts(procs)) {
      for (DataType type : test::all_types) {
        for (std::size_t o = 0; o < builtin_ops.size(); ++o) {
          const OpKind kind = builtin_ops[o];
          const Bytes mine = test::make_buffer(type, count, [&](std::size_t i) { return operand(kind, me, i); });
          const bool written = inclusive || me > 0;
          const std::size_t below = inclusive ? ume : ume - 1;
          const Bytes want =
              !written ? Bytes{}
                       : test::make_buffer(type, count, [&](std::size_t i) { return data.inclusive[o][below][i]; });
          for (bool in_place : {false, true}) {
            const std::string what = std::string(name_of(collective)) + " " + name + " rank " + std::to_string(me) +
                                     " count " + std::to_string(count) + " type " + name_of(type) + " op " +
                                     test::builtin_op(kind).label + (in_place ? " in place" : "");
            Bytes out(mine.size() + guard_bytes, sentinel);
            if (in_place) std::memcpy(out.data(), mine.data(), mine.size());
            fn(comm, in_place ? ragged::in_place : mine.data(), out.data(), count, type, test::builtin_op(kind), opts);
            if (written) {
              check_bytes(out, want, what);
            } else {  // exscan at rank 0: recvbuf as the caller left it
              Bytes before(mine.size() + guard_bytes, sentinel);
              if (in_place) std::memcpy(before.data(), mine.data(), mine.size());
              if (out != before) throw test::CheckFailed(what + ": rank 0's recvbuf was written");
            }
          }
        }
      }
    }
  });
}

using test::concatenation;
using test::interval;

void non_commutative(Collective collective, const std::string& name, int procs) {
  const bool inclusive = collective == Collective::scan;
  const ScanFn fn = inclusive ? Registry::instance().scan(name) : Registry::instance().exscan(name);
  const ReduceOp op = concatenation();
  test::simulate(procs, [&](Comm& comm) {
    const int me = comm.rank();
    const CollectiveOptions opts = test::sweep_options();
    for (std::size_t count : test::sweep_counts(procs)) {
      const std::vector<std::int64_t> mine(count, interval(me, me));
      std::vector<std::int64_t> out(count, 7);
      fn(comm, mine.data(), out.data(), count, DataType::int64, op, opts);
      const std::int64_t want = inclusive ? interval(0, me) : me == 0 ? 7 : interval(0, me - 1);
      for (std::size_t i = 0; i < count; ++i) {
        if (out[i] != want) {
          throw test::CheckFailed(std::string(name_of(collective)) + " " + name + " rank " + std::to_string(me) +
                                  " count " + std::to_string(count) + ": element " + std::to_string(i) + " is " +
                                  std::to_string(out[i]) + ", expected " + std::to_string(want));
        }
      }
    }
  });
}

class Scan : public testing::TestWithParam<Param> {};
TEST_P(Scan, EveryCountTypeOperatorAndInPlaceGivesTheInclusivePrefix) {
  sweep(Collective::scan, std::get<0>(GetParam()), std::get<1>(GetParam()));
}
TEST_P(Scan, NonCommutativeOperatorKeepsRankOrder) {
  non_commutative(Collective::scan, std::get<0>(GetParam()), std::get<1>(GetParam()));
}
INSTANTIATE_TEST_SUITE_P(Prefix, Scan, testing::ValuesIn(params(Collective::scan)), param_name);

class Exscan : public testing::TestWithParam<Param> {};
TEST_P(Exscan, EveryCountTypeOperatorAndInPlaceGivesTheExclusivePrefix) {
  sweep(Collective::exscan, std::get<0>(GetParam()), std::get<1>(GetParam()));
}
TEST_P(Exscan, NonCommutativeOperatorKeepsRankOrder) {
  non_commutative(Collective::exscan, std::get<0>(GetParam()), std::get<1>(GetParam()));
}
INSTANTIATE_TEST_SUITE_P(Prefix, Exscan, testing::ValuesIn(params(Collective::exscan)), param_name);

// ------------------------------------------------------------ reduce_scatter_block, reduce_scatter

/// One call of reduce_scatter_block (equal blocks: counts[0] each) or reduce_scatter (uneven).
using ScatterCall = std::function<void(Comm&, const void*, void*, std::span<const int>, DataType, const ReduceOp&,
                                       const CollectiveOptions&)>;

ScatterCall scatter_call(Collective collective, const std::string& name) {
  if (collective == Collective::reduce_scatter) {
    return [fn = Registry::instance().reduce_scatter(name)](
               Comm& c, const void* s, void* r, std::span<const int> counts, DataType t, const ReduceOp& op,
               const CollectiveOptions& o) { (void)fn(c, s, r, counts, t, op, o); };
  }
  return [fn = Registry::instance().reduce_scatter_block(name)](
             Comm& c, const void* s, void* r, std::span<const int> counts, DataType t, const ReduceOp& op,
             const CollectiveOptions& o) { (void)fn(c, s, r, static_cast<std::size_t>(counts[0]), t, op, o); };
}

/// The blocks for `count`: all `count` (reduce_scatter_block), or rank j's count + j elements and
/// every third rank's empty (reduce_scatter).
std::vector<int> blocks_for(Collective collective, std::size_t count, int procs) {
  std::vector<int> counts(static_cast<std::size_t>(procs), static_cast<int>(count));
  if (collective != Collective::reduce_scatter) return counts;
  for (int j = 0; j < procs; ++j) counts[static_cast<std::size_t>(j)] = j % 3 == 1 ? 0 : static_cast<int>(count) + j;
  return counts;
}

/// Rank `me` of P: its operand is the whole vector (the blocks' sum), element j operand(kind, me,
/// j); its result is its block of the reduction over every rank, the blocks back to back in rank order.
void reduce_scatter_sweep(Collective collective, const std::string& name, int procs) {
  const ScatterCall call = scatter_call(collective, name);
  const auto p = static_cast<std::size_t>(procs);
  std::size_t max_count = 0;
  for (std::size_t c : test::sweep_counts(procs)) max_count = std::max(max_count, c);
  // every rank's whole vector needs P blocks: keep the sweep's largest vector about 100,000 elements
  // (several 32 KiB segments of every type; twice that doubled the P = 33 cases' time and tested no
  // other path)
  max_count = std::min<std::size_t>(max_count, 100003 / p);
  const std::size_t max_total = p * (max_count + p);
  // reduced[o][j]: the reduction over every rank of element j of the whole vector
  std::array<std::vector<std::int64_t>, 4> reduced;
  for (std::size_t o = 0; o < builtin_ops.size(); ++o) {
    reduced[o].resize(max_total);
    for (std::size_t j = 0; j < max_total; ++j) {
      std::int64_t acc = operand(builtin_ops[o], 0, j);
      for (int r = 1; r < procs; ++r) acc = combine(builtin_ops[o], acc, operand(builtin_ops[o], r, j));
      reduced[o][j] = acc;
    }
  }
  test::simulate(procs, [&](Comm& comm) {
    const int me = comm.rank();
    const auto ume = static_cast<std::size_t>(me);
    const CollectiveOptions opts = test::sweep_options();
    const std::vector<int> ones(p, 1);
    std::vector<std::int32_t> x(p, 1);
    test::check_rejects_null_buffers(
        x.data(), [&](void* s, void* r) { call(comm, s, r, ones, DataType::int32, ReduceOp::sum(), opts); });
    for (std::size_t count : test::sweep_counts(procs)) {
      const std::vector<int> counts = blocks_for(collective, std::min(count, max_count), procs);
      std::size_t total = 0;
      std::size_t first = 0;
      for (std::size_t j = 0; j < p; ++j) {
        if (j == ume) first = total;
        total += static_cast<std::size_t>(counts[j]);
      }
      const auto mine_count = static_cast<std::size_t>(counts[ume]);
      for (DataType type : test::all_types) {
        for (std::size_t o = 0; o < builtin_ops.size(); ++o) {
          const OpKind kind = builtin_ops[o];
          const Bytes mine = test::make_buffer(type, total, [&](std::size_t j) { return operand(kind, me, j); });
          const Bytes want = test::make_buffer(type, mine_count, [&](std::size_t i) { return reduced[o][first + i]; });
          for (bool in_place : {false, true}) {
            const std::string what = std::string(name_of(collective)) + " " + name + " rank " + std::to_string(me) +
                                     " count " + std::to_string(count) + " type " + name_of(type) + " op " +
                                     test::builtin_op(kind).label + (in_place ? " in place" : "");
            Bytes out((in_place ? mine.size() : want.size()) + guard_bytes, sentinel);
            if (in_place) std::memcpy(out.data(), mine.data(), mine.size());
            call(comm, in_place ? ragged::in_place : mine.data(), out.data(), counts, type, test::builtin_op(kind),
                 opts);
            if (!want.empty() && std::memcmp(out.data(), want.data(), want.size()) != 0) {
              throw test::CheckFailed(what + ": wrong block");
            }
            // in place, the rest of recvbuf (the other blocks of the operand) may be anything MPI
            // allows; the guard after it must stay
            for (std::size_t i = out.size() - guard_bytes; i < out.size(); ++i) {
              if (out[i] != sentinel) throw test::CheckFailed(what + ": wrote past the end of recvbuf");
            }
          }
        }
      }
    }
  });
}

/// With the concatenation operator every element of every block is [0, P-1] only in rank order.
void reduce_scatter_non_commutative(Collective collective, const std::string& name, int procs) {
  const ScatterCall call = scatter_call(collective, name);
  const ReduceOp op = concatenation();
  test::simulate(procs, [&](Comm& comm) {
    const int me = comm.rank();
    const CollectiveOptions opts = test::sweep_options();
    for (std::size_t count : {std::size_t{1}, std::size_t{3}, std::size_t{5000}}) {
      const std::vector<int> counts = blocks_for(collective, count, procs);
      std::size_t total = 0;
      for (int c : counts) total += static_cast<std::size_t>(c);
      const std::vector<std::int64_t> mine(total, interval(me, me));
      std::vector<std::int64_t> out(static_cast<std::size_t>(counts[static_cast<std::size_t>(me)]), 7);
      call(comm, mine.data(), out.data(), counts, DataType::int64, op, opts);
      for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] != interval(0, procs - 1)) {
          throw test::CheckFailed(std::string(name_of(collective)) + " " + name + " rank " + std::to_string(me) +
                                  " count " + std::to_string(count) + ": element " + std::to_string(i) + " is " +
                                  std::to_string(out[i]));
        }
      }
    }
  });
}

class ReduceScatterBlock : public testing::TestWithParam<Param> {};
TEST_P(ReduceScatterBlock, EveryCountTypeOperatorAndInPlaceGivesEachRankItsBlock) {
  reduce_scatter_sweep(Collective::reduce_scatter_block, std::get<0>(GetParam()), std::get<1>(GetParam()));
}
// A commutative-only algorithm runs its fallback (dispatch) for this operator: rank order either way.
TEST_P(ReduceScatterBlock, NonCommutativeOperatorKeepsRankOrder) {
  reduce_scatter_non_commutative(Collective::reduce_scatter_block, std::get<0>(GetParam()), std::get<1>(GetParam()));
}
INSTANTIATE_TEST_SUITE_P(Reduction, ReduceScatterBlock, testing::ValuesIn(params(Collective::reduce_scatter_block)),
                         param_name);

class ReduceScatter : public testing::TestWithParam<Param> {};
TEST_P(ReduceScatter, EveryCountTypeOperatorAndInPlaceGivesEachRankItsUnevenBlock) {
  reduce_scatter_sweep(Collective::reduce_scatter, std::get<0>(GetParam()), std::get<1>(GetParam()));
}
TEST_P(ReduceScatter, NonCommutativeOperatorKeepsRankOrder) {
  reduce_scatter_non_commutative(Collective::reduce_scatter, std::get<0>(GetParam()), std::get<1>(GetParam()));
}
INSTANTIATE_TEST_SUITE_P(Reduction, ReduceScatter, testing::ValuesIn(params(Collective::reduce_scatter)), param_name);

}  // namespace test_scan_test
}  // namespace ragged
