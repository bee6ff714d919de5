// Cost models of the prefix reductions (scan, exscan), of reduce_scatter_block and reduce_scatter, built on the
// models of plans/cost_model.hpp (which includes this file at its end; either header gives both).
#pragma once

#include <algorithm>
#include <cmath>

#include "plans/cost_input.hpp"
#include "plans/cost_model.hpp"

namespace ragged::plans::cost {

/// Prefix reductions (scan_recursive_doubling.cpp): ceil(log2 P) exchanges of the whole vector
/// with rank xor d, each followed by up to two local reductions.
inline double scan_recursive_doubling(const CostInput& x) {
  if (!flat(x)) {
    double t = 0;
    for (int d = 1; d < x.procs; d *= 2) {
      t += layered_step(x, x.bytes, off_xor(x, d), exchange_slow(x, x.bytes)) + 2 * x.bytes * x.gamma;
    }
    return t;
  }
  return log2_ceil(x.procs) * (x.alpha + x.bytes * x.beta + 2 * x.bytes * x.gamma);
}
/// The segmented chain 0 -> 1 -> ... -> P-1 (scan_pipelined_chain.cpp): the first segment's
/// P - 1 hops, each forwarded after one local reduction, then S - 1 more segments behind it at the
/// slowest hop's pace. On consecutive ranks per node, nodes - 1 hops leave a node (one sender per
/// node: the card is not shared) and the rest stay inside; flat: (P - 1 + S - 1)(α + sβ + sγ).
inline double scan_pipelined_chain(const CostInput& x) {
  constexpr double segment = 32 * 1024;
  const double segments = std::max(1.0, std::ceil(x.bytes / segment));
  const double s = std::min(segment, x.bytes);
  const double inter = std::max(x.alpha + s * x.beta, x.gap) + s * x.gamma;
  if (flat(x)) return (x.procs - 1 + segments - 1) * inter;
  const double intra = std::max(alpha_intra(x) + s * beta_intra(x), x.gap) + s * x.gamma;
  const int hops = std::max(0, x.procs - 1);
  const int crossings = one_node(x)                                ? 0
                        : x.regular_layout || x.consecutive_layout ? std::min(hops, std::max(0, x.nodes - 1))
                                                                   : hops;
  const double slowest = crossings > 0 ? std::max(inter, intra) : intra;
  return crossings * inter + (hops - crossings) * intra + (segments - 1) * slowest;
}
inline double exscan_recursive_doubling(const CostInput& x) { return scan_recursive_doubling(x); }
inline double exscan_pipelined_chain(const CostInput& x) { return scan_pipelined_chain(x); }
// reduce_scatter_block (x.bytes: the whole vector of P blocks; b = one block)
/// Pairwise exchange (reduce_scatter_block_pairwise.cpp): in step k every rank sends block r + k
/// to rank r + k and folds in what r - k sent: P - 1 steps of one block.
inline double reduce_scatter_block_pairwise(const CostInput& x) {
  const double b = x.bytes / std::max(1, x.procs);
  if (flat(x)) return (x.procs - 1) * (x.alpha + b * x.beta + b * x.gamma);
  double t = 0;
  for (int k = 1; k < x.procs; ++k) t += layered_step(x, b, off_shift(x, k)) + b * x.gamma;
  return t;
}
/// The ring (reduce_scatter_block_ring.cpp): P - 1 steps of one block to the next rank.
inline double reduce_scatter_block_ring(const CostInput& x) {
  const double b = x.bytes / std::max(1, x.procs);
  if (flat(x)) return (x.procs - 1) * (x.alpha + b * x.beta + b * x.gamma);
  return (x.procs - 1) * (layered_ring_step(x, b) + b * x.gamma);
}
/// Binomial reduce of the whole vector to rank 0 in rank order, then binomial scatter of the
/// blocks (reduce_scatter_block_reduce_scatter.cpp).
inline double reduce_scatter_block_reduce_scatter(const CostInput& x) {
  CostInput block = x;
  block.bytes = x.bytes / std::max(1, x.procs);
  return reduce_binomial(x) + scatter_binomial(block);
}

// reduce_scatter (x.bytes: the whole vector, n; x.largest: the largest block, L)
/// Pairwise exchange (reduce_scatter_pairwise.cpp): P - 1 steps, each as long as its largest block.
inline double reduce_scatter_pairwise(const CostInput& x) {
  const double b = x.largest;
  if (flat(x)) return (x.procs - 1) * (x.alpha + b * x.beta + b * x.gamma);
  double t = 0;
  for (int k = 1; k < x.procs; ++k) t += layered_step(x, b, off_shift(x, k)) + b * x.gamma;
  return t;
}
/// The ring (reduce_scatter_ring.cpp): P - 1 steps of at most the largest block.
inline double reduce_scatter_ring(const CostInput& x) {
  const double b = x.largest;
  if (flat(x)) return (x.procs - 1) * (x.alpha + b * x.beta + b * x.gamma);
  return (x.procs - 1) * (layered_ring_step(x, b) + b * x.gamma);
}
/// Recursive halving (reduce_scatter_recursive_halving.cpp): a fold when P is not a power of two,
/// then log2 P' steps, step k moving and folding the half of the window, at least the largest
/// block; an unfold of one block.
inline double reduce_scatter_recursive_halving(const CostInput& x) {
  const int pof2 = 1 << static_cast<int>(std::floor(std::log2(std::max(1, x.procs))));
  const bool folds = pof2 != x.procs;
  double t = folds ? x.alpha + x.bytes * (x.beta + x.gamma) + x.alpha + x.largest * x.beta : 0;
  double half = x.bytes;
  for (int d = pof2 / 2; d >= 1; d /= 2) {
    half /= 2;
    const double s = std::min(x.bytes, std::max(half, x.largest));
    t += (flat(x) ? x.alpha + s * x.beta : layered_step(x, s, off_xor(x, d), exchange_slow(x, s))) + s * x.gamma;
  }
  return t;
}
/// Binomial reduce of the whole vector to the rank of the largest block, then the scatterv of
/// Träff's tree of the rest (reduce_scatter_reduce_scatterv.cpp): ceil(log2 P) alpha + (n - L) beta.
inline double reduce_scatter_reduce_scatterv(const CostInput& x) {
  return reduce_binomial(x) + log2_ceil(x.procs) * x.alpha + (x.bytes - x.largest) * x.beta;
}

}  // namespace ragged::plans::cost
