// measure_link: the Hockney parameters of the slowest neighbouring pair, by ping-pong.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "ragged/arrival.hpp"
#include "ragged/error.hpp"

namespace ragged {

namespace {

/// Best one-way time (half the round trip) of `rounds` ping-pongs of `bytes` with `partner`;
/// the leader times, the other rank echoes (and returns 0).
double ping_pong(Comm& comm, int partner, bool leader, std::vector<std::byte>& buffer, std::size_t bytes, int tag,
                 int rounds, Timeout timeout) {
  Runtime& rt = comm.runtime();
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < rounds; ++i) {
    if (leader) {
      const double t0 = rt.now();
      comm.send(partner, tag, buffer.data(), bytes, timeout);
      comm.recv(partner, tag, buffer.data(), bytes, timeout);
      best = std::min(best, (rt.now() - t0) / 2);
    } else {
      comm.recv(partner, tag, buffer.data(), bytes, timeout);
      comm.send(partner, tag, buffer.data(), bytes, timeout);
    }
  }
  return leader ? best : 0.0;
}

}  // namespace

LinkModel measure_link(Comm& comm, int tag, std::size_t probe_bytes, int rounds, Timeout timeout) {
  if (rounds <= 0) throw InvalidArgument("rounds", "must be positive");
  if (probe_bytes == 0) throw InvalidArgument("probe_bytes", "must be positive");
  const int procs = comm.size();
  const int me = comm.rank();
  if (procs == 1) return LinkModel{};
  std::vector<std::byte> buffer(probe_bytes);
  std::array<double, 2> mine{0.0, 0.0};  // alpha, beta
  for (int phase = 0; phase < 2; ++phase) {
    const bool even = (me % 2 == 0) == (phase == 0);
    const int partner = even ? me + 1 : me - 1;
    if (partner < 0 || partner >= procs) continue;
    const bool leader = me < partner;
    // Zero-byte round trips are cheap: take the best of more of them, so that a loaded machine
    // that preempts a few rounds cannot inflate alpha above the probe's time (beta would be 0).
    // Where it still does (every zero-byte round preempted, as on 2 cores shared by 8 ranks
    // and their agents), the leader says so and the pair measures again, a few times at most.
    constexpr int attempts = 4;
    for (int attempt = 0; attempt < attempts; ++attempt) {
      const double t_zero = ping_pong(comm, partner, leader, buffer, 0, tag, std::max(rounds, 16), timeout);
      const double t_probe = ping_pong(comm, partner, leader, buffer, probe_bytes, tag, rounds, timeout);
      std::uint8_t again = 0;
      if (leader) {
        again = t_probe <= t_zero && attempt + 1 < attempts ? 1 : 0;
        if (!again) {
          mine[0] = std::max(mine[0], t_zero);
          mine[1] = std::max(mine[1], std::max(0.0, t_probe - t_zero) / static_cast<double>(probe_bytes));
        }
        comm.send(partner, tag, &again, sizeof again, timeout);
      } else {
        comm.recv(partner, tag, &again, sizeof again, timeout);
      }
      if (!again) break;
    }
  }
  // The largest alpha and beta over all pairs, identical on every rank: gather at 0, then send back.
  std::array<double, 2> result = mine;
  if (me == 0) {
    for (int r = 1; r < procs; ++r) {
      std::array<double, 2> theirs{};
      comm.recv(r, tag + 1, theirs.data(), sizeof theirs, timeout);
      result[0] = std::max(result[0], theirs[0]);
      result[1] = std::max(result[1], theirs[1]);
    }
    for (int r = 1; r < procs; ++r) comm.send(r, tag + 1, result.data(), sizeof result, timeout);
  } else {
    comm.send(0, tag + 1, mine.data(), sizeof mine, timeout);
    comm.recv(0, tag + 1, result.data(), sizeof result, timeout);
  }
  return LinkModel{result[0], result[1]};
}

}  // namespace ragged
