// Workspace: the memory a collective borrows through its Context (dispatch keeps one workspace
// per Comm) stays the same block from call to call (so its pages stay mapped), grows when asked
// for more, and is private to each Comm.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>

#include "ragged/comm.hpp"
#include "ragged/context.hpp"
#include "ragged/error.hpp"
#include "ragged/sim.hpp"

namespace ragged {
namespace test_scratch_test {

TEST(SimScratch, TheSameBlockServesEveryCallThatFits) {
  sim::run(sim::Config{.platform = "cluster-1gbe-48", .procs = 2}, [](Comm& comm) {
    const std::span<std::byte> first = workspace_of(comm).get(1 << 20);
    ASSERT_EQ(first.size(), std::size_t{1} << 20);
    std::memset(first.data(), 0x5A, first.size());  // all of it is writable
    const std::span<std::byte> again = workspace_of(comm).get(1 << 20);
    EXPECT_EQ(again.data(), first.data());
    const std::span<std::byte> smaller = workspace_of(comm).get(4096);
    EXPECT_EQ(smaller.data(), first.data());
    EXPECT_EQ(smaller.size(), 4096U);
    EXPECT_EQ(smaller[4095], std::byte{0x5A});  // contents are left as they were

    const std::span<std::byte> larger = workspace_of(comm).get(3 << 20);
    ASSERT_EQ(larger.size(), std::size_t{3} << 20);
    std::memset(larger.data(), 0x11, larger.size());
    EXPECT_EQ(workspace_of(comm).get(2 << 20).data(), larger.data());

    workspace_of(comm).release();
    EXPECT_EQ(workspace_of(comm).get(0).size(), 0U);
    const std::span<std::byte> fresh = workspace_of(comm).get(100);
    ASSERT_EQ(fresh.size(), 100U);
    std::memset(fresh.data(), 0, fresh.size());
  });
}

TEST(SimScratch, SlotsAreIndependentBlocks) {
  sim::run(sim::Config{.platform = "cluster-1gbe-48", .procs = 1}, [](Comm& comm) {
    ASSERT_EQ(Workspace::slots, 2);
    const std::span<std::byte> zero = workspace_of(comm).get(1 << 18, 0);
    std::memset(zero.data(), 0x22, zero.size());
    const std::span<std::byte> one = workspace_of(comm).get(1 << 19, 1);  // growing slot 1 leaves slot 0 alone
    std::memset(one.data(), 0x33, one.size());
    EXPECT_EQ(workspace_of(comm).get(1 << 18, 0).data(), zero.data());
    for (const std::byte x : workspace_of(comm).get(1 << 18, 0)) ASSERT_EQ(x, std::byte{0x22});
    EXPECT_EQ(workspace_of(comm).get(10, 1).data(), one.data());
    try {
      (void)workspace_of(comm).get(1, Workspace::slots);
      ADD_FAILURE() << "slot " << Workspace::slots << " was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(e.argument(), "slot");
    }
    EXPECT_THROW((void)workspace_of(comm).get(1, -1), InvalidArgument);
    workspace_of(comm).release();
    EXPECT_EQ(workspace_of(comm).get(0, 1).size(), 0U);
  });
}

TEST(SimScratch, EveryRankHasItsOwn) {
  sim::run(sim::Config{.platform = "cluster-1gbe-48", .procs = 3}, [](Comm& comm) {
    const std::span<std::byte> mine = workspace_of(comm).get(64);
    std::memset(mine.data(), comm.rank(), mine.size());
    comm.runtime().sleep_for(0.001);  // the other ranks write theirs meanwhile
    for (const std::byte x : workspace_of(comm).get(64)) ASSERT_EQ(x, static_cast<std::byte>(comm.rank()));
  });
}

}  // namespace test_scratch_test
}  // namespace ragged
