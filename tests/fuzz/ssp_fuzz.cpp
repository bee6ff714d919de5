// Fuzzes the plans of the stale-synchronous allreduce (plans/ssp_plan.hpp), hypercube and ring.
// For P <= 128 it executes every rank's plan on sets of contributions and checks: steps() =
// d + 2 (hypercube, d = log2 of the largest power of two <= P) or 2(P-1) (ring), segments() 1 or
// P, every plan steps() long; every send goes to another rank in range, which receives from
// the sender the same segment in the same step (one writer per receiver and channel), and
// every receive has its send; a reduce never counts a contribution twice, a copy brings a
// complete segment; every rank ends with every contribution of every segment exactly once.
// The hypercube's layout: extra rank m+i folds into core rank i in step 0 and gets the result
// from it in the last step (a copy), core ranks exchange with r XOR 2^(t-1) in steps 1..d; the
// ring's: reduce-scatter steps then allgather steps to the right, from the left, segments as
// plans/ring_plan.hpp. For P up to 2^30 (hypercube) or 2^16 (ring) it checks one rank's plan and
// its partners' the same way, and that P < 1 or a rank outside 0..P-1 throws
// std::invalid_argument.
#include <bit>
#include <bitset>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "fuzz_check.hpp"
#include "plans/ring_plan.hpp"
#include "plans/ssp_plan.hpp"

namespace ring = ragged::plans::ring;
namespace ssp = ragged::plans::ssp;

namespace {

constexpr int max_executed = 128;
using Set = std::bitset<max_executed>;

int core(int p) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(p))); }
int dims(int p) { return std::countr_zero(static_cast<unsigned>(core(p))); }

/// The layout the header draws, step t of rank r.
void check_layout(ssp::Topology topology, int p, int r, const std::vector<ssp::Step>& plan) {
  const auto n = static_cast<int>(plan.size());
  for (int t = 0; t < n; ++t) {
    const ssp::Step& s = plan[static_cast<std::size_t>(t)];
    FUZZ_REQUIRE(s.send_to != r && s.recv_from != r, "never to or from itself");
    FUZZ_REQUIRE(s.send_to >= -1 && s.send_to < p && s.recv_from >= -1 && s.recv_from < p, "ranks in range");
    const int segments = ssp::segments(topology, p);
    FUZZ_REQUIRE(s.send_segment >= 0 && s.send_segment < segments && s.recv_segment >= 0 && s.recv_segment < segments,
                 "segments in range");
    if (topology == ssp::Topology::ring) {
      const bool scatter = t < p - 1;
      const int g = scatter ? t : t - (p - 1);
      FUZZ_REQUIRE(s.send_to == ring::right(r, p) && s.recv_from == ring::left(r, p), "the ring: right and left");
      FUZZ_REQUIRE(s.apply == (scatter ? ssp::Apply::reduce : ssp::Apply::copy), "reduce-scatter, then allgather");
      FUZZ_REQUIRE(s.send_segment ==
                       (scatter ? ring::reduce_scatter_send_segment(r, p, g) : ring::allgather_send_block(r, p, g)),
                   "the ring's send segment");
      FUZZ_REQUIRE(s.recv_segment ==
                       (scatter ? ring::reduce_scatter_recv_segment(r, p, g) : ring::allgather_recv_block(r, p, g)),
                   "the ring's receive segment");
      continue;
    }
    const int m = core(p);
    const int d = dims(p);
    int to = -1;
    int from = -1;
    if (r >= m) {
      if (t == 0) to = r - m;
      if (t == d + 1) from = r - m;
    } else if (t == 0 || t == d + 1) {
      if (r + m < p) (t == 0 ? from : to) = r + m;
    } else {
      to = from = r ^ (1 << (t - 1));
    }
    FUZZ_REQUIRE(s.send_to == to && s.recv_from == from, "the hypercube's fold, exchange and unfold");
    if (s.recv_from >= 0) {
      FUZZ_REQUIRE(s.apply == (t == d + 1 ? ssp::Apply::copy : ssp::Apply::reduce),
                   "only the result returned to an extra rank is copied");
    }
  }
}

/// Rank r's send and receive in step t agree with the partners' plans.
void check_pairs(int r, const ssp::Step& s, const ssp::Step* to, const ssp::Step* from) {
  if (s.send_to >= 0) {
    FUZZ_REQUIRE(to != nullptr && to->recv_from == r, "the rank sent to receives from the sender");
    FUZZ_REQUIRE(to->recv_segment == s.send_segment, "the same segment on both ends");
  }
  if (s.recv_from >= 0) FUZZ_REQUIRE(from != nullptr && from->send_to == r, "every receive has its send");
}

void execute(ssp::Topology topology, int p) {
  const auto up = static_cast<std::size_t>(p);
  const int n_steps = ssp::steps(topology, p);
  const auto us = static_cast<std::size_t>(n_steps);
  const auto segments = static_cast<std::size_t>(ssp::segments(topology, p));
  std::vector<std::vector<ssp::Step>> plans;
  for (int r = 0; r < p; ++r) {
    plans.push_back(ssp::plan(topology, p, r));
    FUZZ_REQUIRE(plans.back().size() == us, "every plan has steps() steps");
    check_layout(topology, p, r, plans.back());
  }
  Set all;
  for (std::size_t r = 0; r < up; ++r) all.set(r);
  std::vector<Set> have(up * segments);  // [rank * segments + segment]
  for (std::size_t r = 0; r < up; ++r) {
    for (std::size_t g = 0; g < segments; ++g) have[r * segments + g].set(r);
  }
  std::vector<std::pair<std::size_t, Set>> updates;  // applied after every rank sent
  for (std::size_t t = 0; t < us; ++t) {
    updates.clear();
    for (int r = 0; r < p; ++r) {
      const ssp::Step& s = plans[static_cast<std::size_t>(r)][t];
      const ssp::Step* to = s.send_to >= 0 ? &plans[static_cast<std::size_t>(s.send_to)][t] : nullptr;
      const ssp::Step* from = s.recv_from >= 0 ? &plans[static_cast<std::size_t>(s.recv_from)][t] : nullptr;
      check_pairs(r, s, to, from);
      if (s.recv_from < 0) continue;
      const auto g = static_cast<std::size_t>(s.recv_segment);
      const Set& got = have[static_cast<std::size_t>(s.recv_from) * segments + g];
      const std::size_t at = static_cast<std::size_t>(r) * segments + g;
      if (s.apply == ssp::Apply::copy) {
        FUZZ_REQUIRE(got == all, "a copy brings a complete segment");
        updates.emplace_back(at, got);
      } else {
        FUZZ_REQUIRE((have[at] & got).none(), "a reduce never counts a contribution twice");
        updates.emplace_back(at, have[at] | got);
      }
    }
    for (const auto& [at, value] : updates) have[at] = value;
  }
  for (const Set& s : have) FUZZ_REQUIRE(s == all, "every rank ends with every contribution of every segment");
}

void check_one(ssp::Topology topology, int p, int r) {
  const std::vector<ssp::Step> plan = ssp::plan(topology, p, r);
  FUZZ_REQUIRE(plan.size() == static_cast<std::size_t>(ssp::steps(topology, p)), "every plan has steps() steps");
  check_layout(topology, p, r, plan);
  if (topology == ssp::Topology::ring) {
    if (p == 1) return;
    const std::vector<ssp::Step> right = ssp::plan(topology, p, ring::right(r, p));
    const std::vector<ssp::Step> left = ssp::plan(topology, p, ring::left(r, p));
    for (std::size_t t = 0; t < plan.size(); ++t) check_pairs(r, plan[t], &right[t], &left[t]);
    return;
  }
  for (std::size_t t = 0; t < plan.size(); ++t) {
    const ssp::Step& s = plan[t];
    std::vector<ssp::Step> to;
    std::vector<ssp::Step> from;
    if (s.send_to >= 0) to = ssp::plan(topology, p, s.send_to);
    if (s.recv_from >= 0) from = ssp::plan(topology, p, s.recv_from);
    check_pairs(r, s, to.empty() ? nullptr : &to[t], from.empty() ? nullptr : &from[t]);
  }
}

template <class F>
bool throws_invalid_argument(F f) {
  try {
    f();
  } catch (const std::invalid_argument&) {
    return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const auto topology = in.ConsumeBool() ? ssp::Topology::ring : ssp::Topology::hypercube;
  const int mode = in.ConsumeIntegralInRange<int>(0, 2);
  if (mode == 0) {
    const int p = in.ConsumeIntegralInRange<int>(1, max_executed);
    FUZZ_REQUIRE(ssp::segments(topology, p) == (topology == ssp::Topology::ring ? p : 1), "segments: P or 1");
    FUZZ_REQUIRE(ssp::steps(topology, p) == (topology == ssp::Topology::ring ? 2 * (p - 1) : dims(p) + 2),
                 "steps: 2(P-1) or d + 2");
    execute(topology, p);
  } else if (mode == 1) {
    const int most = topology == ssp::Topology::ring ? 1 << 16 : 1 << 30;
    const int p = in.ConsumeIntegralInRange<int>(1, most);
    FUZZ_REQUIRE(ssp::steps(topology, p) == (topology == ssp::Topology::ring ? 2 * (p - 1) : dims(p) + 2),
                 "steps: 2(P-1) or d + 2");
    check_one(topology, p, in.ConsumeIntegralInRange<int>(0, p - 1));
  } else {
    const int p = in.ConsumeIntegral<int>();
    const int r = in.ConsumeIntegral<int>();
    if (p < 1) {
      FUZZ_REQUIRE(throws_invalid_argument([&] { (void)ssp::steps(topology, p); }), "steps: P < 1 throws");
    }
    if (p < 1 || r < 0 || r >= p) {
      FUZZ_REQUIRE(throws_invalid_argument([&] { (void)ssp::plan(topology, p, r); }),
                   "plan: a rank outside 0..P-1 throws");
    }
  }
  return 0;
}
