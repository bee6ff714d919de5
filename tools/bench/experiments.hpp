// ragged-bench: every experiment is a subcommand added by its own file.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "backend.hpp"
#include "report.hpp"

namespace ragged::bench {

/// Options every subcommand takes.
struct Common {
  std::string backend = "sim";
  std::string platform = "cluster-1gbe-48";
  std::string format = "table";
  std::string output;
  int procs = 28;
};

/// Runs the chosen experiment once the command line is parsed (and the backend started).
using Runner = std::function<Report(const BackendOptions& backend)>;

/// Adds --backend, --platform, --format, --output and --procs to `cmd`.
void add_common_options(CLI::App* cmd, Common& common);

/// Each adds its subcommand; when that subcommand is chosen its callback stores the runner
/// in `chosen`. `common` receives the shared options.
CLI::App* add_pap_command(CLI::App& app, Common& common, Runner& chosen);
CLI::App* add_irregular_command(CLI::App& app, Common& common, Runner& chosen);
CLI::App* add_two_cluster_command(CLI::App& app, Common& common, Runner& chosen);
CLI::App* add_list_command(CLI::App& app, Common& common, Runner& chosen);

}  // namespace ragged::bench
