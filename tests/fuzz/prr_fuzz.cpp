// Fuzzes PRR's schedule (plans/prr_schedule.hpp) over P <= 128 ranks, arrival patterns from ties
// to spreads of 1e300 and any tau. Executes the schedule on sets of contributions and checks:
// A = max psNo and arrival_step[r] = A - psNo_r; ring exactly when A = 0 (or P = 1); order is a
// permutation sorted by arrival (not in the ring) and successor/predecessor follow it; every
// transfer joins ring neighbours, in range, never a rank with itself; in a step a rank sends at
// most once and receives at most once, and never before its arrival step; a partial never counts
// a contribution twice and each segment is completed by a reduction exactly once, with P-1
// reducing and P-1 result hops; every rank ends with every result; P(2P-2) transfers; programs
// are the steps seen from each rank, and before first_send a rank only receives partials;
// first_segment and finish_after_last_arrival agree with the programs.
#include <algorithm>
#include <bitset>
#include <cstdint>
#include <tuple>

#include "fuzz_check.hpp"
#include "plans/bdr_schedule.hpp"
#include "plans/prr_schedule.hpp"

namespace prr = ragged::plans::prr;

namespace {
constexpr int max_procs = 128;
using Set = std::bitset<max_procs>;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const int p = in.ConsumeIntegralInRange<int>(0, max_procs);
  const double tau = ragged::fuzz::tau(in);
  const std::vector<double> a = ragged::fuzz::arrivals(in, p, in.ConsumeBool() ? 1.0 : tau);
  const prr::Schedule s = prr::make_schedule(a, tau);

  const auto up = static_cast<std::size_t>(p);
  FUZZ_REQUIRE(s.procs == p, "procs");
  FUZZ_REQUIRE(s.programs.size() == up, "one program per rank");
  if (p == 0) return 0;
  const std::vector<std::int64_t> ps_no = ragged::plans::bdr::pre_step_counts(a, tau);
  const std::int64_t big_a = *std::max_element(ps_no.begin(), ps_no.end());
  FUZZ_REQUIRE(s.last_arrival_step == big_a, "A = max psNo");
  FUZZ_REQUIRE(s.ring == (big_a == 0 || p == 1), "the ring exactly without pre-steps");
  FUZZ_REQUIRE(s.order.size() == up && s.arrival_step.size() == up, "order and arrival steps for every rank");
  std::vector<int> position(up, -1);
  for (std::size_t q = 0; q < up; ++q) {
    const int r = s.order[q];
    FUZZ_REQUIRE(r >= 0 && r < p && position[static_cast<std::size_t>(r)] < 0, "order is a permutation");
    position[static_cast<std::size_t>(r)] = static_cast<int>(q);
    if (!s.ring && q > 0)
      FUZZ_REQUIRE(a[static_cast<std::size_t>(s.order[q - 1])] <= a[static_cast<std::size_t>(r)], "order by arrival");
  }
  for (int r = 0; r < p; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    FUZZ_REQUIRE(s.arrival_step[ur] == big_a - ps_no[ur], "arrival_step = A - psNo");
    FUZZ_REQUIRE(s.successor(r) == s.order[static_cast<std::size_t>((position[ur] + 1) % p)], "successor");
    FUZZ_REQUIRE(s.predecessor(r) == s.order[static_cast<std::size_t>((position[ur] + p - 1) % p)], "predecessor");
  }
  if (p == 1) {
    FUZZ_REQUIRE(s.steps.empty(), "one rank: nothing to do");
    return 0;
  }

  // set[r*P+j]: the contributions rank r holds for segment j; done: it holds the result.
  std::vector<Set> set(up * up);
  Set everyone;
  for (std::size_t r = 0; r < up; ++r) everyone.set(r);
  std::vector<char> done(up * up, 0);
  std::vector<char> partial_in(up * up, 0);
  std::vector<char> partial_out(up * up, 0);
  std::vector<int> reduced(up, 0);
  std::vector<int> reduce_hops(up, 0);
  std::vector<int> result_hops(up, 0);
  for (std::size_t r = 0; r < up; ++r) {
    for (std::size_t j = 0; j < up; ++j) set[r * up + j].set(r);
  }
  std::vector<std::vector<prr::RankStep>> want(up);
  std::vector<std::tuple<std::size_t, Set, bool>> updates;
  std::vector<char> sends(up);
  std::vector<char> receives(up);
  std::size_t transfers = 0;
  FUZZ_REQUIRE(s.steps.size() == s.step_number.size(), "one number per step");
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    FUZZ_REQUIRE(!s.steps[k].empty(), "no empty step is kept");
    FUZZ_REQUIRE(k == 0 || s.step_number[k] > s.step_number[k - 1], "steps in order");
    FUZZ_REQUIRE(s.step_number[k] >= 0, "no negative step");
    std::fill(sends.begin(), sends.end(), 0);
    std::fill(receives.begin(), receives.end(), 0);
    updates.clear();
    for (const prr::Transfer& t : s.steps[k]) {
      FUZZ_REQUIRE(t.from >= 0 && t.from < p && t.to >= 0 && t.to < p && t.segment >= 0 && t.segment < p, "in range");
      const auto f = static_cast<std::size_t>(t.from);
      const auto d = static_cast<std::size_t>(t.to);
      const auto j = static_cast<std::size_t>(t.segment);
      FUZZ_REQUIRE(t.from != t.to, "no rank sends to itself");
      FUZZ_REQUIRE(position[d] == (position[f] + 1) % p, "ring neighbours only");
      FUZZ_REQUIRE(sends[f] == 0, "a rank sends at most once a step");
      FUZZ_REQUIRE(receives[d] == 0, "a rank receives at most once a step");
      sends[f] = receives[d] = 1;
      FUZZ_REQUIRE(s.step_number[k] >= s.arrival_step[f], "no rank sends before it arrives");
      if (t.reduce) {
        FUZZ_REQUIRE(done[f * up + j] == 0, "a partial is not a result");
        FUZZ_REQUIRE(partial_out[f * up + j] == 0, "a rank passes its partial of a segment on once");
        FUZZ_REQUIRE(partial_in[d * up + j] == 0, "a rank receives one partial of a segment");
        FUZZ_REQUIRE(partial_out[d * up + j] == 0, "no partial arrives after the own one left");
        FUZZ_REQUIRE((set[f * up + j] & set[d * up + j]).none(), "no contribution counts twice");
        partial_out[f * up + j] = 1;
        partial_in[d * up + j] = 1;
        updates.emplace_back(d * up + j, set[d * up + j] | set[f * up + j], true);
        ++reduce_hops[j];
      } else {
        FUZZ_REQUIRE(done[f * up + j] != 0, "a rank forwards only a result it holds");
        FUZZ_REQUIRE(done[d * up + j] == 0, "no rank gets a result twice");
        updates.emplace_back(d * up + j, everyone, false);
        ++result_hops[j];
      }
      auto& fp = want[f];
      if (fp.empty() || fp.back().step != s.step_number[k]) fp.push_back(prr::RankStep{s.step_number[k]});
      fp.back().send_to = t.to;
      fp.back().send_segment = t.segment;
      auto& dp = want[d];
      if (dp.empty() || dp.back().step != s.step_number[k]) dp.push_back(prr::RankStep{s.step_number[k]});
      dp.back().recv_from = t.from;
      dp.back().recv_segment = t.segment;
      dp.back().recv_reduce = t.reduce;
    }
    for (const auto& [at, value, reduce] : updates) {
      set[at] = value;
      if (value == everyone) {
        if (reduce) ++reduced[at % up];
        done[at] = 1;
      }
    }
    transfers += s.steps[k].size();
  }
  for (std::size_t j = 0; j < up; ++j) {
    FUZZ_REQUIRE(reduced[j] == 1, "each segment completed by a reduction exactly once");
    FUZZ_REQUIRE(reduce_hops[j] == p - 1 && result_hops[j] == p - 1, "P-1 reducing and P-1 result hops a segment");
    for (std::size_t r = 0; r < up; ++r) FUZZ_REQUIRE(done[r * up + j] != 0, "every rank gets every result");
  }
  FUZZ_REQUIRE(transfers == up * (2 * up - 2), "P(2P-2) transfers, as the ring");

  const std::vector<std::int64_t> finish = prr::finish_after_last_arrival(s);
  FUZZ_REQUIRE(finish.size() == up, "a finish time per rank");
  for (int r = 0; r < p; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const auto& prog = s.program(r);
    FUZZ_REQUIRE(prog.size() == want[ur].size(), "a program lists the rank's steps");
    for (std::size_t i = 0; i < prog.size(); ++i) {
      const prr::RankStep& x = prog[i];
      const prr::RankStep& y = want[ur][i];
      FUZZ_REQUIRE(x.step == y.step && x.send_to == y.send_to && x.send_segment == y.send_segment &&
                       x.recv_from == y.recv_from && x.recv_segment == y.recv_segment &&
                       (x.recv_from < 0 || x.recv_reduce == y.recv_reduce),
                   "a program step is the rank's part of that step");
    }
    const std::size_t first = s.first_send(r);
    FUZZ_REQUIRE(first < prog.size(), "every rank sends");
    for (std::size_t i = 0; i < first; ++i) {
      FUZZ_REQUIRE(prog[i].send_to < 0 && prog[i].recv_reduce, "before its first send a rank receives partials");
    }
    FUZZ_REQUIRE(prog[first].send_to >= 0, "first_send is a send");
    FUZZ_REQUIRE(s.first_segment(r) == prog[first].send_segment, "first_segment");
    FUZZ_REQUIRE(finish[ur] == prog.back().step + 1 - big_a, "finish = end of the last step - A");
    if (s.ring) FUZZ_REQUIRE(finish[ur] == 2 * p - 2, "the ring finishes after 2P-2 steps");
  }
  return 0;
}
