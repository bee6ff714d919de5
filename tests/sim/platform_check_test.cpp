// Platform numbers are checked before SimGrid reads the file (src/sim/platform_check.hpp):
// SimGrid stops the process on a zero bandwidth without naming the file or the attribute.
#include "../../src/sim/platform_check.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ragged/error.hpp"
#include "ragged/sim.hpp"

namespace ragged {
namespace test_platform_check_test {

/// The message check_platform_numbers raises for `xml`, or "" if it accepts it.
std::string refusal(const std::string& xml) {
  try {
    sim::check_platform_numbers(xml, "p.xml");
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.argument(), "platform");
    return e.what();
  }
  return {};
}

TEST(PlatformCheck, EveryShippedPlatformPasses) {
  for (const std::string& name : sim::shipped_platforms()) {
    std::ifstream in(sim::platform_path(name));
    std::stringstream text;
    text << in.rdbuf();
    ASSERT_FALSE(text.str().empty()) << name;
    EXPECT_EQ(refusal(text.str()), "") << name;
  }
}

TEST(PlatformCheck, AZeroNegativeOrInfiniteNumberIsRefusedNamingFileLineAndAttribute) {
  const std::string head = "<?xml version='1.0'?>\n<platform version=\"4.1\">\n";
  const std::string cases[][2] = {
      {"<cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"0Bps\" lat=\"50us\"/>",
       "'bw' is '0Bps'"},
      {"<link id=\"l\" bandwidth=\"-1GBps\" latency=\"1ms\"/>", "'bandwidth' is '-1GBps'"},
      {"<link id=\"l\" bandwidth=\"1GBps\" latency=\"-5us\"/>", "'latency' is '-5us'"},
      {"<host id=\"h\" speed=\"1Gf,0f\"/>", "'speed' is '1Gf,0f'"},
      {"<cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1GBps\" lat=\"0us\" "
       "bb_bw=\"infGBps\" bb_lat=\"0\"/>",
       "'bb_bw' is 'infGBps'"},
      {"<host id=\"h\" speed=\"nanf\"/>", "'speed' is 'nanf'"},
  };
  for (const auto& [tag, named] : cases) {
    const std::string why = refusal(head + tag + "\n</platform>\n");
    EXPECT_NE(why.find("p.xml:3: attribute " + named), std::string::npos) << tag << " -> " << why;
  }
}

TEST(PlatformCheck, ZeroLatencyCommentsAndOtherAttributesPass) {
  EXPECT_EQ(refusal("<platform>\n<!-- bw=\"0Bps\" -->\n<link id=\"l\" bandwidth=\"1GBps\" latency=\"0\"/>\n"
                    "<prop id=\"ragged/message_gap\" value=\"0\"/>\n</platform>"),
            "");
}

TEST(PlatformCheck, TheSimulatorRefusesABrokenPlatformBeforeSimGridSeesIt) {
  const std::string path = ::testing::TempDir() + "ragged_zero_bandwidth.xml";
  {
    std::ofstream out(path);
    out << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
           "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n"
           "<cluster id=\"c\" prefix=\"h\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"0Bps\" lat=\"50us\"/>\n"
           "</zone>\n</platform>\n";
  }
  sim::Config config;
  config.platform = path;
  config.procs = 2;
  try {
    sim::run(config, [](Comm&) {});
    FAIL() << "ran on a platform with a zero bandwidth";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("ragged_zero_bandwidth.xml:5: attribute 'bw' is '0Bps'"), std::string::npos)
        << e.what();
  }
}

}  // namespace test_platform_check_test
}  // namespace ragged
