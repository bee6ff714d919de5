// ragged-bench two-cluster: the experiments of seed 001 §5 (see two_cluster.hpp).
#include "experiments.hpp"
#include "options.hpp"
#include "two_cluster.hpp"

namespace ragged::bench {

CLI::App* add_two_cluster_command(CLI::App& app, Common& common, Runner& chosen) {
  CLI::App* cmd = app.add_subcommand(
      "two-cluster", "Alltoall between two clusters over a slow backbone (seed 001 §5): LG against the baselines");
  add_common_options(cmd, common);
  struct Text {
    TwoClusterOptions two;
    std::string algorithms;
    std::string sizes;
    std::string scaling_n1 = "2,5,10,15,20,25,30";
    std::string memory = "1Gi";
    bool no_check = false;
  };
  auto t = std::make_shared<Text>();
  cmd->add_option("--collective", t->two.collective, "alltoall, or alltoallv (beyond the paper)")
      ->capture_default_str();
  cmd->add_option("--algorithms", t->algorithms, "comma-separated names (default: every one of the collective)");
  cmd->add_option("--n1", t->two.n1, "processes of the first cluster")->capture_default_str();
  cmd->add_option("--n2", t->two.n2, "processes of the second cluster (mpi: the rest of the job)")
      ->capture_default_str();
  cmd->add_option("--sizes", t->sizes,
                  "bytes of one message M(i,j), comma-separated (K/Ki, M/Mi); default 1,2,4,...,16Mi, "
                  "or 64Ki,512Ki with --scaling");
  cmd->add_option("--scaling", t->two.scaling, "sweep the processes: equal (n1 = n2) or double (n2 = 2 n1)");
  cmd->add_option("--scaling-n1", t->scaling_n1, "the n1 values of a --scaling sweep")->capture_default_str();
  cmd->add_option("--layout", t->two.layout, "auto, zones (sim), ranks (first n1 ranks) or hosts (name prefixes)")
      ->capture_default_str();
  cmd->add_option("--iterations", t->two.iterations, "measured calls per point (0: 1 on sim, 5 on mpi)")
      ->capture_default_str();
  cmd->add_option("--warmup", t->two.warmup, "unmeasured calls first (-1: 0 on sim, 1 on mpi)")->capture_default_str();
  cmd->add_option("--memory", t->memory, "sim: memory for the ranks' buffers; larger messages are simulated at scale")
      ->capture_default_str();
  cmd->add_option("--distribution", t->two.distribution, "alltoallv block sizes: uniform or skewed")
      ->capture_default_str();
  cmd->add_option("--seed", t->two.seed, "seed of the alltoallv block sizes")->capture_default_str();
  cmd->add_option("--plot", t->two.plot, "also draw the figure into this SVG file");
  cmd->add_flag("--no-check", t->no_check, "skip the exact check of every result");
  cmd->callback([t, cmd, &common, &chosen] {
    const bool platform_given = cmd->get_option("--platform")->count() > 0;
    chosen = [t, platform_given, &common](const BackendOptions& backend) {
      TwoClusterOptions o = t->two;
      o.algorithms = split_list(t->algorithms);
      std::string sizes = t->sizes;
      if (sizes.empty()) {
        if (o.scaling.empty()) {
          for (int k = 0; k <= 24; ++k) sizes += (k == 0 ? "" : ",") + std::to_string(1ULL << k);
        } else {
          sizes = "64Ki,512Ki";
        }
      }
      for (const std::string& s : split_list(sizes)) o.sizes.push_back(parse_count(s, "--sizes"));
      o.scaling_n1.clear();
      for (const std::string& s : split_list(t->scaling_n1)) {
        o.scaling_n1.push_back(static_cast<int>(parse_count(s, "--scaling-n1")));
      }
      o.memory = parse_count(t->memory, "--memory");
      o.check = !t->no_check;
      if (platform_given) o.platform = common.platform;
      return run_two_cluster(o, backend);
    };
  });
  return cmd;
}

}  // namespace ragged::bench
