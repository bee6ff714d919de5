// ragged: eventually consistent broadcast and reduce with a threshold (Iakymchuk et al. 2021, §III-B).
//
// The caller trades exactness for time: a data threshold t moves only the first
// ceil(t * count) elements; a process threshold t (reduce) keeps the full data but only the
// whole stages of the binomial tree that involve at least ceil(t * size()) ranks. Both run
// over notified one-sided writes (Window::put_notify) on a binomial spanning tree, with the
// ready and acknowledgement notifications of Iakymchuk et al. 2021's table I
// (docs/algorithms/threshold-bcast-reduce.md).
//
//   std::vector<double> model(n);
//   ragged::ThresholdStatus s = ragged::bcast_threshold(comm, model.data(), n, ragged::DataType::float64,
//                                                       0, 0.25);
//   // model[0, s.elements) now holds the root's first quarter on every rank
//
// Every call is collective over the communicator, with the same count, type, op, root,
// threshold and `by` on every rank. A call that raised TimeoutError leaves the
// communicator's threshold protocol in an unknown state: make no further threshold call on
// it.
#pragma once

#include <cstddef>

#include "ragged/collectives.hpp"
#include "ragged/comm.hpp"
#include "ragged/datatype.hpp"

namespace ragged {

/// What a threshold collective delivered. Computed from the call's arguments alone, so every
/// rank returns the same status, the one that describes the result (at the root for reduce).
struct ThresholdStatus {
  /// The result holds valid data in elements [0, elements) of the buffer; the elements from
  /// `elements` on were not written by the call (bcast: `buffer` on the non-root ranks;
  /// reduce: `recvbuf` at the root).
  std::size_t elements = 0;
  /// The number of ranks whose data is in the result: for reduce, size() with a data
  /// threshold and the ranks of the kept stages with a process threshold; for bcast, 1 (the
  /// root's).
  int contributors = 0;
  /// True when the result is the full, exact collective (elements == count and, for reduce,
  /// contributors == size()).
  bool complete = false;
};

/// What a reduce's threshold limits: the data (every rank contributes, the first
/// ceil(t * count) elements are reduced) or the processes (every element is reduced, over the
/// relative ranks [0, n) of the binomial tree, n = min(size(), 2^ceil(log2 ceil(t * size())))).
enum class ThresholdBy { data, processes };

/// Broadcasts the first ceil(threshold * count) elements of `buffer` from `root` (threshold in
/// (0, 1]; 1 is the exact broadcast). On the other ranks the elements past those are not
/// written. Throws InvalidArgument naming the argument (root, threshold, buffer, type) and
/// TimeoutError when options.timeout runs out.
ThresholdStatus bcast_threshold(Comm& comm, void* buffer, std::size_t count, DataType type, int root, double threshold,
                                const CollectiveOptions& options = {});

/// Reduces to `root` under a data or a process threshold (ThresholdBy; threshold in (0, 1], 1
/// is the exact reduce). `op` must be commutative (InvalidArgument("op") otherwise): the tree
/// combines the operands in relative-rank order, not rank order. sendbuf may be in_place at
/// the root (its contribution is then already in recvbuf); recvbuf is significant at the
/// root only, where the elements from status.elements on are not written. With a process
/// threshold the ranks outside the kept stages return at once: they take no part and
/// their data is not in the result. Every rank returns the root's status.
ThresholdStatus reduce_threshold(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                                 const ReduceOp& op, int root, double threshold, ThresholdBy by,
                                 const CollectiveOptions& options = {});

}  // namespace ragged
