// What the sim sweeps of the collectives share: the platform and the options they run under, a
// built-in operator by its kind, and the check that a collective rejects a null buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "ragged/collectives.hpp"
#include "ragged/error.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"

namespace ragged::test {

/// The sweeps' options: a simulated timeout far beyond any call they make.
inline CollectiveOptions sweep_options() {
  CollectiveOptions o;
  o.timeout = 600.0;  // simulated seconds
  return o;
}

/// Runs `rank_main` on `procs` ranks of the sweeps' platform, cluster-1gbe-48.
inline void simulate(int procs, const std::function<void(Comm&)>& rank_main) {
  sim::Config config;
  config.platform = "cluster-1gbe-48";
  config.procs = procs;
  sim::run(config, rank_main);
}

/// The built-in operator of `kind`.
inline ReduceOp builtin_op(OpKind kind) {
  switch (kind) {
    case OpKind::sum:
      return ReduceOp::sum();
    case OpKind::prod:
      return ReduceOp::prod();
    case OpKind::min:
      return ReduceOp::min();
    case OpKind::max:
      return ReduceOp::max();
    case OpKind::custom:
      break;
  }
  throw std::logic_error("not a built-in operator");
}

// Interval concatenation: [a,b] ∘ [c,d] = [a,d] if c == b+1, otherwise an error value that
// absorbs everything. Associative but not commutative: a reduction over ranks 0..r of [i,i] is
// [0, r] only if every combination kept the lower ranks on the left.
inline constexpr std::int64_t interval_error = -1;
inline std::int64_t interval(std::int64_t lo, std::int64_t hi) { return lo * 65536 + hi; }

/// The concatenation operator on int64 (throws std::logic_error on any other type).
inline ReduceOp concatenation() {
  return ReduceOp::make_custom(
      "concat",
      [](const void* in, void* inout, std::size_t count, DataType type) {
        if (type != DataType::int64) throw std::logic_error("concat is defined on int64 only");
        const auto* left = static_cast<const std::int64_t*>(in);
        auto* right = static_cast<std::int64_t*>(inout);
        for (std::size_t i = 0; i < count; ++i) {
          const std::int64_t a = left[i];
          const std::int64_t b = right[i];
          const bool adjacent = a != interval_error && b != interval_error && a % 65536 + 1 == b / 65536;
          right[i] = adjacent ? interval(a / 65536, b % 65536) : interval_error;
        }
      },
      false);
}

/// `call(sendbuf, recvbuf)` with a null sendbuf, then with a null recvbuf (the other one `buf`):
/// each must throw InvalidArgument naming the null one.
template <class Call>
void check_rejects_null_buffers(void* buf, Call call) {
  for (const char* argument : {"sendbuf", "recvbuf"}) {
    const bool null_send = std::string(argument) == "sendbuf";
    bool threw = false;
    try {
      call(null_send ? nullptr : buf, null_send ? buf : nullptr);
    } catch (const InvalidArgument& e) {
      threw = true;
      RAGGED_CHECK_EQ(e.argument(), std::string(argument));
    }
    RAGGED_CHECK(threw);
  }
}

}  // namespace ragged::test
