#include <memory>

#include "experiments.hpp"
#include "irregular.hpp"

namespace ragged::bench {

CLI::App* add_irregular_command(CLI::App& app, Common& common, Runner& chosen) {
  Command cmd(app, "irregular",
              "Irregular gatherv/scatterv: the eight block-size problems and guidelines GL1/GL2 (Träff 2018, §5)",
              common);
  auto o = std::make_shared<IrregularOptions>();
  cmd.list("--collectives", o->collectives, "gatherv,scatterv", "gatherv, scatterv or both");
  cmd.list("--problems", o->problems, "all",
           "all, or some of same,random,bucket,spikes,increasing,decreasing,alternating,two");
  cmd.counts("--block-sizes", o->block_sizes, "1,10,100,1000,10000", "average block sizes b in MPI_INT elements");
  cmd.list("--algorithms", o->algorithms, "",
           "gatherv/scatterv algorithms (default: traff,linear,binomial,padded, and native on mpi)");
  cmd->add_option("--warmup", o->warmup, "unmeasured calls first (default: 10 on mpi, 1 on sim)");
  cmd->add_option("--repetitions", o->repetitions, "measured calls (default: 75 on mpi, 2 on sim)");
  cmd->add_option("--rho", o->rho, "spikes: blocks of rho*b with probability 1/rho")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the random problems")->capture_default_str();
  cmd->add_option("--root", o->root, "the root (default: floor(p/2) as in §5)");
  cmd->add_option("--regular", o->regular_gather,
                  "regular gather/scatter of GL1 and GL2 (default: native on mpi, binomial on sim)");
  cmd->add_option("--allreduce", o->regular_allreduce,
                  "allreduce of GL2 (default: native on mpi, recursive_doubling on sim)");
  cmd.duration("--message-gap", o->message_gap_s, "",
               "sim only: LogGP per-message gap of every rank's sends and receives, overriding the platform's "
               "(default: the platform's, 0.5us on infiniband-qdr-560)");
  cmd->add_option("--gl-slack", o->gl_slack, "a time this fraction above a guideline's right side still meets it")
      ->capture_default_str();
  cmd.no_check(o->check, "skip the exact check of every algorithm's result");
  cmd->add_flag("--check-bounds", o->check_bounds,
                "fail (exit status 1, after the report) when a row's time is below its lower bound (docs/bounds.md)");
  cmd.runs(
      chosen,
      [o, &common](const BackendOptions& backend) {
        IrregularOptions options = *o;
        if (options.problems == std::vector<std::string>{"all"}) options.problems.clear();
        options.table = common.format == "table";
        return run_irregular(options, backend);
      },
      [cmd, &common] {
        // This experiment's platform is the 560-process InfiniBand cluster of §5.
        if (!cmd.given("--platform")) common.platform = "infiniband-qdr-560";
        if (!cmd.given("--procs")) common.procs = common.backend == "mpi" ? 0 : 560;
      });
  return cmd.app();
}

}  // namespace ragged::bench
