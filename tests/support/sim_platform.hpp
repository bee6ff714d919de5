// Sim tests that name a platform: one process simulates one platform (the first
// it loads), so a test that needs another one skips when run in a process that
// already loaded a different platform. ctest runs every test in a process of its
// own, where this never skips.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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

/// A platform file written for this process's tests under the system's temporary folder
/// (`stem`-<pid>.xml, so that tests run in parallel each have their own), removed at exit.
/// Call it from one function-local static per platform: the first call writes the file.
inline std::string temp_platform(const std::string& stem, const std::string& xml) {
  struct File {
    std::filesystem::path path;
    ~File() {
      std::error_code ec;
      std::filesystem::remove(path, ec);
    }
  };
  static std::vector<std::unique_ptr<File>> files;  // removed when the process ends
  auto file = std::make_unique<File>();
  file->path = std::filesystem::temp_directory_path() / (stem + "-" + std::to_string(::getpid()) + ".xml");
  std::ofstream out(file->path);
  out << xml;
  out.close();
  if (out.fail()) throw std::runtime_error("cannot write " + file->path.string());
  std::string path = file->path.string();
  files.push_back(std::move(file));
  return path;
}

/// A one-zone CM02 platform without cross traffic, written by temp_platform: the zone `stem`
/// with the `ragged/...` properties `props` (name without the prefix, value) and one cluster of
/// 16 hosts, speed 1Gf, whose other attributes (prefix, bw, lat, ...) are `cluster`.
inline std::string cluster_platform(const std::string& stem,
                                    const std::vector<std::pair<std::string, std::string>>& props,
                                    const std::string& cluster) {
  std::string xml = R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <config>
    <prop id="network/model" value="CM02"/>
    <prop id="network/crosstraffic" value="0"/>
  </config>
)";
  xml += "  <zone id=\"" + stem + "\" routing=\"Full\">\n";
  for (const auto& [name, value] : props) xml += "    <prop id=\"ragged/" + name + "\" value=\"" + value + "\"/>\n";
  xml += "    <cluster id=\"" + stem + "-cluster\" radical=\"0-15\" speed=\"1Gf\" " + cluster + "/>\n";
  xml += "  </zone>\n</platform>\n";
  return temp_platform(stem, xml);
}

}  // namespace ragged::test

#define REQUIRE_PLATFORM(name)         \
  if (!::ragged::test::can_load(name)) \
  GTEST_SKIP() << "this process already simulates another platform; run it through ctest"
