// The one list registers itself: every line of list.def becomes a registry entry. The registry
// (src/core/registry.cpp) knows no algorithm; Registry::instance() calls this once.
#include "algorithms/list.hpp"

#include "arrival/background.hpp"
#include "plans/cost_model.hpp"

namespace ragged {

namespace {

Restrictions restrictions_of(std::string_view kind, const char* fallback, const char* balanced) {
  Restrictions r;
  r.fallback = fallback;
  r.balanced = balanced;
  if (kind == "even") r.even_procs = true;
  if (kind == "power_of_two") r.power_of_two = true;
  if (kind == "commutative") r.commutative_only = true;
  if (kind == "arrival") r.needs_arrival = true;
  if (kind == "reactive") r.reactive = true;
  if (kind == "two_clusters") r.needs_two_clusters = true;
  if (kind == "clusters") r.needs_clusters = true;
  if (kind == "streaming") r.streams_source = true;  // no restriction: a property (bcast)
  if (kind == "hierarchical") r.needs_hierarchy = true;
  if (kind == "commutative_hierarchical") {  // both: node-aware and a commutative operator
    r.commutative_only = true;
    r.needs_hierarchy = true;
  }
  if (kind == "commutative_arrival_hierarchical") {  // all three (allreduce hierarchical_arrival)
    r.commutative_only = true;
    r.needs_arrival = true;
    r.needs_hierarchy = true;
  }
  if (kind == "window") r.needs_window = true;
  if (kind == "commutative_window") {  // both: a window and a commutative operator (onesided_ring)
    r.commutative_only = true;
    r.needs_window = true;
  }
  if (kind == "commutative_arrival") {  // both: arrival-aware and a commutative operator
    r.commutative_only = true;
    r.needs_arrival = true;
  }
  return r;
}

}  // namespace

void register_core_algorithms(Registry& registry) {
#define RAGGED_ALGORITHM(collective, name, restrictions, fallback, balanced, cost, background, summary) \
  registry.add(make_algorithm<Collective::collective>(                                                  \
      #name, summary, restrictions_of(#restrictions, fallback, balanced), &collective##_##name, cost, background));
#include "algorithms/list.def"
#undef RAGGED_ALGORITHM
}

}  // namespace ragged
