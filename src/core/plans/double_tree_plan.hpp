// The two binary trees of bcast "double_tree" and its segment size. Pure functions, no
// communication.
//
// The root (relative rank 0) feeds two binary trees over the other P - 1 ranks; it sends the
// even segments down tree 0 and the odd ones down tree 1 (Sanders, Speck and Träff, "Two-tree
// algorithms for full bandwidth broadcast, reduction and scan", 2009; NCCL's double binary
// tree). Nodes are numbered x = 1 .. n, n = P - 1: node x is relative rank x.
//
// Tree 0 is the in-order binary tree on 1 .. n. Node x has height h = ctz(x) (the odd nodes are
// the leaves); in the complete tree on 1 .. 2^k - 1 its parent is x + 2^h when bit h + 1 of x is
// clear and x - 2^h when it is set, its children x - 2^(h-1) and x + 2^(h-1). Cut to 1 .. n:
//   - the root is the largest power of two <= n;
//   - a parent above n is replaced by its own parent, until it is <= n;
//   - the left child x - 2^(h-1) is always in; the right child is x + 2^j for the largest
//     j < h with x + 2^j <= n (none when x = n).
//
//   n = 6, tree 0:                     tree 1 (the mirror, x -> n + 1 - x):
//
//     4 ─┬─ 2 ─┬─ 1                      3 ─┬─ 5 ─┬─ 6
//        │     └─ 3                         │     └─ 4
//        └─ 6 ─── 5                         └─ 1 ─── 2
//
// Tree 1 is tree 0 mirrored (x -> n + 1 - x) when n is even and shifted by one (x -> x + 1,
// n -> 1) when n is odd. Either way no node is inner in both trees: the inner nodes of tree 0
// are the even ones, those of tree 1 the images of even nodes, which are odd. So every
// rank forwards the segments of at most one tree: each up-link carries about the message once,
// like the chain's, while a segment reaches the last rank after about 2 log2(P) hops instead
// of P - 2.
//
// Segments: the last segment leaves the root after S steps and then descends at most
// depth(n) levels, two sends per level (an inner node sends each segment to two children),
//   T(s) = (S + 2 depth)(alpha + s beta),   least at s* = sqrt(m alpha / (2 depth beta)),
// with alpha / beta = pipelined_chain::latency_bytes (plans/pipelined_chain_plan.hpp says why
// one ratio serves every network). S is even where it can be, so both trees carry as much.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstddef>

#include "plans/pipelined_chain_plan.hpp"

namespace ragged::plans::double_tree {

/// No neighbour (a root's parent, a missing child).
inline constexpr int none = 0;

namespace detail {

constexpr int height(int x) { return std::countr_zero(static_cast<unsigned>(x)); }

/// The parent of x in the complete in-order tree (may exceed n).
constexpr int full_parent(int x) {
  const int h = height(x);
  return (x >> (h + 1)) & 1 ? x - (1 << h) : x + (1 << h);
}

constexpr int root0(int n) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(n))); }

constexpr int parent0(int x, int n) {
  if (x == root0(n)) return none;
  int p = full_parent(x);
  while (p > n) p = full_parent(p);
  return p;
}

constexpr std::array<int, 2> children0(int x, int n) {
  const int h = height(x);
  if (h == 0) return {none, none};
  std::array<int, 2> c{x - (1 << (h - 1)), none};
  for (int j = h - 1; j >= 0; --j) {
    if (x + (1 << j) <= n) {
      c[1] = x + (1 << j);
      break;
    }
  }
  return c;
}

/// Tree 1's node x is tree 0's node map(x); unmap is its inverse.
constexpr int map(int x, int n) {
  if (n % 2 == 0) return n + 1 - x;
  return x == 1 ? n : x - 1;
}
constexpr int unmap(int y, int n) {
  if (n % 2 == 0) return n + 1 - y;
  return y == n ? 1 : y + 1;
}

}  // namespace detail

/// The root of `tree` (0 or 1) over nodes 1 .. n (n >= 1).
constexpr int root(int tree, int n) {
  assert(n >= 1 && (tree == 0 || tree == 1));
  return tree == 0 ? detail::root0(n) : detail::unmap(detail::root0(n), n);
}

/// The parent of node x (1 .. n) in `tree`; `none` for the tree's root (whose parent is the
/// broadcast's root, relative rank 0).
constexpr int parent(int tree, int x, int n) {
  assert(n >= 1 && x >= 1 && x <= n);
  if (tree == 0) return detail::parent0(x, n);
  const int p = detail::parent0(detail::map(x, n), n);
  return p == none ? none : detail::unmap(p, n);
}

/// The children of node x in `tree`, `none` where missing (at most two).
constexpr std::array<int, 2> children(int tree, int x, int n) {
  assert(n >= 1 && x >= 1 && x <= n);
  if (tree == 0) return detail::children0(x, n);
  std::array<int, 2> c = detail::children0(detail::map(x, n), n);
  for (int& y : c) {
    if (y != none) y = detail::unmap(y, n);
  }
  return c;
}

/// Levels below the root in tree 0 (tree 1 is the same shape): 0 for n = 1, at most
/// floor(log2 n).
constexpr int depth(int n) {
  assert(n >= 1);
  return static_cast<int>(std::bit_width(static_cast<unsigned>(n))) - 1;
}

/// With a source that still fills (a composed bcast, allgather lnbc) the segments are half as
/// long: the trees then need not outrun the fill, and what they add after its last byte is
/// 2 D + 1 segment times. Measured in lnbc's grid (sim, 1 GbE, P = 12…48, 128K…2M floats): a
/// quarter of the latency_bytes below gave 1.10–1.49× the ring where the plain size gave
/// 1.23–1.59×; twice it, 1.41–1.62×.
inline constexpr double streamed_latency_share = 0.25;

/// The number of segments of a message of `bytes` bytes broadcast to `procs` ranks: bytes / s*
/// (s* above; with `streamed`, alpha / beta taken as streamed_latency_share of latency_bytes)
/// rounded to an even number where the segments stay at least
/// pipelined_chain::min_segment_bytes; 1 for procs <= 2 or a message of one smallest segment.
inline std::size_t segment_count(std::size_t bytes, int procs, bool streamed = false) {
  assert(procs > 0);
  const std::size_t most = bytes / pipelined_chain::min_segment_bytes;
  if (procs <= 2 || most <= 1) return 1;
  const double fill = 2.0 * (depth(procs - 1) + 1);
  const double latency = pipelined_chain::latency_bytes * (streamed ? streamed_latency_share : 1.0);
  const double best = std::sqrt(static_cast<double>(bytes) * latency / fill);
  auto n = static_cast<std::size_t>(std::llround(static_cast<double>(bytes) / best));
  n = std::clamp<std::size_t>(n, 2, most);
  if (n % 2 == 1 && n + 1 <= most) ++n;
  return n;
}

/// Elements per segment for `count` elements of `element_size` bytes (at least one element).
inline std::size_t segment_elements(std::size_t count, std::size_t element_size, int procs, bool streamed = false) {
  assert(element_size > 0);
  const std::size_t n = segment_count(count * element_size, procs, streamed);
  return std::max<std::size_t>(1, (count + n - 1) / n);
}

}  // namespace ragged::plans::double_tree
