#include "experiments.hpp"
#include "options.hpp"
#include "pap.hpp"

namespace ragged::bench {

CLI::App* add_pap_command(CLI::App& app, Common& common, Runner& chosen) {
  CLI::App* cmd = app.add_subcommand("pap", "Imbalanced process arrival mini-benchmark (seed 000 listing 4)");
  add_common_options(cmd, common);
  struct Text {
    PapOptions pap;
    std::string algorithms = "ring,nex,lnbc";
    std::string size = "256Ki";
    std::string max_delay = "5ms";
    std::string base_compute = "100ms";
    bool no_check = false;
  };
  auto t = std::make_shared<Text>();
  cmd->add_option("--collective", t->pap.collective, "allgather or allreduce")->capture_default_str();
  cmd->add_option("--algorithms", t->algorithms, "comma-separated algorithm names")->capture_default_str();
  cmd->add_option("--size", t->size, "total vector in floats (K/Ki = 1024, M/Mi = 2^20)")->capture_default_str();
  cmd->add_option("--max-delay", t->max_delay, "maximum injected arrival delay (e.g. 5ms)")->capture_default_str();
  cmd->add_option("--mode", t->pap.mode, "randlate or onelate")->capture_default_str();
  cmd->add_option("--iterations", t->pap.iterations, "measured iterations")->capture_default_str();
  cmd->add_option("--base-compute", t->base_compute, "each half of the emulated computation")->capture_default_str();
  cmd->add_option("--seed", t->pap.seed, "seed of the arrival patterns")->capture_default_str();
  cmd->add_flag("--no-check", t->no_check, "skip the exact check of every result");
  cmd->callback([t, &chosen] {
    chosen = [t](const BackendOptions& backend) {
      PapOptions o = t->pap;
      o.algorithms = split_list(t->algorithms);
      o.size = parse_count(t->size, "--size");
      o.max_delay_s = parse_duration(t->max_delay, "--max-delay");
      o.base_compute_s = parse_duration(t->base_compute, "--base-compute");
      o.check = !t->no_check;
      return run_pap(o, backend);
    };
  });
  return cmd;
}

}  // namespace ragged::bench
