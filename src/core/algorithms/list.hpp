// Declarations of every core algorithm, from the one list (list.def).
#pragma once

#include "ragged/registry.hpp"

namespace ragged {

#define RAGGED_ALGORITHM(collective, name, restrictions, fallback, balanced, cost, background, summary) \
  impl::collective##_signature collective##_##name;
#include "algorithms/list.def"
#undef RAGGED_ALGORITHM

}  // namespace ragged
