// The algorithms a sweep covers, from the registry (never a hard-coded list of names): every
// algorithm of a collective that the sim backend can run, optionally only arrival-aware ones.
#pragma once

#include <string>
#include <vector>

#include "ragged/registry.hpp"

namespace ragged::test {

enum class Which { all, arrival_aware };

inline std::vector<std::string> registered(Collective collective, Which which = Which::all) {
  std::vector<std::string> out;
  for (const Algorithm* a : Registry::instance().list(collective, "sim")) {
    if (!a->restrictions.backend.empty()) continue;
    if (which == Which::arrival_aware && !a->restrictions.needs_arrival) continue;
    out.push_back(a->name);
  }
  return out;
}

}  // namespace ragged::test
