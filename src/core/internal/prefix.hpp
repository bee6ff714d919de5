// What the inclusive and exclusive prefix reductions share (scan_*.cpp and exscan_*.cpp): the
// same two communication patterns, the exclusive one writing only what came from lower ranks.
#pragma once

#include <cstddef>

#include "ragged/context.hpp"
#include "ragged/datatype.hpp"

namespace ragged::internal {

/// Whether recvbuf gets x_0 ∘ ... ∘ x_i (inclusive, MPI_Scan) or x_0 ∘ ... ∘ x_(i-1)
/// (exclusive, MPI_Exscan: rank 0's recvbuf is left alone).
enum class Prefix { inclusive, exclusive };

/// Recursive doubling (scan_recursive_doubling.cpp has the picture). sendbuf may be recvbuf.
void prefix_recursive_doubling(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                               const ReduceOp& op, Prefix kind);

/// The segmented chain 0 -> 1 -> ... -> P-1 (scan_pipelined_chain.cpp has the picture). sendbuf may be recvbuf.
void prefix_pipelined_chain(Context& ctx, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                            const ReduceOp& op, Prefix kind);

}  // namespace ragged::internal
