#include "experiments.hpp"
#include "options.hpp"
#include "pap.hpp"
#include "pap_sweep.hpp"
#include "ragged/error.hpp"

namespace ragged::bench {

CLI::App* add_pap_command(CLI::App& app, Common& common, Runner& chosen) {
  Command cmd(app, "pap", "Imbalanced process arrival mini-benchmark (Proficz 2021, listing 4)", common);
  struct Options {
    PapOptions pap;
    PapSweepOptions sweep;
    std::string plot;
    bool no_progress = false;
    double message_gap_s = -1;
  };
  auto t = std::make_shared<Options>();
  PapOptions& o = t->pap;
  PapSweepOptions& sweep = t->sweep;
  cmd->add_option("--collective", o.collective, "allgather, allreduce or bcast (from rank 0)")->capture_default_str();
  cmd.list("--algorithms", o.algorithms, "ring,nex,lnbc,bdr,bgd,bslb",
           "comma-separated algorithm names (arrival-aware ones, e.g. bdr, bgd and bslb, get the monitor calls); "
           "for --collective allreduce the default is ring,rabenseifner,slt,prr,prd (and native on mpi)");
  cmd.count("--size", o.size, "256Ki", "total vector in floats (K/Ki = 1024, M/Mi = 2^20)");
  cmd.duration("--max-delay", o.max_delay_s, "5ms", "maximum injected arrival delay (e.g. 5ms)");
  cmd->add_option("--mode", o.mode, "randlate or onelate")->capture_default_str();
  cmd->add_option("--iterations", o.iterations, "measured iterations")->capture_default_str();
  cmd.duration("--base-compute", o.base_compute_s, "100ms", "each half of the emulated computation");
  cmd->add_option("--seed", o.seed, "seed of the arrival patterns")->capture_default_str();
  cmd.no_check(o.check, "skip the exact check of every result");
  cmd->add_option("--flat-iterations", o.flat_iterations,
                  "iterations of the extra maxDelay-0 run giving r' for the absorption time (-1: iterations/4, "
                  "0: none)")
      ->capture_default_str();
  cmd.text("--link", "",
           "link model 'alpha,beta' (seconds, seconds per byte) for tau and the lower bound; default: measured at "
           "start-up",
           [&o](const std::string& text) {
             const std::vector<std::string> parts = split_list(text);
             if (parts.size() != 2) throw InvalidArgument("--link", "expected 'alpha,beta'");
             try {
               o.link = LinkModel{std::stod(parts[0]), std::stod(parts[1])};
             } catch (const std::exception&) {
               throw InvalidArgument("--link", "expected two numbers, got '" + text + "'");
             }
           });
  cmd.plot(t->plot,
           "draw a figure (.svg or .png, with gnuplot): e-bar per algorithm; with --sweep, figure 8 (e-bar against "
           "maxDelay), or e-bar against P when the sweep has one maxDelay",
           "--plot,--figure");
  cmd.duration("--message-gap", t->message_gap_s, "",
               "sim only: LogGP per-message gap of every rank's sends and receives, overriding the platform's "
               "(e.g. 0 to compare with SMPI, which applies none)");
  cmd->add_flag("--check-bounds", o.check_bounds,
                "fail (exit status 1, after the report) when a row's e-bar is below its lower bound (docs/bounds.md)");
  cmd.text("--bound-model", "",
           "judge every row in this bound model, foreground or background (default: each row in its own: "
           "background where the agent receives, docs/bounds.md)",
           [&o](const std::string& text) {
             if (text == "foreground") {
               o.bound_model = bound::Model::foreground;
             } else if (text == "background") {
               o.bound_model = bound::Model::background;
             } else {
               throw InvalidArgument("--bound-model", "expected foreground or background, got '" + text + "'");
             }
           });
  cmd->add_option("--sweep", sweep.name,
                  "run a grid instead of one cell: table3 (tables 3 and 4 of Proficz 2021), figure8, or Proficz 2018's "
                  "allreduce-table3 and allreduce-table4 (these default to --collective allreduce and Proficz 2018's "
                  "algorithms plus prd, and native on mpi)");
  cmd.list("--modes", sweep.modes, "", "sweep: delay modes, e.g. onelate,randlate (default: --mode, or the sweep's)");
  cmd.counts("--procs-list", sweep.procs, "", "sweep: process counts, e.g. 4,8,28 (default: the sweep's)");
  cmd.counts("--sizes", sweep.sizes, "", "sweep: sizes in floats, e.g. 128K,256K (default: the sweep's)");
  cmd.durations("--delays", sweep.delays, "", "sweep: maxDelays, e.g. 0,5ms,50ms (default: 0,1,5,10,50,100,500 ms)");
  cmd->add_option("--grid", sweep.grid_file, "sweep: write the paper-style grid (markdown) to this file");
  cmd->add_option("--raw", sweep.raw_file, "sweep: write every (cell, algorithm) measurement (csv) to this file");
  cmd->add_option("--figure-procs", sweep.figure_procs, "sweep: P of the figure")->capture_default_str();
  cmd.count("--figure-size", sweep.figure_size, "256Ki", "sweep: size (floats) of the figure");
  cmd->add_flag("--no-progress", t->no_progress, "sweep: no progress bar (nor grid) on stderr");
  sweep.name.clear();  // no --sweep: one cell
  CLI::App* pap = cmd.app();
  cmd.runs(chosen, [t, pap](const BackendOptions& given) {
    BackendOptions backend = given;
    if (t->message_gap_s >= 0) backend.message_gap_s = t->message_gap_s;
    if (t->sweep.name.empty()) {
      PapOptions one = t->pap;
      // --collective allreduce without --algorithms: Proficz 2018's algorithms, prd, and native on mpi.
      if (one.collective == "allreduce" && pap->count("--algorithms") == 0) {
        one.algorithms = allreduce_sweep_algorithms("allreduce-table3", backend.backend);
      }
      one.plot = t->plot;
      return run_pap(one, backend);
    }
    PapSweepOptions grid = t->sweep;
    grid.progress = !t->no_progress;
    grid.figure_file = t->plot;
    PapOptions base = t->pap;
    if (allreduce_sweep(grid.name)) {
      if (pap->count("--collective") == 0) base.collective = "allreduce";
      if (pap->count("--algorithms") == 0) base.algorithms = allreduce_sweep_algorithms(grid.name, backend.backend);
    }
    return run_pap_sweep(base, grid, backend);
  });
  return cmd.app();
}

}  // namespace ragged::bench
