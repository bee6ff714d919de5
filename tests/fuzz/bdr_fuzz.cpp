// Fuzzes BDR's schedule (plans/bdr_schedule.hpp) over P <= 64 ranks, arrival patterns from
// ties to spreads of 1e300 and any tau (zero, negative, tiny). Checks: the dissemination
// properties (dissemination_check.hpp: every segment to every other rank exactly once, from a
// holder, one send and one receive per rank and step, programs = steps); the pre-step budgets
// are pre_step_counts and S their maximum; steps are in listing order, pre-steps first; a
// pre-step sends the sender's own segment, only once the sender has arrived (psNo >= S - s), so
// the slowest rank never sends in one; every ring step goes to the right neighbour;
// first_send is the first step with a send.
#include <algorithm>
#include <cstdint>

#include "dissemination_check.hpp"
#include "fuzz_check.hpp"
#include "plans/bdr_schedule.hpp"

namespace bdr = ragged::plans::bdr;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int p = in.ConsumeIntegralInRange<int>(0, 64);
  const double tau = ragged::fuzz::tau(in);
  const std::vector<double> a = ragged::fuzz::arrivals(in, p, in.ConsumeBool() ? 1.0 : tau);
  const bdr::Schedule s = bdr::make_schedule(a, tau);

  const std::vector<std::int64_t> ps_no = bdr::pre_step_counts(a, tau);
  FUZZ_REQUIRE(s.procs == p, "procs");
  FUZZ_REQUIRE(s.pre_step_budget == ps_no, "pre-step budgets are pre_step_counts");
  for (std::int64_t x : ps_no) FUZZ_REQUIRE(x >= 0, "no negative budget");
  const std::int64_t big_s = ps_no.empty() ? 0 : *std::max_element(ps_no.begin(), ps_no.end());
  FUZZ_REQUIRE(s.listing_pre_steps == big_s, "S = max psNo");
  if (p > 0) FUZZ_REQUIRE(*std::min_element(ps_no.begin(), ps_no.end()) == 0, "the latest rank has no pre-step");
  FUZZ_REQUIRE(s.steps.size() == s.listing_step.size(), "one listing number per step");
  FUZZ_REQUIRE(s.pre_steps >= 0 && static_cast<std::size_t>(s.pre_steps) <= s.steps.size(), "pre_steps in range");
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    FUZZ_REQUIRE(k == 0 || s.listing_step[k] > s.listing_step[k - 1], "steps in listing order");
    FUZZ_REQUIRE((static_cast<int>(k) < s.pre_steps) == (s.listing_step[k] < big_s), "pre-steps come first");
  }
  ragged::fuzz::check_dissemination(
      p, s.steps, s.programs, [](int, std::size_t) { return true; },
      [&](std::size_t k, const bdr::Transfer& t) {
        if (static_cast<int>(k) < s.pre_steps) {
          FUZZ_REQUIRE(t.segment == t.from, "a pre-step sends the sender's own segment");
          FUZZ_REQUIRE(ps_no[static_cast<std::size_t>(t.from)] >= big_s - s.listing_step[k],
                       "a rank sends in a pre-step only once it has arrived");
        } else {
          FUZZ_REQUIRE(t.to == (t.from + 1) % p, "a ring step goes to the right neighbour");
        }
      });
  for (int r = 0; r < p; ++r) {
    const auto& prog = s.program(r);
    const std::size_t first = s.first_send(r);
    FUZZ_REQUIRE(first <= prog.size(), "first_send in range");
    for (std::size_t i = 0; i < first; ++i) FUZZ_REQUIRE(prog[i].send_to < 0, "nothing sent before first_send");
    if (first < prog.size()) FUZZ_REQUIRE(prog[first].send_to >= 0, "first_send is a send");
    if (p > 1) FUZZ_REQUIRE(first < prog.size(), "every rank sends");
  }
  return 0;
}
