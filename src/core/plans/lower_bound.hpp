// The lower bounds are pure functions like every plan, and public (ragged/bounds.hpp) because
// the benchmarks report them beside every measurement; plans::bound names them inside the core.
#pragma once

#include "ragged/bounds.hpp"

namespace ragged::plans {
namespace bound = ragged::bound;
}  // namespace ragged::plans
