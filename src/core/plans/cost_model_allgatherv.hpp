// Cost models of allgatherv (x.bytes: all blocks, n; x.largest: the largest block, L), built on
// the models of plans/cost_model.hpp (which includes this file at its end).
#pragma once

#include <algorithm>
#include <cmath>

#include "plans/allgatherv_plan.hpp"
#include "plans/cost_input.hpp"
#include "plans/cost_model.hpp"

namespace ragged::plans::cost {

/// The ring (allgatherv_ring.cpp): P - 1 steps, each as long as its largest block, at most L.
inline double allgatherv_ring(const CostInput& x) {
  if (!flat(x)) return (x.procs - 1) * layered_ring_step(x, x.largest);
  return (x.procs - 1) * (x.alpha + x.largest * x.beta);
}
/// Bruck (allgatherv_bruck.cpp): round d sends min(d, P - d) blocks, at most that many L and at
/// most all n bytes.
inline double allgatherv_bruck(const CostInput& x) {
  double t = 0;
  for (int d = 1; d < x.procs; d *= 2) {
    const double s = std::min(std::min(d, x.procs - d) * x.largest, x.bytes);
    t += flat(x) ? x.alpha + s * x.beta
                 : layered_step(x, s, off_shift(x, d), 2 * d == x.procs ? exchange_slow(x, s) : 1);
  }
  return t;
}
/// The pipelined ring (allgatherv_pipelined_ring.cpp): about P - 1 + n / s iterations of one
/// piece of at most s bytes (and at most L).
inline double allgatherv_pipelined_ring(const CostInput& x) {
  const auto s = static_cast<double>(allgatherv::segment_elements(static_cast<std::size_t>(x.bytes), 1, x.procs));
  const double piece = std::min(s, x.largest);
  const double iterations = x.procs - 1 + std::ceil(x.bytes / s);
  if (!flat(x)) return iterations * layered_ring_step(x, piece);
  return iterations * (x.alpha + piece * x.beta);
}
/// The gatherv to rank 0 (Träff's tree: ceil(log2 P) alpha + n beta at the root) and the best
/// bcast of n bytes (allgatherv_gatherv_bcast.cpp).
inline double allgatherv_gatherv_bcast(const CostInput& x) {
  return log2_ceil(x.procs) * x.alpha + x.bytes * x.beta + bcast_selected(x);
}

}  // namespace ragged::plans::cost
