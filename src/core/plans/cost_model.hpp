// Alpha-beta(-gamma) cost models of the core algorithms, as docs/algorithms/ states them, for
// `auto` selection (src/core/dispatch/select.cpp). Pure functions of values every rank shares.
//
//   p = procs, m = bytes (one rank's block, or the whole vector for allreduce/bcast/reduce),
//   L = ceil(log2 p), alpha per message, beta per byte, gamma per byte reduced.
//
// Layouts (CostInput::nodes, per_node, regular_layout, alpha_intra, beta_intra, gap; docs/selection.md,
// "Layouts"): with k = per_node > 1 ranks on a node, alpha and beta are the link between two
// nodes, which the k ranks of a node share, and alpha_intra, beta_intra the link inside one.
// A step in which `off` of a node's ranks send s bytes off-node at once costs
// alpha + off s beta for them (one card carries every stream: beta times the number sending),
// and alpha_intra + s beta_intra for the ranks whose partner is on their node: the step takes
// the slower of the two, and at least the gap g (a rank starts its messages g apart). A ring on
// consecutive ranks crosses nodes only at node boundaries (off = 1); recursive doubling or
// halving at distance d >= k has all k ranks of a node off-node at once (off = k); a binomial
// tree's level at distance d >= k has at most one sender per node. Exchanges (recursive halving
// and doubling, neighbour exchange: both directions of each pair carry a message in the same
// step) move messages of at least eager_limit bytes at exchange_factor of the rate when the
// network says so (NetworkModel::exchange_factor; TCP with one connection per pair, docs/
// calibration.md). Without a layout (per_node <= 1), a gap or an exchange factor, every model is
// the formula it was before layouts (flat(), tests/unit/cost_layout_test.cpp).
//
// The arrival-aware models (bdr, bgd, bslb, bsls, sls) give the time an algorithm still needs
// after the last process arrived, in Proficz 2021's step model (one segment of m bytes takes
// tau = alpha + m beta between two processes): k = min(p - 1, floor(omega / tau)) steps fit
// between the first and the last arrival.
//   bdr:  its pre-steps carry only each rank's own segment, and the last rank's segment still
//         travels the whole ring after it arrives: (p - 1) tau, the ring's (docs/algorithms/bdr.md).
//   bgd:  fills the pre-steps with forwarding, so at most p - 1 - k steps remain, and never fewer
//         than the L steps the last segment needs to reach everyone: max(L, p - 1 - k) tau.
//   bslb: the last block reaches rank 0 (tau), then the selected broadcast of p m bytes.
//   bsls, sls: the last block reaches the root: tau (sls adds the root's signal: + alpha).
// The arrival-aware allreduce models (slt, prr; Proficz 2018's step model, one process late by omega,
// the others together) give the mean over the ranks of the time each still needs after the last
// arrival, the part of e-bar an algorithm controls: their last rank finishes no earlier than the
// ring's, their gain is that the others finish earlier.
//   slt: pipelined_linear's chain with the latest process at position 0 (plans/slt_order.hpp);
//        segments of s = min(32 KiB, m) bytes, tau_s = alpha + s beta, S = ceil(m / s), W =
//        floor(omega / tau_s). The partials reach position 0 in steps P-1 .. P+S-2, one a step;
//        its agent takes those before its arrival. On a switch a middle rank's one port carries
//        the partials still on their way (R = max(0, P-1+S-W) of them) and the S results, so
//        position k is done about R + S + k steps after the last arrival:
//        (R + S + (P-2)(P+1)/(2P)) tau_s + m gamma (with separate links per direction, as in
//        figure 6 and plans::slt::step_model, R shrinks to max(0, P-1-W)). With omega = 0 the
//        last rank needs R + S + P-2 = 2(P-1+S) - 1 steps, pipelined_linear's model plus one.
//   prr: P segments, tau = alpha + (m/P) beta, A = floor(omega / tau) pre-steps
//        (plans/prr_schedule.hpp): the early rank at ring position q <= P-3 finishes P + q + 1
//        steps after the last arrival (its last forward), or 2P-2-A if q <= P-3-A; position P-2
//        after 2P-2; the late rank after max(P, 2P-2-A) (P once A >= P-1); plus the ring's
//        (P-1)/P m gamma. With A = 0 every rank needs 2P-2 steps: the ring.
//   prd: the early ranks' reduce-scatter, Q = P-1 of them: (Q-1)(alpha + m beta / Q), what is
//        left of it after omega, then w + 1 waves of alpha + m beta / w (w = plans::prd's
//        rounds, from alpha and beta), plus m gamma / Q for the late rank's pieces.
// In these models omega is latest minus earliest arrival; slt, prr and prd read omega_last, the
// latest rank's lead over the second latest (Proficz 2018's one late process, the others together).
// The node-aware (hierarchical) models are in plans/cost_model_node_aware.hpp, the prefix reductions' and
// reduce_scatter_block's in plans/cost_model_reductions.hpp, the segmented chains of bcast and
// reduce (regular and sorted) in plans/cost_model_chains.hpp, all included at the end.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "plans/cost_input.hpp"
#include "plans/double_tree_plan.hpp"
#include "plans/pipelined_chain_plan.hpp"
#include "plans/prd_plan.hpp"

namespace ragged::plans::cost {

/// ceil(log2 p) for p >= 1.
inline double log2_ceil(int p) {
  int l = 0;
  while ((1 << l) < p) ++l;
  return l;
}

inline double tau(const CostInput& x) { return x.alpha + x.bytes * x.beta; }

// ---------------------------------------------------------------- layouts (see the top)

/// One rank per node and no gap: the models are their flat alpha-beta formulas.
inline bool flat(const CostInput& x) { return x.per_node <= 1 && !(x.gap > 0) && !(x.exchange_factor < 1); }
inline int per_node(const CostInput& x) { return std::max(1, x.per_node); }
inline double alpha_intra(const CostInput& x) { return x.alpha_intra > 0 ? x.alpha_intra : x.alpha; }
inline double beta_intra(const CostInput& x) { return x.beta_intra > 0 ? x.beta_intra : x.beta; }
/// All ranks on one node: no message leaves it.
inline bool one_node(const CostInput& x) { return x.nodes == 1; }
/// A step in which `off` of a node's ranks send s bytes off-node at once (sharing the node's
/// link: beta times off) and the others s bytes inside the node; at least one gap. `slow`
/// multiplies the bytes' time (exchange_slow()).
inline double layered_step(const CostInput& x, double s, int off, double slow = 1) {
  const int k = per_node(x);
  if (one_node(x)) off = 0;
  double t = 0;
  if (off < k) t = alpha_intra(x) + s * beta_intra(x) * slow;
  if (off > 0) t = std::max(t, x.alpha + s * x.beta * off * slow);
  return std::max(t, x.gap);
}
/// The node's memory (CostInput::beta_node): the ranks of a node that each take in `bytes` share
/// it, however the bytes travel: per_node bytes beta_node (0 when unknown or one rank a node).
inline double node_memory(const CostInput& x, double bytes) {
  return x.beta_node > 0 && per_node(x) > 1 ? per_node(x) * bytes * x.beta_node : 0;
}
/// An allgather step in which every rank takes in s bytes: the layered step, and no less than its
/// latency plus the node's memory for the s bytes of each of its ranks.
inline double memory_step(const CostInput& x, double s, int off, double slow = 1) {
  const double t = layered_step(x, s, off, slow);
  if (!(x.beta_node > 0)) return t;
  return std::max(t, (off > 0 && !one_node(x) ? x.alpha : alpha_intra(x)) + node_memory(x, s));
}
/// How much longer the bytes of an exchange step take than a one-way message's: 1 /
/// exchange_factor from the eager limit on, 1 below it or without a factor.
inline double exchange_slow(const CostInput& x, double s) {
  return x.exchange_factor > 0 && x.exchange_factor < 1 && s >= x.eager_limit ? 1 / x.exchange_factor : 1;
}
/// Ranks of a node whose partner r + d (mod p) is on another node, for k consecutive ranks per
/// node (node 0's; every rank of a layout whose nodes are not consecutive counts). A node of
/// fewer consecutive ranks has no more of them, wherever it starts.
inline int off_shift(const CostInput& x, int d) {
  const int k = per_node(x);
  const int p = std::max(1, x.procs);
  if (!x.regular_layout && !x.consecutive_layout) return k;
  d = ((d % p) + p) % p;
  if (d == 0) return 0;
  const int stay = std::max(0, k - d) + std::max(0, k - (p - d));
  return k - std::min(k, stay);
}
/// Ranks of a node whose partner r xor d is on another node (node 0's, k consecutive ranks).
inline int off_xor(const CostInput& x, int d) {
  const int k = per_node(x);
  if (!x.regular_layout) return k;
  int off = 0;
  for (int r = 0; r < k; ++r) off += (r ^ d) >= k ? 1 : 0;
  return off;
}
/// A level of a binomial tree at distance d: at most one sender per node leaves it when
/// d >= k (or when d does not divide the node evenly), none otherwise.
inline int off_binomial(const CostInput& x, int d) {
  const int k = per_node(x);
  if (!x.regular_layout) return k;
  return d >= k || k % (2 * d) != 0 ? 1 : 0;
}
/// A binomial tree of ceil(log2 p) levels, each moving `bytes_at(d)` at distance d = 1, 2, 4, ...
template <class Bytes>
double layered_binomial(const CostInput& x, Bytes bytes_at) {
  double t = 0;
  for (int d = 1; d < x.procs; d *= 2) t += layered_step(x, bytes_at(d), off_binomial(x, d));
  return t;
}
/// One step of the ring on consecutive ranks: a message of s bytes to the next rank.
inline double layered_ring_step(const CostInput& x, double s) { return layered_step(x, s, off_shift(x, 1)); }
/// Recursive halving (reduce-scatter) then recursive doubling (allgather) on the power-of-two
/// part p' of p: step d = p'/2, ..., 1 moves m d / p' bytes each way, all k ranks of a node
/// off-node once d >= k; plus the reduction (p'-1)/p' m gamma. For allreduce rabenseifner's
/// model (TODO(layout merge): its own fold or pre-step is added by that model).
inline double halving_doubling(const CostInput& x) {
  int pow2 = 1;
  while (pow2 * 2 <= x.procs) pow2 *= 2;
  double t = 0;
  for (int d = pow2 / 2; d >= 1; d /= 2) {
    const double s = x.bytes * d / pow2;
    t += 2 * layered_step(x, s, off_xor(x, d), exchange_slow(x, s));
  }
  return t + (pow2 - 1.0) / pow2 * x.bytes * x.gamma;
}
/// One step of a schedule in arrival order (bdr, bgd, slt, prr, prd): alpha + s beta; on a layout a rank's
/// partner is on any node, so all k ranks of a node may send off-node at once (off = k).
inline double arrival_order_step(const CostInput& x, double s) {
  return flat(x) ? x.alpha + s * x.beta : layered_step(x, s, per_node(x));
}
/// Steps that fit between the first and the last arrival.
inline double pre_steps(const CostInput& x) {
  const double t = arrival_order_step(x, x.bytes);
  if (!(t > 0)) return x.procs - 1;
  return std::min<double>(x.procs - 1, std::floor(x.omega / t));
}

// allgather (m = one rank's block)
// On a layout whose node memory is known (beta_node), the step-by-step allgathers take each
// step's bytes into all ranks of a node through it: memory_step().
inline double allgather_ring(const CostInput& x) {
  if (!flat(x)) return (x.procs - 1) * memory_step(x, x.bytes, off_shift(x, 1));
  return (x.procs - 1) * tau(x);
}
inline double allgather_nex(const CostInput& x) {
  if (x.procs % 2 != 0) return allgather_ring(x);
  if (!flat(x)) {  // neighbours: one pair per node boundary crosses (off = 1), two blocks a step
    return memory_step(x, x.bytes, off_shift(x, 1), exchange_slow(x, x.bytes)) +
           (x.procs / 2.0 - 1) * memory_step(x, 2 * x.bytes, off_shift(x, 1), exchange_slow(x, 2 * x.bytes));
  }
  return x.procs / 2.0 * x.alpha + (x.procs - 1) * x.bytes * x.beta;
}
inline double allgather_bruck(const CostInput& x) {
  if (!flat(x)) {  // step d = 2^j sends min(d, p - d) blocks to rank - d (an exchange when 2d = p)
    double t = 0;
    for (int d = 1; d < x.procs; d *= 2) {
      const double s = std::min(d, x.procs - d) * x.bytes;
      t += memory_step(x, s, off_shift(x, d), 2 * d == x.procs ? exchange_slow(x, s) : 1);
    }
    return t;
  }
  return log2_ceil(x.procs) * x.alpha + (x.procs - 1) * x.bytes * x.beta;
}
/// Bruck's when P is a power of two (listed first, it wins the tie: no rotation); otherwise it
/// runs Bruck, and `auto` should name Bruck: infinite.
inline double allgather_recursive_doubling(const CostInput& x) {
  if ((x.procs & (x.procs - 1)) != 0) return std::numeric_limits<double>::infinity();
  if (!flat(x)) {  // step d = 2^j exchanges d blocks with rank xor d
    double t = 0;
    for (int d = 1; d < x.procs; d *= 2) t += memory_step(x, d * x.bytes, off_xor(x, d), exchange_slow(x, d * x.bytes));
    return t;
  }
  return allgather_bruck(x);
}
inline double allgather_bdr(const CostInput& x) { return (x.procs - 1) * arrival_order_step(x, x.bytes); }
inline double allgather_bgd(const CostInput& x) {
  return std::max(log2_ceil(x.procs), x.procs - 1 - pre_steps(x)) * arrival_order_step(x, x.bytes);
}

// allreduce (m = the whole vector)
inline double allreduce_ring(const CostInput& x) {
  const double p = x.procs;
  if (!flat(x)) return 2 * (p - 1) * layered_ring_step(x, x.bytes / p) + (p - 1) / p * x.bytes * x.gamma;
  return 2 * (p - 1) * x.alpha + 2 * (p - 1) / p * x.bytes * x.beta + (p - 1) / p * x.bytes * x.gamma;
}
/// Binary blocks (allreduce_rabenseifner.cpp): blocks s_1 < ... < s_k, P's binary digits. Block j's
/// partial chunks are reduced at R_j, the smaller block's n/s_(j-1) arriving after its own; the
/// results go back down the chain, block j's n/s_j arriving at A_j, then each block's allgather.
/// A power of two is one block: 2 log2 P alpha + 2 (P-1)/P n beta + (P-1)/P n gamma.
inline double allreduce_rabenseifner(const CostInput& x) {
  if (!flat(x)) {
    // Ranks share cards (or pay a gap): the largest block's halving and doubling, layered
    // (halving_doubling), plus the smaller blocks' pieces into it and the results back out,
    // n / s each way with s the second largest block.
    int largest = 1;
    while (largest * 2 <= x.procs) largest *= 2;
    const int rest = x.procs - largest;
    int second = 1;
    while (second * 2 <= rest) second *= 2;
    const double chain = rest == 0 ? 0 : 2 * (x.alpha + x.bytes / second * x.beta) + x.bytes / second * x.gamma;
    return halving_doubling(x) + chain;
  }
  const double n = x.bytes;
  const auto rs = [&](double s) { return std::log2(s) * x.alpha + (1 - 1 / s) * n * x.beta; };
  double reduced = 0;  // R_j of the last block seen, smallest first
  double smaller = 0;  // s_(j-1), 0 before the first
  for (int bit = 0; bit < 31; ++bit) {
    if ((x.procs & (1 << bit)) == 0) continue;
    const double s = 1 << bit;
    const double own = rs(s) + (1 - 1 / s) * n * x.gamma;
    reduced = smaller == 0 ? own : std::max(own, reduced + x.alpha + n / smaller * x.beta) + n / s * x.gamma;
    smaller = s;
  }
  // down the chain from the largest block: block j holds its results at `arrived`
  double arrived = reduced;
  double finish = 0;
  bool largest = true;
  for (int bit = 30; bit >= 0; --bit) {
    if ((x.procs & (1 << bit)) == 0) continue;
    const double s = 1 << bit;
    if (!largest) arrived += x.alpha + n / s * x.beta;
    largest = false;
    finish = std::max(finish, arrived + rs(s));
  }
  return finish;
}
inline double allreduce_recursive_doubling(const CostInput& x) {
  const bool pow2 = (x.procs & (x.procs - 1)) == 0;
  const double steps = log2_ceil(x.procs) + (pow2 ? 0 : 1);
  if (!flat(x)) {  // whole vectors with rank xor d; a non-power-of-two p adds one off-node step
    double t = pow2 ? 0 : layered_step(x, x.bytes, per_node(x)) + x.bytes * x.gamma;
    for (int d = 1; d < x.procs; d *= 2) {
      t += layered_step(x, x.bytes, off_xor(x, d), exchange_slow(x, x.bytes)) + x.bytes * x.gamma;
    }
    return t;
  }
  return steps * (x.alpha + x.bytes * x.beta + x.bytes * x.gamma);
}
inline double allreduce_pipelined_linear(const CostInput& x) {
  constexpr double segment = 32 * 1024;
  const double segments = std::max(1.0, std::ceil(x.bytes / segment));
  const double s = std::min(segment, x.bytes);
  // down the chain and back up: 2 (p - 1 + segments - 1) steps of one segment
  if (!flat(x))
    return 2 * (x.procs - 1 + segments - 1) * layered_ring_step(x, s) + (x.procs - 1 + segments - 1) * s * x.gamma;
  return 2 * (x.procs - 1 + segments - 1) * (x.alpha + s * x.beta) + (x.procs - 1 + segments - 1) * s * x.gamma;
}
/// The one-sided segmented ring (allreduce_onesided_ring.cpp, docs/algorithms/allreduce-onesided-ring.md):
/// the ready at entry, the pipeline's fill of m - 1 segments (S = 64 KiB, OneSidedTuning's default),
/// then the ring's 2(P-1) steps and its reduction (P-1)/P n gamma. The reduction is charged, not
/// taken as hidden behind the transfers: on one rank per node the measured gain of hiding it is
/// 1 % (skylake-fdr-32) and over an emulated window the one-sided ring loses to the ring, so
/// without a layout this model stays above the ring's and `auto` keeps the ring. With a layout,
/// no rank waits for its right neighbour (its puts go into free slots), so a step's latency is
/// the ring's path average, alpha_intra on k - 1 hops of k and alpha on one, while the bytes
/// still move at the slower link's rate.
inline double allreduce_onesided_ring(const CostInput& x) {
  constexpr double segment = 64 * 1024;
  const double p = x.procs;
  if (x.procs < 2) return 0;
  const double chunk = x.bytes / p;
  const double m = std::max(1.0, std::ceil(chunk / segment));
  const double s = chunk / m;
  const double reduction = (p - 1) / p * x.bytes * x.gamma;
  if (flat(x)) return x.alpha + (m - 1) * (x.alpha + s * x.beta) + allreduce_ring(x);
  const double k = one_node(x) ? p : per_node(x);
  const double alpha_path = one_node(x) ? alpha_intra(x) : ((k - 1) * alpha_intra(x) + x.alpha) / k;
  const double beta_path = one_node(x) ? beta_intra(x) : std::max(x.beta, beta_intra(x));
  const double hop = std::max(alpha_path + chunk * beta_path, x.gap);
  return alpha_path + (m - 1) * (alpha_path + s * beta_path) + 2 * (p - 1) * hop + reduction;
}
/// Proficz 2018's SLT (allreduce_slt.cpp): the mean time after the last arrival (see the top).
inline double allreduce_slt(const CostInput& x) {
  constexpr double segment = 32 * 1024;
  const double p = x.procs;
  const double s = std::min(segment, x.bytes);
  const double segments = std::max(1.0, std::ceil(x.bytes / segment));
  const double tau_s = arrival_order_step(x, s);
  const double w = tau_s > 0 ? std::floor(x.omega_last / tau_s) : 0;
  const double on_the_way = std::max(0.0, p - 1 + segments - w);
  return (on_the_way + segments + (p - 2) * (p + 1) / (2 * p)) * tau_s + x.bytes * x.gamma;
}
/// Proficz 2018's PRR (allreduce_prr.cpp): the mean time after the last arrival (see the top).
inline double allreduce_prr(const CostInput& x) {
  const int procs = x.procs;
  const double p = procs;
  const double t = arrival_order_step(x, x.bytes / p);
  const double a = t > 0 ? std::min(p, std::floor(x.omega_last / t)) : 0;
  double steps = a >= p - 1 ? p : std::max(p, 2 * p - 2 - a);  // the late rank
  if (procs >= 2) steps += 2 * p - 2;                          // position P-2: the last receive
  for (int q = 0; q + 2 < procs; ++q) steps += q <= p - 3 - a ? 2 * p - 2 - a : p + q + 1;
  return steps / p * t + (p - 1) / p * x.bytes * x.gamma;
}
/// ragged's prereduced direct exchange (allreduce_prd.cpp): the time after the last arrival.
inline double allreduce_prd(const CostInput& x) {
  if (x.procs < 2) return 0;
  const double q = x.procs - 1;
  const double reduce_scatter = (q - 1) * arrival_order_step(x, x.bytes / q) + (q - 1) / q * x.bytes * x.gamma;
  const double w = prd::rounds_for(static_cast<std::size_t>(x.bytes), x.procs - 1, x.alpha, x.beta);
  return std::max(0.0, reduce_scatter - x.omega_last) + (w + 1) * arrival_order_step(x, x.bytes / w) +
         x.bytes / q * x.gamma;
}
inline double allreduce_reduce_bcast(const CostInput& x) {
  const double l = log2_ceil(x.procs);
  if (!flat(x)) return 2 * layered_binomial(x, [&](int) { return x.bytes; }) + l * x.bytes * x.gamma;
  return 2 * l * (x.alpha + x.bytes * x.beta) + l * x.bytes * x.gamma;
}

// bcast and reduce (m = the whole vector)
/// With a layout the model also counts that a rank posts its sends at once (bcast_binomial.cpp):
/// the j sends of a rank with j children share its link, so the level at distance 2^(j-1) takes
/// j m beta, L (L + 1) / 2 m beta in all (galileo-opa-16x4, P = 64, 1 MiB: 2.20 ms measured,
/// 2.2 ms by this sum, against binomial_blocking's 0.63 ms).
inline double bcast_binomial(const CostInput& x) {
  if (!flat(x)) {
    double t = 0;
    int j = 1;
    for (int d = 1; d < x.procs; d *= 2, ++j) t += layered_step(x, j * x.bytes, off_binomial(x, d));
    return t;
  }
  return log2_ceil(x.procs) * tau(x);
}
/// A root that posts its p - 1 messages of s bytes at once (or receives them so): they start a
/// gap apart, share its own link, and those to or from other nodes share its node's card.
inline double layered_linear(const CostInput& x, double s) {
  const int k = one_node(x) ? x.procs : std::min(per_node(x), x.procs);
  const double own = alpha_intra(x) + (x.procs - 1) * s * beta_intra(x);
  const double card = one_node(x) || k >= x.procs ? 0 : x.alpha + (x.procs - k) * s * x.beta;
  return std::max({own, card, x.alpha + (x.procs - 2) * x.gap});
}
/// Flat and with the network's gap unknown, a latency a message (as MPI libraries tune it);
/// with it known (CostInput::gap_known, the simulator's), the messages' latencies overlap.
inline bool posted_at_once(const CostInput& x) { return !flat(x) || x.gap_known; }
inline double bcast_linear(const CostInput& x) {
  if (posted_at_once(x)) return layered_linear(x, x.bytes);
  return (x.procs - 1) * tau(x);
}
/// The same critical path as bcast_binomial in the flat model; listed after it, so `auto` keeps
/// "binomial" on ties. With a layout, its sends one after the other: a level, one message.
inline double bcast_binomial_blocking(const CostInput& x) {
  if (!flat(x)) return layered_binomial(x, [&](int) { return x.bytes; });
  return log2_ceil(x.procs) * tau(x);
}
/// Binomial scatter of P pieces, ring allgather of them (bcast_scatter_allgather.cpp).
inline double bcast_scatter_allgather(const CostInput& x) {
  const double p = x.procs;
  if (!flat(x)) {  // the scatter's level at distance d moves d pieces of m / p; then the ring
    return layered_binomial(x, [&](int d) { return x.bytes * d / p; }) + (p - 1) * layered_ring_step(x, x.bytes / p);
  }
  return (log2_ceil(x.procs) + p - 1) * x.alpha + 2 * (p - 1) / p * x.bytes * x.beta;
}
/// The bytes a streaming bcast moves down each link: all of them, or with x.held_blocks the
/// (P - 1) / P every rank lacks.
inline double streamed_bytes(const CostInput& x) {
  return x.held_blocks && x.procs > 0 ? x.bytes * (x.procs - 1) / x.procs : x.bytes;
}
/// The pipelined chain (bcast_pipelined_chain.cpp): P - 2 + S steps of one segment, with the
/// segment of plans/pipelined_chain_plan.hpp. With x.source_fills: the last segment's way down
/// the chain once it is at the root, P - 1 steps.
/// With x.held_blocks (P blocks, each held by its rank) the chain runs owner first, a message
/// per block, as the ring does: P - 1 block times; with x.source_fills too (allgather lnbc) one
/// block time after the source's last block, as each rank's chain pauses one block time for its
/// block's send to the root and those pauses overlap (plans/pipelined_chain_plan.hpp).
inline double bcast_pipelined_chain(const CostInput& x) {
  if (x.procs < 2) return 0;
  if (x.held_blocks) {
    const double block = x.alpha + x.bytes / x.procs * x.beta;
    return x.source_fills ? block : (x.procs - 1) * block;
  }
  const auto segments = static_cast<double>(pipelined_chain::segment_count(static_cast<std::size_t>(x.bytes), x.procs));
  const double step =
      flat(x) ? x.alpha + std::ceil(x.bytes / segments) * x.beta : layered_ring_step(x, std::ceil(x.bytes / segments));
  return (x.source_fills ? x.procs - 1 : x.procs - 2 + segments) * step;
}
/// The two-tree pipeline (bcast_double_tree.cpp): the root sends S segments, the last one then
/// descends D = floor(log2(P - 1)) levels of two sends each (plans/double_tree_plan.hpp). With
/// x.source_fills: the last segment's way down, 2 D + 1 steps; with x.held_blocks too, one block
/// time more, as an inner rank's link carries its block to the root beside the segments it
/// forwards (allgather lnbc at P = 8 measures 3-4 block times more than the gather, sim).
inline double bcast_double_tree(const CostInput& x) {
  if (x.procs < 2) return 0;
  const auto segments =
      static_cast<double>(double_tree::segment_count(static_cast<std::size_t>(x.bytes), x.procs, x.source_fills));
  const double depth = double_tree::depth(x.procs - 1);
  const double own = x.source_fills && x.held_blocks ? x.alpha + x.bytes / x.procs * x.beta : 0;
  if (!flat(x)) {
    // The two in-order trees: about 2 p / k of their edges span k ranks or more, so each node
    // sends about two streams off-node at once (off = 2) while the pipeline is full. The last
    // segment's way down: level l's edges span about p / 2^(l+1) ranks, off-node while that is
    // at least k, inside a node below.
    const double s = std::ceil(streamed_bytes(x) / segments);
    const double full = layered_step(x, s, std::min(2, per_node(x)));
    double down = 0;
    for (int l = 1; l <= static_cast<int>(depth); ++l) {
      const bool leaves = !one_node(x) && x.procs / std::pow(2.0, l + 1) >= per_node(x);
      down += 2 * layered_step(x, s, leaves ? std::min(2, per_node(x)) : 0);
    }
    return (x.source_fills ? 1 : segments) * full + down + own;
  }
  const double step = x.alpha + std::ceil(streamed_bytes(x) / segments) * x.beta;
  return ((x.source_fills ? 1 : segments) + 2 * depth) * step + own;
}
/// What a bcast that streams a source still filling adds to the fill of `fill` seconds: it ends
/// at the later of its own time `whole` and the fill's end plus its `tail` (its model with
/// CostInput::source_fills). `auto` weighs streaming bcasts by it (dispatch/select.cpp), LNBC's
/// model adds it to its gather.
inline double streamed_after_fill(double whole, double tail, double fill) { return std::max(whole - fill, tail); }
/// What a bcast selected by `auto` costs: the least of the models above (LNBC's and BSLB's
/// broadcast, src/core/dispatch/compose.hpp).
inline double bcast_selected(const CostInput& x) {
  return std::min({bcast_binomial(x), bcast_linear(x), bcast_binomial_blocking(x), bcast_scatter_allgather(x),
                   bcast_pipelined_chain(x), bcast_double_tree(x)});
}
inline double reduce_binomial(const CostInput& x) {
  if (!flat(x)) return layered_binomial(x, [&](int) { return x.bytes; }) + log2_ceil(x.procs) * x.bytes * x.gamma;
  return log2_ceil(x.procs) * (tau(x) + x.bytes * x.gamma);
}
// allgather algorithms that broadcast the gathered vector of p m bytes (m = one rank's block)
/// LNBC: the paced linear gather, then the selected broadcast. A broadcast that streams its
/// source (the chain, the double tree) runs beside the gather: it ends at the later of its own
/// time and the gather's end plus its last segment's way down (CostInput::source_fills); any
/// other starts after the gather.
inline double allgather_lnbc(const CostInput& x) {
  CostInput vector = x;
  vector.bytes = x.procs * x.bytes;
  const double gather = (x.procs - 1) * tau(x);
  const double after_gather = gather + bcast_selected(vector);
  if (x.procs < 3) return after_gather;
  vector.held_blocks = true;
  CostInput tail = vector;
  tail.source_fills = true;
  const double chain = gather + streamed_after_fill(bcast_pipelined_chain(vector), bcast_pipelined_chain(tail), gather);
  const double trees = gather + streamed_after_fill(bcast_double_tree(vector), bcast_double_tree(tail), gather);
  // Every rank takes in the p m bytes through its node's memory after the gather.
  return std::max(std::min({after_gather, chain, trees}), gather + node_memory(x, (x.procs - 1) * x.bytes));
}
/// BSLB with the agents streaming the broadcast (allgather_bslb.cpp): the gather of P - 1 blocks,
/// (P-1)(3 alpha + n beta), the stream beside it, less the omega the background absorbs; then the
/// last block's tail: into rank 0 (3 alpha + n beta) and down the chain (its model for one block).
inline double allgather_bslb(const CostInput& x) {
  const double gather = (x.procs - 1) * (2 * x.alpha + tau(x));
  const double tail = 2 * x.alpha + tau(x) + bcast_pipelined_chain(x);
  return std::max(0.0, gather - x.omega) + tail;
}

/// early_late (allgather_early_late.cpp): with one rank late by more than the early allgather
/// takes (t = P m beta + ceil(log2 P) alpha, the algorithm's split) and the others within t of
/// the earliest, what NEX among the P - 1 early ranks leaves after the last arrival plus the late
/// rank's binomial broadcast of its block (bcast_binomial_blocking's model for one block). In the
/// step model that equals BGD's best, ceil(log2 P) steps; the list puts early_late first, so it
/// wins that tie: its broadcast needs no pre-step to have run in time (at P = 560 on
/// infiniband-qdr-560, one rank 1 ms late, BGD gained nothing over NEX and early_late 1.5x).
/// Otherwise it runs NEX (or several broadcasts): NEX's time and one latency more, so that NEX
/// itself wins the tie.
inline double allgather_early_late(const CostInput& x) {
  const double t = x.procs * x.bytes * x.beta + log2_ceil(x.procs) * x.alpha;
  if (x.procs >= 3 && x.omega_last > t && x.omega - x.omega_last <= t) {
    CostInput early = x;
    early.procs = x.procs - 1;
    return std::max(0.0, allgather_nex(early) - x.omega_last) + bcast_binomial_blocking(x);
  }
  return allgather_nex(x) + x.alpha;
}

// gather and scatter (m = one rank's block)
inline double gather_linear(const CostInput& x) {
  if (posted_at_once(x)) return layered_linear(x, x.bytes);
  return (x.procs - 1) * tau(x);
}
inline double gather_binomial(const CostInput& x) {
  if (!flat(x)) return layered_binomial(x, [&](int d) { return d * x.bytes; });
  return log2_ceil(x.procs) * x.alpha + (x.procs - 1) * x.bytes * x.beta;
}
/// The sorted gathers and scatters are weighed after the last arrival, as every arrival-aware
/// model is. What the root does for the P-2 other non-root ranks before the latest one comes is
/// hidden only as far as the latest rank's lead over the second latest (omega_last) reaches; the
/// rest comes after the last arrival too. Without a snapshot (omega 0) the earlier figures.
inline double sorted_rest(const CostInput& x, double per_rank) {
  if (!(x.omega > 0) || x.procs < 3) return 0;
  return std::max(0.0, (x.procs - 2) * per_rank - x.omega_last);
}
/// BSLS and SLS (gather_bsls.cpp, gather_sls.cpp): a signal, a short part and the rest per rank.
inline double gather_bsls(const CostInput& x) { return sorted_rest(x, 3 * x.alpha + x.bytes * x.beta) + tau(x); }
inline double gather_sls(const CostInput& x) {
  return sorted_rest(x, 3 * x.alpha + x.bytes * x.beta) + x.alpha + tau(x);
}
/// SBN (gather_sbn.cpp): the others' binomial gather while the latest rank computes, then its
/// one block to the root.
inline double gather_sbn(const CostInput& x) {
  CostInput others = x;
  others.procs = std::max(1, x.procs - 1);
  return std::max(0.0, gather_binomial(others) - x.omega_last) + tau(x);
}
inline double scatter_linear(const CostInput& x) { return gather_linear(x); }
inline double scatter_binomial(const CostInput& x) { return gather_binomial(x); }
/// SLN (scatter_sln.cpp), arrival-aware: the latest rank's block after it arrives, the root early.
inline double scatter_sln(const CostInput& x) { return sorted_rest(x, tau(x)) + tau(x); }
/// SBN (scatter_sbn.cpp): the others' binomial scatter while the latest rank computes, then its
/// block from its parent.
inline double scatter_sbn(const CostInput& x) {
  CostInput others = x;
  others.procs = std::max(1, x.procs - 1);
  return std::max(0.0, scatter_binomial(others) - x.omega_last) + tau(x);
}

// gatherv, scatterv, alltoallv, alltoallw: ranks do not share the sizes, so only the latency terms count.
inline double irregular_tree(const CostInput& x) { return log2_ceil(x.procs) * x.alpha; }
inline double irregular_linear(const CostInput& x) { return (x.procs - 1) * x.alpha; }
/// P-1 steps, each waiting for its pair: a latency and a message gap per step.
inline double irregular_pairwise(const CostInput& x) { return (x.procs - 1) * (x.alpha + x.gap); }

}  // namespace ragged::plans::cost

// The node-aware models, built on the ones above.
#include "plans/cost_model_allgatherv.hpp"  // IWYU pragma: export
#include "plans/cost_model_alltoall.hpp"    // IWYU pragma: export
#include "plans/cost_model_chains.hpp"      // IWYU pragma: export
#include "plans/cost_model_node_aware.hpp"  // IWYU pragma: export
#include "plans/cost_model_reductions.hpp"  // IWYU pragma: export
