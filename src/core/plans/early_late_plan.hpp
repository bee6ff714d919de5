// The split of allgather "early_late" (src/core/algorithms/allgather_early_late.cpp): which ranks
// the early ones do not wait for. Pure functions, no communication.
//
//   estimated arrivals (P = 6, the early allgather's time t = 2):   0  1  0  9  0  1
//   late = arrival - earliest > t, latest first:                    {3}
//   early (rank order): 0 1 2 4 5
//
// A late set larger than `max_late` is no split (empty): each late rank costs one broadcast of
// its block after it arrives, and with many of them the regular allgather does better.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "plans/sorted_order.hpp"

namespace ragged::plans::early_late {

/// The ranks whose estimated arrival is more than `early_time` after the earliest, latest first
/// (ties: the lower rank first); empty when there are none, more than `max_late`, or P < 3
/// (then every rank is early). Arrivals must be finite.
inline std::vector<int> late_ranks(std::span<const double> arrivals, double early_time, int max_late) {
  std::vector<int> late;
  if (arrivals.size() < 3 || !(early_time >= 0)) return late;
  const double earliest = *std::min_element(arrivals.begin(), arrivals.end());
  for (int r : sorted::latest_first(arrivals)) {
    if (arrivals[static_cast<std::size_t>(r)] - earliest <= early_time) break;
    late.push_back(r);
  }
  if (static_cast<int>(late.size()) > max_late || late.size() + 2 > arrivals.size()) late.clear();
  return late;
}

/// The most late ranks worth a broadcast each: ceil(log2 P), at least 1.
inline int max_late(int procs) { return std::max(1, static_cast<int>(std::ceil(std::log2(std::max(2, procs))))); }

/// The late ranks of early_late (allgather and allreduce) from the snapshot's arrivals and link:
/// late_ranks() with t = early_bytes beta + ceil(log2 P) alpha, about the early ranks' phase
/// (the allgather's P m bytes, the reduce-scatter's n).
inline std::vector<int> late_for(std::span<const double> arrivals, double alpha, double beta, double early_bytes,
                                 int max) {
  const int procs = static_cast<int>(arrivals.size());
  return late_ranks(arrivals, early_bytes * beta + max_late(procs) * alpha, max);
}

/// Every rank not in `late`, in rank order.
inline std::vector<int> early_ranks(int procs, const std::vector<int>& late) {
  std::vector<int> early;
  for (int r = 0; r < procs; ++r) {
    if (std::find(late.begin(), late.end(), r) == late.end()) early.push_back(r);
  }
  return early;
}

/// The most late ranks of allreduce early_late: each costs a broadcast of the whole vector after it
/// arrives, and a regular allreduce costs about two.
inline constexpr int max_late_reductions = 2;

/// The early rank that sends the early blocks to late rank `late`: the lowest early rank on its
/// node (a link inside the node, the card left alone) if `node_of` gives one, else early[i mod
/// |early|] for the late rank's index i in the late set (spread over the early ranks).
inline int sender_for(int late, int index, const std::vector<int>& early, std::span<const int> node_of) {
  if (!node_of.empty()) {
    for (int e : early) {
      if (node_of[static_cast<std::size_t>(e)] == node_of[static_cast<std::size_t>(late)]) return e;
    }
  }
  return early[static_cast<std::size_t>(index) % early.size()];
}

/// allreduce early_late's blocks: ceil(count / P) elements (the last ones padded), at least 1.
inline std::size_t block_count(std::size_t count, int procs) {
  const auto p = static_cast<std::size_t>(std::max(1, procs));
  return std::max<std::size_t>(1, (count + p - 1) / p);
}

/// allreduce early_late: the blocks each rank finishes. Early rank e: its own block e first, then
/// the block of every late rank it serves (sender_for), in the order of `late`; a late rank none
/// (it finishes its own block from the partial sum its owner sends it).
inline std::vector<std::vector<int>> block_owners(int procs, const std::vector<int>& late,
                                                  const std::vector<int>& early, std::span<const int> node_of) {
  std::vector<std::vector<int>> owners(static_cast<std::size_t>(procs));
  for (int e : early) owners[static_cast<std::size_t>(e)].push_back(e);
  for (std::size_t i = 0; i < late.size(); ++i) {
    const int sender = sender_for(late[i], static_cast<int>(i), early, node_of);
    owners[static_cast<std::size_t>(sender)].push_back(late[i]);
  }
  return owners;
}

/// The early rank whose blocks (block_owners) include late rank `late`'s; -1 if none.
inline int owner_of(int late, const std::vector<std::vector<int>>& owners) {
  for (std::size_t r = 0; r < owners.size(); ++r) {
    const std::vector<int>& blocks = owners[r];
    if (blocks.size() > 1 && std::find(blocks.begin() + 1, blocks.end(), late) != blocks.end()) {
      return static_cast<int>(r);
    }
  }
  return -1;
}

/// The runs of blocks [first, last) of the early ranks in rank order: the late ranks cut them.
inline std::vector<std::pair<int, int>> early_runs(int procs, const std::vector<int>& late) {
  std::vector<int> cut = late;
  std::sort(cut.begin(), cut.end());
  std::vector<std::pair<int, int>> runs;
  int begin = 0;
  for (int l : cut) {
    if (l > begin) runs.emplace_back(begin, l);
    begin = l + 1;
  }
  if (begin < procs) runs.emplace_back(begin, procs);
  return runs;
}

}  // namespace ragged::plans::early_late
