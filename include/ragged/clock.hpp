// ragged: clock offsets between the ranks of a communicator, for measurements
// that need one time base (a synchronized start, arrival times on rank 0's clock).
// On the sim backend every rank reads the same simulated clock; on a real
// cluster each node has its own.
#pragma once

#include "ragged/comm.hpp"

namespace ragged {

struct ClockOffset {
  /// This rank's clock minus rank 0's, in seconds (0 on rank 0).
  double offset = 0;
  /// The shortest round trip to rank 0 among the probes (0 on rank 0): the
  /// offset is exact to within half of it.
  double round_trip = 0;
};

/// Collective over `comm`: every rank estimates its clock's offset from rank 0's by
/// `rounds` zero-byte ping-pongs with rank 0 (Cristian's method: rank 0 answers with
/// its clock, the probe with the shortest round trip wins, and rank 0's reading is
/// taken to fall in the middle of it). Rank 0 serves the ranks one after another.
/// Uses `tag` for its messages; `rounds` must be at least 1. `timeout` bounds each send and
/// receive (TimeoutError names the peer).
[[nodiscard]] ClockOffset measure_clock_offset(Comm& comm, int tag, int rounds = 5, Timeout timeout = {});

}  // namespace ragged
