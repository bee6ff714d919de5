// Selection: the call's name, RAGGED_<COLLECTIVE>, the rules file, or `auto` (ragged/selection.hpp).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <string>

#include "arrival/background.hpp"
#include "dispatch/call.hpp"
#include "dispatch/compose.hpp"
#include "dispatch/rules_file.hpp"
#include "plans/cost_model.hpp"
#include "ragged/arrival.hpp"
#include "ragged/error.hpp"
#include "ragged/layout.hpp"
#include "ragged/selection.hpp"
#include "ragged/topology.hpp"

namespace ragged {

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

/// The link model `auto` uses: the snapshot's, a LinkModel hint, or 1 GbE-like defaults.
CostInput cost_input(const CallInfo& call, const ArrivalSnapshot* snapshot) {
  CostInput x;
  x.procs = call.procs;
  x.bytes = static_cast<double>(call.bytes);
  x.largest = static_cast<double>(call.largest);
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
    x.gap_known = net->gap_known;
    if (net->node_bandwidth > 0) x.beta_node = 1 / net->node_bandwidth;
    // The time the backend takes to reduce an element (the sim backend: a flop at the host's speed).
    if (net->reduce_element > 0) {
      x.gamma = net->reduce_element / static_cast<double>(call.element_bytes > 0 ? call.element_bytes : 4);
    }
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
    x.consecutive_layout = layout->consecutive();
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
  if (a.restrictions.needs_window && !call.windows) return "needs a window, which a sub-communicator has not";
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

Requested resolve_request(const CallInfo& call, std::string_view requested) {
  Requested r{std::string(requested), "call"};
  if (r.name.empty()) {
    const Environment& env = environment();
    if (const std::string& forced = env.forced_for(call.collective); !forced.empty()) {
      r.name = forced;
      r.source = "environment";
    } else if (!env.rules_file.empty()) {
      r.name = match_tuning_rule(internal::tuning_rules_of(env.rules_file), call.collective, call.procs, call.bytes);
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
