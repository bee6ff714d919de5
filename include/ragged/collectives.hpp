// ragged: the uniform signature of each collective, shared by every algorithm
// that implements it. Counts are in elements of `type`; buffers follow MPI's
// layout (allgather/gather receive size()*count elements in rank order).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "ragged/comm.hpp"
#include "ragged/context.hpp"
#include "ragged/datatype.hpp"

namespace ragged {

namespace internal {
inline const unsigned char in_place_marker = 0;
}
/// MPI_IN_PLACE, with MPI's rules for where it goes:
/// * as sendbuf: allgather takes this rank's block from recvbuf[rank*count]; allreduce reduces
///   recvbuf in place, as do scan and exscan; reduce, gather and gatherv accept it at the root only (the root's
///   contribution is already in recvbuf);
/// * as recvbuf: scatter and scatterv accept it at the root only (the root's block stays in
///   sendbuf).
/// Anywhere else it is rejected with InvalidArgument naming the buffer.
inline const void* const in_place = &internal::in_place_marker;

class ArrivalSnapshot;
struct ClusterLayout;
struct Algorithm;
struct Selection;

/// Per-call options common to every collective.
struct CollectiveOptions {
  /// The algorithm to run: a name of the registry, "auto" (chosen by cost model and arrival
  /// snapshot), or empty: RAGGED_<COLLECTIVE> from the environment, else the rules file named by
  /// RAGGED_TUNING_FILE, else "auto" (docs/selection.md).
  std::string algorithm{};
  /// The call's time limit, from its start: every blocking wait inside the collective gets the
  /// time left, so the call raises TimeoutError within it (a rank that never arrives, a peer
  /// that has stopped).
  Timeout timeout{};
  /// Hints of the algorithm families, by type: std::shared_ptr<const ArrivalSnapshot> for the
  /// arrival-aware ones, std::shared_ptr<const ClusterLayout> for the cluster-aware ones.
  Hints hints{};
  /// A selection already made for this very call (ragged::select(), ragged/selection.hpp), or
  /// null: dispatch then selects. With one, dispatch runs its algorithm without choosing again
  /// (the PMPI library selects before it knows whether ragged or MPI runs the call). It must
  /// be of this collective and outlive the call.
  const Selection* selection = nullptr;
};

// The dispatch entry points (src/core/dispatch/): MPI's argument lists over void* and DataType,
// for the C API, the PMPI library and callers that hold raw buffers. Each validates its
// arguments (InvalidArgument names the argument), selects an algorithm, enforces its
// restrictions with a correct fallback and runs it; it returns the algorithm that ran.
// The typed API over spans is in ragged/api.hpp.
const Algorithm& allgather(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                           const CollectiveOptions& options = {});
const Algorithm& allreduce(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                           const ReduceOp& op, const CollectiveOptions& options = {});
const Algorithm& bcast(Comm& comm, void* buffer, std::size_t count, DataType type, int root,
                       const CollectiveOptions& options = {});
const Algorithm& reduce(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                        const ReduceOp& op, int root, const CollectiveOptions& options = {});
/// gather: every rank sends `count` elements; the root receives size()*count in rank order.
const Algorithm& gather(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root,
                        const CollectiveOptions& options = {});
/// scatter: the root sends size()*count elements; every rank receives its `count`.
const Algorithm& scatter(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root,
                         const CollectiveOptions& options = {});
/// gatherv: every rank sends `sendcount` elements; the root receives recvcounts[i] elements of
/// rank i at recvbuf + displs[i] (counts and displacements in elements, significant at the root;
/// displacements need not be contiguous or in rank order). Counts are ints as in MPI, so
/// negative values can be detected and reported.
const Algorithm& gatherv(Comm& comm, const void* sendbuf, int sendcount, void* recvbuf, std::span<const int> recvcounts,
                         std::span<const int> displs, DataType type, int root, const CollectiveOptions& options = {});
/// scatterv: the root sends sendcounts[i] elements from sendbuf + displs[i] to rank i, which
/// receives `recvcount` of them.
const Algorithm& scatterv(Comm& comm, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
                          void* recvbuf, int recvcount, DataType type, int root, const CollectiveOptions& options = {});
/// alltoall: block j of sendbuf (count elements) goes to rank j; block i of recvbuf comes from rank i.
const Algorithm& alltoall(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                          const CollectiveOptions& options = {});
/// alltoallv: as MPI_Alltoallv, counts and displacements in elements.
const Algorithm& alltoallv(Comm& comm, const void* sendbuf, std::span<const int> sendcounts,
                           std::span<const int> sdispls, void* recvbuf, std::span<const int> recvcounts,
                           std::span<const int> rdispls, DataType type, const CollectiveOptions& options = {});
/// scan: rank i receives x_0 op x_1 op ... op x_i (operands in rank order, as MPI_Scan).
const Algorithm& scan(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                      const ReduceOp& op, const CollectiveOptions& options = {});
/// exscan: rank i > 0 receives x_0 op ... op x_(i-1); rank 0's recvbuf is not written (MPI
/// leaves it undefined), as MPI_Exscan.
const Algorithm& exscan(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                        const ReduceOp& op, const CollectiveOptions& options = {});
/// reduce_scatter_block: the reduction of every rank's sendbuf (size() blocks of `count`
/// elements), block r to rank r's recvbuf, as MPI_Reduce_scatter_block. In place: sendbuf is
/// in_place and recvbuf holds the size() blocks on entry, the result in its first block on return.
const Algorithm& reduce_scatter_block(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                                      const ReduceOp& op, const CollectiveOptions& options = {});
/// allgatherv: every rank sends `sendcount` elements (recvcounts[rank()] of them: MPI's matching
/// type signatures); every rank receives rank i's at recvbuf + displs[i] (elements; any order, gaps
/// left unwritten), as MPI_Allgatherv. In place: sendbuf is in_place, the own block already at
/// recvbuf + displs[rank()]. Counts and displacements are the same on every rank.
const Algorithm& allgatherv(Comm& comm, const void* sendbuf, int sendcount, void* recvbuf,
                            std::span<const int> recvcounts, std::span<const int> displs, DataType type,
                            const CollectiveOptions& options = {});
/// reduce_scatter: the reduction of every rank's sendbuf (the sum of recvcounts elements), block
/// r (recvcounts[r] elements, the blocks back to back in rank order) to rank r's recvbuf, as
/// MPI_Reduce_scatter. In place: sendbuf is in_place and recvbuf holds the operand on entry, the
/// result in its first recvcounts[rank()] elements on return. recvcounts is the same on every rank.
const Algorithm& reduce_scatter(Comm& comm, const void* sendbuf, void* recvbuf, std::span<const int> recvcounts,
                                DataType type, const ReduceOp& op, const CollectiveOptions& options = {});
/// alltoallw: as MPI_Alltoallw: block j of sendbuf (sendcounts[j] elements of sendtypes[j], at
/// byte displacement sdispls[j]) goes to rank j; block i of recvbuf (recvcounts[i] elements of
/// recvtypes[i], at byte rdispls[i]) comes from rank i. A pair's two sides agree in bytes (MPI's
/// matching type signatures). In place: sendbuf is in_place and the receive side describes both.
const Algorithm& alltoallw(Comm& comm, const void* sendbuf, std::span<const int> sendcounts,
                           std::span<const int> sdispls, std::span<const DataType> sendtypes, void* recvbuf,
                           std::span<const int> recvcounts, std::span<const int> rdispls,
                           std::span<const DataType> recvtypes, const CollectiveOptions& options = {});

// Callables with the dispatch entry points' arguments, returning the algorithm that ran
// (Registry::allgather(name) etc. bind a name).
using AllgatherFn =
    std::function<const Algorithm&(Comm&, const void*, void*, std::size_t, DataType, const CollectiveOptions&)>;
using AllreduceFn = std::function<const Algorithm&(Comm&, const void*, void*, std::size_t, DataType, const ReduceOp&,
                                                   const CollectiveOptions&)>;
using BcastFn = std::function<const Algorithm&(Comm&, void*, std::size_t, DataType, int, const CollectiveOptions&)>;
using ReduceFn = std::function<const Algorithm&(Comm&, const void*, void*, std::size_t, DataType, const ReduceOp&, int,
                                                const CollectiveOptions&)>;
using GatherFn =
    std::function<const Algorithm&(Comm&, const void*, void*, std::size_t, DataType, int, const CollectiveOptions&)>;
using ScatterFn = GatherFn;
using GathervFn = std::function<const Algorithm&(Comm&, const void*, int, void*, std::span<const int>,
                                                 std::span<const int>, DataType, int, const CollectiveOptions&)>;
using ScattervFn = std::function<const Algorithm&(Comm&, const void*, std::span<const int>, std::span<const int>, void*,
                                                  int, DataType, int, const CollectiveOptions&)>;
using AlltoallFn = AllgatherFn;
using AlltoallvFn =
    std::function<const Algorithm&(Comm&, const void*, std::span<const int>, std::span<const int>, void*,
                                   std::span<const int>, std::span<const int>, DataType, const CollectiveOptions&)>;
using ScanFn = AllreduceFn;
using AllgathervFn = std::function<const Algorithm&(Comm&, const void*, int, void*, std::span<const int>,
                                                    std::span<const int>, DataType, const CollectiveOptions&)>;
using ReduceScatterFn = std::function<const Algorithm&(Comm&, const void*, void*, std::span<const int>, DataType,
                                                       const ReduceOp&, const CollectiveOptions&)>;
using AlltoallwFn = std::function<const Algorithm&(
    Comm&, const void*, std::span<const int>, std::span<const int>, std::span<const DataType>, void*,
    std::span<const int>, std::span<const int>, std::span<const DataType>, const CollectiveOptions&)>;

/// A dissemination barrier over Comm (used by benchmarks and tests on every backend).
void barrier(Comm& comm, Timeout timeout = {});

}  // namespace ragged
