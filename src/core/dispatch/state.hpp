// What the dispatch layer keeps per communicator, cached on the Comm as an attribute
// (Comm::cached): the seam carries it without knowing its type.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "ragged/context.hpp"
#include "ragged/window.hpp"

namespace ragged::internal {

struct DispatchState {
  /// Buffers the collectives of this communicator reuse from call to call.
  Workspace workspace;
  /// (collective, algorithm) pairs whose fallback was already reported: said once per communicator.
  std::set<std::pair<int, std::string>> reported;
  /// The one-sided collectives' windows, by user (internal/window_cache.hpp).
  struct OneSided {
    std::unique_ptr<Window> window;
    std::uint64_t calls = 0;
  };
  std::map<std::string, OneSided> windows;
  /// Calls of an algorithm on this communicator so far, by name, for algorithms whose
  /// consecutive calls must tell their messages apart (allgather push: by the call's parity).
  std::map<std::string, std::uint64_t, std::less<>> calls;
};

/// Dispatch's state of `comm`, made at its first collective.
[[nodiscard]] inline DispatchState& dispatch_state(Comm& comm) { return comm.cached<DispatchState>(); }

}  // namespace ragged::internal
