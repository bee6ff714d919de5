#include "ragged/registry.hpp"

#include <string>

#include "ragged/error.hpp"

namespace ragged {

const char* name_of(Collective collective) {
  switch (collective) {
    case Collective::allgather:
      return "allgather";
    case Collective::allreduce:
      return "allreduce";
    case Collective::bcast:
      return "bcast";
    case Collective::reduce:
      return "reduce";
    case Collective::gather:
      return "gather";
    case Collective::scatter:
      return "scatter";
    case Collective::gatherv:
      return "gatherv";
    case Collective::scatterv:
      return "scatterv";
    case Collective::alltoall:
      return "alltoall";
    case Collective::alltoallv:
      return "alltoallv";
  }
  return "unknown";
}

Collective parse_collective(std::string_view name) {
  for (Collective c : all_collectives) {
    if (name == name_of(c)) return c;
  }
  throw InvalidArgument("collective", "unknown collective '" + std::string(name) + "'");
}

Registry& Registry::instance() {
  static Registry* registry = [] {
    auto* r = new Registry();
    register_core_algorithms(*r);
    return r;
  }();
  return *registry;
}

void Registry::add(Algorithm algorithm) {
  for (Algorithm& a : algorithms_) {
    if (a.collective == algorithm.collective && a.name == algorithm.name) {
      a = std::move(algorithm);
      return;
    }
  }
  algorithms_.push_back(std::move(algorithm));
}

bool Registry::contains(Collective collective, std::string_view name) const {
  for (const Algorithm& a : algorithms_) {
    if (a.collective == collective && a.name == name) return true;
  }
  return false;
}

const Algorithm& Registry::find(Collective collective, std::string_view name) const {
  for (const Algorithm& a : algorithms_) {
    if (a.collective == collective && a.name == name) return a;
  }
  std::string known;
  for (const Algorithm& a : algorithms_) {
    if (a.collective != collective) continue;
    known += known.empty() ? "" : ", ";
    known += a.name;
  }
  throw InvalidArgument("algorithm", "no " + std::string(name_of(collective)) + " algorithm named '" +
                                         std::string(name) + "' (known: " + known + ")");
}

std::vector<const Algorithm*> Registry::list(Collective collective, std::string_view backend) const {
  std::vector<const Algorithm*> out;
  for (const Algorithm& a : algorithms_) {
    if (a.collective != collective) continue;
    if (!backend.empty() && !a.restrictions.backend.empty() && a.restrictions.backend != backend) continue;
    out.push_back(&a);
  }
  return out;
}

}  // namespace ragged
