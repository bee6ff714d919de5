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

/// Every rank not in `late`, in rank order.
inline std::vector<int> early_ranks(int procs, const std::vector<int>& late) {
  std::vector<int> early;
  for (int r = 0; r < procs; ++r) {
    if (std::find(late.begin(), late.end(), r) == late.end()) early.push_back(r);
  }
  return early;
}

/// The most late ranks worth a broadcast each: ceil(log2 P), at least 1.
inline int max_late(int procs) { return std::max(1, static_cast<int>(std::ceil(std::log2(std::max(2, procs))))); }

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
