// Pieces shared by the step schedules of the arrival-aware algorithms (bdr_schedule,
// bgd_schedule, prr_schedule): checking their arrival times, booking a transfer into the
// per-rank programs, and finding a program's first send. Pure functions, no communication.
//
// A program is one rank's list of steps in step order, each a `Step` with the fields `step`,
// `send_to`, `send_segment`, `recv_from`, `recv_segment` (-1: none); in a step a rank sends at
// most one segment and receives at most one.
#pragma once

#include <cassert>
#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "ragged/error.hpp"

namespace ragged::plans::steps {

/// Throws InvalidArgument("arrivals") naming the first rank whose arrival time is not finite.
inline void check_finite(std::span<const double> arrivals) {
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    if (!std::isfinite(arrivals[i])) {
      throw InvalidArgument("arrivals", "arrival time of rank " + std::to_string(i) + " is not finite");
    }
  }
}

/// A schedule of type `Schedule` (with fields `procs` and `programs`) for `arrivals`: every
/// arrival time checked, P set and one empty program a rank.
template <class Schedule>
Schedule empty_schedule(std::span<const double> arrivals) {
  check_finite(arrivals);
  Schedule schedule;
  schedule.procs = static_cast<int>(arrivals.size());
  schedule.programs.assign(arrivals.size(), {});
  return schedule;
}

/// Books `from` sending segment `segment` to `to` in step `step` into `programs` (a rank's entry
/// for the step is added when it has none yet; steps come in order). Returns the receiver's entry.
template <class Step, class StepNumber>
Step& book(std::vector<std::vector<Step>>& programs, StepNumber step, int from, int to, int segment) {
  std::vector<Step>& sender = programs[static_cast<std::size_t>(from)];
  if (sender.empty() || sender.back().step != step) sender.push_back(Step{step});
  assert(sender.back().send_to < 0);
  sender.back().send_to = to;
  sender.back().send_segment = segment;
  std::vector<Step>& receiver = programs[static_cast<std::size_t>(to)];
  if (receiver.empty() || receiver.back().step != step) receiver.push_back(Step{step});
  assert(receiver.back().recv_from < 0);
  receiver.back().recv_from = from;
  receiver.back().recv_segment = segment;
  return receiver.back();
}

/// Drops what rank `rank` does not need to run its part of `schedule` (with fields `steps` and
/// `programs`): the steps' transfer lists and every other rank's program, O(P^2) together, so a
/// rank keeps O(P) while it runs (a simulated world, one address space for all ranks, held 13 GB
/// of schedules at P = 560 otherwise).
template <class Schedule>
void keep_only(Schedule& schedule, int rank) {
  std::vector<typename decltype(schedule.steps)::value_type>().swap(schedule.steps);
  for (std::size_t r = 0; r < schedule.programs.size(); ++r) {
    if (static_cast<int>(r) != rank)
      std::vector<typename decltype(schedule.programs)::value_type::value_type>().swap(schedule.programs[r]);
  }
}

/// Index in `program` of its first send (program.size() if it never sends).
template <class Step>
std::size_t first_send(const std::vector<Step>& program) {
  for (std::size_t i = 0; i < program.size(); ++i) {
    if (program[i].send_to >= 0) return i;
  }
  return program.size();
}

}  // namespace ragged::plans::steps
