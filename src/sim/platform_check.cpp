// Platform numbers checked before SimGrid sees them (platform_check.hpp).
#include "platform_check.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#include "ragged/error.hpp"

namespace ragged::sim {

namespace {

enum class Kind { other, bandwidth, speed, latency };

Kind kind_of(std::string_view name) {
  const auto ends_with = [&](std::string_view tail) {
    return name.size() >= tail.size() && name.substr(name.size() - tail.size()) == tail;
  };
  if (name == "bw" || name == "bandwidth" || ends_with("_bw")) return Kind::bandwidth;
  if (name == "speed") return Kind::speed;
  if (name == "lat" || name == "latency" || ends_with("_lat")) return Kind::latency;
  return Kind::other;
}

/// Whether `text` starts with a number that is finite and (positive ? > 0 : >= 0).
bool good_number(const std::string& text, bool positive) {
  const char* begin = text.c_str();
  while (*begin == ' ') ++begin;
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (end == begin) return true;  // not a number at all: SimGrid's own message names it
  if (!std::isfinite(value)) return false;
  return positive ? value > 0 : value >= 0;
}

}  // namespace

void check_platform_numbers(std::string_view xml, const std::string& file) {
  bool in_tag = false;
  for (std::size_t at = 0; at < xml.size(); ++at) {
    const char c = xml[at];
    if (c == '<') in_tag = xml.substr(at, 4) != "<!--";
    if (c == '>') in_tag = false;
    if (!in_tag || c != '=' || at == 0) continue;
    // name="value" (or 'value') inside a tag
    std::size_t name_end = at;
    while (name_end > 0 && xml[name_end - 1] == ' ') --name_end;
    std::size_t name_begin = name_end;
    while (name_begin > 0 && (std::isalnum(static_cast<unsigned char>(xml[name_begin - 1])) != 0 ||
                              xml[name_begin - 1] == '_' || xml[name_begin - 1] == '-' || xml[name_begin - 1] == ':')) {
      --name_begin;
    }
    std::size_t quote = at + 1;
    while (quote < xml.size() && xml[quote] == ' ') ++quote;
    if (quote >= xml.size() || (xml[quote] != '"' && xml[quote] != '\'')) continue;
    const std::size_t close = xml.find(xml[quote], quote + 1);
    if (close == std::string_view::npos) return;  // malformed: SimGrid's parser says so
    const std::string_view name = xml.substr(name_begin, name_end - name_begin);
    const Kind kind = kind_of(name);
    if (kind != Kind::other) {
      const std::string value(xml.substr(quote + 1, close - quote - 1));
      bool ok = true;
      std::size_t from = 0;
      do {  // a speed may list pstates: 1Gf,500Mf
        const std::size_t comma = kind == Kind::speed ? value.find(',', from) : std::string::npos;
        ok = ok && good_number(value.substr(from, comma == std::string::npos ? std::string::npos : comma - from),
                               kind != Kind::latency);
        from = comma == std::string::npos ? value.size() : comma + 1;
      } while (from < value.size());
      if (!ok) {
        const auto line = 1 + std::count(xml.begin(), xml.begin() + static_cast<long>(at), '\n');
        const char* what = kind == Kind::bandwidth ? "a bandwidth must be a finite number > 0 with its unit (125MBps)"
                           : kind == Kind::speed   ? "a speed must be a finite number > 0 with its unit (1Gf)"
                                                   : "a latency must be a finite number >= 0 with its unit (50us)";
        throw InvalidArgument("platform", file + ":" + std::to_string(line) + ": attribute '" + std::string(name) +
                                              "' is '" + value + "': " + what);
      }
    }
    at = close;
  }
}

}  // namespace ragged::sim
