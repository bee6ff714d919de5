// What the sim sweeps of the collectives share: the platform and the options they run under, a
// built-in operator by its kind, and the check that a collective rejects a null buffer.
#pragma once

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
