// What every dispatch entry point shares to run one call: its tag block, its Context, its
// selection and the argument checks on buffers. The registry's collectives (dispatch.cpp, and
// dispatch_reductions.cpp for scan, exscan and reduce_scatter_block) and the threshold
// collectives outside the registry (threshold.cpp) build their calls the same way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <variant>

#include "ragged/collectives.hpp"
#include "ragged/context.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"
#include "ragged/selection.hpp"

namespace ragged::internal {

/// The collectives that dispatch runs outside the registry (no algorithm choice).
enum class Unlisted { bcast_threshold, reduce_threshold };

/// Each collective's calls own a block of tags, far from the arrival agent's (below 8192):
/// the registry's collectives first, then the unlisted ones.
[[nodiscard]] TagBlock tags_of(Collective collective);
[[nodiscard]] TagBlock tags_of(Unlisted collective);

/// The Context of one call: its tags, its deadline (options.timeout from now), the
/// communicator's workspace and the options' hints.
[[nodiscard]] Context call_context(Comm& comm, TagBlock tags, const CollectiveOptions& options,
                                   const Algorithm* algorithm = nullptr);

/// The selection for what `call` asks for, resolved already (resolve_request): `auto`'s choice, or
/// the named algorithm with its restrictions checked (its fallback when they fail). Not counted
/// by selections(): select() is the selector, this its last step, which composition reuses.
[[nodiscard]] Selection selection_for(const CallInfo& call, Requested requested);

/// The algorithm of a call of `collective` (`bytes` and `commutative` as CallInfo has them): the
/// selection the options carry, or dispatch's own; a fallback is reported once per communicator.
/// `largest`: allgatherv's and reduce_scatter's largest block in bytes (CallInfo::largest);
/// `element`: a reduction's element size in bytes (CallInfo::element_bytes).
[[nodiscard]] const Algorithm& choose_for_call(Comm& comm, Collective collective, std::size_t bytes, bool commutative,
                                               const CollectiveOptions& options, std::size_t largest = 0,
                                               std::size_t element = 0);
/// The algorithm of a part of a running algorithm (dispatch/compose.hpp) under the part's
/// `hints`: a sub-call (CallInfo::sub_call, among the regular algorithms) unless `sub_call` is
/// false (a part whose hints carry a snapshot of its own ranks). `largest` and `element` as above.
[[nodiscard]] const Algorithm& choose_for_part(Comm& comm, Collective collective, std::size_t bytes, bool commutative,
                                               const Hints& hints, bool sub_call = true, std::size_t largest = 0,
                                               std::size_t element = 0);

/// A call that ends in dispatch (P = 1, count 0) gives up the background the arrival agent may be
/// running for it, as the algorithm's own claim would have; returns `algorithm`.
const Algorithm& ends_early(const Algorithm& algorithm, const CollectiveOptions& options);

/// Runs `algorithm` of collective C for one call on `comm` (its own tag block and Context).
template <Collective C, class... Args>
void run_call(Comm& comm, const Algorithm& algorithm, const CollectiveOptions& options, Args... args) {
  Context context = call_context(comm, tags_of(C), options, &algorithm);
  std::get<static_cast<std::size_t>(C)>(algorithm.fn)(context, args...);
}

/// Throws InvalidArgument naming `argument` when `buffer` is in_place; `where` says where
/// in_place is allowed ("at the root", ...).
void reject_in_place(const void* buffer, const char* argument, const char* where);

/// Throws InvalidArgument naming `argument` for a negative count.
inline void check_count(int count, const char* argument) {
  if (count < 0) throw InvalidArgument(argument, "negative count " + std::to_string(count));
}

/// One entry per rank of `comm`, none negative; InvalidArgument naming `argument` otherwise.
inline void check_vector(const Comm& comm, std::span<const int> values, const char* argument) {
  const auto p = static_cast<std::size_t>(comm.size());
  if (values.size() != p) {
    throw InvalidArgument(argument,
                          "has " + std::to_string(values.size()) + " entries for " + std::to_string(p) + " ranks");
  }
  for (std::size_t i = 0; i < p; ++i) {
    if (values[i] < 0) {
      throw InvalidArgument(argument,
                            "entry " + std::to_string(i) + " is negative (" + std::to_string(values[i]) + ")");
    }
  }
}

/// Elements a buffer must hold for blocks counts[i] at displs[i].
inline std::size_t extent(std::span<const int> counts, std::span<const int> displs) {
  std::int64_t needed = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > 0) needed = std::max<std::int64_t>(needed, std::int64_t{displs[i]} + counts[i]);
  }
  return static_cast<std::size_t>(needed);
}

}  // namespace ragged::internal
