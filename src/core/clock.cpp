#include "ragged/clock.hpp"

#include <limits>
#include <string>

#include "ragged/error.hpp"

namespace ragged {

ClockOffset measure_clock_offset(Comm& comm, int tag, int rounds, Timeout timeout) {
  if (rounds < 1) throw InvalidArgument("rounds", "must be at least 1, got " + std::to_string(rounds));
  Runtime& rt = comm.runtime();
  if (comm.rank() == 0) {
    for (int k = 1; k < comm.size(); ++k) {
      for (int i = 0; i < rounds; ++i) {
        comm.recv(k, tag, nullptr, 0, timeout);
        const double t = rt.now();
        comm.send(k, tag, &t, sizeof t, timeout);
      }
    }
    return {};
  }
  ClockOffset best{0, std::numeric_limits<double>::infinity()};
  for (int i = 0; i < rounds; ++i) {
    const double sent = rt.now();
    comm.send(0, tag, nullptr, 0, timeout);
    double root_time = 0;
    comm.recv(0, tag, &root_time, sizeof root_time, timeout);
    const double back = rt.now();
    if (back - sent < best.round_trip) best = {(sent + back) / 2 - root_time, back - sent};
  }
  return best;
}

}  // namespace ragged
