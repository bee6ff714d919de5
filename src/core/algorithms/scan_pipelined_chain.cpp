// Inclusive scan down a segmented chain (MPI_Scan).
//
// Rank r receives segment t of x_0 ∘ ... ∘ x_(r-1) from r - 1, puts it on the left of its own
// segment and sends the result, its own answer, on to r + 1; 32 KiB segments keep every link of
// the chain busy at once. P = 4, 3 segments a, b, c, time in segment steps:
//
//   rank 0:  a  b  c              (sends its own segments)
//   rank 1:     a  b  c           (x_0 ∘ x_1, forwarded)
//   rank 2:        a  b  c
//   rank 3:           a  b  c     (receives and combines only)
//
// Reference: the pipelined linear scan; see P. Sanders, J. L. Träff, "Parallel prefix (scan)
//   algorithms for MPI", EuroPVM/MPI 2006, for its place beside the doubling algorithms.
// Cost (α-β-γ, segments of s bytes and σ elements, S = ⌈n/s⌉): (P - 1 + S - 1)(α + sβ + σγ).
// Limitations: P - 1 steps of latency before the last rank's first segment (long vectors, few ranks).
// Memory: two segments a rank (rank 0 none).
#include "algorithms/list.hpp"
#include "internal/prefix.hpp"

namespace ragged {

void scan_pipelined_chain(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                          const ReduceOp& op) {
  internal::prefix_pipelined_chain(ctx, sendbuf, recvbuf, count, type, op, internal::Prefix::inclusive);
}

}  // namespace ragged
