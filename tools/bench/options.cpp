#include "options.hpp"

#include <cctype>
#include <cmath>
#include <sstream>
#include <string>

#include "ragged/error.hpp"

namespace ragged::bench {

namespace {
std::pair<double, std::string> number_and_suffix(const std::string& text, const char* argument) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    throw InvalidArgument(argument, "'" + text + "' is not a number");
  }
  if (value < 0 || !std::isfinite(value)) throw InvalidArgument(argument, "'" + text + "' must be >= 0");
  return {value, text.substr(used)};
}
}  // namespace

std::uint64_t parse_count(const std::string& text, const char* argument, std::uint64_t max) {
  auto [value, suffix] = number_and_suffix(text, argument);
  double scale = 1;
  if (suffix.empty()) {
    scale = 1;
  } else if (suffix == "K" || suffix == "Ki" || suffix == "k") {
    scale = 1024;
  } else if (suffix == "M" || suffix == "Mi") {
    scale = 1024.0 * 1024;
  } else if (suffix == "G" || suffix == "Gi") {
    scale = 1024.0 * 1024 * 1024;
  } else {
    throw InvalidArgument(argument, "unknown suffix '" + suffix + "' in '" + text + "' (use K/Ki, M/Mi, G/Gi)");
  }
  const double n = value * scale;
  if (n != std::floor(n)) throw InvalidArgument(argument, "'" + text + "' is not a whole number");
  // Compared as integers: a max near 2^64 is 2^64 as a double, which no uint64_t holds.
  if (!(n < 0x1p64) || static_cast<std::uint64_t>(n) > max) {
    throw InvalidArgument(argument, "'" + text + "' is more than " + std::to_string(max));
  }
  return static_cast<std::uint64_t>(n);
}

double parse_duration(const std::string& text, const char* argument) {
  auto [value, suffix] = number_and_suffix(text, argument);
  double seconds = 0;
  if (suffix.empty() || suffix == "s") {
    seconds = value;
  } else if (suffix == "ms") {
    seconds = value * 1e-3;
  } else if (suffix == "us") {
    seconds = value * 1e-6;
  } else if (suffix == "ns") {
    seconds = value * 1e-9;
  } else {
    throw InvalidArgument(argument, "unknown unit '" + suffix + "' in '" + text + "' (use s, ms, us, ns)");
  }
  if (seconds > max_duration_s) {
    throw InvalidArgument(argument, "'" + text + "' is longer than a day (" + std::to_string(max_duration_s) + " s)");
  }
  return seconds;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace ragged::bench
