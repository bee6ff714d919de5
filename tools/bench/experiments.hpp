// ragged-bench: every experiment is a subcommand added by its own file (one line of
// main.cpp's list names it; see docs/bench.md).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
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

/// One subcommand as it is declared: the common options (--backend, --platform, --format,
/// --output, --procs), then the experiment's own. Plain options go straight to CLI11
/// (`cmd->add_option`); sizes, durations, lists and the like are kept as text and converted
/// when the subcommand runs, so that a bad value is reported as every other error is
/// (InvalidArgument naming the option). Their targets must live as long as the runner
/// (members of an object the runner holds).
class Command {
 public:
  Command(CLI::App& app, const std::string& name, const std::string& description, Common& common);
  CLI::App* operator->() const { return app_; }
  [[nodiscard]] CLI::App* app() const { return app_; }

  /// An option kept as text, `convert`ed when the subcommand runs. An optional one (empty
  /// default) is converted only when given.
  void text(const std::string& name, const std::string& default_text, const std::string& description,
            std::function<void(const std::string& text)> convert);
  /// "a,b,c" into its parts.
  void list(const std::string& name, std::vector<std::string>& into, const std::string& default_text,
            const std::string& description);
  /// A count with an optional K/Ki, M/Mi or G/Gi suffix (parse_count).
  void count(const std::string& name, std::uint64_t& into, const std::string& default_text,
             const std::string& description);
  /// Comma-separated counts.
  void counts(const std::string& name, std::vector<std::uint64_t>& into, const std::string& default_text,
              const std::string& description);
  void counts(const std::string& name, std::vector<int>& into, const std::string& default_text,
              const std::string& description);
  /// A duration ("5ms", "1.5s"; parse_duration).
  void duration(const std::string& name, double& into, const std::string& default_text, const std::string& description);
  /// Comma-separated durations.
  void durations(const std::string& name, std::vector<double>& into, const std::string& default_text,
                 const std::string& description);
  /// --no-check: clears `check`.
  void no_check(bool& check, const std::string& description);
  /// A figure file (`names`: "--plot" or "--plot,--alias"): .svg or .png, drawn by gnuplot
  /// (plot.hpp); checked before the experiment runs.
  void plot(std::string& into, const std::string& description, const std::string& names = "--plot");

  /// When this subcommand is chosen: `on_parse` runs at once (it may adjust the common
  /// options, which are parsed by then), and `chosen` becomes `run`, preceded by the
  /// conversions of the text options.
  void runs(Runner& chosen, Runner run, std::function<void()> on_parse = {});
  /// Whether option `name` was given on the command line (valid from on_parse on).
  [[nodiscard]] bool given(const std::string& name) const;

 private:
  struct Texts;
  std::string* add_text(const std::string& name, const std::string& default_text, const std::string& description);
  CLI::App* app_;
  std::shared_ptr<Texts> texts_;
};

}  // namespace ragged::bench
