// Sim tests that name a platform: one process simulates one platform (the first
// it loads), so a test that needs another one skips when run in a process that
// already loaded a different platform. ctest runs every test in a process of its
// own, where this never skips.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "ragged/error.hpp"
#include "ragged/sim.hpp"

namespace ragged::test {

/// True when this process can simulate `platform` (it has not loaded another one).
inline bool can_load(const std::string& platform) {
  sim::Config c;
  c.platform = platform;
  c.procs = 1;
  try {
    (void)sim::placement(c);
    return true;
  } catch (const InvalidArgument& e) {
    if (e.argument() == "platform") return false;
    throw;
  }
}

}  // namespace ragged::test

#define REQUIRE_PLATFORM(name)         \
  if (!::ragged::test::can_load(name)) \
  GTEST_SKIP() << "this process already simulates another platform; run it through ctest"
