// Helpers shared by the algorithm files: tags, byte arithmetic, argument checks.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include "ragged/collectives.hpp"
#include "ragged/context.hpp"
#include "ragged/error.hpp"

namespace ragged::internal {

/// Fixed tags of what runs outside the per-call tag blocks (a collective call takes its tags from
/// its Context: ctx.tag(i)). Consecutive calls rely on (source, tag) non-overtaking.
enum Tag : int {
  tag_barrier = 1,
  tag_agent = 1000,  ///< the arrival agent's own traffic
  // Arrival-aware algorithms (src/core/arrival/background.hpp): "planned" tags when the call is
  // the one every rank's agent prepared for, "unplanned" ones otherwise.
  tag_bdr = 1010,
  tag_bdr_unplanned = 1011,
  tag_bsls_signal = 1012,
  tag_bsls_data = 1013,
  tag_bsls_signal_unplanned = 1014,
  tag_bsls_data_unplanned = 1015,
  tag_bgd_unplanned = 1016,
  tag_bslb_self = 1017,    ///< BSLB: rank 0's own block, from its foreground to the stream
  tag_agent_local = 1020,  ///< the foreground's messages to its own agent
  tag_agent_setup = 1021,  ///< start-up: warm-up, clock offsets, link model (and +1, +2)
  // BGD's planned messages: tag_bgd_first + (epoch mod tag_bgd_epochs), see allgather_bgd.cpp.
  tag_bgd_first = 4096,
  tag_bgd_epochs = 4096,
};

inline std::byte* bytes(void* p) { return static_cast<std::byte*>(p); }
inline const std::byte* bytes(const void* p) { return static_cast<const std::byte*>(p); }

inline bool is_in_place(const void* sendbuf) { return sendbuf == in_place; }

inline void copy_bytes(void* dst, const void* src, std::size_t n) {
  if (n != 0 && dst != src) std::memmove(dst, src, n);
}

/// Throws InvalidArgument naming `argument` if a non-empty buffer is null.
inline void check_buffer(const void* p, std::size_t bytes_needed, const char* argument) {
  if (bytes_needed != 0 && p == nullptr) {
    throw InvalidArgument(argument, "null buffer for " + std::to_string(bytes_needed) + " bytes");
  }
}

/// Throws what reduce_local() would throw for `op` on `type`, on a rank that combines nothing
/// too: a reduction in which only some ranks combine checks on every rank first, so that no rank
/// waits for one that threw.
inline void check_reducible(const ReduceOp& op, DataType type) {
  if (op.kind == OpKind::custom && !op.custom) {
    throw InvalidArgument("op", "custom operator '" + op.label + "' has no function");
  }
  if (op.kind != OpKind::custom && type == DataType::byte) {
    throw InvalidArgument("type", "built-in operator '" + op.label + "' is not defined on byte");
  }
}

}  // namespace ragged::internal
