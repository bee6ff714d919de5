// ragged: irregular gather and scatter (MPI_Gatherv, MPI_Scatterv), issue 4 / seed 003.
//
// Every function has the uniform signature of its collective (collectives.hpp) and
// MPI's semantics: counts and displacements in elements, significant at the root;
// the root's displacements need not be contiguous or in rank order; zero counts;
// any root; ragged::in_place as the root's sendbuf (gatherv: its block is already
// at recvbuf + displs[root]) or as the root's recvbuf (scatterv: its block stays at
// sendbuf + displs[root]). The registry knows them by the names in the comments.
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
#include <span>

#include "ragged/collectives.hpp"

namespace ragged {

/// The cost model behind the gather-time estimates of Träff's trees.
enum class TraffCost {
  lemma1,  ///< a gather root's own block costs nothing (theorem 1, the paper's experiments)
  lemma4,  ///< every rank copies its own block into a communication buffer once
};

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

// gatherv
void gatherv_traff(Comm&, const void*, int, void*, std::span<const int>, std::span<const int>, DataType, int,
                   const CollectiveOptions&);  // "traff": lemma 1, no threshold
void gatherv_traff_copy(Comm&, const void*, int, void*, std::span<const int>, std::span<const int>, DataType, int,
                        const CollectiveOptions&);  // "traff_copy": lemma 4
void gatherv_traff_degrade(Comm&, const void*, int, void*, std::span<const int>, std::span<const int>, DataType, int,
                           const CollectiveOptions&);  // "traff_degrade": lemma 1 + threshold
void gatherv_traff_with(Comm& comm, const void* sendbuf, int sendcount, void* recvbuf, std::span<const int> recvcounts,
                        std::span<const int> displs, DataType type, int root, const CollectiveOptions& options,
                        const TraffOptions& traff);
void gatherv_linear(Comm&, const void*, int, void*, std::span<const int>, std::span<const int>, DataType, int,
                    const CollectiveOptions&);  // "linear"
void gatherv_binomial(Comm&, const void*, int, void*, std::span<const int>, std::span<const int>, DataType, int,
                      const CollectiveOptions&);  // "binomial"
void gatherv_padded(Comm&, const void*, int, void*, std::span<const int>, std::span<const int>, DataType, int,
                    const CollectiveOptions&);  // "padded"

// scatterv
void scatterv_traff(Comm&, const void*, std::span<const int>, std::span<const int>, void*, int, DataType, int,
                    const CollectiveOptions&);  // "traff"
void scatterv_traff_copy(Comm&, const void*, std::span<const int>, std::span<const int>, void*, int, DataType, int,
                         const CollectiveOptions&);  // "traff_copy"
void scatterv_traff_degrade(Comm&, const void*, std::span<const int>, std::span<const int>, void*, int, DataType, int,
                            const CollectiveOptions&);  // "traff_degrade"
void scatterv_traff_with(Comm& comm, const void* sendbuf, std::span<const int> sendcounts, std::span<const int> displs,
                         void* recvbuf, int recvcount, DataType type, int root, const CollectiveOptions& options,
                         const TraffOptions& traff);
void scatterv_linear(Comm&, const void*, std::span<const int>, std::span<const int>, void*, int, DataType, int,
                     const CollectiveOptions&);  // "linear"
void scatterv_binomial(Comm&, const void*, std::span<const int>, std::span<const int>, void*, int, DataType, int,
                       const CollectiveOptions&);  // "binomial"
void scatterv_padded(Comm&, const void*, std::span<const int>, std::span<const int>, void*, int, DataType, int,
                     const CollectiveOptions&);  // "padded"

}  // namespace ragged
