// The checks BDR and BGD share (both are allgather schedules of bdr::Transfer steps): every
// segment reaches every other rank exactly once, from a rank that held it before the step; in a
// step a rank sends at most one segment and receives at most one, never to itself; the per-rank
// programs are exactly the steps seen from each rank.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_check.hpp"
#include "plans/bdr_schedule.hpp"

namespace ragged::fuzz {

/// `owns(rank, k)`: whether `rank` holds its own segment when kept step k starts.
/// `check_transfer(k, transfer)` adds the schedule's own rules.
template <class Owns, class Extra>
void check_dissemination(int p, const std::vector<std::vector<plans::bdr::Transfer>>& steps,
                         const std::vector<std::vector<plans::bdr::RankStep>>& programs, Owns owns,
                         Extra check_transfer) {
  const auto up = static_cast<std::size_t>(p);
  FUZZ_REQUIRE(programs.size() == up, "one program per rank");
  std::vector<std::vector<char>> has(up, std::vector<char>(up, 0));
  std::vector<std::vector<plans::bdr::RankStep>> want(up);
  std::size_t transfers = 0;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    FUZZ_REQUIRE(!steps[k].empty(), "no empty step is kept");
    for (int r = 0; r < p; ++r) {
      if (owns(r, k)) has[static_cast<std::size_t>(r)][static_cast<std::size_t>(r)] = 1;
    }
    std::vector<char> sends(up, 0);
    std::vector<char> receives(up, 0);
    for (const plans::bdr::Transfer& t : steps[k]) {
      FUZZ_REQUIRE(t.from >= 0 && t.from < p && t.to >= 0 && t.to < p, "ranks in range");
      FUZZ_REQUIRE(t.segment >= 0 && t.segment < p, "segment in range");
      FUZZ_REQUIRE(t.from != t.to, "no rank sends to itself");
      const auto from = static_cast<std::size_t>(t.from);
      const auto to = static_cast<std::size_t>(t.to);
      const auto seg = static_cast<std::size_t>(t.segment);
      FUZZ_REQUIRE(sends[from] == 0, "a rank sends at most once a step");
      FUZZ_REQUIRE(receives[to] == 0, "a rank receives at most once a step");
      sends[from] = receives[to] = 1;
      FUZZ_REQUIRE(has[from][seg] != 0, "a rank sends only a segment it holds when the step starts");
      FUZZ_REQUIRE(has[to][seg] == 0, "no rank receives a segment twice (or its own)");
      check_transfer(k, t);
      auto& f = want[from];
      if (f.empty() || f.back().step != static_cast<int>(k)) f.push_back(plans::bdr::RankStep{static_cast<int>(k)});
      f.back().send_to = t.to;
      f.back().send_segment = t.segment;
      auto& d = want[to];
      if (d.empty() || d.back().step != static_cast<int>(k)) d.push_back(plans::bdr::RankStep{static_cast<int>(k)});
      d.back().recv_from = t.from;
      d.back().recv_segment = t.segment;
    }
    for (const plans::bdr::Transfer& t : steps[k]) {
      has[static_cast<std::size_t>(t.to)][static_cast<std::size_t>(t.segment)] = 1;
    }
    transfers += steps[k].size();
  }
  FUZZ_REQUIRE(transfers == up * (up == 0 ? 0 : up - 1), "P(P-1) transfers in all");
  for (std::size_t r = 0; r < up; ++r) {
    for (std::size_t seg = 0; seg < up; ++seg) {
      FUZZ_REQUIRE(p <= 1 || r == seg || has[r][seg] != 0, "every rank gets every other segment");
    }
    const auto& prog = programs[r];
    FUZZ_REQUIRE(prog.size() == want[r].size(), "a program lists the rank's steps");
    for (std::size_t i = 0; i < prog.size(); ++i) {
      const plans::bdr::RankStep& a = prog[i];
      const plans::bdr::RankStep& b = want[r][i];
      FUZZ_REQUIRE(a.step == b.step && a.send_to == b.send_to && a.send_segment == b.send_segment &&
                       a.recv_from == b.recv_from && a.recv_segment == b.recv_segment,
                   "a program step is the rank's part of that step");
    }
  }
}

}  // namespace ragged::fuzz
