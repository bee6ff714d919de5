// The rules of RAGGED_TUNING_FILE as selection reads them (src/core/dispatch/rules_file.cpp).
#pragma once

#include <string>
#include <vector>

#include "ragged/selection.hpp"

namespace ragged::internal {

/// The rules of `file`, read and parsed once per file name; throws the file's ConfigError, the
/// same one every time, when it cannot be used.
[[nodiscard]] const std::vector<TuningRule>& tuning_rules_of(const std::string& file);

}  // namespace ragged::internal
