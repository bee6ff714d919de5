// libragged_pmpi.so: the numbers it reads from RAGGED_* variables, as pure functions (what the
// library does with a refused value stays with the caller: a message said once, and the
// default). Each takes the variable's value as the environment holds it (no NUL inside) and
// gives the number, or nothing when the text is not one in range. tests/fuzz/env_fuzz.cpp
// fuzzes them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace ragged::pmpi {

/// RAGGED_REPORT_CALLS at most (80 MB a site and rank).
inline constexpr std::size_t max_report_calls = 10000000;

/// RAGGED_REPORT_CALLS: entry times kept per site, a whole number from 1 to `max`, digits only
/// (strtoull would take "-1" as 2^64 - 1) and at most 9 of them.
[[nodiscard]] inline std::optional<std::size_t> parse_report_calls(std::string_view text, std::size_t max) {
  std::size_t value = 0;
  const bool digits =
      text.size() <= 9 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  for (char c : text) value = value * 10 + static_cast<std::size_t>(c - '0');
  if (!digits || value < 1 || value > max) return std::nullopt;
  return value;
}

/// RAGGED_ARRIVAL_MIN_OMEGA: a finite number of seconds from 0 to an hour (strtod also takes
/// "inf", "nan" and 1e999).
[[nodiscard]] inline std::optional<double> parse_min_omega(const char* value) {
  char* end = nullptr;
  const double seconds = std::strtod(value, &end);
  if (end == value || *end != '\0' || !(seconds >= 0 && seconds <= 3600)) return std::nullopt;
  return seconds;
}

/// RAGGED_TIMEOUT: a number of seconds in (0, 86400].
[[nodiscard]] inline std::optional<double> parse_timeout(const char* value) {
  char* end = nullptr;
  const double seconds = std::strtod(value, &end);
  if (end != value && *end == '\0' && seconds > 0 && seconds <= 86400) return seconds;
  return std::nullopt;
}

}  // namespace ragged::pmpi
