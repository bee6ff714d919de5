// Test support usable inside rank code on any backend: a failed check throws,
// so that sim::run rethrows it in the test and an mpirun driver exits non-zero.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace ragged::test {

class CheckFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ragged::test

#define RAGGED_CHECK(cond)                                                         \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::ostringstream ragged_check_os_;                                         \
      ragged_check_os_ << __FILE__ << ":" << __LINE__ << ": check failed: " #cond; \
      throw ::ragged::test::CheckFailed(ragged_check_os_.str());                   \
    }                                                                              \
  } while (0)

#define RAGGED_CHECK_EQ(a, b)                                                                                        \
  do {                                                                                                               \
    const auto& ragged_a_ = (a);                                                                                     \
    const auto& ragged_b_ = (b);                                                                                     \
    if (!(ragged_a_ == ragged_b_)) {                                                                                 \
      std::ostringstream ragged_check_os_;                                                                           \
      ragged_check_os_ << __FILE__ << ":" << __LINE__ << ": check failed: " #a " == " #b " (" << ragged_a_ << " vs " \
                       << ragged_b_ << ")";                                                                          \
      throw ::ragged::test::CheckFailed(ragged_check_os_.str());                                                     \
    }                                                                                                                \
  } while (0)
