// ragged-bench: parsing of sizes, durations and lists shared by every subcommand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ragged::bench {

/// The largest count parse_count accepts unless told otherwise: 2^53, the last whole number a
/// double holds exactly (every count is converted to a double on the way).
inline constexpr std::uint64_t max_count_parsed = std::uint64_t{1} << 53;
/// The longest duration parse_duration accepts: a day.
inline constexpr double max_duration_s = 86400;

/// Parses an element or byte count: "256Ki", "256K" and "262144" are the same;
/// "2M" = "2Mi" = 2*2^20. Throws InvalidArgument naming `argument` for anything that is not a
/// whole number from 0 to `max` (negative, inf, nan, 1e30, a fraction), before converting.
std::uint64_t parse_count(const std::string& text, const char* argument, std::uint64_t max = max_count_parsed);
/// Parses a duration: "5ms", "0", "1.5s", "250us"; bare numbers are seconds. At most
/// max_duration_s; InvalidArgument naming `argument` otherwise.
double parse_duration(const std::string& text, const char* argument);
/// Splits "a,b,c" into its non-empty parts.
std::vector<std::string> split_list(const std::string& text);

/// splitmix64: a small, fully specified generator, so that every platform and
/// standard library draws the same arrival patterns for the same --seed.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

/// A generator for one (seed, stream, index) triple, independent of call order.
inline Rng rng_for(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  Rng mix(seed ^ (stream * 0x632be59bd9b4e019ULL) ^ (index * 0x9e3779b97f4a7c15ULL));
  return Rng(mix.next());
}

}  // namespace ragged::bench
