#include "experiments.hpp"

namespace ragged::bench {

void add_common_options(CLI::App* cmd, Common& c) {
  cmd->add_option("--backend", c.backend, "sim (SimGrid, default) or mpi (run under mpirun)")->capture_default_str();
  cmd->add_option("--platform", c.platform, "sim platform: a shipped name or an XML file")->capture_default_str();
  cmd->add_option("--format", c.format, "table, csv or json")->capture_default_str();
  cmd->add_option("--output,-o", c.output, "write the report to this file instead of standard output");
  cmd->add_option("--procs", c.procs, "number of processes (on mpi: must match the job, or 0)")->capture_default_str();
}

}  // namespace ragged::bench
