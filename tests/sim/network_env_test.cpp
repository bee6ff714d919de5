// RAGGED_NETWORK (docs/selection.md, "Layouts"): what it gives replaces the platform's network
// model field by field, what it leaves out stays; a malformed value fails every rank's call with
// an InvalidArgument naming RAGGED_NETWORK; a hint wins over both.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/context.hpp"
#include "ragged/error.hpp"
#include "ragged/layout.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/scoped_env.hpp"

namespace ragged {
namespace test_network_env_test {

using test::ScopedEnv;

sim::Config galileo() {
  sim::Config config;
  config.platform = "galileo-opa-16x4";  // 4 ranks per node
  config.procs = 8;
  return config;
}

// The simulated ranks share one process and its environment: each setting is made before a run.
TEST(NetworkEnv, ReplacesThePlatformsFieldsItGivesAndKeepsTheOthers) {
  std::atomic<int> checked{0};
  NetworkModel own;  // the platform's, from rank 0
  {
    const ScopedEnv none("RAGGED_NETWORK", nullptr);
    sim::run(galileo(), [&](Comm& comm) {
      const std::shared_ptr<const NetworkModel> net = network_of(comm, Hints{});
      RAGGED_CHECK(net != nullptr && net->intra.known() && net->inter.known());
      RAGGED_CHECK(net->exchange_factor == 1);
      RAGGED_CHECK(net->gap_known && net->gap == 0);  // the simulator's own: galileo declares none
      // A reduction charges a flop an element at the host's speed (galileo: 36.8 Gflop/s).
      RAGGED_CHECK(std::abs(net->reduce_element * 36.8e9 - 1) < 1e-12);
      // The node's memory: the 40 GB/s backbone two disjoint pairs of a node's ranks both cross.
      RAGGED_CHECK(net->node_bandwidth == 40e9);
      if (comm.rank() == 0) own = *net;
    });
  }
  {
    const ScopedEnv set("RAGGED_NETWORK", "intra=1e-6:1e-9,exchange=0.5:1000,reduce=3e-9,node=5e9");
    sim::run(galileo(), [&](Comm& comm) {
      const std::shared_ptr<const NetworkModel> with = network_of(comm, Hints{});
      RAGGED_CHECK(with != nullptr);
      RAGGED_CHECK(with->intra.alpha == 1e-6 && with->intra.beta == 1e-9);
      RAGGED_CHECK(with->inter.alpha == own.inter.alpha && with->inter.beta == own.inter.beta);
      RAGGED_CHECK(with->gap == own.gap);
      RAGGED_CHECK(with->exchange_factor == 0.5 && with->eager_limit == 1000);
      RAGGED_CHECK(with->reduce_element == 3e-9);
      RAGGED_CHECK(with->node_bandwidth == 5e9);
      // a hint still wins over both
      Hints hints;
      auto hint = std::make_shared<NetworkModel>();
      hint->gap = 7e-6;
      hints.set(std::shared_ptr<const NetworkModel>(hint));
      RAGGED_CHECK(network_of(comm, hints)->gap == 7e-6);
      RAGGED_CHECK(network_of(comm, hints)->exchange_factor == 1);
      ++checked;
    });
  }
  EXPECT_EQ(checked.load(), 8);
}

TEST(NetworkEnv, MalformedFailsEveryRanksCallNamingTheVariable) {
  std::atomic<int> named{0};
  std::atomic<int> summed{0};
  const auto call = [](Comm& comm) {
    std::vector<std::int32_t> data(64);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = comm.rank() * 64 + static_cast<std::int32_t>(i);
    std::vector<std::int32_t> out(64, -1);
    allreduce(comm, data.data(), out.data(), data.size(), DataType::int32, ReduceOp::sum());
    for (std::size_t i = 0; i < out.size(); ++i) RAGGED_CHECK(out[i] == 28 * 64 + 8 * static_cast<std::int32_t>(i));
  };
  {
    const ScopedEnv bad("RAGGED_NETWORK", "exchange=2");
    sim::run(galileo(), [&](Comm& comm) {
      try {
        call(comm);
      } catch (const InvalidArgument& e) {
        if (e.argument() == "RAGGED_NETWORK") ++named;
      }
    });
  }
  // Without the variable the same call is exact again.
  const ScopedEnv none("RAGGED_NETWORK", nullptr);
  sim::run(galileo(), [&](Comm& comm) {
    call(comm);
    ++summed;
  });
  EXPECT_EQ(named.load(), 8);
  EXPECT_EQ(summed.load(), 8);
}

}  // namespace test_network_env_test
}  // namespace ragged
