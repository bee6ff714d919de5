// Cost models of the segmented chains of the rooted collectives: the regular reduce chain
// (reduce pipelined_chain) and the arrival-aware sorted chains of bcast and reduce, built on the
// models of plans/cost_model.hpp (which includes this file at its end; either header gives both).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "plans/cost_input.hpp"
#include "plans/cost_model.hpp"
#include "plans/pipelined_chain_plan.hpp"

namespace ragged::plans::cost {

/// The regular chain (reduce_pipelined_chain.cpp): S = ceil(m / 32 KiB) segments, the last leaves
/// the chain's first rank at step S and crosses P - 1 hops, each a segment's transfer and its
/// reduction: (P - 2 + S)(step + s gamma), a step the ring's on a layout (consecutive ranks).
/// The segments of the reduce chains: S of s bytes (32 KiB, pipelined_linear's), one step's
/// transfer of a segment (tau_s without a layout, the ring's step on one).
struct ReduceChainSegments {
  double segments = 1;
  double bytes = 0;
  double step = 0;
};
inline ReduceChainSegments reduce_chain_segments(const CostInput& x) {
  constexpr double segment = 32 * 1024;
  ReduceChainSegments c;
  c.segments = std::max(1.0, std::ceil(x.bytes / segment));
  c.bytes = std::min(segment, x.bytes);
  c.step = flat(x) ? x.alpha + c.bytes * x.beta : layered_ring_step(x, c.bytes);
  return c;
}
inline double reduce_pipelined_chain(const CostInput& x) {
  if (x.procs < 2) return 0;
  const ReduceChainSegments c = reduce_chain_segments(x);
  return (x.procs - 2 + c.segments) * (c.step + c.bytes * x.gamma);
}
/// The sorted chains (bcast_sorted_chain.cpp, reduce_sorted_chain.cpp), arrival-aware: the time
/// after the last arrival, with the root early. The chain fills in the P - 2 + S steps of one
/// segment (tau_s) its regular form takes; W = floor(omega / tau_s) of them pass before the latest
/// rank arrives, and it needs at least its own S: max(S, P - 2 + S - W) tau_s. The reduce adds its
/// segments' reduction at the latest rank and at the root, 2 m gamma. A late root (the model does
/// not know where the root is) makes it the regular chain's.
inline double sorted_chain_after(double steps_all, double segments, double step, double omega) {
  const double fill = step > 0 ? std::floor(omega / step) : 0;
  return std::max(segments, steps_all - fill) * step;
}
inline double bcast_sorted_chain(const CostInput& x) {
  if (x.procs < 2) return 0;
  const auto segments = static_cast<double>(pipelined_chain::segment_count(static_cast<std::size_t>(x.bytes), x.procs));
  const double s = std::ceil(x.bytes / segments);
  const double step = flat(x) ? x.alpha + s * x.beta : layered_ring_step(x, s);
  return sorted_chain_after(x.procs - 2 + segments, segments, step, x.omega);
}
inline double reduce_sorted_chain(const CostInput& x) {
  if (x.procs < 2) return 0;
  const ReduceChainSegments c = reduce_chain_segments(x);
  return sorted_chain_after(x.procs - 2 + c.segments, c.segments, c.step, x.omega) + 2 * x.bytes * x.gamma;
}

}  // namespace ragged::plans::cost
