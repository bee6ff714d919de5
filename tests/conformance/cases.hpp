// The conformance suite of the Comm/Runtime/Window seam. Each case is rank code
// (run on every rank of a communicator) that throws on failure; the same cases
// run unchanged on the sim backend (tests/conformance/sim_driver.cpp, gtest) and
// on the mpi backend (tests/conformance/mpi_driver.cpp, under mpirun).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ragged/comm.hpp"

namespace ragged::conformance {

struct Case {
  std::string name;
  int min_procs;  ///< the case needs at least this many ranks (it returns at once on fewer)
  std::function<void(Comm&)> run;
};

/// Every case of the suite.
const std::vector<Case>& cases();

}  // namespace ragged::conformance
