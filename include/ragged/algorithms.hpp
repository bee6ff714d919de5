// ragged: every algorithm of ragged::core, one free function each (one file
// each under src/core/algorithms/). Signatures are the uniform ones of
// collectives.hpp; the registry knows them by the names in the comments.
#pragma once

#include "ragged/collectives.hpp"

namespace ragged {

// allgather
void allgather_ring(Comm&, const void*, void*, std::size_t, DataType, const CollectiveOptions&);   // "ring"
void allgather_nex(Comm&, const void*, void*, std::size_t, DataType, const CollectiveOptions&);    // "nex"
void allgather_lnbc(Comm&, const void*, void*, std::size_t, DataType, const CollectiveOptions&);   // "lnbc"
void allgather_bruck(Comm&, const void*, void*, std::size_t, DataType, const CollectiveOptions&);  // "bruck"

// allreduce
void allreduce_ring(Comm&, const void*, void*, std::size_t, DataType, const ReduceOp&,
                    const CollectiveOptions&);  // "ring"
void allreduce_rabenseifner(Comm&, const void*, void*, std::size_t, DataType, const ReduceOp&,
                            const CollectiveOptions&);  // "rabenseifner"
void allreduce_recursive_doubling(Comm&, const void*, void*, std::size_t, DataType, const ReduceOp&,
                                  const CollectiveOptions&);  // "recursive_doubling"
void allreduce_pipelined_linear(Comm&, const void*, void*, std::size_t, DataType, const ReduceOp&,
                                const CollectiveOptions&);  // "pipelined_linear"

// bcast
void bcast_binomial(Comm&, void*, std::size_t, DataType, int, const CollectiveOptions&);  // "binomial"
void bcast_linear(Comm&, void*, std::size_t, DataType, int, const CollectiveOptions&);    // "linear"

// reduce
void reduce_binomial(Comm&, const void*, void*, std::size_t, DataType, const ReduceOp&, int,
                     const CollectiveOptions&);  // "binomial"

// gather and scatter
void gather_linear(Comm&, const void*, void*, std::size_t, DataType, int, const CollectiveOptions&);     // "linear"
void gather_binomial(Comm&, const void*, void*, std::size_t, DataType, int, const CollectiveOptions&);   // "binomial"
void scatter_linear(Comm&, const void*, void*, std::size_t, DataType, int, const CollectiveOptions&);    // "linear"
void scatter_binomial(Comm&, const void*, void*, std::size_t, DataType, int, const CollectiveOptions&);  // "binomial"

}  // namespace ragged
