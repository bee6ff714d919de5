// ragged-bench list: every algorithm of the registry with its collective, restrictions and
// summary (the one list, src/core/algorithms/list.def, plus what the backend adds).
#include <string>

#include "experiments.hpp"
#include "ragged/registry.hpp"

namespace ragged::bench {

namespace {

std::string restrictions_text(const Restrictions& r) {
  std::string out;
  const auto add = [&](const std::string& s) { out += (out.empty() ? "" : ";") + s; };
  if (r.commutative_only) add("commutative");
  if (r.needs_arrival) add("arrival");
  if (r.reactive) add("reactive");
  if (r.needs_two_clusters) add("two_clusters");
  if (r.needs_clusters) add("clusters");
  if (r.streams_source) add("streaming");
  if (!r.backend.empty()) add("backend=" + r.backend);
  return out.empty() ? "any" : out;
}

Report list_report() {
  Report report;
  report.experiment = "list";
  for (const Algorithm* a : Registry::instance().all()) {
    Row row;
    row.set("collective", std::string(name_of(a->collective)))
        .set("algorithm", a->name)
        .set("restrictions", restrictions_text(a->restrictions))
        .set("fallback", a->restrictions.fallback)
        .set("cost_model", std::string(a->cost != nullptr ? "yes" : "no"))
        .set("background", std::string(a->background != nullptr ? "yes" : "no"))
        .set("summary", a->summary);
    report.rows.push_back(std::move(row));
  }
  return report;
}

}  // namespace

CLI::App* add_list_command(CLI::App& app, Common& common, Runner& chosen) {
  CLI::App* cmd = app.add_subcommand("list", "Every algorithm: collective, restrictions, fallback, summary");
  cmd->add_option("--format", common.format, "table, csv or json")->capture_default_str();
  cmd->add_option("--backend", common.backend, "sim or mpi (mpi adds its native algorithms)")->capture_default_str();
  cmd->callback([&common, &chosen] {
    common.procs = 1;
    chosen = [](const BackendOptions&) { return list_report(); };
  });
  return cmd;
}

}  // namespace ragged::bench
