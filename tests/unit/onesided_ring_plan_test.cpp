// The onesided ring plan: the two ends of every link agree on the stream, each put depends on the
// receive that completes its data, and the whole ring, executed on sets of contributing ranks with
// the algorithm's order of puts and takes and its slot rule (put s waits for the right
// neighbour's take of s - K), ends with every element reduced over every rank exactly once, never
// deadlocks, and never overwrites data before it is put.
#include "plans/onesided_ring_plan.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace test_onesided_ring_plan_test {

namespace plan = ragged::plans::onesided_ring;
namespace ring = ragged::plans::ring;

namespace {

using Mask = std::uint64_t;  // the ranks whose contribution an element holds (P <= 64)

bool same(const plan::Piece& a, const plan::Piece& b) {
  return a.chunk == b.chunk && a.offset == b.offset && a.count == b.count;
}

std::string label(int p, std::size_t count, std::size_t esize, std::size_t seg, std::size_t slots) {
  return "P=" + std::to_string(p) + " count=" + std::to_string(count) + " esize=" + std::to_string(esize) +
         " segment=" + std::to_string(seg) + " slots=" + std::to_string(slots);
}

/// Runs the ring on masks; returns an empty string or what went wrong.
std::string execute(int p, std::size_t count, std::size_t esize, std::size_t seg, std::size_t slots) {
  const std::size_t m = plan::segments_per_chunk(count, p, esize, seg);
  const std::size_t slot_elems = plan::slot_elements(count, p, m);
  struct Rank {
    std::vector<Mask> data;
    std::vector<plan::Piece> sends, recvs;
    std::size_t first = 0;
    std::size_t next_put = 0, next_take = 0;
    std::vector<std::vector<Mask>> slot;  // what the left neighbour put, by slot
    std::vector<long long> landed;        // piece number in each slot, -1 when free
  };
  std::vector<Rank> ranks(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    Rank& me = ranks[static_cast<std::size_t>(r)];
    me.data.assign(count, Mask{1} << r);
    me.sends = plan::send_stream(count, p, r, m);
    me.recvs = plan::recv_stream(count, p, r, m);
    me.first = plan::first_step_pieces(me.sends);
    me.slot.assign(slots, std::vector<Mask>(slot_elems));
    me.landed.assign(slots, -1);
  }
  const Mask all = p == 64 ? ~Mask{0} : (Mask{1} << p) - 1;
  for (bool progress = true; progress;) {
    progress = false;
    for (int r = 0; r < p; ++r) {
      Rank& me = ranks[static_cast<std::size_t>(r)];
      Rank& right = ranks[static_cast<std::size_t>(ring::right(r, p))];
      Rank& left = ranks[static_cast<std::size_t>(ring::left(r, p))];
      const bool takes_left = me.next_take < me.recvs.size();
      const bool put_now = me.next_put < me.sends.size() &&
                           (!takes_left || plan::put_before_take(me.next_put, me.next_take, me.first, slots));
      if (put_now) {
        const std::size_t s = me.next_put;
        // The slot rule: piece s - K must have been taken by the right neighbour.
        if (s >= slots && right.next_take <= s - slots) continue;
        if (right.landed[s % slots] != -1)
          return "put " + std::to_string(s) + " of rank " + std::to_string(r) + " overwrites an untaken piece";
        const plan::Piece& piece = me.sends[s];
        if (piece.count > slot_elems) return "a piece exceeds its slot";
        for (std::size_t i = 0; i < piece.count; ++i) right.slot[s % slots][i] = me.data[piece.offset + i];
        right.landed[s % slots] = static_cast<long long>(s);
        ++me.next_put;
        progress = true;
      } else if (takes_left) {
        const std::size_t q = me.next_take;
        if (left.next_put <= q) continue;  // not put yet
        if (me.landed[q % slots] != static_cast<long long>(q)) return "slot holds the wrong piece";
        const plan::Piece& piece = me.recvs[q];
        for (std::size_t i = 0; i < piece.count; ++i) {
          const Mask in = me.slot[q % slots][i];
          Mask& mine = me.data[piece.offset + i];
          if (piece.reduces(p)) {
            if ((in & mine) != 0)
              return "a contribution is reduced twice at element " + std::to_string(piece.offset + i);
            mine |= in;
          } else {
            if (in != all) return "the allgather forwards an incomplete element " + std::to_string(piece.offset + i);
            mine = in;
          }
        }
        me.landed[q % slots] = -1;
        ++me.next_take;
        progress = true;
      }
    }
  }
  for (int r = 0; r < p; ++r) {
    const Rank& me = ranks[static_cast<std::size_t>(r)];
    if (me.next_put != me.sends.size() || me.next_take != me.recvs.size())
      return "deadlock at rank " + std::to_string(r);
    for (std::size_t i = 0; i < count; ++i) {
      if (me.data[i] != all) return "rank " + std::to_string(r) + " element " + std::to_string(i) + " incomplete";
    }
  }
  return "";
}

const std::vector<int> procs{1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 33, 64};

std::vector<std::size_t> counts(int p) {
  const auto n = static_cast<std::size_t>(p);
  return {0, 1, n - 1 + (p == 1 ? 1 : 0), n, n + 1, 3 * n + 2, 1000, 4099};
}

TEST(OneSidedRingPlan, SegmentsCoverTheLargestChunk) {
  EXPECT_EQ(plan::segments_per_chunk(0, 4, 8, 1024), 1U);
  EXPECT_EQ(plan::segments_per_chunk(4096, 4, 8, 8192), 1U);  // chunk of 8 KiB in one segment
  EXPECT_EQ(plan::segments_per_chunk(4097, 4, 8, 8192), 2U);  // chunk 0 has 1025 elements
  EXPECT_EQ(plan::segments_per_chunk(4096, 4, 8, 1000), 9U);  // 8192 / 1000 rounded up
  EXPECT_EQ(plan::segments_per_chunk(10, 3, 4, 0), 16U);      // segment 0 counts as 1 byte
  EXPECT_EQ(plan::slot_elements(4097, 4, 2), 513U);
}

TEST(OneSidedRingPlan, BothEndsOfALinkAgreeAndPutsFollowTheirData) {
  for (int p : procs) {
    for (std::size_t count : counts(p)) {
      for (std::size_t seg : {std::size_t{1}, std::size_t{24}, std::size_t{1000}, std::size_t{1} << 20}) {
        const std::size_t m = plan::segments_per_chunk(count, p, 8, seg);
        for (int r = 0; r < p; ++r) {
          const auto sends = plan::send_stream(count, p, r, m);
          const auto theirs = plan::recv_stream(count, p, ring::right(r, p), m);
          ASSERT_EQ(sends.size(), theirs.size()) << label(p, count, 8, seg, 0);
          for (std::size_t s = 0; s < sends.size(); ++s) {
            ASSERT_TRUE(same(sends[s], theirs[s]) && sends[s].step == theirs[s].step) << label(p, count, 8, seg, 0);
          }
          const auto recvs = plan::recv_stream(count, p, r, m);
          const std::size_t first = plan::first_step_pieces(sends);
          for (std::size_t s = first; s < sends.size(); ++s) {
            ASSERT_LT(s - first, recvs.size());
            ASSERT_TRUE(same(sends[s], recvs[s - first])) << label(p, count, 8, seg, 0) << " s=" << s;
            ASSERT_EQ(sends[s].step, recvs[s - first].step + 1);
          }
          if (p > 1 && count > 0) {
            ASSERT_FALSE(sends.empty());
          } else {
            ASSERT_TRUE(sends.empty() && recvs.empty());
          }
        }
      }
    }
  }
}

TEST(OneSidedRingPlan, TheRingOnSetsReducesEveryElementOnceWithoutDeadlock) {
  for (int p : procs) {
    for (std::size_t count : counts(p)) {
      for (std::size_t seg : {std::size_t{8}, std::size_t{40}, std::size_t{1000}, std::size_t{1} << 20}) {
        for (std::size_t slots : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{4}, std::size_t{16}}) {
          const std::string error = execute(p, count, 8, seg, slots);
          ASSERT_EQ(error, "") << label(p, count, 8, seg, slots);
        }
      }
    }
  }
}

}  // namespace

}  // namespace test_onesided_ring_plan_test
