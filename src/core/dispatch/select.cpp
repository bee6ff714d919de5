// Selection: the call's name, RAGGED_<COLLECTIVE>, the rules file, or `auto` (ragged/selection.hpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "arrival/background.hpp"
#include "dispatch/call.hpp"
#include "dispatch/compose.hpp"
#include "plans/cost_model.hpp"
#include "ragged/arrival.hpp"
#include "ragged/error.hpp"
#include "ragged/layout.hpp"
#include "ragged/selection.hpp"
#include "ragged/topology.hpp"

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

std::string environment_variable(Collective collective) {
  std::string name = "RAGGED_";
  for (const char* c = name_of(collective); *c != '\0'; ++c) {
    name += static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
  }
  return name;
}

namespace {

std::atomic<std::uint64_t> selection_count{0};

std::mutex& environment_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::unique_ptr<const Environment>& environment_slot() {
  static std::unique_ptr<const Environment> slot;
  return slot;
}
std::vector<std::unique_ptr<const Environment>>& retired_environments() {
  static std::vector<std::unique_ptr<const Environment>> retired;
  return retired;
}

std::unique_ptr<const Environment> read_environment() {
  auto env = std::make_unique<Environment>();
  for (const Collective c : all_collectives) {
    const char* value = std::getenv(environment_variable(c).c_str());
    env->forced.emplace_back(value != nullptr ? value : "");
  }
  if (const char* file = std::getenv("RAGGED_TUNING_FILE"); file != nullptr) env->rules_file = file;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos || text.substr(0, 7) != "RAGGED_") continue;
    env->all.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  return env;
}

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

const std::vector<TuningRule>& rules_of(const std::string& file) {
  const RulesFile& read = rules_file_of(file);
  if (read.error) throw *read.error;
  return read.rules;
}

/// The link model `auto` uses: the snapshot's, a LinkModel hint, or 1 GbE-like defaults.
CostInput cost_input(const CallInfo& call, const ArrivalSnapshot* snapshot) {
  CostInput x;
  x.procs = call.procs;
  x.bytes = static_cast<double>(call.bytes);
  x.alpha = 50e-6;
  x.beta = 1.0 / 117.5e6;
  x.gamma = 0.25e-9;
  const LinkModel* hint = call.hints ? call.hints->get<LinkModel>() : nullptr;
  if (snapshot != nullptr && snapshot->link().known()) hint = &snapshot->link();
  // The platform's links (Comm::network(), a NetworkModel hint): between two nodes (alpha, beta)
  // and inside one; a measured or given link model still wins for alpha and beta.
  const NetworkModel* net = call.network.get();
  if (net != nullptr) {
    const LinkModel& between = net->inter.known() ? net->inter : net->intra;  // one node: its link
    if (between.known() && (hint == nullptr || !hint->known())) {
      x.alpha = between.alpha;
      x.beta = between.beta;
    }
    if (net->intra.known()) {
      x.alpha_intra = net->intra.alpha;
      x.beta_intra = net->intra.beta;
    }
    x.gap = net->gap;
    x.exchange_factor = net->exchange_factor;
    x.eager_limit = static_cast<double>(net->eager_limit);
  }
  if (hint != nullptr && hint->known()) {
    x.alpha = hint->alpha;
    x.beta = hint->beta;
  }
  // The layout: with one rank per node the models are their flat formulas.
  if (const NodeLayout* layout = call.layout.get(); layout != nullptr && layout->size() == call.procs) {
    x.nodes = layout->nodes();
    x.per_node = layout->max_per_node();
    x.regular_layout = layout->regular();
  }
  return x;
}

/// The call's cluster layout hint when it splits the ranks in two or more clusters, or null.
const ClusterLayout* valid_clusters(const CallInfo& call) {
  const ClusterLayout* layout = call.hints ? call.hints->get<ClusterLayout>() : nullptr;
  if (layout == nullptr) return nullptr;
  try {
    layout->check(call.procs);
  } catch (const InvalidArgument&) {
    return nullptr;
  }
  return layout;
}

bool two_clusters(const CallInfo& call) {
  const ClusterLayout* layout = valid_clusters(call);
  return layout != nullptr && layout->clusters() == 2;
}

/// Why `a` cannot run this call, or empty.
std::string failed_restriction(const Algorithm& a, const CallInfo& call) {
  if (a.restrictions.commutative_only && !call.commutative) return "needs a commutative operator";
  if (a.restrictions.needs_two_clusters && !two_clusters(call)) return "needs a two-cluster layout hint";
  if (a.restrictions.needs_clusters && valid_clusters(call) == nullptr) {
    return "needs a cluster layout hint (two or more clusters)";
  }
  if (a.restrictions.needs_hierarchy &&
      (call.layout == nullptr || call.layout->nodes() < 2 || call.layout->max_per_node() < 2)) {
    return "needs a layout of two or more nodes, one with two or more ranks";
  }
  if (a.restrictions.even_procs && call.procs % 2 != 0) return "needs an even number of processes";
  if (a.restrictions.power_of_two && (call.procs & (call.procs - 1)) != 0) {
    return "needs a power-of-two number of processes";
  }
  return {};
}

/// Whether the call's ArrivalSpread hint asks for an arrival-reactive algorithm: a spread of at
/// least tau of one segment (any positive spread under an unknown link model).
bool reactive_spread(const CallInfo& call, std::size_t segment) {
  const ArrivalSpread* spread = call.hints ? call.hints->get<ArrivalSpread>() : nullptr;
  if (spread == nullptr || !(spread->omega > 0)) return false;
  return !spread->link.known() || spread->omega >= spread->link.tau(segment);
}

const Algorithm& select_auto(const CallInfo& call) {
  const Registry& registry = Registry::instance();
  const ArrivalSnapshot* snapshot = call.hints ? call.hints->get<ArrivalSnapshot>() : nullptr;
  if (snapshot != nullptr && snapshot->size() != call.procs) snapshot = nullptr;
  CostInput x = cost_input(call, snapshot);
  // Proficz 2021, §2: imbalanced when omega / tau >= 1, arrivals before known_at counted as known_at.
  // tau is the time of one segment (Proficz 2021, §2): a rank's block, or for allreduce the 1/P of
  // the vector that the ring and PRR move per step.
  const std::size_t segment = call.collective == Collective::allreduce
                                  ? std::max<std::size_t>(1, call.bytes / static_cast<std::size_t>(call.procs))
                                  : call.bytes;
  const bool imbalanced = !call.sub_call && snapshot != nullptr && call.bytes != 0 && !snapshot->balanced(segment);
  if (imbalanced) {
    const internal::StepPlanInput in = internal::step_plan_input(snapshot, call.procs, segment);
    const auto [lo, hi] = std::minmax_element(in.arrivals.begin(), in.arrivals.end());
    x.omega = *hi - *lo;
    double second = *lo;  // the second latest arrival
    for (auto it = in.arrivals.begin(); it != in.arrivals.end(); ++it) {
      if (it != hi) second = std::max(second, *it);
    }
    x.omega_last = *hi - second;
  }
  // Arrivals spread but unpredictable (no usable snapshot): an arrival-reactive algorithm.
  if (!imbalanced && !call.sub_call && call.bytes != 0 && reactive_spread(call, segment)) {
    for (const Algorithm* a : registry.list(call.collective, call.backend)) {
      if (a->restrictions.reactive && failed_restriction(*a, call).empty()) return *a;
    }
  }
  // A source that still fills (CallInfo::source_fills) is taken to come in as a linear gather
  // at the link's rate: a bcast that streams it ends at the later of its own time and the fill's
  // end plus its tail (CostInput::source_fills), so it is weighed by what it adds to the fill.
  CostInput held = x;  // the streaming bcasts send a rank none of a block it holds (HeldBlocks)
  if (const internal::HeldBlocks* h = call.hints != nullptr ? call.hints->get<internal::HeldBlocks>() : nullptr) {
    held.held_blocks = h->block > 0;
  }
  CostInput tail = held;
  tail.source_fills = true;
  const double fill = (call.procs - 1) * (x.alpha + x.bytes / static_cast<double>(std::max(call.procs, 1)) * x.beta);
  // Balanced: the regular algorithms. Imbalanced: the arrival-aware ones, whose models give the
  // time after the last arrival, then the regular ones, which need all of their time after it (a
  // tie keeps the arrival-aware one): spread arrivals that no arrival-aware schedule uses (many
  // ranks late by different amounts, where Proficz 2018's assume one) leave a regular one faster.
  const Algorithm* best = nullptr;
  double best_cost = std::numeric_limits<double>::infinity();
  for (const bool arrival_aware : {true, false}) {
    if (arrival_aware && !imbalanced) continue;
    for (const Algorithm* a : registry.list(call.collective, call.backend)) {
      if (a->cost == nullptr || !a->restrictions.backend.empty() || a->restrictions.reactive) continue;
      if (a->restrictions.needs_arrival != arrival_aware) continue;
      if (!failed_restriction(*a, call).empty()) continue;
      double c = a->cost(x);
      if (call.source_fills && a->restrictions.streams_source)
        c = plans::cost::streamed_after_fill(a->cost(held), a->cost(tail), fill);
      if (c < best_cost) {
        best = a;
        best_cost = c;
      }
    }
  }
  if (best == nullptr) {  // nothing with a model fits: the first listed algorithm that can run
    for (const Algorithm* a : registry.list(call.collective, call.backend)) {
      if (failed_restriction(*a, call).empty()) return *a;
    }
    throw InvalidArgument("algorithm", std::string("no ") + name_of(call.collective) + " algorithm can run this call");
  }
  return *best;
}

}  // namespace

const Environment& environment() {
  std::lock_guard<std::mutex> lock(environment_mutex());
  if (!environment_slot()) environment_slot() = read_environment();
  return *environment_slot();
}

void reread_environment() {
  auto fresh = read_environment();
  std::lock_guard<std::mutex> lock(environment_mutex());
  // The old settings stay alive for a call that still reads them.
  retired_environments().push_back(std::move(environment_slot()));
  environment_slot() = std::move(fresh);
}

std::uint64_t selections() noexcept { return selection_count.load(std::memory_order_relaxed); }

const ConfigError* rules_file_error(const std::string& file) {
  if (file.empty()) return nullptr;
  const RulesFile& read = rules_file_of(file);
  return read.error ? &*read.error : nullptr;
}

Requested resolve_request(const CallInfo& call, std::string_view requested) {
  Requested r{std::string(requested), "call"};
  if (r.name.empty()) {
    const Environment& env = environment();
    if (const std::string& forced = env.forced_for(call.collective); !forced.empty()) {
      r.name = forced;
      r.source = "environment";
    } else if (!env.rules_file.empty()) {
      r.name = match_tuning_rule(rules_of(env.rules_file), call.collective, call.procs, call.bytes);
      r.source = "rules";
    }
  }
  if (r.name.empty()) {
    r.name = "auto";
    r.source = "auto";
  }
  return r;
}

Selection select(const CallInfo& call, std::string_view requested) {
  return select(call, resolve_request(call, requested));
}

Selection select(const CallInfo& call, const Requested& requested) {
  selection_count.fetch_add(1, std::memory_order_relaxed);
  // Algorithms combine blocks (a binomial gather forwards a subtree's, Bruck half of them): a
  // call that moves more than the backend's largest message in all is the backend's own.
  // Everything here is shared: the block (or the vector), the size and the backend.
  const bool blocks = call.collective == Collective::allgather || call.collective == Collective::gather ||
                      call.collective == Collective::scatter || call.collective == Collective::alltoall;
  const std::size_t total = blocks ? call.bytes * static_cast<std::size_t>(call.procs) : call.bytes;
  if (total > call.max_message_bytes && Registry::instance().contains(call.collective, "native")) {
    const Algorithm& native = Registry::instance().find(call.collective, "native");
    if (native.restrictions.backend.empty() || native.restrictions.backend == call.backend) {
      Selection s;
      s.algorithm = &native;
      s.requested = requested.name;
      s.source = requested.source;
      s.fallback_reason = "more than " + std::to_string(call.max_message_bytes) + " bytes in all";
      return s;
    }
  }
  return internal::selection_for(call, requested);
}

namespace internal {

Selection selection_for(const CallInfo& call, Requested requested) {
  Selection s;
  s.requested = std::move(requested.name);
  s.source = std::move(requested.source);
  if (s.requested == "auto") {
    s.algorithm = &select_auto(call);
    return s;
  }
  const Registry& registry = Registry::instance();
  const Algorithm& chosen = registry.find(call.collective, s.requested);
  if (!chosen.restrictions.backend.empty() && chosen.restrictions.backend != call.backend) {
    throw InvalidArgument("algorithm", std::string(name_of(call.collective)) + " '" + chosen.name +
                                           "' runs only on the " + chosen.restrictions.backend + " backend, not on " +
                                           call.backend);
  }
  s.algorithm = &chosen;
  const std::string why = failed_restriction(chosen, call);
  if (!why.empty()) {
    if (chosen.restrictions.fallback.empty()) {
      throw InvalidArgument("algorithm", std::string(name_of(call.collective)) + " '" + chosen.name + "' " + why);
    }
    // A fallback whose own restrictions fail as well gives way to its fallback, and so on (allreduce
    // hierarchical_arrival falls back to prr on a flat layout, and both to reduce_bcast for a
    // non-commutative operator). The list has no cycles; the bound only guards against one.
    const Algorithm* fallback = &registry.find(call.collective, chosen.restrictions.fallback);
    for (int hop = 0;
         hop < 8 && !fallback->restrictions.fallback.empty() && !failed_restriction(*fallback, call).empty(); ++hop) {
      fallback = &registry.find(call.collective, fallback->restrictions.fallback);
    }
    s.algorithm = fallback;
    s.fallback_reason = why;
  }
  return s;
}

}  // namespace internal

}  // namespace ragged
