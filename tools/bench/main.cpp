// ragged-bench: one subcommand per experiment of the papers (docs/papers.md). The bare command
// runs the default experiment (pap: allgather on a simulated 1 GbE cluster).
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <string>

#include "experiments.hpp"
#include "ragged/error.hpp"
#include "ragged/version.hpp"

// Every subcommand, in the order of --help: one line each. The experiment's file defines
// CLI::App* add_<name>_command(CLI::App&, Common&, Runner&) (docs/bench.md).
#define RAGGED_BENCH_COMMANDS(X) \
  X(pap)                         \
  X(irregular)                   \
  X(two_cluster)                 \
  X(overhead)                    \
  X(calibrate)                   \
  X(consistency)                 \
  X(select)                      \
  X(list)

namespace ragged::bench {
#define RAGGED_BENCH_DECLARE(name) CLI::App* add_##name##_command(CLI::App& app, Common& common, Runner& chosen);
RAGGED_BENCH_COMMANDS(RAGGED_BENCH_DECLARE)
#undef RAGGED_BENCH_DECLARE
}  // namespace ragged::bench

int main(int argc, char** argv) {
  using namespace ragged::bench;
  CLI::App app{
      "ragged-bench: the experiments of ragged's papers, on SimGrid or real MPI.\n"
      "Without a subcommand it runs `pap` with its defaults."};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("ragged-bench ") + ragged::version());

  Common common;
  Runner chosen;
  Runner pap_default;
#define RAGGED_BENCH_ADD(name) add_##name##_command(app, common, chosen);
  RAGGED_BENCH_COMMANDS(RAGGED_BENCH_ADD)
#undef RAGGED_BENCH_ADD

  CLI11_PARSE(app, argc, argv);
  if (!chosen) {
    // No subcommand: parse pap's defaults.
    CLI::App defaults;
    add_pap_command(defaults, common, pap_default);
    defaults.parse(std::vector<std::string>{"pap"});
    chosen = pap_default;
  }

  try {
    BackendScope scope(common.backend, &argc, &argv);
    BackendOptions backend;
    backend.backend = common.backend;
    backend.platform = common.platform;
    backend.procs = common.procs;
    const Report report = chosen(backend);
    if (!scope.prints()) return 0;
    if (common.output.empty()) {
      write_report(std::cout, report, common.format);
    } else {
      std::ofstream file(common.output);
      if (!file) throw ragged::InvalidArgument("--output", "cannot write '" + common.output + "'");
      write_report(file, report, common.format);
    }
    for (const std::string& failure : report.failures) std::cerr << "ragged-bench: " << failure << "\n";
    if (!report.failures.empty()) return 1;
  } catch (const ragged::Error& e) {
    std::cerr << "ragged-bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
