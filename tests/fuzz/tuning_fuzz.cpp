// Fuzzes the parser of RAGGED_TUNING_FILE (parse_tuning_rules, src/core/dispatch/select.cpp) with
// arbitrary text (tuning.dict holds its keywords). It either returns rules or throws ConfigError,
// never anything else. Rules are valid: 1 <= min_procs <= max_procs, min_bytes <= max_bytes, an
// algorithm the registry knows for the collective (or "auto"), a line within the text; and
// match_tuning_rule picks the first rule that matches. A ConfigError names the file given, a line
// within the text and a non-empty field, as "<file>:<line>: field '<field>': ...".
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"
#include "ragged/selection.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string file = "fuzz/tuning.json";
  int lines = 1;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  std::vector<ragged::TuningRule> rules;
  try {
    rules = ragged::parse_tuning_rules(text, file);
  } catch (const ragged::ConfigError& e) {
    FUZZ_REQUIRE(e.file() == file, "a ConfigError names the file");
    FUZZ_REQUIRE(e.line() >= 1 && e.line() <= lines, "a ConfigError names a line of the text");
    FUZZ_REQUIRE(!e.field().empty(), "a ConfigError names a field");
    const std::string head = file + ":" + std::to_string(e.line()) + ": field '" + e.field() + "': ";
    FUZZ_REQUIRE(std::string_view(e.what()).substr(0, head.size()) == head, "the message says file, line, field");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not a ConfigError: %s\n", e.what());
    std::abort();
  }
  const ragged::Registry& registry = ragged::Registry::instance();
  for (const ragged::TuningRule& r : rules) {
    FUZZ_REQUIRE(r.min_procs >= 1 && r.min_procs <= r.max_procs, "procs range");
    FUZZ_REQUIRE(r.min_bytes <= r.max_bytes, "bytes range");
    FUZZ_REQUIRE(!r.algorithm.empty(), "an algorithm");
    FUZZ_REQUIRE(r.algorithm == "auto" || registry.contains(r.collective, r.algorithm), "a known algorithm");
    FUZZ_REQUIRE(r.line >= 1 && r.line <= lines, "a rule's line is in the text");
  }
  // match_tuning_rule: the first rule matching, at the corners of every rule's ranges.
  for (const ragged::TuningRule& probe : rules) {
    for (const int procs : {probe.min_procs, probe.max_procs}) {
      for (const std::size_t bytes : {probe.min_bytes, probe.max_bytes}) {
        for (const ragged::Collective c : ragged::all_collectives) {
          std::string want;
          for (const ragged::TuningRule& r : rules) {
            if (r.collective == c && procs >= r.min_procs && procs <= r.max_procs && bytes >= r.min_bytes &&
                bytes <= r.max_bytes) {
              want = r.algorithm;
              break;
            }
          }
          FUZZ_REQUIRE(ragged::match_tuning_rule(rules, c, procs, bytes) == want, "the first matching rule");
        }
      }
    }
  }
  return 0;
}
