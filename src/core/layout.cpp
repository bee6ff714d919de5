#include "ragged/layout.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <string>

#include "ragged/error.hpp"

namespace ragged {

namespace {

/// Parses a non-negative decimal integer that is all of `text`; false otherwise.
bool parse_int(std::string_view text, int& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t at = text.find(separator, begin);
    parts.push_back(text.substr(begin, at == std::string_view::npos ? std::string_view::npos : at - begin));
    if (at == std::string_view::npos) break;
    begin = at + 1;
  }
  return parts;
}

}  // namespace

NodeLayout NodeLayout::one_per_node(int procs) {
  NodeLayout layout;
  for (int r = 0; r < procs; ++r) layout.node.push_back(r);
  return layout;
}

NodeLayout NodeLayout::from_sizes(std::span<const int> sizes) {
  NodeLayout layout;
  for (std::size_t n = 0; n < sizes.size(); ++n) {
    if (sizes[n] < 1) {
      throw InvalidArgument("sizes", "node " + std::to_string(n) + " has " + std::to_string(sizes[n]) +
                                         " ranks; every node needs at least one");
    }
    layout.node.insert(layout.node.end(), static_cast<std::size_t>(sizes[n]), static_cast<int>(n));
  }
  return layout;
}

NodeLayout NodeLayout::from_list(std::span<const int> node_of_rank) {
  NodeLayout layout;
  std::map<int, int> renumber;
  for (const int n : node_of_rank) {
    const auto it = renumber.emplace(n, static_cast<int>(renumber.size())).first;
    layout.node.push_back(it->second);
  }
  return layout;
}

NodeLayout NodeLayout::from_labels(std::span<const std::string> label_of_rank) {
  NodeLayout layout;
  std::map<std::string, int, std::less<>> renumber;
  for (const std::string& label : label_of_rank) {
    const auto it = renumber.emplace(label, static_cast<int>(renumber.size())).first;
    layout.node.push_back(it->second);
  }
  return layout;
}

NetworkModel NetworkModel::parse(std::string_view text, const char* argument) {
  std::string quoted(1, '\'');
  quoted.append(text);
  quoted += '\'';
  const auto fail = [&](std::string_view field, const std::string& why) {
    std::string message = quoted;
    message += ": field '";
    message.append(field.empty() ? std::string_view("\"\"") : field);  // ",," or "=1": named, not ''

    message += "' ";
    message += why;
    message +=
        " (expected "
        "intra=ALPHA:BETA,inter=ALPHA:BETA,gap=SECONDS,exchange=FACTOR[:EAGER_LIMIT],reduce=SECONDS,node=BYTES_PER_S)";
    throw InvalidArgument(argument, message);
  };
  const auto number = [&](std::string_view field, std::string_view value) {
    double v = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (value.empty() || error != std::errc() || end != value.data() + value.size() || !(v >= 0) || !std::isfinite(v)) {
      fail(field, "needs non-negative numbers");
    }
    return v;
  };
  NetworkModel net;
  std::size_t at = 0;
  while (at <= text.size() && !text.empty()) {
    const std::size_t end = std::min(text.find(',', at), text.size());
    const std::string_view item = text.substr(at, end - at);
    at = end + 1;
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) fail(item, "has no '='");
    const std::string_view key = item.substr(0, equals);
    const std::string_view value = item.substr(equals + 1);
    const std::size_t colon = value.find(':');
    const std::string_view first = value.substr(0, colon);
    const std::string_view second = colon == std::string_view::npos ? std::string_view() : value.substr(colon + 1);
    if (key == "intra" || key == "inter") {
      if (colon == std::string_view::npos) fail(key, "needs ALPHA:BETA");
      LinkModel& link = key == "intra" ? net.intra : net.inter;
      link.alpha = number(key, first);
      link.beta = number(key, second);
    } else if (key == "gap") {
      net.gap = number(key, value);
      net.gap_known = true;
    } else if (key == "reduce") {
      net.reduce_element = number(key, value);
    } else if (key == "node") {
      net.node_bandwidth = number(key, value);
    } else if (key == "exchange") {
      net.exchange_factor = number(key, first);
      if (!(net.exchange_factor > 0 && net.exchange_factor <= 1)) fail(key, "needs a factor in (0, 1]");
      if (colon != std::string_view::npos) {
        const double limit = number(key, second);
        if (limit != std::floor(limit) || limit > 1e15) fail(key, "needs a whole number of bytes after ':'");
        net.eager_limit = static_cast<std::size_t>(limit);
      }
    } else {
      fail(key, "is not one of intra, inter, gap, exchange, reduce, node");
    }
  }
  return net;
}

NodeLayout NodeLayout::parse(std::string_view text, int procs, const char* argument) {
  // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, a false positive) on "'" + std::string&&.
  std::string quoted(1, '\'');
  quoted.append(text);
  quoted += '\'';
  const auto fail = [&](const std::string& why) -> NodeLayout {
    throw InvalidArgument(argument, quoted + " " + why +
                                        " (expected flat, KxM, a+b+c, M or a node per rank n0,n1,...; P = " +
                                        std::to_string(procs) + ")");
  };
  if (procs < 1) return fail("needs at least one rank");
  if (text == "flat") return one_per_node(procs);
  NodeLayout layout;
  if (text.find(',') != std::string_view::npos) {
    std::vector<int> nodes;
    for (const std::string_view part : split(text, ',')) {
      int n = 0;
      if (!parse_int(part, n)) return fail("has a node number that is not a non-negative integer");
      nodes.push_back(n);
    }
    layout = from_list(nodes);
  } else if (text.find('+') != std::string_view::npos) {
    std::vector<int> sizes;
    long long ranks = 0;
    for (const std::string_view part : split(text, '+')) {
      int n = 0;
      if (!parse_int(part, n) || n < 1) return fail("has a node size that is not a positive integer");
      sizes.push_back(n);
      ranks += n;
    }
    // Before building it: "2000000000+1" would take 8 GB.
    if (ranks != procs) return fail("describes " + std::to_string(ranks) + " ranks, not " + std::to_string(procs));
    layout = from_sizes(sizes);
  } else if (const std::size_t x = text.find('x'); x != std::string_view::npos) {
    int k = 0;
    int m = 0;
    if (!parse_int(text.substr(0, x), k) || !parse_int(text.substr(x + 1), m) || k < 1 || m < 1) {
      return fail("is not K nodes x M ranks with positive K and M");
    }
    if (static_cast<long long>(k) * m != procs) return fail("does not give every rank a node");
    std::vector<int> sizes(static_cast<std::size_t>(k), m);
    layout = from_sizes(sizes);
  } else {
    int m = 0;
    if (!parse_int(text, m) || m < 1) return fail("is not a layout");
    std::vector<int> sizes;
    for (int left = procs; left > 0; left -= m) sizes.push_back(std::min(m, left));
    layout = from_sizes(sizes);
  }
  if (layout.size() != procs) {
    return fail("describes " + std::to_string(layout.size()) + " ranks, not " + std::to_string(procs));
  }
  return layout;
}

int NodeLayout::nodes() const {
  int most = -1;
  for (const int n : node) most = std::max(most, n);
  return most + 1;
}

int NodeLayout::size_of(int n) const { return static_cast<int>(std::count(node.begin(), node.end(), n)); }

std::vector<int> NodeLayout::members(int n) const {
  std::vector<int> out;
  for (int r = 0; r < size(); ++r) {
    if (node[static_cast<std::size_t>(r)] == n) out.push_back(r);
  }
  return out;
}

std::vector<int> NodeLayout::leaders() const {
  std::vector<int> out(static_cast<std::size_t>(nodes()), -1);
  for (int r = 0; r < size(); ++r) {
    int& leader = out[static_cast<std::size_t>(node[static_cast<std::size_t>(r)])];
    if (leader < 0) leader = r;
  }
  return out;
}

int NodeLayout::local_rank(int r) const {
  const int n = node.at(static_cast<std::size_t>(r));
  return static_cast<int>(std::count(node.begin(), node.begin() + r, n));
}

int NodeLayout::max_per_node() const {
  std::vector<int> counts(static_cast<std::size_t>(nodes()), 0);
  for (const int n : node) ++counts[static_cast<std::size_t>(n)];
  return counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
}

int NodeLayout::min_per_node() const {
  std::vector<int> counts(static_cast<std::size_t>(nodes()), 0);
  for (const int n : node) ++counts[static_cast<std::size_t>(n)];
  return counts.empty() ? 0 : *std::min_element(counts.begin(), counts.end());
}

bool NodeLayout::regular() const {
  const int m = max_per_node();
  if (m != min_per_node()) return false;
  for (int r = 0; r < size(); ++r) {
    if (node[static_cast<std::size_t>(r)] != r / std::max(m, 1)) return false;
  }
  return true;
}

bool NodeLayout::consecutive() const {
  std::vector<bool> seen(static_cast<std::size_t>(nodes()), false);
  for (int r = 0; r < size(); ++r) {
    const auto n = static_cast<std::size_t>(node[static_cast<std::size_t>(r)]);
    if (r > 0 && node[static_cast<std::size_t>(r - 1)] == node[static_cast<std::size_t>(r)]) continue;
    if (seen[n]) return false;  // the node's ranks came in two runs
    seen[n] = true;
  }
  return true;
}

std::string NodeLayout::describe() const {
  const int k = nodes();
  const auto ranks = [](int n) { return std::to_string(n) + (n == 1 ? " rank" : " ranks"); };
  if (k == 0) return "no ranks";
  if (max_per_node() == min_per_node()) {
    return std::to_string(k) + (k == 1 ? " node x " : " nodes x ") + ranks(max_per_node()) +
           (regular() ? "" : " (not consecutive)");
  }
  std::string sizes;
  for (int n = 0; n < k; ++n) {
    if (n > 0) sizes += '+';
    sizes += std::to_string(size_of(n));
  }
  return std::to_string(k) + " nodes: " + sizes + " ranks";
}

void NodeLayout::check(int procs, const char* argument) const {
  if (size() != procs) {
    throw InvalidArgument(argument, "describes " + std::to_string(size()) + " ranks, not " + std::to_string(procs));
  }
  int next = 0;
  for (int r = 0; r < size(); ++r) {
    const int n = node[static_cast<std::size_t>(r)];
    if (n < 0 || n > next) {
      throw InvalidArgument(argument, "rank " + std::to_string(r) + " is on node " + std::to_string(n) +
                                          "; nodes are numbered 0, 1, ... in the order of their lowest rank");
    }
    if (n == next) ++next;
  }
  if (!site.empty() && static_cast<int>(site.size()) != nodes()) {
    throw InvalidArgument(argument,
                          "gives " + std::to_string(site.size()) + " sites for " + std::to_string(nodes()) + " nodes");
  }
  for (const int s : site) {
    if (s < 0) throw InvalidArgument(argument, "has a negative site number");
  }
}

}  // namespace ragged
