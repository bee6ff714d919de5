// ragged::sim — the SimGrid backend. Runs the same algorithm code inside a
// discrete-event simulation of a platform (an XML file): one s4u actor per
// rank, daemons as extra actors on the rank's host, messages carrying the
// real bytes with their simulated size. Deterministic: the same run gives the
// same simulated times every time.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ragged/comm.hpp"

namespace ragged::sim {

struct Config {
  /// A platform XML file, or the name of a shipped platform (see platform_path()).
  std::string platform = "cluster-1gbe-48";
  /// Number of ranks. Rank i runs on host i mod (number of hosts) in the platform's host order.
  int procs = 4;
  /// Extra SimGrid options ("--cfg=..." or "--log=..."), applied when the engine is created.
  std::vector<std::string> simgrid_args;
  /// LogGP's per-message gap g in seconds, for this run only: every rank starts its
  /// messages at least g apart and completes the messages it receives at least g apart.
  /// Unset: the platform's own (the property ragged/message_gap of its outermost zone,
  /// 0 when it has none). Must be finite and >= 0. See docs/backends/sim.md.
  std::optional<double> message_gap;
};

/// Simulates `procs` ranks, each running `rank_main(comm)`, and returns when every
/// rank returned. The first exception a rank threw is rethrown here (after the
/// simulation ended). One process may call run() many times; the platform of the
/// first call stays loaded, and a later call naming another platform throws
/// InvalidArgument("platform").
void run(const Config& config, const std::function<void(Comm&)>& rank_main);

/// Resolves a shipped platform name ("cluster-1gbe-48", "infiniband-qdr-560",
/// "two-clusters-30-30", "two-clusters-20-40", "three-clusters-18-30-12",
/// "four-clusters-16-4-24-12") or a path to an existing XML file.
[[nodiscard]] std::string platform_path(std::string_view name_or_path);

/// Names of the platforms that ship with ragged.
[[nodiscard]] std::vector<std::string> shipped_platforms();

/// Names of the hosts the ranks of the current (or last) run are placed on, and the
/// name of the zone (cluster) each belongs to; for tools that split by cluster.
struct Placement {
  std::vector<std::string> host;
  std::vector<std::string> zone;
};
[[nodiscard]] Placement placement(const Config& config);

/// The per-message gap (seconds) a run with `config` gets: config.message_gap when set,
/// otherwise the platform's ragged/message_gap (0 when the platform declares none).
[[nodiscard]] double message_gap(const Config& config);

}  // namespace ragged::sim
