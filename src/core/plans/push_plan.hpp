// The messages of allgather "push" (src/core/algorithms/allgather_push.cpp). Pure functions,
// no communication.
//
// A rank's block is cut into units of at most max_payload bytes, each sent as one message
// with a header (origin, unit, forward set). When a rank arrives it knows which ranks had
// arrived before it: their units were already here. Those ranks wait in the call; the others
// still compute. It then sends
//   - to the ranks that wait (the set A, when |A| >= 2 and P <= 64): each unit once, unit u to
//     member A[u mod |A|], with the forward set A minus that member, who passes it on (a
//     scatter, then an allgather inside A: the arriving rank's link carries one block, not |A|);
//   - to every other rank: every unit directly (they still compute; the data waits for them).
//
//   P = 6, rank 5 arrives last, A = {0,1,2,3,4}, its block in units a..e
//
//     5 --a--> 0 --a--> 1 2 3 4
//     5 --b--> 1 --b--> 0 2 3 4
//     ...
//     5 --e--> 4 --e--> 0 1 2 3
//
// Every rank other than the sender gets every unit exactly once, directly or forwarded, so a
// rank expects exactly (P-1) * units messages in a call, whatever the arrival order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ragged::plans::push {

/// Bytes of a message's header (origin, unit, forward set, call, payload bytes).
inline constexpr std::size_t header_bytes = 32;
/// The largest message: below Open MPI's TCP eager limit (64 KiB), so that a unit sent to a
/// rank that still computes is received by its MPI library (or its kernel) before it arrives.
inline constexpr std::size_t max_message = 32 * 1024;
inline constexpr std::size_t max_payload = max_message - header_bytes;
/// The smallest unit worth a message of its own (smaller blocks are one unit).
inline constexpr std::size_t min_payload = 1024;
/// Forward sets are bit masks of ranks: forwarding needs P <= 64 (beyond, every unit is direct).
inline constexpr int max_forward_procs = 64;

/// Bytes of one unit of a `block`-byte block among `procs` ranks: about block / (P - 1), so that
/// a scatter to P - 1 waiting ranks gives each one unit, within [min_payload, max_payload] and
/// at most the block.
[[nodiscard]] std::size_t unit_bytes(std::size_t block, int procs);
/// Units of a block: ceil(block / unit), 0 for an empty block.
[[nodiscard]] int units(std::size_t block, std::size_t unit);
/// Payload bytes of unit `u`: unit, or what is left of the block for the last one.
[[nodiscard]] std::size_t payload(std::size_t block, std::size_t unit, int u);

struct Send {
  int dest = -1;
  int unit = 0;
  std::uint64_t forward = 0;  ///< ranks `dest` passes the unit on to (bit r: rank r)
  bool operator==(const Send&) const = default;
};

/// What rank `me` sends when it arrives: `arrived[r]` is true when rank r's data was here
/// before `me` arrived (entry `me` is ignored). The scatter to the waiting ranks comes first.
[[nodiscard]] std::vector<Send> sends(int me, int procs, int units, std::span<const bool> arrived);

}  // namespace ragged::plans::push
