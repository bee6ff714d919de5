// The onesided ring (plans/onesided_ring_plan.hpp) executed on sets of contributing ranks, with the
// algorithm's order of puts and takes and its slot rule: put s waits for the right neighbour's take
// of s - K (K = slots). Shared by tests/unit/onesided_ring_plan_test.cpp and the fuzzer
// tests/fuzz/onesided_ring_fuzz.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "plans/onesided_ring_plan.hpp"
#include "plans/ring_plan.hpp"

namespace ragged::test {

/// Runs the ring of `p` ranks (p <= 64) over `count` elements in `m` segments per chunk and `slots`
/// slots per window, each element a mask of the ranks it holds. Returns "" or what went wrong: a
/// put that overwrites an untaken piece, a piece larger than its slot, an allgather that puts or
/// brings an incomplete element, a contribution reduced twice, a deadlock, or an element that ends
/// without every rank's contribution.
inline std::string execute_onesided_ring(std::size_t count, int p, std::size_t m, std::size_t slots) {
  namespace plan = ragged::plans::onesided_ring;
  namespace ring = ragged::plans::ring;
  using Mask = std::uint64_t;  // the ranks whose contribution an element holds
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
        if (s >= slots && right.next_take <= s - slots) continue;  // the slot rule
        if (right.landed[s % slots] != -1)
          return "put " + std::to_string(s) + " of rank " + std::to_string(r) + " overwrites an untaken piece";
        const plan::Piece& piece = me.sends[s];
        if (piece.count > slot_elems) return "a piece exceeds its slot";
        for (std::size_t i = 0; i < piece.count; ++i) {
          if (!piece.reduces(p) && me.data[piece.offset + i] != all)
            return "the allgather puts an incomplete element " + std::to_string(piece.offset + i);
          right.slot[s % slots][i] = me.data[piece.offset + i];
        }
        right.landed[s % slots] = static_cast<long long>(s);
        ++me.next_put;
        progress = true;
      } else if (takes_left) {
        const std::size_t q = me.next_take;
        if (left.next_put <= q) continue;  // not put yet
        if (me.landed[q % slots] != static_cast<long long>(q)) return "slot holds the wrong piece";
        const plan::Piece& piece = me.recvs[q];
        for (std::size_t i = 0; i < piece.count; ++i) {
          const Mask got = me.slot[q % slots][i];
          Mask& mine = me.data[piece.offset + i];
          if (piece.reduces(p)) {
            if ((got & mine) != 0)
              return "a contribution is reduced twice at element " + std::to_string(piece.offset + i);
            mine |= got;
          } else {
            if (got != all) return "the allgather brings an incomplete element " + std::to_string(piece.offset + i);
            mine = got;
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

}  // namespace ragged::test
