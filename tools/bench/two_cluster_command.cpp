// Placeholder until the two_cluster experiment lands; it refuses to run.
#include "experiments.hpp"
#include "ragged/error.hpp"

namespace ragged::bench {

CLI::App* add_two_cluster_command(CLI::App& app, Common& common, Runner& chosen) {
  CLI::App* cmd = app.add_subcommand("two-cluster", "(not available yet)");
  add_common_options(cmd, common);
  cmd->callback(
      [&chosen] { chosen = [](const BackendOptions&) -> Report { throw Error("two-cluster: not available yet"); }; });
  return cmd;
}

}  // namespace ragged::bench
