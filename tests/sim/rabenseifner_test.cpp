// allreduce "rabenseifner" on the binary-block decompositions the registry sweep
// (tests/sim/allreduce_test.cpp, P in test::sweep_procs()) does not reach: two blocks (6, 12, 24, 40, 48),
// three or more (11, 13, 14, 15, 19), one plus a singleton (9, 17). Values never repeat across ranks
// (rank r contributes r * 1024 + a value below 1024), so a piece reduced twice, lost, or taken from the
// wrong rank changes the sum; a commutative custom operator (xor) cancels a piece reduced twice. Every
// count around the block sizes and odd ones, every datatype, sum, prod, min, max and xor, in place and
// not, back to back in one simulation per P; the send buffer must come back unchanged and nothing past
// the result may be written.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/registry.hpp"
#include "support/check.hpp"
#include "support/patterns.hpp"
#include "support/sim_sweep.hpp"

namespace ragged {
namespace test_rabenseifner_test {

using Bytes = std::vector<std::byte>;

constexpr std::size_t guard_bytes = 40;
constexpr std::byte fill{0x5A};
enum class Op { sum, prod, min, max, bxor };
constexpr std::array<Op, 5> ops{Op::sum, Op::prod, Op::min, Op::max, Op::bxor};
constexpr std::array<DataType, 4> types{DataType::int32, DataType::int64, DataType::float32, DataType::float64};

/// Rank r's value at index i: distinct across ranks, exact in float32 summed over 48 ranks (< 2^22).
std::int64_t value(Op op, int rank, std::size_t i) {
  if (op == Op::prod) return (static_cast<std::size_t>(rank) * 7 + i) % 3 == 0 ? 2 : 1;  // at most 2^16
  return static_cast<std::int64_t>(rank) * 1024 + static_cast<std::int64_t>((i * 37 + 11) % 1024) + 1;
}

std::int64_t reduced(Op op, int procs, std::size_t i) {
  std::int64_t acc = value(op, 0, i);
  for (int r = 1; r < procs; ++r) {
    const std::int64_t x = value(op, r, i);
    switch (op) {
      case Op::sum:
        acc += x;
        break;
      case Op::prod:
        acc *= x;
        break;
      case Op::min:
        acc = std::min(acc, x);
        break;
      case Op::max:
        acc = std::max(acc, x);
        break;
      case Op::bxor:
        acc ^= x;
        break;
    }
  }
  return acc;
}

bool integral(DataType t) { return t == DataType::int32 || t == DataType::int64; }

/// xor on the integer types: commutative, and a piece reduced twice cancels.
ReduceOp xor_op() {
  return ReduceOp::make_custom(
      "xor",
      [](const void* in, void* inout, std::size_t count, DataType type) {
        if (type == DataType::int32) {
          const auto* a = static_cast<const std::int32_t*>(in);
          auto* b = static_cast<std::int32_t*>(inout);
          for (std::size_t i = 0; i < count; ++i) b[i] ^= a[i];
        } else {
          const auto* a = static_cast<const std::int64_t*>(in);
          auto* b = static_cast<std::int64_t*>(inout);
          for (std::size_t i = 0; i < count; ++i) b[i] ^= a[i];
        }
      },
      true);
}

ReduceOp reduce_op(Op op) {
  switch (op) {
    case Op::sum:
      return ReduceOp::sum();
    case Op::prod:
      return ReduceOp::prod();
    case Op::min:
      return ReduceOp::min();
    case Op::max:
      return ReduceOp::max();
    case Op::bxor:
      break;
  }
  return xor_op();
}

std::vector<std::size_t> counts_for(int procs) {
  const auto pof2 = static_cast<int>(std::bit_floor(static_cast<unsigned>(procs)));
  std::vector<std::size_t> c{0, 1, 2, 3};
  for (int x : {procs - 1, procs, procs + 1, pof2 - 1, pof2 + 1, 2 * procs + 1, 3 * pof2 + 5}) {
    c.push_back(static_cast<std::size_t>(x));
  }
  c.push_back(1001);
  c.push_back(65537);
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

class RabenseifnerBinaryBlocks : public testing::TestWithParam<int> {};

TEST_P(RabenseifnerBinaryBlocks, EveryCountTypeOpAndInPlaceReducesEveryRankOnce) {
  const int procs = GetParam();
  const AllreduceFn fn = Registry::instance().allreduce("rabenseifner");
  const std::vector<std::size_t> counts = counts_for(procs);
  const std::size_t max_count = counts.back();
  // inputs[type][op][rank], results[type][op]; built before the simulation, only read by the ranks
  std::vector<std::vector<std::vector<Bytes>>> inputs(types.size(), std::vector<std::vector<Bytes>>(ops.size()));
  std::vector<std::vector<Bytes>> results(types.size(), std::vector<Bytes>(ops.size()));
  for (std::size_t t = 0; t < types.size(); ++t) {
    for (std::size_t o = 0; o < ops.size(); ++o) {
      if (ops[o] == Op::bxor && !integral(types[t])) continue;
      for (int r = 0; r < procs; ++r) {
        inputs[t][o].push_back(
            test::make_buffer(types[t], max_count, [&](std::size_t i) { return value(ops[o], r, i); }));
      }
      results[t][o] = test::make_buffer(types[t], max_count, [&](std::size_t i) { return reduced(ops[o], procs, i); });
    }
  }
  int calls = 0;
  test::simulate(procs, [&](Comm& comm) {
    const auto me = static_cast<std::size_t>(comm.rank());
    const CollectiveOptions options = test::sweep_options();
    bool inplace = false;
    for (std::size_t count : counts) {
      for (std::size_t t = 0; t < types.size(); ++t) {
        if (count == max_count && t != 0 && t != 2) continue;  // the largest count in int32 and float32
        const std::size_t bytes = count * size_of(types[t]);
        for (std::size_t o = 0; o < ops.size(); ++o) {
          if (ops[o] == Op::bxor && !integral(types[t])) continue;
          for (int twice = 0; twice < 2; ++twice) {
            inplace = !inplace;
            const Bytes& mine = inputs[t][o][me];
            Bytes send(mine.begin(), mine.begin() + static_cast<std::ptrdiff_t>(bytes));
            Bytes recv(bytes + guard_bytes, fill);
            if (inplace && bytes > 0) std::memcpy(recv.data(), send.data(), bytes);
            fn(comm, inplace ? in_place : send.data(), recv.data(), count, types[t], reduce_op(ops[o]), options);
            const std::string what = "P " + std::to_string(procs) + " rank " + std::to_string(me) + " count " +
                                     std::to_string(count) + " " + name_of(types[t]) + " op " +
                                     std::to_string(static_cast<int>(ops[o])) + (inplace ? " in place" : "");
            if (bytes != 0 && std::memcmp(recv.data(), results[t][o].data(), bytes) != 0) {
              std::size_t i = 0;
              while (test::element(recv, types[t], i) == test::element(results[t][o], types[t], i)) ++i;
              throw test::CheckFailed(what + ": element " + std::to_string(i) + " is " +
                                      std::to_string(test::element(recv, types[t], i)) + ", expected " +
                                      std::to_string(test::element(results[t][o], types[t], i)));
            }
            for (std::size_t i = bytes; i < recv.size(); ++i) {
              if (recv[i] != fill) throw test::CheckFailed(what + ": wrote past the end");
            }
            if (!inplace && std::memcmp(send.data(), mine.data(), bytes) != 0) {
              throw test::CheckFailed(what + ": changed the send buffer");
            }
            if (me == 0) ++calls;
          }
        }
      }
    }
  });
  EXPECT_GT(calls, 0);
}

INSTANTIATE_TEST_SUITE_P(Sweep, RabenseifnerBinaryBlocks,
                         testing::Values(3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 17, 19, 24, 33, 40, 48),
                         [](const testing::TestParamInfo<int>& p) { return "P" + std::to_string(p.param); });

}  // namespace test_rabenseifner_test
}  // namespace ragged
