// ragged: the alltoall and alltoallv algorithms of ragged::core (one file each
// under src/core/algorithms/), registered by register_alltoall_algorithms().
// The two-cluster ones need CollectiveOptions::clusters (ragged/topology.hpp).
#pragma once

#include "ragged/collectives.hpp"
#include "ragged/topology.hpp"

namespace ragged {

// alltoall
/// "lg": seed 001's Local Group algorithm: exchange inside each cluster, packing what
/// must cross, then 2*max(n1, n2) backbone messages in ceil(max/min) steps. Needs clusters.
void alltoall_lg(Comm&, const void*, void*, std::size_t, DataType, const CollectiveOptions&);
/// "coordinator": one leader per cluster gathers what must cross, the leaders exchange it
/// in one message each way, and scatter it (PACX-MPI/MagPIe style). Needs clusters.
void alltoall_coordinator(Comm&, const void*, void*, std::size_t, DataType, const CollectiveOptions&);
/// "linear": every send and receive posted at once in a scattered order (Open MPI's basic linear).
void alltoall_linear(Comm&, const void*, void*, std::size_t, DataType, const CollectiveOptions&);
/// "pairwise": P-1 steps; in step k rank r sends to r+k and receives from r-k.
void alltoall_pairwise(Comm&, const void*, void*, std::size_t, DataType, const CollectiveOptions&);
/// "bruck": ceil(log2 P) steps of packed blocks (small messages).
void alltoall_bruck(Comm&, const void*, void*, std::size_t, DataType, const CollectiveOptions&);

// alltoallv
/// "lg": LG for blocks of different sizes: block sizes travel with the local phase, the
/// backbone phase sends 2*max(n1, n2) messages at most (none that would be empty). Needs clusters.
void alltoallv_lg(Comm&, const void*, std::span<const int>, std::span<const int>, void*, std::span<const int>,
                  std::span<const int>, DataType, const CollectiveOptions&);
/// "linear": every send and receive posted at once in a scattered order.
void alltoallv_linear(Comm&, const void*, std::span<const int>, std::span<const int>, void*, std::span<const int>,
                      std::span<const int>, DataType, const CollectiveOptions&);
/// "pairwise": P-1 steps; in step k rank r sends to r+k and receives from r-k.
void alltoallv_pairwise(Comm&, const void*, std::span<const int>, std::span<const int>, void*, std::span<const int>,
                        std::span<const int>, DataType, const CollectiveOptions&);

}  // namespace ragged
