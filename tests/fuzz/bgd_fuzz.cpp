// Fuzzes BGD's schedule (plans/bgd_schedule.hpp) over P <= 48 ranks (the greedy construction is
// O(P^4) at worst), arrival patterns from ties to spreads of 1e300 and any tau. Checks: the
// dissemination properties (dissemination_check.hpp), with a rank holding its own segment only
// from its own slot on (the earliest rank from slot 0); slots strictly increasing; the ring
// exactly when the header says (P > 1 and no tau or all arrivals within one tau), and then P-1
// steps to the right neighbour; own slots in arrival order; a program sends the rank's own
// segment first at first_own_send.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "dissemination_check.hpp"
#include "fuzz_check.hpp"
#include "plans/bgd_schedule.hpp"

namespace bgd = ragged::plans::bgd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int p = in.ConsumeIntegralInRange<int>(0, 48);
  const double tau = ragged::fuzz::tau(in);
  const std::vector<double> a = ragged::fuzz::arrivals(in, p, in.ConsumeBool() ? 1.0 : tau);
  const bgd::Schedule s = bgd::make_schedule(a, tau);

  const auto up = static_cast<std::size_t>(p);
  FUZZ_REQUIRE(s.procs == p, "procs");
  FUZZ_REQUIRE(s.own_slot.size() == up, "one own slot per rank");
  FUZZ_REQUIRE(s.slot.size() == s.steps.size(), "one slot per step");
  for (std::size_t k = 1; k < s.slot.size(); ++k) FUZZ_REQUIRE(s.slot[k] > s.slot[k - 1], "slots increase");
  if (p > 1) {
    const double t0 = *std::min_element(a.begin(), a.end());
    const double omega = *std::max_element(a.begin(), a.end()) - t0;
    const bool ring = !(tau > 0) || !std::isfinite(tau) || omega < tau;
    FUZZ_REQUIRE(s.ring == ring, "the ring exactly for balanced arrivals or no tau");
    if (!s.ring) {
      for (std::size_t r = 0; r < up; ++r) {
        FUZZ_REQUIRE(s.own_slot[r] >= 0, "own slots are not negative");
        if (a[r] == t0) FUZZ_REQUIRE(s.own_slot[r] == 0, "the earliest rank owns its segment in slot 0");
        // (A rank later by less than 1e-9 tau counts as on time: slot 0 as well.)
        for (std::size_t q = 0; q < up; ++q) {
          if (a[r] <= a[q]) FUZZ_REQUIRE(s.own_slot[r] <= s.own_slot[q], "own slots follow the arrivals");
        }
      }
    }
  }
  if (s.ring) {
    FUZZ_REQUIRE(s.steps.size() == up - 1, "the ring has P-1 steps");
  }
  ragged::fuzz::check_dissemination(
      p, s.steps, s.programs,
      [&](int r, std::size_t k) { return s.ring || s.own_slot[static_cast<std::size_t>(r)] <= s.slot[k]; },
      [&](std::size_t, const bgd::Transfer& t) {
        if (s.ring) FUZZ_REQUIRE(t.to == (t.from + 1) % p, "a ring step goes to the right neighbour");
      });
  for (int r = 0; r < p; ++r) {
    const auto& prog = s.program(r);
    const std::size_t first = s.first_own_send(r);
    FUZZ_REQUIRE(first <= prog.size(), "first_own_send in range");
    for (std::size_t i = 0; i < first; ++i) FUZZ_REQUIRE(prog[i].send_segment != r, "own segment not sent before");
    if (first < prog.size()) FUZZ_REQUIRE(prog[first].send_segment == r, "first_own_send sends the own segment");
    if (p > 1) FUZZ_REQUIRE(first < prog.size(), "every rank sends its own segment");
  }
  return 0;
}
