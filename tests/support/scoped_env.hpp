// An environment variable set for one scope, for the tests of selection and dispatch.
#pragma once

#include <cstdlib>
#include <string>

#include "ragged/selection.hpp"

namespace ragged::test {

/// Sets `name` to `value` (unsets it when `value` is null) for the scope, then restores what was
/// there (set or not). Selection reads the environment once per process: it is told to read it
/// again at both ends.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      old_ = old;
      had_ = true;
    }
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
    reread_environment();
  }
  ScopedEnv(const char* name, const std::string& value) : ScopedEnv(name, value.c_str()) {}
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_.c_str(), old_.c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
    reread_environment();
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace ragged::test
