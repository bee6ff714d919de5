// Fuzzes SLT's chain and step model (plans/slt_order.hpp) for P <= 256 ranks and up to 64
// segments. Checks: chain_order is a permutation with arrivals non-increasing along the chain,
// ties in rank order; is_rank_order says whether position k holds rank k. For any chain (the
// sorted one or another permutation) and arrivals in steps: no rank is done before it arrives
// plus one step (P > 1), early counts are at most the segments and zero at the far end, the
// total is at least the pipeline's 2(P-1) + segments - 1 steps and exactly that when all arrive
// together, and letting agents receive never makes it longer.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "fuzz_check.hpp"
#include "plans/slt_order.hpp"

namespace slt = ragged::plans::slt;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int p = in.ConsumeIntegralInRange<int>(0, 256);
  const auto up = static_cast<std::size_t>(p);
  const bool together = in.ConsumeIntegralInRange<int>(0, 7) == 0;
  std::vector<double> a = ragged::fuzz::arrivals(in, p, 1.0);
  if (together) std::fill(a.begin(), a.end(), a.empty() ? 0.0 : a.front());
  const std::size_t segments = in.ConsumeIntegralInRange<std::size_t>(0, 64);

  const std::vector<int> chain = slt::chain_order(a);
  FUZZ_REQUIRE(chain.size() == up, "a position per rank");
  std::vector<char> seen(up, 0);
  for (std::size_t k = 0; k < up; ++k) {
    const int r = chain[k];
    FUZZ_REQUIRE(r >= 0 && r < p && seen[static_cast<std::size_t>(r)] == 0, "the chain is a permutation");
    seen[static_cast<std::size_t>(r)] = 1;
    if (k > 0) {
      const double x = a[static_cast<std::size_t>(chain[k - 1])];
      const double y = a[static_cast<std::size_t>(r)];
      FUZZ_REQUIRE(x > y || (x == y && chain[k - 1] < r), "latest first, ties in rank order");
    }
  }
  bool identity = true;
  for (std::size_t k = 0; k < up; ++k) identity = identity && chain[k] == static_cast<int>(k);
  FUZZ_REQUIRE(slt::is_rank_order(chain) == identity, "is_rank_order");
  if (together) FUZZ_REQUIRE(identity, "equal arrivals keep rank order");

  // The step model on the sorted chain or on a fuzzed permutation.
  std::vector<int> order = chain;
  if (in.ConsumeBool()) {
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t k = up; k > 1; --k)
      std::swap(order[k - 1], order[in.ConsumeIntegralInRange<std::size_t>(0, k - 1)]);
  }
  // Arrivals in steps, kept where whole steps still count (|a| <= 2^40).
  std::vector<double> steps(up);
  for (std::size_t r = 0; r < up; ++r) steps[r] = std::clamp(std::round(a[r] * 4.0) / 4.0, -1e12, 1e12);
  const slt::StepModel plain = slt::step_model(order, steps, segments, false);
  const slt::StepModel agent = slt::step_model(order, steps, segments, true);
  for (const slt::StepModel* m : {&plain, &agent}) {
    FUZZ_REQUIRE(m->done.size() == up && m->early.size() == up, "done and early per rank");
    if (p == 0 || segments == 0) continue;
    for (std::size_t r = 0; r < up; ++r) {
      FUZZ_REQUIRE(m->done[r] >= steps[r] + (p > 1 ? 1.0 : 0.0), "nobody is done before it arrives and sends");
      FUZZ_REQUIRE(m->early[r] <= segments, "early counts at most every segment");
    }
    FUZZ_REQUIRE(m->early[static_cast<std::size_t>(order.back())] == 0, "the far end receives no partial");
    const double pipeline = p > 1 ? static_cast<double>(2 * (up - 1) + segments - 1) : 0.0;
    FUZZ_REQUIRE(m->total >= pipeline, "no faster than the pipeline");
    if (together) FUZZ_REQUIRE(m->total == pipeline, "equal arrivals: exactly the pipeline");
  }
  FUZZ_REQUIRE(agent.total <= plain.total, "receiving agents never make it longer");
  return 0;
}
