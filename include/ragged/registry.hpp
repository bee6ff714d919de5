// ragged: the algorithm registry. Every algorithm has a string name, its
// collective, a one-line summary and its restrictions; backends add their own
// (the mpi backend registers "native" for each collective).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ragged/collectives.hpp"

namespace ragged {

enum class Collective { allgather, allreduce, bcast, reduce, gather, scatter, gatherv, scatterv, alltoall, alltoallv };

inline constexpr Collective all_collectives[] = {
    Collective::allgather, Collective::allreduce, Collective::bcast,    Collective::reduce,   Collective::gather,
    Collective::scatter,   Collective::gatherv,   Collective::scatterv, Collective::alltoall, Collective::alltoallv};

[[nodiscard]] const char* name_of(Collective collective);
/// Parses a collective's name ("allgather", ..., "alltoallv").
[[nodiscard]] Collective parse_collective(std::string_view name);

struct Restrictions {
  bool commutative_only = false;    ///< needs a commutative reduction operator
  bool needs_arrival = false;       ///< needs an ArrivalSnapshot to be useful
  bool needs_two_clusters = false;  ///< needs CollectiveOptions::clusters splitting the ranks in two
  std::string backend;              ///< empty: any backend; otherwise only this one ("mpi")
};

/// The function of an algorithm; the alternative's index is the Collective's value
/// (GatherFn and ScatterFn share a type, so always construct by index: make_algorithm()).
using AlgorithmFn = std::variant<AllgatherFn, AllreduceFn, BcastFn, ReduceFn, GatherFn, ScatterFn, GathervFn,
                                 ScattervFn, AlltoallFn, AlltoallvFn>;

struct Algorithm {
  std::string name;
  Collective collective;
  std::string summary;
  Restrictions restrictions;
  AlgorithmFn fn;
};

template <Collective C>
using FnOf = std::variant_alternative_t<static_cast<std::size_t>(C), AlgorithmFn>;

template <Collective C>
Algorithm make_algorithm(std::string name, std::string summary, Restrictions restrictions, FnOf<C> fn) {
  return Algorithm{std::move(name), C, std::move(summary), std::move(restrictions),
                   AlgorithmFn(std::in_place_index<static_cast<std::size_t>(C)>, fn)};
}

class Registry {
 public:
  /// The process-wide registry, filled with the core algorithms on first use.
  static Registry& instance();

  /// Adds (or replaces) an algorithm under (collective, name).
  void add(Algorithm algorithm);
  /// Throws InvalidArgument naming `algorithm` when no such algorithm exists.
  [[nodiscard]] const Algorithm& find(Collective collective, std::string_view name) const;
  [[nodiscard]] bool contains(Collective collective, std::string_view name) const;
  /// Algorithms of `collective` usable on `backend`, in registration order.
  [[nodiscard]] std::vector<const Algorithm*> list(Collective collective, std::string_view backend = {}) const;

  template <Collective C>
  [[nodiscard]] FnOf<C> get(std::string_view name) const {
    return std::get<static_cast<std::size_t>(C)>(find(C, name).fn);
  }
  [[nodiscard]] AllgatherFn allgather(std::string_view name) const { return get<Collective::allgather>(name); }
  [[nodiscard]] AllreduceFn allreduce(std::string_view name) const { return get<Collective::allreduce>(name); }
  [[nodiscard]] BcastFn bcast(std::string_view name) const { return get<Collective::bcast>(name); }
  [[nodiscard]] ReduceFn reduce(std::string_view name) const { return get<Collective::reduce>(name); }
  [[nodiscard]] GatherFn gather(std::string_view name) const { return get<Collective::gather>(name); }
  [[nodiscard]] ScatterFn scatter(std::string_view name) const { return get<Collective::scatter>(name); }
  [[nodiscard]] GathervFn gatherv(std::string_view name) const { return get<Collective::gatherv>(name); }
  [[nodiscard]] ScattervFn scatterv(std::string_view name) const { return get<Collective::scatterv>(name); }
  [[nodiscard]] AlltoallFn alltoall(std::string_view name) const { return get<Collective::alltoall>(name); }
  [[nodiscard]] AlltoallvFn alltoallv(std::string_view name) const { return get<Collective::alltoallv>(name); }

 private:
  Registry() = default;
  std::vector<Algorithm> algorithms_;
};

/// Adds every algorithm of ragged::core to `registry` (called by Registry::instance()).
void register_core_algorithms(Registry& registry);
/// Adds the arrival-aware algorithms (bdr, bslb, bsls, sls; see ragged/arrival.hpp).
void register_arrival_algorithms(Registry& registry);
/// Adds the alltoall and alltoallv algorithms (ragged/alltoall.hpp); called by register_core_algorithms().
void register_alltoall_algorithms(Registry& registry);
/// Adds gatherv and scatterv algorithms (ragged/irregular.hpp); called by register_core_algorithms().
void register_irregular_algorithms(Registry& registry);

}  // namespace ragged
