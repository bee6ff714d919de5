// Placeholder until the irregular experiment lands; it refuses to run.
#include "experiments.hpp"
#include "ragged/error.hpp"

namespace ragged::bench {

CLI::App* add_irregular_command(CLI::App& app, Common& common, Runner& chosen) {
  CLI::App* cmd = app.add_subcommand("irregular", "(not available yet)");
  add_common_options(cmd, common);
  cmd->callback(
      [&chosen] { chosen = [](const BackendOptions&) -> Report { throw Error("irregular: not available yet"); }; });
  return cmd;
}

}  // namespace ragged::bench
