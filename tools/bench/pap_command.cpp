#include "experiments.hpp"
#include "options.hpp"
#include "pap.hpp"
#include "pap_sweep.hpp"
#include "ragged/error.hpp"

namespace ragged::bench {

CLI::App* add_pap_command(CLI::App& app, Common& common, Runner& chosen) {
  CLI::App* cmd = app.add_subcommand("pap", "Imbalanced process arrival mini-benchmark (seed 000 listing 4)");
  add_common_options(cmd, common);
  struct Text {
    PapOptions pap;
    std::string algorithms = "ring,nex,lnbc,bdr,bgd,bslb";
    std::string size = "256Ki";
    std::string max_delay = "5ms";
    std::string base_compute = "100ms";
    std::string link;
    bool no_check = false;
    PapSweepOptions sweep;
    std::string sweep_name;
    std::string procs_list;
    std::string sizes;
    std::string delays;
    std::string figure_size = "256Ki";
    bool no_progress = false;
  };
  auto t = std::make_shared<Text>();
  cmd->add_option("--collective", t->pap.collective, "allgather or allreduce")->capture_default_str();
  cmd->add_option("--algorithms", t->algorithms,
                  "comma-separated algorithm names (arrival-aware ones, e.g. bdr, bgd and bslb, get the monitor calls)")
      ->capture_default_str();
  cmd->add_option("--size", t->size, "total vector in floats (K/Ki = 1024, M/Mi = 2^20)")->capture_default_str();
  cmd->add_option("--max-delay", t->max_delay, "maximum injected arrival delay (e.g. 5ms)")->capture_default_str();
  cmd->add_option("--mode", t->pap.mode, "randlate or onelate")->capture_default_str();
  cmd->add_option("--iterations", t->pap.iterations, "measured iterations")->capture_default_str();
  cmd->add_option("--base-compute", t->base_compute, "each half of the emulated computation")->capture_default_str();
  cmd->add_option("--seed", t->pap.seed, "seed of the arrival patterns")->capture_default_str();
  cmd->add_flag("--no-check", t->no_check, "skip the exact check of every result");
  cmd->add_option("--flat-iterations", t->pap.flat_iterations,
                  "iterations of the extra maxDelay-0 run giving r' for the absorption time (-1: iterations/4, "
                  "0: none)")
      ->capture_default_str();
  cmd->add_option("--link", t->link,
                  "link model 'alpha,beta' (seconds, seconds per byte) for tau and the lower bound; default: "
                  "measured at start-up");
  cmd->add_option("--sweep", t->sweep_name,
                  "run a grid instead of one cell: table3 (tables 3 and 4 of seed 000) or figure8");
  cmd->add_option("--procs-list", t->procs_list, "sweep: process counts, e.g. 4,8,28 (default: the sweep's)");
  cmd->add_option("--sizes", t->sizes, "sweep: sizes in floats, e.g. 128K,256K (default: the sweep's)");
  cmd->add_option("--delays", t->delays, "sweep: maxDelays, e.g. 0,5ms,50ms (default: 0,1,5,10,50,100,500 ms)");
  cmd->add_option("--grid", t->sweep.grid_file, "sweep: write the paper-style grid (markdown) to this file");
  cmd->add_option("--raw", t->sweep.raw_file, "sweep: write every (cell, algorithm) measurement (csv) to this file");
  cmd->add_option("--figure", t->sweep.figure_file, "sweep: write figure 8 (e-bar against maxDelay, SVG) to this file");
  cmd->add_option("--figure-procs", t->sweep.figure_procs, "sweep: P of the figure")->capture_default_str();
  cmd->add_option("--figure-size", t->figure_size, "sweep: size (floats) of the figure")->capture_default_str();
  cmd->add_flag("--no-progress", t->no_progress, "sweep: no progress bar (nor grid) on stderr");
  cmd->callback([t, &chosen] {
    chosen = [t](const BackendOptions& backend) {
      PapOptions o = t->pap;
      o.algorithms = split_list(t->algorithms);
      o.size = parse_count(t->size, "--size");
      o.max_delay_s = parse_duration(t->max_delay, "--max-delay");
      o.base_compute_s = parse_duration(t->base_compute, "--base-compute");
      o.check = !t->no_check;
      if (!t->link.empty()) {
        const std::vector<std::string> parts = split_list(t->link);
        if (parts.size() != 2) throw InvalidArgument("--link", "expected 'alpha,beta'");
        try {
          o.link = LinkModel{std::stod(parts[0]), std::stod(parts[1])};
        } catch (const std::exception&) {
          throw InvalidArgument("--link", "expected two numbers, got '" + t->link + "'");
        }
      }
      if (t->sweep_name.empty()) return run_pap(o, backend);
      PapSweepOptions sweep = t->sweep;
      sweep.name = t->sweep_name;
      sweep.progress = !t->no_progress;
      sweep.figure_size = parse_count(t->figure_size, "--figure-size");
      for (const std::string& p : split_list(t->procs_list)) {
        sweep.procs.push_back(static_cast<int>(parse_count(p, "--procs-list")));
      }
      for (const std::string& s : split_list(t->sizes)) sweep.sizes.push_back(parse_count(s, "--sizes"));
      for (const std::string& d : split_list(t->delays)) sweep.delays.push_back(parse_duration(d, "--delays"));
      return run_pap_sweep(o, sweep, backend);
    };
  });
  return cmd;
}

}  // namespace ragged::bench
