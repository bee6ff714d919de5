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

}  // namespace ragged::test

#define REQUIRE_PLATFORM(name)         \
  if (!::ragged::test::can_load(name)) \
  GTEST_SKIP() << "this process already simulates another platform; run it through ctest"
