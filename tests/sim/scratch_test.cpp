// Comm::scratch: the memory a collective borrows from its Comm stays the same block
// from call to call (so its pages stay mapped), grows when asked for more, and is
// private to each Comm.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>

#include "ragged/comm.hpp"
#include "ragged/error.hpp"
#include "ragged/sim.hpp"

namespace ragged {
namespace {

TEST(SimScratch, TheSameBlockServesEveryCallThatFits) {
  sim::run(sim::Config{.platform = "cluster-1gbe-48", .procs = 2}, [](Comm& comm) {
    const std::span<std::byte> first = comm.scratch(1 << 20);
    ASSERT_EQ(first.size(), std::size_t{1} << 20);
    std::memset(first.data(), 0x5A, first.size());  // all of it is writable
    const std::span<std::byte> again = comm.scratch(1 << 20);
    EXPECT_EQ(again.data(), first.data());
    const std::span<std::byte> smaller = comm.scratch(4096);
    EXPECT_EQ(smaller.data(), first.data());
    EXPECT_EQ(smaller.size(), 4096U);
    EXPECT_EQ(smaller[4095], std::byte{0x5A});  // contents are left as they were

    const std::span<std::byte> larger = comm.scratch(3 << 20);
    ASSERT_EQ(larger.size(), std::size_t{3} << 20);
    std::memset(larger.data(), 0x11, larger.size());
    EXPECT_EQ(comm.scratch(2 << 20).data(), larger.data());

    comm.release_scratch();
    EXPECT_EQ(comm.scratch(0).size(), 0U);
    const std::span<std::byte> fresh = comm.scratch(100);
    ASSERT_EQ(fresh.size(), 100U);
    std::memset(fresh.data(), 0, fresh.size());
  });
}

TEST(SimScratch, SlotsAreIndependentBlocks) {
  sim::run(sim::Config{.platform = "cluster-1gbe-48", .procs = 1}, [](Comm& comm) {
    ASSERT_EQ(Comm::scratch_slots, 2);
    const std::span<std::byte> zero = comm.scratch(1 << 18, 0);
    std::memset(zero.data(), 0x22, zero.size());
    const std::span<std::byte> one = comm.scratch(1 << 19, 1);  // growing slot 1 leaves slot 0 alone
    std::memset(one.data(), 0x33, one.size());
    EXPECT_EQ(comm.scratch(1 << 18, 0).data(), zero.data());
    for (const std::byte x : comm.scratch(1 << 18, 0)) ASSERT_EQ(x, std::byte{0x22});
    EXPECT_EQ(comm.scratch(10, 1).data(), one.data());
    try {
      (void)comm.scratch(1, Comm::scratch_slots);
      ADD_FAILURE() << "slot " << Comm::scratch_slots << " was accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(e.argument(), "slot");
    }
    EXPECT_THROW((void)comm.scratch(1, -1), InvalidArgument);
    comm.release_scratch();
    EXPECT_EQ(comm.scratch(0, 1).size(), 0U);
  });
}

TEST(SimScratch, EveryRankHasItsOwn) {
  sim::run(sim::Config{.platform = "cluster-1gbe-48", .procs = 3}, [](Comm& comm) {
    const std::span<std::byte> mine = comm.scratch(64);
    std::memset(mine.data(), comm.rank(), mine.size());
    comm.runtime().sleep_for(0.001);  // the other ranks write theirs meanwhile
    for (const std::byte x : comm.scratch(64)) ASSERT_EQ(x, static_cast<std::byte>(comm.rank()));
  });
}

}  // namespace
}  // namespace ragged
