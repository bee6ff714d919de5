// ragged-bench two-cluster: the experiments of Jeannot & Steffenel 2007, §5 (see two_cluster.hpp).
#include "experiments.hpp"
#include "two_cluster.hpp"

namespace ragged::bench {

CLI::App* add_two_cluster_command(CLI::App& app, Common& common, Runner& chosen) {
  Command cmd(app, "two-cluster", "Alltoall of two clusters over a backbone (Jeannot & Steffenel 2007): LG, baselines",
              common);
  auto o = std::make_shared<TwoClusterOptions>();
  cmd->add_option("--collective", o->collective, "alltoall, or alltoallv (beyond the paper)")->capture_default_str();
  cmd.list("--algorithms", o->algorithms, "",
           "comma-separated names (default: every one of the collective but the one-sided ones)");
  cmd->add_option("--n1", o->n1, "processes of the first cluster")->capture_default_str();
  cmd->add_option("--n2", o->n2, "processes of the second cluster (mpi: the rest of the job)")->capture_default_str();
  cmd.counts("--clusters", o->clusters, "",
             "sizes of k >= 2 clusters, comma-separated, instead of --n1/--n2 (beyond the paper; mpi: they must add "
             "up to the job)");
  cmd.counts("--sizes", o->sizes, "",
             "bytes of one message M(i,j), comma-separated (K/Ki, M/Mi); default 1,2,4,...,16Mi, or 64Ki,512Ki with "
             "--scaling");
  cmd->add_option("--scaling", o->scaling, "sweep the processes: equal (n1 = n2) or double (n2 = 2 n1)");
  cmd.counts("--scaling-n1", o->scaling_n1, "2,5,10,15,20,25,30", "the n1 values of a --scaling sweep");
  cmd->add_option("--layout", o->layout, "auto, zones (sim), ranks (first n1 ranks) or hosts (name prefixes)")
      ->capture_default_str();
  cmd->add_option("--iterations", o->iterations, "measured calls per point (0: 1 on sim, 5 on mpi)")
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "unmeasured calls first (-1: 0 on sim, 1 on mpi)")->capture_default_str();
  cmd.count("--memory", o->memory, "1Gi", "sim: memory for the ranks' buffers; larger messages are simulated at scale");
  cmd->add_option("--distribution", o->distribution, "alltoallv block sizes: uniform or skewed")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the alltoallv block sizes")->capture_default_str();
  cmd.plot(o->plot,
           "also draw the figure (.svg or .png, with gnuplot): time against the message size, or against the "
           "processes with --scaling");
  cmd.no_check(o->check, "skip the exact check of every result");
  cmd->add_flag("--check-bounds", o->check_bounds,
                "fail (exit status 1, after the report) when a row's time is below its lower bound (docs/bounds.md)");
  cmd.runs(chosen, [o, cmd, &common](const BackendOptions& backend) {
    TwoClusterOptions options = *o;
    if (options.sizes.empty()) {
      if (options.scaling.empty()) {
        for (int k = 0; k <= 24; ++k) options.sizes.push_back(std::uint64_t{1} << k);
      } else {
        options.sizes = {64 * 1024, 512 * 1024};
      }
    }
    if (cmd.given("--platform")) options.platform = common.platform;
    return run_two_cluster(options, backend);
  });
  return cmd.app();
}

}  // namespace ragged::bench
