// ragged: the registry of algorithms. Every algorithm has a string name, its
// collective, a one-line summary, its restrictions (with the algorithm that
// runs when they fail), an alpha-beta cost model for `auto`, and optionally a
// background part for the arrival agent. The core algorithms come from one
// list (src/core/algorithms/list.def); backends add their own (the mpi
// backend registers "native" for each collective).
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/context.hpp"

namespace ragged {

enum class Collective {
  allgather,
  allreduce,
  bcast,
  reduce,
  gather,
  scatter,
  gatherv,
  scatterv,
  alltoall,
  alltoallv,
  scan,
  exscan,
  reduce_scatter_block,
  allgatherv,
  reduce_scatter,
  alltoallw
};

inline constexpr Collective all_collectives[] = {Collective::allgather,
                                                 Collective::allreduce,
                                                 Collective::bcast,
                                                 Collective::reduce,
                                                 Collective::gather,
                                                 Collective::scatter,
                                                 Collective::gatherv,
                                                 Collective::scatterv,
                                                 Collective::alltoall,
                                                 Collective::alltoallv,
                                                 Collective::scan,
                                                 Collective::exscan,
                                                 Collective::reduce_scatter_block,
                                                 Collective::allgatherv,
                                                 Collective::reduce_scatter,
                                                 Collective::alltoallw};

[[nodiscard]] const char* name_of(Collective collective);
/// Parses a collective's name ("allgather", ..., "alltoallv").
[[nodiscard]] Collective parse_collective(std::string_view name);

struct Restrictions {
  bool commutative_only = false;  ///< needs a commutative reduction operator
  bool needs_arrival = false;     ///< arrival-aware: uses an ArrivalSnapshot hint (correct without one)
  /// Arrival-reactive: needs no snapshot; `auto` runs it when an ArrivalSpread hint reports
  /// arrivals spread by at least a block's time that nobody could predict.
  bool reactive = false;
  bool needs_two_clusters = false;  ///< needs a ClusterLayout hint splitting the ranks in exactly two
  bool needs_clusters = false;      ///< needs a ClusterLayout hint splitting the ranks in two or more
  bool even_procs = false;          ///< needs an even number of processes
  bool power_of_two = false;        ///< needs a power-of-two number of processes
  /// Node-aware (hierarchical): needs a layout (CallInfo::layout) of two or more nodes, one of
  /// them with two or more ranks.
  bool needs_hierarchy = false;
  /// Needs a window (Comm::create_window): not on a sub-communicator of a composing algorithm's
  /// part (CallInfo::windows), whose windows would be collective over the parent's ranks.
  bool needs_window = false;
  /// Not a restriction but a property (bcast): at the root it reads its buffer front to back
  /// while it sends, so a composing algorithm may still be filling it (internal::SourceProgress).
  bool streams_source = false;
  /// Not a restriction but a property (allreduce): reads the caller's sendbuf itself, so dispatch
  /// passes it unaliased instead of copying it into recvbuf first ("native": MPI_IN_PLACE is slower
  /// in some MPI libraries and crashes Open MPI 4.1's han).
  bool reads_sendbuf = false;
  std::string backend;  ///< empty: any backend; otherwise only this one ("mpi")
  /// What runs instead when commutative_only, needs_two_clusters, needs_clusters, even_procs,
  /// power_of_two, needs_hierarchy or needs_window fails (same collective).
  std::string fallback;
  /// Arrival-aware algorithms: the regular algorithm of the same collective that dispatch runs in
  /// their place when the call's arrivals turn out balanced ("auto": the best regular one by the
  /// cost models; empty: the algorithm handles balance itself).
  std::string balanced;
};

/// What an alpha-beta cost model sees (defined with the models, src/core/plans/cost_input.hpp).
struct CostInput;
/// Predicted time of one call, in seconds. For an arrival-aware algorithm: the time it still
/// needs after the last process arrived, in the step model of Proficz 2021.
using CostModel = double (*)(const CostInput&);

namespace internal {
struct Background;
}

// The algorithms' own signatures: the collective's MPI-shaped arguments after a per-call Context.
// Dispatch has validated them, resolved in_place (sendbuf is never in_place), copied the caller's
// own block where the collective has one (allreduce: the whole vector into recvbuf, unless the
// algorithm reads_sendbuf), and handled P = 1 and count 0.
namespace impl {
using Allgather = void (*)(Context&, const void* sendbuf, void* recvbuf, std::size_t count, DataType type);
using Allreduce = void (*)(Context&, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                           const ReduceOp& op);
using Bcast = void (*)(Context&, void* buffer, std::size_t count, DataType type, int root);
using Reduce = void (*)(Context&, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                        const ReduceOp& op, int root);
using Gather = void (*)(Context&, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root);
using Scatter = void (*)(Context&, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root);
using Gatherv = void (*)(Context&, const void* sendbuf, int sendcount, void* recvbuf, std::span<const int> recvcounts,
                         std::span<const int> displs, DataType type, int root);
using Scatterv = void (*)(Context&, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
                          void* recvbuf, int recvcount, DataType type, int root);
using Alltoall = void (*)(Context&, const void* sendbuf, void* recvbuf, std::size_t count, DataType type);
using Alltoallv = void (*)(Context&, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                           void* recvbuf, std::span<const int> recvcounts, std::span<const int> rdispls, DataType type);
// Inclusive and exclusive prefix reductions. sendbuf holds this rank's operand and may be recvbuf
// (dispatch passes sendbuf == recvbuf for scan; for exscan the caller's own buffer, so that rank
// 0's recvbuf, which MPI leaves undefined, is never written).
using Scan = void (*)(Context&, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                      const ReduceOp& op);
using Exscan = Scan;
// Block r of the reduction of every rank's sendbuf (P blocks of `count` elements) to rank r's
// recvbuf (count elements). Dispatch has resolved in_place (sendbuf is a copy then).
using ReduceScatterBlock = Scan;
// Every rank's block (recvcounts[i] elements) to displs[i] of every rank's recvbuf. Dispatch has
// copied this rank's own block there; sendbuf points at it (in recvbuf).
using Allgatherv = void (*)(Context&, const void* sendbuf, void* recvbuf, std::span<const int> recvcounts,
                            std::span<const int> displs, DataType type);
// Block r (recvcounts[r] elements, the blocks back to back in rank order) of the reduction of every
// rank's sendbuf (the sum of recvcounts elements) to rank r's recvbuf. Dispatch has resolved
// in_place (sendbuf is a copy then).
using ReduceScatter = void (*)(Context&, const void* sendbuf, void* recvbuf, std::span<const int> recvcounts,
                               DataType type, const ReduceOp& op);
// Block j of sendbuf (sendcounts[j] elements of sendtypes[j] at byte sdispls[j]) to rank j, block i
// of recvbuf (recvcounts[i] of recvtypes[i] at byte rdispls[i]) from rank i, as MPI_Alltoallw.
// Dispatch has resolved in_place (sendbuf is a copy then) and copied this rank's own block.
using Alltoallw = void (*)(Context&, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> sdispls,
                           std::span<const DataType> sendtypes, void* recvbuf, std::span<const int> recvcounts,
                           std::span<const int> rdispls, std::span<const DataType> recvtypes);
// Function types (not pointers), so that the list can declare the functions.
using allgather_signature = std::remove_pointer_t<Allgather>;
using allreduce_signature = std::remove_pointer_t<Allreduce>;
using bcast_signature = std::remove_pointer_t<Bcast>;
using reduce_signature = std::remove_pointer_t<Reduce>;
using gather_signature = std::remove_pointer_t<Gather>;
using scatter_signature = std::remove_pointer_t<Scatter>;
using gatherv_signature = std::remove_pointer_t<Gatherv>;
using scatterv_signature = std::remove_pointer_t<Scatterv>;
using alltoall_signature = std::remove_pointer_t<Alltoall>;
using alltoallv_signature = std::remove_pointer_t<Alltoallv>;
using scan_signature = std::remove_pointer_t<Scan>;
using exscan_signature = std::remove_pointer_t<Exscan>;
using reduce_scatter_block_signature = std::remove_pointer_t<ReduceScatterBlock>;
using allgatherv_signature = std::remove_pointer_t<Allgatherv>;
using reduce_scatter_signature = std::remove_pointer_t<ReduceScatter>;
using alltoallw_signature = std::remove_pointer_t<Alltoallw>;
}  // namespace impl

/// The function of an algorithm; the alternative's index is the Collective's value
/// (Gather and Scatter share a type, as do Allreduce, Scan, Exscan and ReduceScatterBlock, so always construct by
/// index: make_algorithm()).
using AlgorithmFn =
    std::variant<impl::Allgather, impl::Allreduce, impl::Bcast, impl::Reduce, impl::Gather, impl::Scatter,
                 impl::Gatherv, impl::Scatterv, impl::Alltoall, impl::Alltoallv, impl::Scan, impl::Exscan,
                 impl::ReduceScatterBlock, impl::Allgatherv, impl::ReduceScatter, impl::Alltoallw>;

struct Algorithm {
  std::string name;
  Collective collective;
  std::string summary;
  Restrictions restrictions;
  AlgorithmFn fn;
  CostModel cost = nullptr;                          ///< null: never chosen by `auto`
  const internal::Background* background = nullptr;  ///< what the arrival agent runs ahead of the call
};

template <Collective C>
using FnOf = std::variant_alternative_t<static_cast<std::size_t>(C), AlgorithmFn>;

template <Collective C>
Algorithm make_algorithm(std::string name, std::string summary, Restrictions restrictions, FnOf<C> fn,
                         CostModel cost = nullptr, const internal::Background* background = nullptr) {
  return Algorithm{std::move(name),
                   C,
                   std::move(summary),
                   std::move(restrictions),
                   AlgorithmFn(std::in_place_index<static_cast<std::size_t>(C)>, fn),
                   cost,
                   background};
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
  /// Algorithms of `collective` usable on `backend`, in list order.
  [[nodiscard]] std::vector<const Algorithm*> list(Collective collective, std::string_view backend = {}) const;
  /// Every algorithm, in list order.
  [[nodiscard]] std::vector<const Algorithm*> all() const;

  // Callables that run one algorithm by name through dispatch (arguments checked, restrictions
  // enforced with their fallback): the options' own algorithm name is replaced by `name`.
  [[nodiscard]] AllgatherFn allgather(std::string_view name) const;
  [[nodiscard]] AllreduceFn allreduce(std::string_view name) const;
  [[nodiscard]] BcastFn bcast(std::string_view name) const;
  [[nodiscard]] ReduceFn reduce(std::string_view name) const;
  [[nodiscard]] GatherFn gather(std::string_view name) const;
  [[nodiscard]] ScatterFn scatter(std::string_view name) const;
  [[nodiscard]] GathervFn gatherv(std::string_view name) const;
  [[nodiscard]] ScattervFn scatterv(std::string_view name) const;
  [[nodiscard]] AlltoallFn alltoall(std::string_view name) const;
  [[nodiscard]] AlltoallvFn alltoallv(std::string_view name) const;
  [[nodiscard]] ScanFn scan(std::string_view name) const;
  [[nodiscard]] ScanFn exscan(std::string_view name) const;
  [[nodiscard]] ScanFn reduce_scatter_block(std::string_view name) const;
  [[nodiscard]] AllgathervFn allgatherv(std::string_view name) const;
  [[nodiscard]] ReduceScatterFn reduce_scatter(std::string_view name) const;
  [[nodiscard]] AlltoallwFn alltoallw(std::string_view name) const;

 private:
  Registry() = default;
  std::vector<Algorithm> algorithms_;
};

/// Adds every algorithm of src/core/algorithms/list.def to `registry` (called by Registry::instance()).
void register_core_algorithms(Registry& registry);

}  // namespace ragged
