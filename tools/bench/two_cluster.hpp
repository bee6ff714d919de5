// ragged-bench two-cluster: the experiments of Jeannot & Steffenel 2007, §5. An alltoall (or,
// beyond the paper, an alltoallv) between two clusters joined by a backbone,
// timed for every algorithm, with the backbone messages and bytes measured by
// counting every send that crosses (CountingComm), not computed. Beyond the
// paper too, --clusters runs it on k >= 2 clusters.
//
//   sizes:    n1 = n2 = 30 and n1 = 20, n2 = 40, messages of 2^k bytes (Fig. 4)
//   scaling:  n1 = n2 ("equal", Fig. 5) and n2 = 2·n1 ("double", Fig. 6) at 64 KiB
//             and 512 KiB
//
// On sim, a platform with the clusters' exact sizes is used: the shipped
// two-clusters-30-30 / -20-40, three-clusters-18-30-12 or four-clusters-16-4-24-12
// when they fit, otherwise one generated with the same numbers (1 GbE nodes,
// 10 Gbit/s backbone, 10 ms one way). Large messages are
// simulated at scale: the ranks move size/s real bytes while every link's
// bandwidth is divided by s, which leaves every simulated time unchanged (CM02
// without cross traffic is linear in bytes over bandwidth) and keeps the memory
// within --memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness.hpp"
#include "report.hpp"

namespace ragged::bench {

struct TwoClusterOptions {
  /// "alltoall" or "alltoallv".
  std::string collective = "alltoall";
  /// Empty: every registered algorithm of the collective usable on the backend.
  std::vector<std::string> algorithms;
  int n1 = 30;
  int n2 = 30;
  /// Sizes of k >= 2 clusters (--clusters); when set, they replace n1 and n2.
  std::vector<int> clusters;
  /// Bytes of one message M(i,j) (alltoallv: the mean block size).
  std::vector<std::uint64_t> sizes;
  /// "" (one cluster pair), "equal" (n1 = n2 = each of scaling_n1) or "double" (n2 = 2·n1).
  std::string scaling;
  std::vector<int> scaling_n1{2, 5, 10, 15, 20, 25, 30};
  /// How ranks map to clusters: "auto" (sim: zones; mpi: ranks), "zones", "ranks" (the
  /// first n1 ranks form cluster 0) or "hosts" (host-name prefixes; $RAGGED_HOST overrides
  /// the host name).
  std::string layout = "auto";
  /// Measured calls per (algorithm, size); 0: 1 on sim (deterministic), 5 on mpi.
  int iterations = 0;
  /// Unmeasured calls before them; -1: 0 on sim, 1 on mpi.
  int warmup = -1;
  bool check = true;
  /// Fail (after the report) when a row's time is below its lower bound (docs/bounds.md).
  bool check_bounds = false;
  /// sim: most memory the simulated ranks' buffers may take together, which sets the scale.
  std::uint64_t memory = std::uint64_t{1} << 30;
  /// alltoallv: "uniform" (sizes uniform in [0, 2m]) or "skewed" (one pair in 8 gets 8m, the others m/8).
  std::string distribution = "uniform";
  std::uint64_t seed = 1;
  /// --platform as given (empty: choose or generate the platform).
  std::string platform;
  /// Draw the figure here (.svg or .png, gnuplot): time against size, or against processes
  /// when scaling.
  std::string plot;
};

Report run_two_cluster(const TwoClusterOptions& options, const BackendOptions& backend);

/// The platform XML for clusters "nancy" and "rennes" with the numbers of the shipped
/// two-cluster platforms. `pattern` lists the cluster (0 or 1) of each host in the order
/// the sim backend places ranks on them. With clusters 0..k-1 in `pattern`, k >= 3, the
/// clusters are "site-0" .. "site-<k-1>" on the star backbone of the shipped k-cluster
/// platforms (platforms/README.md).
std::string two_cluster_platform_xml(const std::vector<int>& pattern);

/// Block size (bytes) of the alltoallv from `src` to `dst` for mean size `mean`.
std::uint64_t alltoallv_block(const TwoClusterOptions& options, std::uint64_t mean, int src, int dst);

/// Divides the bandwidth of every link of the loaded platform by `scale` (relative to the
/// platform's own values). sim only; between runs.
void scale_sim_bandwidth(double scale);

}  // namespace ragged::bench
