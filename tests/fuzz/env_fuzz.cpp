// Fuzzes the parsers of the RAGGED_* variables that hold numbers or layouts, with the value an
// environment can hold (the fuzz text up to its first NUL; the first byte picks the variable):
//   * RAGGED_REPORT_CALLS (pmpi::parse_report_calls, src/pmpi/settings.hpp): a value exactly
//     when the text is 1 to 9 digits of a number from 1 to max_cap, and that number;
//   * RAGGED_ARRIVAL_MIN_OMEGA and RAGGED_TIMEOUT (parse_min_omega, parse_timeout): a value
//     exactly when strtod takes all of the text and the number lies in [0, 3600] or (0, 86400],
//     and that number; the value printed back ("%.17g") parses to itself;
//   * RAGGED_LAYOUT (NodeLayout::parse) for P from 1 to 4096 (and P < 1, always refused): a
//     layout of P ranks that passes check(); "flat" one rank per node, "KxM" K regular nodes of
//     M, "a+b+c" those sizes, "M" nodes of M with a smaller last one, "n0,n1,..." the same
//     partition; the layout written back as a node list and as sizes (when consecutive) parses
//     to itself;
//   * RAGGED_NETWORK (NetworkModel::parse): fields finite and non-negative, exchange factor in
//     (0, 1], eager limit whole; written back, it parses to itself.
// A refusal is InvalidArgument naming the variable whose message quotes the text (and, for
// RAGGED_NETWORK, names a non-empty field); anything else thrown is a failure.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "ragged/error.hpp"
#include "ragged/layout.hpp"
#include "settings.hpp"

namespace {

std::string printed(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

/// The strtod reading of the whole text, or nothing (the reference for the two durations).
std::optional<double> whole_strtod(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return std::nullopt;
  return v;
}

void check_refusal(const ragged::InvalidArgument& e, const char* variable, const std::string& text) {
  FUZZ_REQUIRE(e.argument() == variable, "a refusal names the variable");
  const std::string head = std::string("invalid argument '") + variable + "': '" + text + "'";
  FUZZ_REQUIRE(std::string_view(e.what()).substr(0, head.size()) == head, "a refusal quotes the text");
}

void report_calls(const std::string& text) {
  constexpr std::size_t max_cap = ragged::pmpi::max_report_calls;
  const std::optional<std::size_t> got = ragged::pmpi::parse_report_calls(text, max_cap);
  bool digits = !text.empty() && text.size() <= 9;
  for (char c : text) digits = digits && c >= '0' && c <= '9';
  const unsigned long long want = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
  const bool accept = digits && want >= 1 && want <= max_cap;
  FUZZ_REQUIRE(got.has_value() == accept, "RAGGED_REPORT_CALLS: 1 to 9 digits of 1..max_cap, nothing else");
  if (!got) return;
  FUZZ_REQUIRE(*got == want, "RAGGED_REPORT_CALLS: the number written");
  FUZZ_REQUIRE(ragged::pmpi::parse_report_calls(std::to_string(*got), max_cap) == got, "round trip");
}

void seconds(const std::string& text, bool timeout) {
  const std::optional<double> got =
      timeout ? ragged::pmpi::parse_timeout(text.c_str()) : ragged::pmpi::parse_min_omega(text.c_str());
  const std::optional<double> number = whole_strtod(text);
  const bool in_range = number && (timeout ? (*number > 0 && *number <= 86400) : (*number >= 0 && *number <= 3600));
  FUZZ_REQUIRE(got.has_value() == in_range, "seconds: all of the text a number in range, nothing else");
  if (!got) return;
  FUZZ_REQUIRE(std::isfinite(*got) && *got == *number, "seconds: the number written");
  const std::string again = printed(*got);
  const std::optional<double> back =
      timeout ? ragged::pmpi::parse_timeout(again.c_str()) : ragged::pmpi::parse_min_omega(again.c_str());
  FUZZ_REQUIRE(back && *back == *got, "seconds: round trip");
}

std::string as_list(const ragged::NodeLayout& l) {
  std::string out;
  for (std::size_t r = 0; r < l.node.size(); ++r) out += (r == 0 ? "" : ",") + std::to_string(l.node[r]);
  return out;
}

void layout(const std::string& text, int procs) {
  ragged::NodeLayout got;
  try {
    got = ragged::NodeLayout::parse(text, procs);
  } catch (const ragged::InvalidArgument& e) {
    check_refusal(e, "RAGGED_LAYOUT", text);
    return;
  }
  FUZZ_REQUIRE(procs >= 1, "RAGGED_LAYOUT: no layout of fewer than one rank");
  try {
    got.check(procs);
  } catch (const ragged::InvalidArgument& e) {
    std::fprintf(stderr, "%s\n", e.what());
    FUZZ_REQUIRE(false, "RAGGED_LAYOUT: a valid layout of P ranks");
  }
  FUZZ_REQUIRE(got.site.empty(), "RAGGED_LAYOUT: one site");
  const int nodes = got.nodes();
  if (text == "flat") {
    FUZZ_REQUIRE(got == ragged::NodeLayout::one_per_node(procs), "flat: one rank per node");
  } else if (text.find(',') != std::string::npos) {
    // Another numbering of the same partition: ranks share a node exactly when their numbers match.
    std::vector<long long> given;
    std::size_t begin = 0;
    for (;;) {
      const std::size_t at = text.find(',', begin);
      given.push_back(std::stoll(text.substr(begin, at - begin)));
      if (at == std::string::npos) break;
      begin = at + 1;
    }
    FUZZ_REQUIRE(given.size() == static_cast<std::size_t>(procs), "n0,n1,...: a node per rank");
    for (std::size_t a = 0; a < given.size(); ++a) {
      for (std::size_t b = a + 1; b < given.size() && b < a + 64; ++b) {
        FUZZ_REQUIRE((given[a] == given[b]) == (got.node[a] == got.node[b]), "n0,n1,...: the same partition");
      }
    }
  } else if (text.find('+') != std::string::npos) {
    std::string sizes;
    for (int n = 0; n < nodes; ++n) sizes += (n == 0 ? "" : "+") + std::to_string(got.size_of(n));
    for (int r = 1; r < procs; ++r) {
      const int step = got.node[static_cast<std::size_t>(r)] - got.node[static_cast<std::size_t>(r) - 1];
      FUZZ_REQUIRE(step == 0 || step == 1, "a+b+c: consecutive ranks");
    }
    FUZZ_REQUIRE(ragged::NodeLayout::parse(sizes, procs) == got, "a+b+c: its sizes");
  } else if (const std::size_t x = text.find('x'); x != std::string::npos) {
    FUZZ_REQUIRE(got.regular(), "KxM: regular");
    FUZZ_REQUIRE(static_cast<long long>(nodes) * got.max_per_node() == procs, "KxM: K nodes of M ranks");
  } else {
    const int m = got.max_per_node();
    FUZZ_REQUIRE(nodes == (procs + m - 1) / m, "M: ceil(P / M) nodes");
    for (int r = 0; r < procs; ++r) FUZZ_REQUIRE(got.node[static_cast<std::size_t>(r)] == r / m, "M: consecutive");
  }
  FUZZ_REQUIRE(procs < 2 || ragged::NodeLayout::parse(as_list(got), procs) == got, "written as a list: the same");
}

void network(const std::string& text) {
  ragged::NetworkModel got;
  try {
    got = ragged::NetworkModel::parse(text);
  } catch (const ragged::InvalidArgument& e) {
    check_refusal(e, "RAGGED_NETWORK", text);
    // "<head>: field '<field>' <why> (expected ...)": the field between the head and a reason.
    const std::string_view what(e.what());
    const std::string head = "invalid argument 'RAGGED_NETWORK': '" + text + "': field '";
    const std::string_view tail =
        " (expected "
        "intra=ALPHA:BETA,inter=ALPHA:BETA,gap=SECONDS,exchange=FACTOR[:EAGER_LIMIT],reduce=SECONDS,node=BYTES_PER_S)";
    FUZZ_REQUIRE(what.substr(0, head.size()) == head, "RAGGED_NETWORK: a refusal names a field");
    FUZZ_REQUIRE(what.size() >= head.size() + tail.size() && what.substr(what.size() - tail.size()) == tail,
                 "RAGGED_NETWORK: a refusal says the form");
    const std::string_view middle = what.substr(head.size(), what.size() - head.size() - tail.size());
    bool named = false;
    for (const std::string_view why :
         {"has no '='", "needs ALPHA:BETA", "needs non-negative numbers", "needs a factor in (0, 1]",
          "needs a whole number of bytes after ':'", "is not one of intra, inter, gap, exchange, reduce, node"}) {
      const std::size_t n = why.size() + 2;  // "' " + why
      named = named || (middle.size() > n && middle.substr(middle.size() - n) == "' " + std::string(why));
    }
    FUZZ_REQUIRE(named, "RAGGED_NETWORK: the field named is not empty, the reason one of the parser's");
    return;
  }
  for (const double v : {got.intra.alpha, got.intra.beta, got.inter.alpha, got.inter.beta, got.gap, got.reduce_element,
                         got.node_bandwidth}) {
    FUZZ_REQUIRE(std::isfinite(v) && v >= 0, "RAGGED_NETWORK: finite non-negative numbers");
  }
  FUZZ_REQUIRE(got.exchange_factor > 0 && got.exchange_factor <= 1, "RAGGED_NETWORK: a factor in (0, 1]");
  FUZZ_REQUIRE(got.eager_limit <= 1000000000000000ULL, "RAGGED_NETWORK: an eager limit up to 1e15");
  const std::string again = "intra=" + printed(got.intra.alpha) + ":" + printed(got.intra.beta) +
                            ",inter=" + printed(got.inter.alpha) + ":" + printed(got.inter.beta) +
                            ",gap=" + printed(got.gap) + ",exchange=" + printed(got.exchange_factor) + ":" +
                            std::to_string(got.eager_limit) + ",reduce=" + printed(got.reduce_element) +
                            ",node=" + printed(got.node_bandwidth);
  const ragged::NetworkModel back = ragged::NetworkModel::parse(again);
  FUZZ_REQUIRE(back.intra.alpha == got.intra.alpha && back.intra.beta == got.intra.beta &&
                   back.inter.alpha == got.inter.alpha && back.inter.beta == got.inter.beta && back.gap == got.gap &&
                   back.exchange_factor == got.exchange_factor && back.eager_limit == got.eager_limit &&
                   back.reduce_element == got.reduce_element && back.node_bandwidth == got.node_bandwidth,
               "RAGGED_NETWORK: written back, the same");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const int which = data[0] % 5;
  const int procs = data[1] < 8 ? -static_cast<int>(data[1]) + 1 : 1 + ((data[1] - 8) * 131 + data[2] * 7) % 4096;
  // An environment value ends at its first NUL.
  const std::string_view rest(reinterpret_cast<const char*>(data + 3), size - 3);
  const std::string text(rest.substr(0, rest.find('\0')));
  try {
    switch (which) {
      case 0:
        report_calls(text);
        break;
      case 1:
        seconds(text, false);
        break;
      case 2:
        seconds(text, true);
        break;
      case 3:
        layout(text, procs);
        break;
      default:
        network(text);
        break;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "variable %d, P = %d: not a refusal naming the variable: %s\n", which, procs, e.what());
    std::abort();
  }
  return 0;
}
