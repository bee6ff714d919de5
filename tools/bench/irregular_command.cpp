#include <cstdlib>
#include <memory>

#include "experiments.hpp"
#include "irregular.hpp"
#include "options.hpp"
#include "ragged/error.hpp"

namespace ragged::bench {

CLI::App* add_irregular_command(CLI::App& app, Common& common, Runner& chosen) {
  CLI::App* cmd = app.add_subcommand(
      "irregular", "Irregular gatherv/scatterv: the eight block-size problems and guidelines GL1/GL2 (seed 003 §5)");
  add_common_options(cmd, common);
  struct Text {
    IrregularOptions irregular;
    std::string collectives = "gatherv,scatterv";
    std::string problems = "all";
    std::string block_sizes = "1,10,100,1000,10000";
    std::string algorithms;
    std::string message_gap;
    bool no_check = false;
  };
  auto t = std::make_shared<Text>();
  cmd->add_option("--collectives", t->collectives, "gatherv, scatterv or both")->capture_default_str();
  cmd->add_option("--problems", t->problems,
                  "all, or some of same,random,bucket,spikes,increasing,decreasing,alternating,two")
      ->capture_default_str();
  cmd->add_option("--block-sizes", t->block_sizes, "average block sizes b in MPI_INT elements")->capture_default_str();
  cmd->add_option("--algorithms", t->algorithms,
                  "gatherv/scatterv algorithms (default: traff,linear,binomial,padded, and native on mpi)");
  cmd->add_option("--warmup", t->irregular.warmup, "unmeasured calls first (default: 10 on mpi, 1 on sim)");
  cmd->add_option("--repetitions", t->irregular.repetitions, "measured calls (default: 75 on mpi, 2 on sim)");
  cmd->add_option("--rho", t->irregular.rho, "spikes: blocks of rho*b with probability 1/rho")->capture_default_str();
  cmd->add_option("--seed", t->irregular.seed, "seed of the random problems")->capture_default_str();
  cmd->add_option("--root", t->irregular.root, "the root (default: floor(p/2) as in §5)");
  cmd->add_option("--regular", t->irregular.regular_gather,
                  "regular gather/scatter of GL1 and GL2 (default: native on mpi, binomial on sim)");
  cmd->add_option("--allreduce", t->irregular.regular_allreduce,
                  "allreduce of GL2 (default: native on mpi, recursive_doubling on sim)");
  cmd->add_option("--message-gap", t->message_gap,
                  "sim only: LogGP per-message gap of every rank's sends and receives, overriding the "
                  "platform's (default: the platform's, 0.5us on infiniband-qdr-560)");
  cmd->add_option("--gl-slack", t->irregular.gl_slack,
                  "a time this fraction above a guideline's right side still meets it")
      ->capture_default_str();
  cmd->add_flag("--no-check", t->no_check, "skip the exact check of every algorithm's result");
  cmd->callback([t, cmd, &common, &chosen] {
    // This experiment's platform is the 560-process InfiniBand cluster of §5.
    if (cmd->count("--platform") == 0) common.platform = "infiniband-qdr-560";
    if (cmd->count("--procs") == 0) common.procs = common.backend == "mpi" ? 0 : 560;
    chosen = [t, &common](const BackendOptions& backend) {
      IrregularOptions o = t->irregular;
      o.collectives = split_list(t->collectives);
      if (t->problems != "all") o.problems = split_list(t->problems);
      o.block_sizes.clear();
      for (const std::string& s : split_list(t->block_sizes)) {
        o.block_sizes.push_back(static_cast<int>(parse_count(s, "--block-sizes")));
      }
      o.algorithms = split_list(t->algorithms);
      o.check = !t->no_check;
      if (!t->message_gap.empty()) o.message_gap_s = parse_duration(t->message_gap, "--message-gap");
      o.table = common.format == "table";
      return run_irregular(o, backend);
    };
  });
  return cmd;
}

}  // namespace ragged::bench
