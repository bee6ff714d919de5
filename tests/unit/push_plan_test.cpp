// The push plan: unit sizes, and the messages an arriving rank sends, replayed for every P up
// to 70 and random sets of waiting ranks: every other rank gets every unit exactly once
// (directly or forwarded by a waiting rank), forwarding stays inside the waiting ranks, and
// the arriving rank's link carries one copy of its block towards them.
#include "plans/push_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

namespace test_push_plan_test {

namespace push = ragged::plans::push;

namespace {

TEST(PushPlan, UnitsCoverTheBlockWithinTheMessageLimits) {
  EXPECT_EQ(push::unit_bytes(0, 8), 0u);
  EXPECT_EQ(push::units(0, 0), 0);
  EXPECT_EQ(push::unit_bytes(10, 8), 10u);         // below min_payload: one unit
  EXPECT_EQ(push::unit_bytes(5000, 8), 1024u);     // min_payload
  EXPECT_EQ(push::unit_bytes(131072, 8), 18725u);  // 128 KiB over 7: one unit per peer
  EXPECT_EQ(push::unit_bytes(1 << 20, 8), push::max_payload);
  EXPECT_EQ(push::unit_bytes(4096, 1), 4096u);
  for (std::size_t block : {std::size_t{1}, std::size_t{1023}, std::size_t{1025}, std::size_t{131072},
                            std::size_t{1} << 20, std::size_t{12345678}}) {
    for (int p : {1, 2, 3, 8, 33, 64, 65, 1000}) {
      const std::size_t unit = push::unit_bytes(block, p);
      ASSERT_GT(unit, 0u);
      ASSERT_LE(unit + push::header_bytes, push::max_message);
      const int n = push::units(block, unit);
      std::size_t total = 0;
      for (int u = 0; u < n; ++u) {
        const std::size_t b = push::payload(block, unit, u);
        ASSERT_GT(b, 0u);
        ASSERT_LE(b, unit);
        total += b;
      }
      EXPECT_EQ(total, block) << "block " << block << " p " << p;
    }
  }
}

/// Replays one arrival: got[r][u] counts how often rank r got unit u.
void replay(int me, int p, int units, const std::vector<bool>& arrived) {
  // std::vector<bool> has no data(): the plan takes a plain array
  std::unique_ptr<bool[]> flags(new bool[static_cast<std::size_t>(p)]);
  for (int r = 0; r < p; ++r) flags[static_cast<std::size_t>(r)] = arrived[static_cast<std::size_t>(r)];
  const std::vector<push::Send> sends = push::sends(me, p, units, {flags.get(), static_cast<std::size_t>(p)});
  int waiting = 0;
  for (int r = 0; r < p; ++r) waiting += (r != me && arrived[static_cast<std::size_t>(r)]) ? 1 : 0;
  const bool scatter = waiting >= 2 && p <= push::max_forward_procs;
  std::vector<std::vector<int>> got(static_cast<std::size_t>(p), std::vector<int>(static_cast<std::size_t>(units), 0));
  int to_waiting = 0;
  bool direct_seen = false;
  for (const push::Send& s : sends) {
    ASSERT_NE(s.dest, me);
    ASSERT_GE(s.dest, 0);
    ASSERT_LT(s.dest, p);
    ASSERT_GE(s.unit, 0);
    ASSERT_LT(s.unit, units);
    const bool dest_waits = arrived[static_cast<std::size_t>(s.dest)];
    if (s.forward != 0) {
      ASSERT_TRUE(scatter);
      ASSERT_TRUE(dest_waits);
      ASSERT_FALSE(direct_seen) << "the scatter to the waiting ranks goes first";
      ASSERT_EQ(s.forward & (std::uint64_t{1} << s.dest), 0u);
      ASSERT_EQ(s.forward & (std::uint64_t{1} << me), 0u);
      for (int r = 0; r < p; ++r) {
        if ((s.forward >> r & 1u) == 0) continue;
        ASSERT_TRUE(arrived[static_cast<std::size_t>(r)]) << "forwarded to a rank that computes";
        ++got[static_cast<std::size_t>(r)][static_cast<std::size_t>(s.unit)];
      }
    } else {
      direct_seen = direct_seen || !dest_waits || !scatter;
    }
    if (dest_waits && scatter) ++to_waiting;
    ++got[static_cast<std::size_t>(s.dest)][static_cast<std::size_t>(s.unit)];
  }
  for (int r = 0; r < p; ++r) {
    for (int u = 0; u < units; ++u) {
      ASSERT_EQ(got[static_cast<std::size_t>(r)][static_cast<std::size_t>(u)], r == me ? 0 : 1)
          << "p " << p << " me " << me << " rank " << r << " unit " << u;
    }
  }
  if (scatter) EXPECT_EQ(to_waiting, units) << "one copy of the block towards the waiting ranks";
}

TEST(PushPlan, EveryOtherRankGetsEveryUnitExactlyOnce) {
  std::mt19937 random(7);
  for (int p = 1; p <= 70; ++p) {
    for (int units : {1, 2, 3, 7, 40}) {
      for (int trial = 0; trial < 12; ++trial) {
        const int me = static_cast<int>(random() % static_cast<unsigned>(p));
        std::vector<bool> arrived(static_cast<std::size_t>(p));
        for (int r = 0; r < p; ++r) {
          // trial 0: nobody waits; 1: everybody; else at random
          arrived[static_cast<std::size_t>(r)] = trial == 1 || (trial > 1 && random() % 2 == 0);
        }
        replay(me, p, units, arrived);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(PushPlan, TheLastRankScattersToTheWaitingOnes) {
  std::unique_ptr<bool[]> a(new bool[6]{true, true, true, true, true, false});
  const std::vector<push::Send> s = push::sends(5, 6, 5, {a.get(), 6});
  ASSERT_EQ(s.size(), 5u);
  for (int u = 0; u < 5; ++u) {
    EXPECT_EQ(s[static_cast<std::size_t>(u)].dest, u);
    EXPECT_EQ(s[static_cast<std::size_t>(u)].unit, u);
    EXPECT_EQ(s[static_cast<std::size_t>(u)].forward, 0x1fu & ~(1u << u));
  }
  // nobody waits: every unit to every rank, rank 0 first (right of 5)
  std::unique_ptr<bool[]> none(new bool[6]{});
  const std::vector<push::Send> d = push::sends(5, 6, 2, {none.get(), 6});
  ASSERT_EQ(d.size(), 10u);
  EXPECT_EQ(d.front(), (push::Send{0, 0, 0}));
  EXPECT_EQ(d.back(), (push::Send{4, 1, 0}));
}

}  // namespace

}  // namespace test_push_plan_test
