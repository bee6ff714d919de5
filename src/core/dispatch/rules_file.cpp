// The rules file (RAGGED_TUNING_FILE): parsed in one linear pass, read once per file name, and
// its failure remembered (ragged/selection.hpp, docs/selection.md).
#include "dispatch/rules_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ragged/error.hpp"
#include "ragged/selection.hpp"

namespace ragged {

namespace {

// ------------------------------------------------------------------ rules file

/// A character iterator that counts the lines it has passed (for the line of a JSON field).
class LineCounter {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  LineCounter() = default;
  LineCounter(const char* at, int* line) : at_(at), line_(line) {}
  reference operator*() const { return *at_; }
  LineCounter& operator++() {
    if (*at_ == '\n') ++*line_;
    ++at_;
    return *this;
  }
  LineCounter operator++(int) {
    LineCounter old = *this;
    ++*this;
    return old;
  }
  bool operator==(const LineCounter& other) const { return at_ == other.at_; }

 private:
  const char* at_ = nullptr;
  int* line_ = nullptr;
};

using Json = nlohmann::ordered_json;

std::pair<std::size_t, std::size_t> range_of(const Json& value, const std::string& file, int line, const char* field) {
  if (!value.is_array() || value.size() != 2 || !value[0].is_number_unsigned() || !value[1].is_number_unsigned()) {
    throw ConfigError(file, line, field, "must be [min, max] of two non-negative integers");
  }
  const auto lo = value[0].get<std::size_t>();
  const auto hi = value[1].get<std::size_t>();
  if (lo > hi) throw ConfigError(file, line, field, "min " + std::to_string(lo) + " > max " + std::to_string(hi));
  return {lo, hi};
}

/// A JSON key as ConfigError's field: as it stands, unless it is empty (a message "field ''" names
/// nothing) or holds control characters (a "\u0000" would cut the message short): then quoted
/// and escaped as JSON ("", "a\u0000b").
std::string field_name(const std::string& key) {
  const bool plain = !key.empty() && std::none_of(key.begin(), key.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  return plain ? key : Json(key).dump();
}

}  // namespace

std::vector<TuningRule> parse_tuning_rules(std::string_view text, const std::string& file) {
  int line = 1;
  // Lines of the keys of every rule, in document order: (key, line) per rule.
  std::vector<std::map<std::string, int>> key_lines;
  std::map<std::string, int> collective_lines;
  std::vector<int> rule_lines;
  std::string collective_key;
  // The lines of the keys come from a first pass of SAX events over a line-counting iterator,
  // which builds nothing; the document from a second, plain parse. (nlohmann's parse callback
  // would give both at once, but its parser scans the enclosing array at the end of every
  // object: quadratic in the number of rules, 1.4 s for 40 000.)
  struct Lines {
    std::size_t depth = 0;                                          // open objects and arrays
    std::function<void(std::size_t, bool, const std::string&)> on;  // (depth, key or object start, key)
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(Json::number_integer_t) { return true; }
    bool number_unsigned(Json::number_unsigned_t) { return true; }
    bool number_float(Json::number_float_t, const std::string&) { return true; }
    bool string(std::string&) { return true; }
    bool binary(Json::binary_t&) { return true; }
    bool start_object(std::size_t) {
      on(depth, false, {});
      ++depth;
      return true;
    }
    bool key(std::string& k) {
      on(depth, true, k);
      return true;
    }
    bool end_object() {
      --depth;
      return true;
    }
    bool start_array(std::size_t) {
      ++depth;
      return true;
    }
    bool end_array() {
      --depth;
      return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) {
      // A syntax error keeps its byte, as Json::parse would throw it; anything else (out_of_range
      // 406 for 1e999) is said at the line the parser reached.
      if (const auto* syntax = dynamic_cast<const nlohmann::json::parse_error*>(&e)) throw *syntax;
      failed = e.what();
      return false;
    }
    std::string failed;
  };
  Lines lines;
  lines.on = [&](std::size_t depth, bool is_key, const std::string& key) {
    // A key given twice would silently replace the first: refused.
    if (is_key && depth == 1) {
      collective_key = key;
      if (!collective_lines.emplace(collective_key, line).second) {
        throw ConfigError(file, line, field_name(collective_key),
                          "appears twice (first on line " + std::to_string(collective_lines[collective_key]) + ")");
      }
    } else if (!is_key && depth == 2) {
      rule_lines.push_back(line);
      key_lines.emplace_back();
    } else if (is_key && depth == 3 && !key_lines.empty()) {
      if (!key_lines.back().emplace(key, line).second) {
        throw ConfigError(file, line, field_name(key),
                          "appears twice in one rule (first on line " + std::to_string(key_lines.back()[key]) + ")");
      }
    }
  };
  Json doc;
  try {
    Json::sax_parse(LineCounter(text.data(), &line), LineCounter(text.data() + text.size(), &line), &lines);
    if (!lines.failed.empty()) {
      throw ConfigError(file, std::min(line, 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'))),
                        "(syntax)", lines.failed);
    }
    doc = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // Count the line of the byte where parsing failed.
    const std::size_t at = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    const int error_line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
    throw ConfigError(file, error_line, "(syntax)", e.what());
  } catch (const nlohmann::json::exception& e) {
    // Anything else the parser throws, e.g. out_of_range 406 for a number too large for a double
    // (1e999): the line the parser had reached.
    throw ConfigError(file, std::min(line, 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'))),
                      "(syntax)", e.what());
  }
  if (!doc.is_object()) throw ConfigError(file, 1, "(top level)", "must be an object of collective names");
  std::vector<TuningRule> rules;
  std::size_t index = 0;
  for (auto& [name, list] : doc.items()) {
    const int cline = collective_lines.count(name) ? collective_lines[name] : 1;
    Collective collective{};
    try {
      collective = parse_collective(name);
    } catch (const InvalidArgument&) {
      throw ConfigError(file, cline, field_name(name),
                        "is not a collective (allgather, allreduce, bcast, reduce, gather, scatter, "
                        "gatherv, scatterv, alltoall, alltoallv)");
    }
    if (!list.is_array()) throw ConfigError(file, cline, field_name(name), "must be an array of rules");
    for (const Json& rule : list) {
      if (!rule.is_object()) throw ConfigError(file, cline, field_name(name), "every rule must be an object");
      const std::map<std::string, int> keys =
          index < key_lines.size() ? key_lines[index] : std::map<std::string, int>{};
      const int rline = index < rule_lines.size() ? rule_lines[index] : cline;
      ++index;
      const auto line_of = [&](const std::string& key) {
        const auto it = keys.find(key);
        return it == keys.end() ? rline : it->second;
      };
      TuningRule r;
      r.collective = collective;
      r.line = rline;
      for (const auto& [key, value] : rule.items()) {
        if (key == "procs") {
          const auto [lo, hi] = range_of(value, file, line_of(key), "procs");
          if (lo < 1 || hi > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
            throw ConfigError(file, line_of(key), "procs",
                              "must lie in 1.." + std::to_string(std::numeric_limits<int>::max()));
          }
          r.min_procs = static_cast<int>(lo);
          r.max_procs = static_cast<int>(hi);
        } else if (key == "bytes") {
          std::tie(r.min_bytes, r.max_bytes) = range_of(value, file, line_of(key), "bytes");
        } else if (key == "algorithm") {
          if (!value.is_string()) throw ConfigError(file, line_of(key), "algorithm", "must be a string");
          r.algorithm = value.get<std::string>();
          if (r.algorithm != "auto" && !Registry::instance().contains(collective, r.algorithm)) {
            std::string known;
            for (const Algorithm* a : Registry::instance().list(collective))
              known += (known.empty() ? "" : ", ") + a->name;
            throw ConfigError(file, line_of(key), "algorithm",
                              "no " + name + " algorithm named '" + r.algorithm + "' (known: " + known + ", auto)");
          }
        } else {
          throw ConfigError(file, line_of(key), field_name(key), "unknown field (known: procs, bytes, algorithm)");
        }
      }
      if (r.algorithm.empty()) throw ConfigError(file, rline, "algorithm", "every rule needs one");
      rules.push_back(std::move(r));
    }
  }
  return rules;
}

std::string match_tuning_rule(const std::vector<TuningRule>& rules, Collective collective, int procs,
                              std::size_t bytes) {
  for (const TuningRule& r : rules) {
    if (r.collective != collective) continue;
    if (procs < r.min_procs || procs > r.max_procs) continue;
    if (bytes < r.min_bytes || bytes > r.max_bytes) continue;
    return r.algorithm;
  }
  return {};
}

namespace {

/// A rules file as read: its rules, or why it cannot be used (then every call says the same).
struct RulesFile {
  std::vector<TuningRule> rules;
  std::optional<ConfigError> error;
};

/// The text of a rules file: a regular file of at most max_rules_file_bytes, read in one go
/// (never a FIFO, a device such as /dev/zero, or a directory).
std::string read_rules_text(const std::string& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw ConfigError(file, 0, "RAGGED_TUNING_FILE", std::string("cannot be opened: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw ConfigError(file, 0, "RAGGED_TUNING_FILE", "cannot be examined (fstat)");
  if (!S_ISREG(st.st_mode)) throw ConfigError(file, 0, "RAGGED_TUNING_FILE", "is not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > max_rules_file_bytes) {
    throw ConfigError(file, 0, "RAGGED_TUNING_FILE",
                      "is " + std::to_string(st.st_size) + " bytes, more than the " +
                          std::to_string(max_rules_file_bytes) + " a rules file may have");
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t have = 0;
  while (have < text.size()) {
    const ssize_t got = ::read(fd, text.data() + have, text.size() - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw ConfigError(file, 0, "RAGGED_TUNING_FILE", std::string("cannot be read: ") + std::strerror(errno));
    if (got == 0) break;  // shrank meanwhile: parse what is there
    have += static_cast<std::size_t>(got);
  }
  text.resize(have);
  return text;
}

/// The rules of RAGGED_TUNING_FILE, read once per file name; a file that cannot be used is
/// remembered too, so every later call fails at once with the same error.
const RulesFile& rules_file_of(const std::string& file) {
  static std::mutex mutex;
  static std::map<std::string, RulesFile, std::less<>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const auto it = cache.find(file);
  if (it != cache.end()) return it->second;
  RulesFile read;
  try {
    read.rules = parse_tuning_rules(read_rules_text(file), file);
  } catch (const ConfigError& e) {
    read.error = e;
  }
  return cache.emplace(file, std::move(read)).first->second;
}

}  // namespace

namespace internal {

const std::vector<TuningRule>& tuning_rules_of(const std::string& file) {
  const RulesFile& read = rules_file_of(file);
  if (read.error) throw *read.error;
  return read.rules;
}

}  // namespace internal

const ConfigError* rules_file_error(const std::string& file) {
  if (file.empty()) return nullptr;
  const RulesFile& read = rules_file_of(file);
  return read.error ? &*read.error : nullptr;
}

}  // namespace ragged
