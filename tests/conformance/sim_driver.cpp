// Runs every conformance case on the sim backend for several process counts.
// Test names say the case and the count: Sim/Conformance.Case/<case>_P<procs>.
#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <tuple>

#include "conformance/cases.hpp"
#include "ragged/sim.hpp"

namespace ragged::conformance {
namespace {

// 49 ranks on the 48-node platform: rank 48 shares node 0 with rank 0 (loopback).
constexpr int procs_list[] = {1, 2, 3, 4, 7, 49};

class Conformance : public ::testing::TestWithParam<std::tuple<std::size_t, int>> {};

TEST_P(Conformance, Case) {
  const auto [index, procs] = GetParam();
  const Case& c = cases()[index];
  if (procs < c.min_procs) GTEST_SKIP() << c.name << " needs at least " << c.min_procs << " ranks";
  sim::Config config;
  config.platform = "cluster-1gbe-48";
  config.procs = procs;
  try {
    sim::run(config, c.run);
  } catch (const std::exception& e) {
    FAIL() << c.name << " with " << procs << " ranks: " << e.what();
  }
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<std::size_t, int>>& info) {
  return cases()[std::get<0>(info.param)].name + "_P" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Sim, Conformance,
                         ::testing::Combine(::testing::Range<std::size_t>(0, cases().size()),
                                            ::testing::ValuesIn(procs_list)),
                         case_name);

}  // namespace
}  // namespace ragged::conformance
