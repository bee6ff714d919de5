// Cost models of the alltoall algorithms and of the spreading allgather, which moves an alltoall's
// traffic (plans/cost_model.hpp includes this file at its end; either header gives both).
#pragma once

#include <algorithm>

#include "plans/cost_input.hpp"
#include "plans/cost_model.hpp"

namespace ragged::plans::cost {

// alltoall (m = one block)
/// Every block at once: a rank's p - 1 messages (at least a gap each), its own link carrying
/// them, and its node's link carrying the k (p - k) blocks that leave the node.
inline double alltoall_linear(const CostInput& x) {
  if (!flat(x)) {
    const int k = one_node(x) ? x.procs : std::min(per_node(x), x.procs);
    const double own = alpha_intra(x) + (x.procs - 1) * x.bytes * beta_intra(x);
    const double card = one_node(x) ? 0 : x.alpha + static_cast<double>(k) * (x.procs - k) * x.bytes * x.beta;
    return std::max({own, card, (x.procs - 1) * x.gap});
  }
  return x.alpha + (x.procs - 1) * x.bytes * x.beta;
}
/// allgather "spreading" (m = one rank's block): every rank sends its block to the p - 1 others
/// at once, the traffic of the linear alltoall of m-byte blocks, where the network's gap is known
/// (the simulator's). Unknown (an MPI library's network, on any layout), a latency a message: the
/// ring's time, which it then never beats (the ring is listed first). Its one latency would
/// otherwise win every small call on one node, imbalanced ones too, on a latency the arrival
/// agent measured under load (mpi.pmpi's late-rank programs at np 3 and 4, under both MPIs).
inline double allgather_spreading(const CostInput& x) {
  if (x.gap_known) return std::max(alltoall_linear(x), x.alpha + node_memory(x, (x.procs - 1) * x.bytes));
  return (x.procs - 1) * tau(x);
}
inline double alltoall_pairwise(const CostInput& x) {
  if (!flat(x)) {  // step d: a block to rank + d
    double t = 0;
    for (int d = 1; d < x.procs; ++d) t += layered_step(x, x.bytes, off_shift(x, d));
    return t;
  }
  return (x.procs - 1) * tau(x);
}
inline double alltoall_bruck(const CostInput& x) {
  if (!flat(x)) {  // step d = 2^j: about p / 2 blocks to rank + d
    double t = 0;
    for (int d = 1; d < x.procs; d *= 2) t += layered_step(x, x.procs / 2.0 * x.bytes, off_shift(x, d));
    return t;
  }
  return log2_ceil(x.procs) * x.alpha + x.procs / 2.0 * log2_ceil(x.procs) * x.bytes * x.beta;
}

}  // namespace ragged::plans::cost
