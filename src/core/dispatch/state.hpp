// What the dispatch layer keeps per communicator (Comm::dispatch_state()).
#pragma once

#include <set>
#include <string>
#include <utility>

#include "ragged/context.hpp"

namespace ragged::internal {

struct CommState {
  /// Buffers the collectives of this communicator reuse from call to call.
  Workspace workspace;
  /// (collective, algorithm) pairs whose fallback was already reported: said once per communicator.
  std::set<std::pair<int, std::string>> reported;
};

}  // namespace ragged::internal
