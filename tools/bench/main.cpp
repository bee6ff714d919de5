// ragged-bench: one subcommand per experiment of the seeds. The bare command
// runs the default experiment (pap: allgather on a simulated 1 GbE cluster).
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <string>

#include "backend.hpp"
#include "options.hpp"
#include "pap.hpp"
#include "ragged/error.hpp"
#include "report.hpp"

namespace {

struct Common {
  std::string backend = "sim";
  std::string platform = "cluster-1gbe-48";
  std::string format = "table";
  std::string output;
  int procs = 28;
};

void add_common(CLI::App* app, Common& c) {
  app->add_option("--backend", c.backend, "sim (SimGrid, default) or mpi (run under mpirun)")->capture_default_str();
  app->add_option("--platform", c.platform, "sim platform: a shipped name or an XML file")->capture_default_str();
  app->add_option("--format", c.format, "table, csv or json")->capture_default_str();
  app->add_option("--output,-o", c.output, "write the report to this file instead of standard output");
  app->add_option("--procs", c.procs, "number of processes (on mpi: must match the job, or 0)")->capture_default_str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ragged-bench: the experiments of ragged's seed papers, on SimGrid or real MPI"};
  app.require_subcommand(0, 1);

  Common common;
  ragged::bench::PapOptions pap;
  std::string algorithms = "ring,nex,lnbc";
  std::string size = "256Ki";
  std::string max_delay = "5ms";
  std::string base_compute = "100ms";
  bool no_check = false;
  CLI::App* pap_cmd = app.add_subcommand("pap", "Imbalanced process arrival mini-benchmark (seed 000 listing 4)");
  add_common(pap_cmd, common);
  pap_cmd->add_option("--collective", pap.collective, "allgather or allreduce")->capture_default_str();
  pap_cmd->add_option("--algorithms", algorithms, "comma-separated algorithm names")->capture_default_str();
  pap_cmd->add_option("--size", size, "total vector in floats (K/Ki = 1024, M/Mi = 2^20)")->capture_default_str();
  pap_cmd->add_option("--max-delay", max_delay, "maximum injected arrival delay (e.g. 5ms)")->capture_default_str();
  pap_cmd->add_option("--mode", pap.mode, "randlate or onelate")->capture_default_str();
  pap_cmd->add_option("--iterations", pap.iterations, "measured iterations")->capture_default_str();
  pap_cmd->add_option("--base-compute", base_compute, "each half of the emulated computation")->capture_default_str();
  pap_cmd->add_option("--seed", pap.seed, "seed of the arrival patterns")->capture_default_str();
  pap_cmd->add_flag("--no-check", no_check, "skip the exact check of every result");

  CLI11_PARSE(app, argc, argv);

  try {
    ragged::bench::BackendScope scope(common.backend, &argc, &argv);
    ragged::bench::BackendOptions backend{common.backend, common.platform, common.procs};
    pap.algorithms = ragged::bench::split_list(algorithms);
    pap.size = ragged::bench::parse_count(size, "--size");
    pap.max_delay_s = ragged::bench::parse_duration(max_delay, "--max-delay");
    pap.base_compute_s = ragged::bench::parse_duration(base_compute, "--base-compute");
    pap.check = !no_check;
    const ragged::bench::Report report = ragged::bench::run_pap(pap, backend);
    if (!scope.prints()) return 0;
    if (common.output.empty()) {
      ragged::bench::write_report(std::cout, report, common.format);
    } else {
      std::ofstream file(common.output);
      if (!file) throw ragged::InvalidArgument("--output", "cannot write '" + common.output + "'");
      ragged::bench::write_report(file, report, common.format);
    }
  } catch (const ragged::Error& e) {
    std::cerr << "ragged-bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
