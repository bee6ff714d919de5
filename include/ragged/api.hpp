// ragged: the typed C++ API. Every collective over contiguous ranges, element type deduced:
//
//   std::vector<float> grad(n), sum(n);
//   ragged::allreduce(comm, std::span<const float>(grad), std::span<float>(sum), ragged::ReduceOp::sum(),
//                     {.algorithm = "auto"});
//
// Sizes are checked against the communicator (InvalidArgument names `in` or `out`); each call
// goes through dispatch like the void* form in collectives.hpp and returns the algorithm that ran.
// In-place forms: allreduce_in_place, allgather_in_place.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/datatype.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"

namespace ragged {

namespace internal {

template <class T>
concept Element = requires {
  datatype_of<std::remove_cv_t<T>>();
};

inline void check_size(std::size_t got, std::size_t want, const char* argument, const char* what) {
  if (got != want) {
    throw InvalidArgument(argument,
                          "has " + std::to_string(got) + " elements, " + what + " needs " + std::to_string(want));
  }
}

inline std::size_t procs_of(const Comm& comm) { return static_cast<std::size_t>(comm.size()); }

/// Counts and displacements as MPI's ints; throws when a size does not fit.
inline int as_count(std::size_t n, const char* argument) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw InvalidArgument(argument, "has more elements than an MPI count can hold");
  }
  return static_cast<int>(n);
}

}  // namespace internal

/// Every rank contributes `in`; `out` (size() * in.size()) receives all blocks in rank order.
template <internal::Element T>
const Algorithm& allgather(Comm& comm, std::span<const T> in, std::span<T> out, const CollectiveOptions& options = {}) {
  internal::check_size(out.size(), internal::procs_of(comm) * in.size(), "out", "size() * in.size()");
  return allgather(comm, in.data(), out.data(), in.size(), datatype_of<T>(), options);
}

/// `all` holds size() blocks; this rank's block is already in place.
template <internal::Element T>
const Algorithm& allgather_in_place(Comm& comm, std::span<T> all, const CollectiveOptions& options = {}) {
  if (all.size() % internal::procs_of(comm) != 0) {
    throw InvalidArgument("all", "has " + std::to_string(all.size()) + " elements, not a multiple of size()");
  }
  return allgather(comm, in_place, all.data(), all.size() / internal::procs_of(comm), datatype_of<T>(), options);
}

template <internal::Element T>
const Algorithm& allreduce(Comm& comm, std::span<const T> in, std::span<T> out, const ReduceOp& op,
                           const CollectiveOptions& options = {}) {
  internal::check_size(out.size(), in.size(), "out", "in.size()");
  return allreduce(comm, in.data(), out.data(), in.size(), datatype_of<T>(), op, options);
}

template <internal::Element T>
const Algorithm& allreduce_in_place(Comm& comm, std::span<T> data, const ReduceOp& op,
                                    const CollectiveOptions& options = {}) {
  return allreduce(comm, in_place, data.data(), data.size(), datatype_of<T>(), op, options);
}

template <internal::Element T>
const Algorithm& bcast(Comm& comm, std::span<T> data, int root, const CollectiveOptions& options = {}) {
  return bcast(comm, data.data(), data.size(), datatype_of<T>(), root, options);
}

/// `out` is significant at the root only (and may be empty elsewhere).
template <internal::Element T>
const Algorithm& reduce(Comm& comm, std::span<const T> in, std::span<T> out, const ReduceOp& op, int root,
                        const CollectiveOptions& options = {}) {
  if (comm.rank() == root) internal::check_size(out.size(), in.size(), "out", "in.size() at the root");
  return reduce(comm, in.data(), out.data(), in.size(), datatype_of<T>(), op, root, options);
}

/// `out` (size() * in.size() at the root, ignored elsewhere).
template <internal::Element T>
const Algorithm& gather(Comm& comm, std::span<const T> in, std::span<T> out, int root,
                        const CollectiveOptions& options = {}) {
  if (comm.rank() == root) {
    internal::check_size(out.size(), internal::procs_of(comm) * in.size(), "out", "size() * in.size() at the root");
  }
  return gather(comm, in.data(), out.data(), in.size(), datatype_of<T>(), root, options);
}

/// `in` (size() * out.size() at the root, ignored elsewhere).
template <internal::Element T>
const Algorithm& scatter(Comm& comm, std::span<const T> in, std::span<T> out, int root,
                         const CollectiveOptions& options = {}) {
  if (comm.rank() == root) {
    internal::check_size(in.size(), internal::procs_of(comm) * out.size(), "in", "size() * out.size() at the root");
  }
  return scatter(comm, in.data(), out.data(), out.size(), datatype_of<T>(), root, options);
}

/// Irregular gather: rank i's block of counts[i] elements lands at out[displs[i]] on the root
/// (counts and displs significant at the root only).
template <internal::Element T>
const Algorithm& gatherv(Comm& comm, std::span<const T> in, std::span<T> out, std::span<const int> counts,
                         std::span<const int> displs, int root, const CollectiveOptions& options = {}) {
  return gatherv(comm, in.data(), internal::as_count(in.size(), "in"), out.data(), counts, displs, datatype_of<T>(),
                 root, options);
}

template <internal::Element T>
const Algorithm& scatterv(Comm& comm, std::span<const T> in, std::span<const int> counts, std::span<const int> displs,
                          std::span<T> out, int root, const CollectiveOptions& options = {}) {
  return scatterv(comm, in.data(), counts, displs, out.data(), internal::as_count(out.size(), "out"), datatype_of<T>(),
                  root, options);
}

/// Block j of `in` (in.size() / size() elements) goes to rank j; block i of `out` comes from rank i.
template <internal::Element T>
const Algorithm& alltoall(Comm& comm, std::span<const T> in, std::span<T> out, const CollectiveOptions& options = {}) {
  internal::check_size(out.size(), in.size(), "out", "in.size()");
  if (in.size() % internal::procs_of(comm) != 0) {
    throw InvalidArgument("in", "has " + std::to_string(in.size()) + " elements, not a multiple of size()");
  }
  return alltoall(comm, in.data(), out.data(), in.size() / internal::procs_of(comm), datatype_of<T>(), options);
}

template <internal::Element T>
const Algorithm& alltoallv(Comm& comm, std::span<const T> in, std::span<const int> sendcounts,
                           std::span<const int> sdispls, std::span<T> out, std::span<const int> recvcounts,
                           std::span<const int> rdispls, const CollectiveOptions& options = {}) {
  return alltoallv(comm, in.data(), sendcounts, sdispls, out.data(), recvcounts, rdispls, datatype_of<T>(), options);
}

/// Inclusive prefix reduction: out on rank i is in_0 op ... op in_i.
template <internal::Element T>
const Algorithm& scan(Comm& comm, std::span<const T> in, std::span<T> out, const ReduceOp& op,
                      const CollectiveOptions& options = {}) {
  internal::check_size(out.size(), in.size(), "out", "in.size()");
  return scan(comm, in.data(), out.data(), in.size(), datatype_of<T>(), op, options);
}

/// Exclusive prefix reduction: out on rank i > 0 is in_0 op ... op in_(i-1); rank 0's out is
/// not written.
template <internal::Element T>
const Algorithm& exscan(Comm& comm, std::span<const T> in, std::span<T> out, const ReduceOp& op,
                        const CollectiveOptions& options = {}) {
  internal::check_size(out.size(), in.size(), "out", "in.size()");
  return exscan(comm, in.data(), out.data(), in.size(), datatype_of<T>(), op, options);
}

/// Block r (out.size() elements) of the reduction of every rank's `in` (size() * out.size()
/// elements) to rank r's `out`.
template <internal::Element T>
const Algorithm& reduce_scatter_block(Comm& comm, std::span<const T> in, std::span<T> out, const ReduceOp& op,
                                      const CollectiveOptions& options = {}) {
  internal::check_size(in.size(), internal::procs_of(comm) * out.size(), "in", "size() * out.size()");
  return reduce_scatter_block(comm, in.data(), out.data(), out.size(), datatype_of<T>(), op, options);
}

/// Every rank's `in` (counts[i] elements on rank i) to out + displs[i] on every rank.
template <internal::Element T>
const Algorithm& allgatherv(Comm& comm, std::span<const T> in, std::span<T> out, std::span<const int> counts,
                            std::span<const int> displs, const CollectiveOptions& options = {}) {
  return allgatherv(comm, in.data(), internal::as_count(in.size(), "in"), out.data(), counts, displs, datatype_of<T>(),
                    options);
}

/// Block r (counts[r] elements) of the reduction of every rank's `in` (the sum of counts
/// elements) to rank r's `out`.
template <internal::Element T>
const Algorithm& reduce_scatter(Comm& comm, std::span<const T> in, std::span<T> out, std::span<const int> counts,
                                const ReduceOp& op, const CollectiveOptions& options = {}) {
  return reduce_scatter(comm, in.data(), out.data(), counts, datatype_of<T>(), op, options);
}

}  // namespace ragged
