// ragged: options of the irregular gather and scatter (MPI_Gatherv, MPI_Scatterv),
// after Träff 2018.
//
// The algorithms themselves (gatherv/scatterv "traff", "traff_copy", "traff_degrade",
// "linear", "binomial", "padded") are in the registry (src/core/algorithms/list.def)
// and run through ragged::gatherv / ragged::scatterv (collectives.hpp), with MPI's
// semantics: counts and displacements in elements, significant at the root; the
// root's displacements need not be contiguous or in rank order; zero counts; any
// root; ragged::in_place as the root's sendbuf (gatherv: its block is already at
// recvbuf + displs[root]) or as the root's recvbuf (scatterv: its block stays at
// sendbuf + displs[root]).
//
// Bad input raises InvalidArgument naming the argument: a negative count or
// displacement, a root out of range, counts or displacements without one entry per
// rank, in_place away from the root. Counts that disagree between the root and a
// sender are found where it is cheap (see docs/algorithms/traff.md for which
// algorithm finds what); those errors are raised at the end of the call, after the
// communication, so that the other ranks do not hang.
#pragma once

#include <cstddef>
#include <optional>

namespace ragged {

/// The cost model behind the gather-time estimates of Träff's trees.
enum class TraffCost {
  lemma1,  ///< a gather root's own block costs nothing (theorem 1, the paper's experiments)
  lemma4,  ///< every rank copies its own block into a communication buffer once
};

/// Options of Traff's trees; as a hint (options.hints.set(std::make_shared<const TraffOptions>(...)))
/// they replace the defaults of gatherv and scatterv "traff".
struct TraffOptions {
  TraffCost cost = TraffCost::lemma1;
  /// Graceful degradation: a subtree carrying more than this many bytes goes straight to
  /// (gatherv) or comes straight from (scatterv) the root instead of through the tree.
  /// std::nullopt: off (the paper's algorithm). 0: every non-empty block goes straight:
  /// the linear algorithm.
  std::optional<std::size_t> direct_threshold_bytes;
};

/// The subtree threshold of the registered "traff_degrade" algorithms.
inline constexpr std::size_t traff_degrade_threshold_bytes = 64 * 1024;

}  // namespace ragged
