// Parts of a composing algorithm on a sub-communicator (internal::SubComm) cannot open a window:
// dispatch never runs an algorithm that needs one there (Restrictions::needs_window). Found when
// an allreduce among some of the ranks, on their own communicator, got onesided_ring from `auto`
// at P = 8 on infiniband-qdr-560 and threw while the other ranks waited for them.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/layout.hpp"
#include "ragged/registry.hpp"
#include "ragged/selection.hpp"
#include "ragged/sim.hpp"
#include "support/check.hpp"
#include "support/patterns.hpp"
#include "support/scoped_env.hpp"
#include "support/sim_sweep.hpp"

namespace ragged {
namespace test_part_window_test {

// With every part told to run onesided_ring (RAGGED_ALLREDUCE), allreduce hierarchical's
// allreduce among the node leaders, on their sub-communicator, runs onesided_ring's fallback
// instead, and every rank sums exactly; on the whole communicator the same environment still
// runs onesided_ring.
TEST(PartWindow, APartOnASubCommunicatorNeverRunsAWindowAlgorithm) {
  const test::ScopedEnv forced("RAGGED_ALLREDUCE", "onesided_ring");
  for (const int procs : {4, 5, 8}) {
    SCOPED_TRACE("P = " + std::to_string(procs));
    const std::size_t count = 3000;
    test::simulate(procs, [&](Comm& comm) {
      const int me = comm.rank();
      CollectiveOptions o;
      o.algorithm = "hierarchical";
      o.hints.set(
          std::make_shared<const NodeLayout>(NodeLayout::from_sizes(std::vector<int>{procs / 2, procs - procs / 2})));
      std::vector<std::int32_t> mine(count);
      for (std::size_t i = 0; i < count; ++i) mine[i] = static_cast<std::int32_t>(test::pattern(me, i));
      std::vector<std::int32_t> got(count, -1);
      const Algorithm& ran = allreduce(comm, mine.data(), got.data(), count, DataType::int32, ReduceOp::sum(), o);
      RAGGED_CHECK_EQ(ran.name, std::string("hierarchical"));
      for (std::size_t i = 0; i < count; ++i) {
        RAGGED_CHECK_EQ(static_cast<std::int64_t>(got[i]), test::reduced(OpKind::sum, procs, i));
      }
      // The whole communicator has windows: the environment's choice runs as asked.
      std::vector<std::int32_t> whole(count, -1);
      const Algorithm& top = allreduce(comm, mine.data(), whole.data(), count, DataType::int32, ReduceOp::sum());
      RAGGED_CHECK_EQ(top.name, std::string("onesided_ring"));
      RAGGED_CHECK(whole == got);
    });
  }
}

// Selection itself: a call on a communicator without windows never gets onesided_ring (asked
// for, its fallback; from `auto`, anything else), nor alltoall onesided (no fallback: an
// InvalidArgument naming the algorithm).
TEST(PartWindow, SelectionSkipsWindowAlgorithmsWithoutWindows) {
  CallInfo call;
  call.collective = Collective::allreduce;
  call.procs = 8;
  call.bytes = 1 << 20;
  call.backend = "sim";
  call.windows = false;
  const Selection asked = select(call, "onesided_ring");
  EXPECT_EQ(asked.algorithm->name, "reduce_bcast");
  EXPECT_NE(asked.fallback_reason.find("window"), std::string::npos);
  for (const int procs : {2, 3, 8, 64, 560}) {
    for (const std::size_t bytes : {std::size_t{8}, std::size_t{65536}, std::size_t{1} << 20}) {
      call.procs = procs;
      call.bytes = bytes;
      EXPECT_NE(select(call, "auto").algorithm->name, "onesided_ring") << procs << " " << bytes;
    }
  }
  call.collective = Collective::alltoall;
  EXPECT_THROW((void)select(call, "onesided"), InvalidArgument);
  call.windows = true;
  EXPECT_EQ(select(call, "onesided").algorithm->name, "onesided");
}

}  // namespace test_part_window_test
}  // namespace ragged
