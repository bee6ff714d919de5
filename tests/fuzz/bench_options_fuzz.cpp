// Fuzzes ragged-bench's command line (tools/bench/options.cpp, command.cpp and plot.cpp,
// compiled in): a subcommand declared as the experiments declare theirs (experiments.hpp's
// Command: a count, counts as uint64 and as int like --procs-list, a duration, durations, a list)
// parsed by CLI11 from up to 12 arguments cut from the fuzz bytes at NULs, then converted as the
// subcommand's runner does; and parse_count with any `max`, parse_duration and split_list
// directly. Checked:
//   * CLI11 refuses with a CLI::Error, a conversion with InvalidArgument naming the option and
//     quoting the text; nothing else is thrown;
//   * a count is whole, at most its max (2^53, INT_MAX for an int list), and is strtod's number
//     times the suffix's power of 1024 (K/Ki/k, M/Mi, G/Gi); a duration is finite, from 0 to a
//     day, strtod's number times its unit (s, ms, us, ns); neither takes a negative, infinite or
//     NaN number or an unknown suffix;
//   * every decimal "N" with a suffix is taken exactly when N * scale <= max;
//   * split_list gives the non-empty parts in order, and lists convert part by part.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "experiments.hpp"
#include "fuzz_check.hpp"
#include "options.hpp"
#include "ragged/error.hpp"

namespace {

using ragged::bench::parse_count;
using ragged::bench::parse_duration;
using ragged::bench::split_list;

/// strtod's number and what follows it; false for no number.
bool number_and_rest(const std::string& text, double& value, std::string& rest) {
  const char* begin = text.c_str();
  char* end = nullptr;
  value = std::strtod(begin, &end);
  if (end == begin) return false;
  rest = std::string(end, static_cast<std::size_t>(begin + text.size() - end));
  return true;
}

double count_scale(const std::string& suffix) {
  if (suffix.empty()) return 1;
  if (suffix == "K" || suffix == "Ki" || suffix == "k") return 1024;
  if (suffix == "M" || suffix == "Mi") return 1024.0 * 1024;
  if (suffix == "G" || suffix == "Gi") return 1024.0 * 1024 * 1024;
  return -1;
}

double duration_unit(const std::string& suffix) {
  if (suffix.empty() || suffix == "s") return 1;
  if (suffix == "ms") return 1e-3;
  if (suffix == "us") return 1e-6;
  if (suffix == "ns") return 1e-9;
  return -1;
}

void check_refusal(const ragged::InvalidArgument& e, const std::string& option, const std::string& text) {
  FUZZ_REQUIRE(e.argument() == option, "a refusal names the option");
  FUZZ_REQUIRE(std::string_view(e.what()).find("'" + text + "'") != std::string_view::npos,
               "a refusal quotes the text");
}

/// parse_count's promise for one text: refused, or the number it says.
void count(const std::string& text, std::uint64_t max) {
  std::uint64_t got = 0;
  try {
    got = parse_count(text, "--size", max);
  } catch (const ragged::InvalidArgument& e) {
    check_refusal(e, "--size", text);
    return;
  }
  double value = 0;
  std::string rest;
  FUZZ_REQUIRE(number_and_rest(text, value, rest), "a count is a number");
  FUZZ_REQUIRE(std::isfinite(value) && value >= 0, "a count is not negative, infinite or NaN");
  const double scale = count_scale(rest);
  FUZZ_REQUIRE(scale > 0, "a count's suffix is K/Ki/k, M/Mi or G/Gi");
  FUZZ_REQUIRE(got <= max, "a count is at most its max");
  FUZZ_REQUIRE(static_cast<double>(got) == value * scale, "a count is its number times the suffix's scale");
  FUZZ_REQUIRE(parse_count(std::to_string(got), "--size", max) == got, "a count written back is the same");
}

void duration(const std::string& text) {
  double got = 0;
  try {
    got = parse_duration(text, "--delay");
  } catch (const ragged::InvalidArgument& e) {
    check_refusal(e, "--delay", text);
    return;
  }
  double value = 0;
  std::string rest;
  FUZZ_REQUIRE(number_and_rest(text, value, rest), "a duration is a number");
  const double unit = duration_unit(rest);
  FUZZ_REQUIRE(unit > 0, "a duration's unit is s, ms, us or ns");
  FUZZ_REQUIRE(std::isfinite(got) && got >= 0 && got <= ragged::bench::max_duration_s, "from 0 to a day");
  FUZZ_REQUIRE(got == value * unit, "a duration is its number times its unit");
}

std::vector<std::string> parts_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    if (comma > from) out.push_back(text.substr(from, comma - from));
    from = comma + 1;
  }
  return out;
}

/// The command line of a subcommand that declares one option of each kind.
void command_line(const std::vector<std::string>& args) {
  CLI::App app("ragged-bench (fuzz)");
  ragged::bench::Common common;
  ragged::bench::Command cmd(app, "run", "an experiment", common);
  std::uint64_t size = 0;
  std::vector<std::uint64_t> sizes;
  std::vector<int> procs;
  double delay = -1;
  std::vector<double> delays;
  std::vector<std::string> names;
  cmd.count("--size", size, "4Ki", "bytes");
  cmd.counts("--sizes", sizes, "1K,2K", "bytes");
  cmd.counts("--procs-list", procs, "4,8", "processes");
  cmd.duration("--delay", delay, "5ms", "a delay");
  cmd.durations("--delays", delays, "0,1ms", "delays");
  cmd.list("--names", names, "ring,bruck", "algorithms");
  ragged::bench::Runner chosen;
  cmd.runs(chosen, [](const ragged::bench::BackendOptions&) { return ragged::bench::Report{}; });

  std::vector<std::string> argv{"ragged-bench", "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> pointers;
  for (std::string& a : argv) pointers.push_back(a.data());
  try {
    app.parse(static_cast<int>(pointers.size()), pointers.data());
  } catch (const CLI::Error&) {
    return;  // CLI11's own refusal (or --help)
  }
  if (!chosen) return;
  const auto text_of = [&](const std::string& name) { return cmd->get_option(name)->as<std::string>(); };
  try {
    (void)chosen(ragged::bench::BackendOptions{});
  } catch (const ragged::InvalidArgument& e) {
    static const std::vector<std::string> options{"--size", "--sizes", "--procs-list", "--delay", "--delays"};
    bool named = false;
    for (const std::string& o : options) named = named || e.argument() == o;
    FUZZ_REQUIRE(named, "a conversion's refusal names its option");
    return;
  }
  FUZZ_REQUIRE(size <= ragged::bench::max_count_parsed, "--size at most 2^53");
  FUZZ_REQUIRE(parse_count(text_of("--size"), "--size") == size, "--size as parse_count reads it");
  const std::vector<std::string> size_parts = parts_of(text_of("--sizes"));
  FUZZ_REQUIRE(sizes.size() == size_parts.size(), "--sizes: a count per non-empty part");
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    FUZZ_REQUIRE(sizes[i] == parse_count(size_parts[i], "--sizes"), "--sizes: each part a count");
  }
  const std::vector<std::string> procs_parts = parts_of(text_of("--procs-list"));
  FUZZ_REQUIRE(procs.size() == procs_parts.size(), "--procs-list: a number per non-empty part");
  for (std::size_t i = 0; i < procs.size(); ++i) {
    FUZZ_REQUIRE(procs[i] >= 0, "--procs-list: not negative");
    FUZZ_REQUIRE(static_cast<std::uint64_t>(procs[i]) == parse_count(procs_parts[i], "--procs-list"),
                 "--procs-list: each part a count up to INT_MAX");
  }
  FUZZ_REQUIRE(std::isfinite(delay) && delay >= 0 && delay <= ragged::bench::max_duration_s, "--delay: 0 to a day");
  FUZZ_REQUIRE(delays.size() == parts_of(text_of("--delays")).size(), "--delays: a duration per non-empty part");
  for (const double d : delays) FUZZ_REQUIRE(std::isfinite(d) && d >= 0 && d <= 86400, "--delays: 0 to a day");
  FUZZ_REQUIRE(names == parts_of(text_of("--names")), "--names: the non-empty parts in order");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int what = in.ConsumeIntegralInRange<int>(0, 3);
  try {
    if (what == 0) {
      // A canonical decimal with a suffix is taken exactly when it fits.
      const std::uint64_t n = in.ConsumeIntegralInRange<std::uint64_t>(0, std::uint64_t{1} << 54);
      static const char* const suffixes[] = {"", "K", "Ki", "k", "M", "Mi", "G", "Gi"};
      const char* suffix = suffixes[in.ConsumeIntegralInRange<int>(0, 7)];
      const std::uint64_t max =
          in.ConsumeBool() ? ragged::bench::max_count_parsed : in.ConsumeIntegral<std::uint64_t>();
      const double want = static_cast<double>(n) * count_scale(suffix);
      const std::string text = std::to_string(n) + suffix;
      bool taken = true;
      std::uint64_t got = 0;
      try {
        got = parse_count(text, "--size", max);
      } catch (const ragged::InvalidArgument& e) {
        check_refusal(e, "--size", text);
        taken = false;
      }
      const bool fits = want < 0x1p64 && static_cast<std::uint64_t>(want) <= max;
      FUZZ_REQUIRE(taken == fits, "N with a suffix is taken exactly when N * scale <= max");
      if (taken) FUZZ_REQUIRE(static_cast<double>(got) == want, "N with a suffix is N * scale");
      const std::string rest = in.ConsumeRemainingBytesAsString();
      count(rest.substr(0, rest.find('\0')), max);  // an argument ends at its NUL
    } else if (what == 1) {
      const std::uint64_t max = in.ConsumeIntegral<std::uint64_t>();
      std::string text = in.ConsumeRemainingBytesAsString();
      text = text.substr(0, text.find('\0'));  // an argument ends at its NUL
      count(text, max);
      duration(text);
      std::vector<std::string> parts = split_list(text);
      FUZZ_REQUIRE(parts == parts_of(text), "split_list: the non-empty parts in order");
    } else {
      std::vector<std::string> args;
      while (in.remaining_bytes() > 0 && args.size() < 12) {
        std::string arg = in.ConsumeRandomLengthString(64);
        args.push_back(arg.substr(0, arg.find('\0')));
      }
      command_line(args);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not a refusal naming the option: %s\n", e.what());
    std::abort();
  }
  return 0;
}
