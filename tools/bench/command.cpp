// ragged-bench: the options of every subcommand (experiments.hpp).
#include <limits>
#include <utility>

#include "experiments.hpp"
#include "options.hpp"
#include "plot.hpp"

namespace ragged::bench {

struct Command::Texts {
  /// The options' text, at stable addresses (CLI11 writes into them).
  std::vector<std::unique_ptr<std::string>> values;
  std::vector<std::function<void()>> conversions;
};

Command::Command(CLI::App& app, const std::string& name, const std::string& description, Common& c)
    : app_(app.add_subcommand(name, description)), texts_(std::make_shared<Texts>()) {
  app_->add_option("--backend", c.backend, "sim (SimGrid, default) or mpi (run under mpirun)")->capture_default_str();
  app_->add_option("--platform", c.platform, "sim platform: a shipped name or an XML file")->capture_default_str();
  app_->add_option("--format", c.format, "table, csv or json")->capture_default_str();
  app_->add_option("--output,-o", c.output, "write the report to this file instead of standard output");
  app_->add_option("--procs", c.procs, "number of processes (on mpi: must match the job, or 0)")->capture_default_str();
}

std::string* Command::add_text(const std::string& name, const std::string& default_text,
                               const std::string& description) {
  std::string* text = texts_->values.emplace_back(std::make_unique<std::string>(default_text)).get();
  CLI::Option* option = app_->add_option(name, *text, description);
  if (!default_text.empty()) option->capture_default_str();
  return text;
}

void Command::text(const std::string& name, const std::string& default_text, const std::string& description,
                   std::function<void(const std::string&)> convert) {
  const std::string* text = add_text(name, default_text, description);
  const bool optional = default_text.empty();
  texts_->conversions.emplace_back([text, optional, convert = std::move(convert)] {
    if (!optional || !text->empty()) convert(*text);
  });
}

void Command::list(const std::string& name, std::vector<std::string>& into, const std::string& default_text,
                   const std::string& description) {
  const std::string* text = add_text(name, default_text, description);
  texts_->conversions.emplace_back([text, &into] { into = split_list(*text); });
}

void Command::count(const std::string& name, std::uint64_t& into, const std::string& default_text,
                    const std::string& description) {
  text(name, default_text, description, [name, &into](const std::string& t) { into = parse_count(t, name.c_str()); });
}

void Command::counts(const std::string& name, std::vector<std::uint64_t>& into, const std::string& default_text,
                     const std::string& description) {
  text(name, default_text, description, [name, &into](const std::string& t) {
    into.clear();
    for (const std::string& s : split_list(t)) into.push_back(parse_count(s, name.c_str()));
  });
}

void Command::counts(const std::string& name, std::vector<int>& into, const std::string& default_text,
                     const std::string& description) {
  text(name, default_text, description, [name, &into](const std::string& t) {
    into.clear();
    for (const std::string& s : split_list(t)) {
      into.push_back(
          static_cast<int>(parse_count(s, name.c_str(), static_cast<std::uint64_t>(std::numeric_limits<int>::max()))));
    }
  });
}

void Command::duration(const std::string& name, double& into, const std::string& default_text,
                       const std::string& description) {
  text(name, default_text, description,
       [name, &into](const std::string& t) { into = parse_duration(t, name.c_str()); });
}

void Command::durations(const std::string& name, std::vector<double>& into, const std::string& default_text,
                        const std::string& description) {
  text(name, default_text, description, [name, &into](const std::string& t) {
    into.clear();
    for (const std::string& s : split_list(t)) into.push_back(parse_duration(s, name.c_str()));
  });
}

void Command::no_check(bool& check, const std::string& description) {
  auto flag = std::make_shared<bool>(false);
  app_->add_flag("--no-check", *flag, description);
  texts_->conversions.emplace_back([flag, &check] { check = !*flag; });
}

void Command::plot(std::string& into, const std::string& description, const std::string& names) {
  text(names, "", description, [&into](const std::string& t) {
    check_plot_target(t, "--plot");
    into = t;
  });
}

void Command::runs(Runner& chosen, Runner run, std::function<void()> on_parse) {
  app_->callback([texts = texts_, &chosen, run = std::move(run), on_parse = std::move(on_parse)] {
    if (on_parse) on_parse();
    chosen = [texts, run](const BackendOptions& backend) {
      for (const auto& convert : texts->conversions) convert();
      return run(backend);
    };
  });
}

bool Command::given(const std::string& name) const { return app_->count(name) > 0; }

}  // namespace ragged::bench
