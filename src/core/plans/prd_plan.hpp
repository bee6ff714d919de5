// The plan of allreduce "prd", the prereduced direct exchange (ragged's own, beyond Proficz 2018;
// docs/algorithms/prd.md). Pure functions of the (estimated) arrival times, the vector and the
// link model; no communication.
//
// The latest process by estimate is `late`; the others, `early`, earliest first, own one block
// each of the vector (block j of Q = P-1 nearly equal blocks, ring::segment_*). Each block is
// cut into `rounds` pieces; piece (r, j) is piece r of block j. Round r moves piece r of every
// block at once, so the late process's data leaves it in `rounds` waves.
//
//   P = 4, rank 0 late, rounds = 2: blocks b0 b1 b2 owned by ranks 1 2 3 (earliest first)
//
//   vector   | b0: (0,0) (1,0) | b1: (0,1) (1,1) | b2: (0,2) (1,2) |
//   round 0 moves (0,0) (0,1) (0,2); round 1 moves (1,0) (1,1) (1,2)
//
// `rounds` balances the pipeline's extra wave, n beta / m, against one more message latency per
// wave: m = round(sqrt(n beta / alpha)), at most max_rounds and at most as many as keep a piece
// at min_piece_bytes or more (and at least 1).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace ragged::plans::prd {

inline constexpr int max_rounds = 16;
inline constexpr std::size_t min_piece_bytes = 4096;

struct Plan {
  int late = -1;           ///< the latest rank by estimate (ties: the highest rank)
  std::vector<int> early;  ///< every other rank, earliest first (ties by rank): early[j] owns block j
  int rounds = 1;          ///< waves of the direct exchange
  /// Index of `rank` in `early`, or -1 for the late rank.
  [[nodiscard]] int position(int rank) const;
};

/// The number of waves for a vector of `bytes` bytes over `blocks` early ranks (>= 1); alpha and
/// beta of the link (both 0: an unknown link, then the defaults of `auto`).
int rounds_for(std::size_t bytes, int blocks, double alpha, double beta);

/// The plan for `arrivals` (one per rank, at least 2). Throws std::invalid_argument for fewer
/// than two ranks.
Plan make_plan(std::span<const double> arrivals, std::size_t bytes, double alpha, double beta);

struct Piece {
  std::size_t offset = 0;  ///< first element
  std::size_t count = 0;   ///< elements (may be 0 for a short vector)
};

/// Piece (round, block) of a vector of `count` elements cut into `blocks` blocks of `rounds`
/// pieces each. The pieces of all rounds and blocks tile the vector exactly once.
Piece piece(std::size_t count, int blocks, int rounds, int block, int round);

}  // namespace ragged::plans::prd
