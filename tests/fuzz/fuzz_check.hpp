// What the fuzzers share: FUZZ_REQUIRE(condition, message) stops the run with the message on
// stderr (libFuzzer then saves the input as a crash), and small helpers to turn fuzz bytes
// into arrival times.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define FUZZ_REQUIRE(condition, message)                                                                    \
  do {                                                                                                      \
    if (!(condition)) {                                                                                     \
      std::fprintf(stderr, "%s:%d: property violated: %s (%s)\n", __FILE__, __LINE__, message, #condition); \
      std::abort();                                                                                         \
    }                                                                                                       \
  } while (0)

namespace ragged::fuzz {

/// `procs` finite arrival times: mostly small multiples of `unit` (ties and exact step
/// boundaries), sometimes fractions, sometimes far apart (huge spreads against tau).
inline std::vector<double> arrivals(FuzzedDataProvider& in, int procs, double unit) {
  std::vector<double> a(static_cast<std::size_t>(procs));
  for (double& x : a) {
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
      case 0:
        x = unit * in.ConsumeIntegralInRange<int>(0, 8);
        break;
      case 1:
        x = unit * in.ConsumeIntegralInRange<int>(-2000, 2000) / 16.0;
        break;
      case 2:
        x = in.ConsumeFloatingPointInRange<double>(-1e6, 1e6);
        break;
      default:
        x = in.ConsumeFloatingPointInRange<double>(-1e300, 1e300);
        break;
    }
  }
  return a;
}

/// A transfer time: mostly 1, sometimes another positive value, zero, negative or tiny.
inline double tau(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
      return 0.0;
    case 1:
      return -1.0;
    case 2:
      return in.ConsumeFloatingPointInRange<double>(1e-300, 1e-3);
    case 3:
      return in.ConsumeFloatingPointInRange<double>(1e-3, 1e3);
    default:
      return 1.0;
  }
}

}  // namespace ragged::fuzz
