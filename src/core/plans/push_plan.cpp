#include "plans/push_plan.hpp"

#include <algorithm>
#include <cassert>

namespace ragged::plans::push {

std::size_t unit_bytes(std::size_t block, int procs) {
  if (block == 0) return 0;
  const auto peers = static_cast<std::size_t>(std::max(1, procs - 1));
  const std::size_t even = (block + peers - 1) / peers;
  return std::min(block, std::clamp(even, min_payload, max_payload));
}

int units(std::size_t block, std::size_t unit) {
  if (block == 0 || unit == 0) return 0;
  return static_cast<int>((block + unit - 1) / unit);
}

std::size_t payload(std::size_t block, std::size_t unit, int u) {
  const std::size_t first = static_cast<std::size_t>(u) * unit;
  assert(first < block);
  return std::min(unit, block - first);
}

std::vector<Send> sends(int me, int procs, int units, std::span<const bool> arrived) {
  assert(static_cast<int>(arrived.size()) == procs && me >= 0 && me < procs);
  std::vector<int> waiting;
  if (procs <= max_forward_procs) {
    for (int k = 1; k < procs; ++k) {
      const int r = (me + k) % procs;
      if (arrived[static_cast<std::size_t>(r)]) waiting.push_back(r);
    }
  }
  if (waiting.size() < 2) waiting.clear();  // one waiting rank: a direct send is the same
  std::vector<Send> out;
  std::uint64_t mask = 0;
  for (int r : waiting) mask |= std::uint64_t{1} << r;
  for (int u = 0; u < units; ++u) {
    const int member = waiting.empty() ? -1 : waiting[static_cast<std::size_t>(u) % waiting.size()];
    if (member >= 0) out.push_back(Send{member, u, mask & ~(std::uint64_t{1} << member)});
  }
  // The others, starting right of `me` so that arriving ranks spread over the receivers.
  for (int k = 1; k < procs; ++k) {
    const int r = (me + k) % procs;
    if (std::find(waiting.begin(), waiting.end(), r) != waiting.end()) continue;
    for (int u = 0; u < units; ++u) out.push_back(Send{r, u, 0});
  }
  return out;
}

}  // namespace ragged::plans::push
