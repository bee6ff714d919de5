#include "pap_sweep.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <tuple>
#include <utility>

#include "plot.hpp"
#include "ragged/error.hpp"

namespace ragged::bench {

namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string size_label(std::uint64_t floats) {
  if (floats % (1024 * 1024) == 0) return std::to_string(floats / (1024 * 1024)) + "M";
  if (floats % 1024 == 0) return std::to_string(floats / 1024) + "K";
  return std::to_string(floats);
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

std::string delay_label(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s * 1e3);
  return buf;
}

struct Cell {
  std::string mode;
  int procs = 0;
  std::uint64_t size = 0;
  double delay = 0;
  /// Proficz 2018, §3: e_lo = a_k - a_o + delta for one late process (delta: the vector's transfer
  /// time); for randlate the bench's per-rank bound.
  double paper_bound = 0;
  std::vector<PapMeasurement> rows;
  std::string best;
  std::string best_regular;
  double best_elapsed = 0;
  double best_regular_elapsed = 0;
  bool best_is_arrival_aware = false;
  /// The cell's per-rank bound: the lowest of its rows' (each in its own model, docs/bounds.md),
  /// a bound for every row of the cell; 0 without rows.
  [[nodiscard]] double bound() const {
    double b = rows.empty() ? 0.0 : rows.front().lower_bound;
    for (const PapMeasurement& m : rows) b = std::min(b, m.lower_bound);
    return b;
  }
  [[nodiscard]] std::string label() const {
    if (!best_is_arrival_aware) return upper(best);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%.2f", upper(best).c_str(), best_regular_elapsed / best_elapsed);
    return buf;
  }
};

void write_file(const std::string& path, const std::string& text, const char* option) {
  std::ofstream out(path);
  if (!out) throw InvalidArgument(option, "cannot write '" + path + "'");
  out << text;
}

std::string grid_markdown(const std::vector<Cell>& cells, const PapSweepOptions& sweep, const PapOptions& base,
                          const BackendOptions& backend) {
  std::ostringstream md;
  md << "Fastest algorithm per cell (average elapsed time); for an arrival-aware one, its speedup over the best "
        "regular one.\n";
  md << "backend " << backend.backend << ", platform " << platform_label(backend) << ", mode " << base.mode << ", "
     << base.iterations << " iterations, algorithms";
  for (const std::string& a : base.algorithms) md << " " << a;
  md << "\n";
  std::map<std::tuple<int, std::uint64_t, double>, const Cell*> index;
  for (const Cell& c : cells) {
    if (c.mode == cells.front().mode) index[{c.procs, c.size, c.delay}] = &c;
  }
  for (int p : sweep.procs) {
    md << "\n| P = " << p << " |";
    for (double d : sweep.delays) md << " " << delay_label(d) << " ms |";
    md << "\n|---|";
    for (std::size_t i = 0; i < sweep.delays.size(); ++i) md << "---|";
    md << "\n";
    for (std::uint64_t size : sweep.sizes) {
      md << "| " << size_label(size) << " |";
      for (double d : sweep.delays) {
        auto it = index.find({p, size, d});
        md << " " << (it == index.end() ? std::string("-") : it->second->label()) << " |";
      }
      md << "\n";
    }
  }
  return md.str();
}

std::string ms(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", seconds * 1e3);
  return buf;
}

std::string ratio(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

const PapMeasurement* row_of(const Cell& c, const std::string& algorithm) {
  for (const PapMeasurement& m : c.rows) {
    if (m.algorithm == algorithm) return &m;
  }
  return nullptr;
}

/// Proficz 2018's tables: per mode and P, with one size the layout of its table 3 (a row of e-bar
/// and one of speedup over the ring per algorithm, and the bound), with several that of its
/// table 4 (per algorithm but the ring, a row per size: e-bar minus the ring's in ms, speedup
/// over the ring, and the bound).
std::string allreduce_tables_markdown(const std::vector<Cell>& cells, const PapSweepOptions& sweep,
                                      const PapOptions& base, const BackendOptions& backend) {
  std::ostringstream md;
  md << "backend " << backend.backend << ", platform " << platform_label(backend) << ", " << base.iterations
     << " iterations, seed " << base.seed << "; times in ms; speedup s = e_ring / e_alg; e_lo: Proficz 2018's §3 "
     << "bound a_k - a_o + delta (onelate), the bench's per-rank bound (randlate); per-rank bound: the mean "
        "over the ranks of max(0, the latest other arrival + delta - own arrival)\n";
  std::map<std::tuple<std::string, int, std::uint64_t, double>, const Cell*> index;
  for (const Cell& c : cells) index[{c.mode, c.procs, c.size, c.delay}] = &c;
  const auto header = [&](const std::string& first) {
    md << "\n| " << first << " |";
    for (double d : sweep.delays) md << " " << delay_label(d) << " |";
    md << "\n|---|";
    for (std::size_t i = 0; i < sweep.delays.size(); ++i) md << "---|";
    md << "\n";
  };
  for (const std::string& mode : sweep.modes) {
    for (int p : sweep.procs) {
      if (sweep.sizes.size() == 1) {
        const std::uint64_t size = sweep.sizes.front();
        md << "\n" << mode << ", P = " << p << ", " << size_label(size) << " floats\n";
        header("algorithm \\ maxDelay [ms]");
        for (const std::string& a : base.algorithms) {
          std::string e_row = "| " + a + " e |";
          std::string s_row = "| " + a + " s |";
          for (double d : sweep.delays) {
            auto it = index.find({mode, p, size, d});
            const PapMeasurement* m = it == index.end() ? nullptr : row_of(*it->second, a);
            const PapMeasurement* ring = it == index.end() ? nullptr : row_of(*it->second, "ring");
            // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict overlap in
            // `" " + std::string(...)` (a temporary's buffer), which the Release preset makes an error.
            e_row.append(" ").append(m ? ms(m->avg_elapsed) : std::string("-")).append(" |");
            s_row.append(" ")
                .append(m && ring ? ratio(ring->avg_elapsed / m->avg_elapsed) : std::string("-"))
                .append(" |");
          }
          md << e_row << "\n" << s_row << "\n";
        }
        md << "| e_lo |";
        for (double d : sweep.delays) {
          auto it = index.find({mode, p, size, d});
          md << " " << (it == index.end() ? std::string("-") : ms(it->second->paper_bound)) << " |";
        }
        md << "\n| per-rank bound |";
        for (double d : sweep.delays) {
          auto it = index.find({mode, p, size, d});
          md << " " << (it == index.end() || it->second->rows.empty() ? std::string("-") : ms(it->second->bound()))
             << " |";
        }
        md << "\n";
        continue;
      }
      for (const std::string& a : base.algorithms) {
        if (a == "ring") continue;
        md << "\n"
           << a << " against ring, " << mode << ", P = " << p << ": e_" << a << " - e_ring [ms], speedup, (e_lo)\n";
        header("size [floats] \\ maxDelay [ms]");
        for (std::uint64_t size : sweep.sizes) {
          md << "| " << size_label(size) << " |";
          for (double d : sweep.delays) {
            auto it = index.find({mode, p, size, d});
            const PapMeasurement* m = it == index.end() ? nullptr : row_of(*it->second, a);
            const PapMeasurement* ring = it == index.end() ? nullptr : row_of(*it->second, "ring");
            if (m == nullptr || ring == nullptr) {
              md << " - |";
              continue;
            }
            md << " " << ms(m->avg_elapsed - ring->avg_elapsed) << ", " << ratio(ring->avg_elapsed / m->avg_elapsed)
               << " (" << ms(it->second->paper_bound) << ") |";
          }
          md << "\n";
        }
      }
    }
  }
  return md.str();
}

/// e-bar against maxDelay (figure 8: P = figure_procs, figure_size floats; the maxDelays
/// equally spaced), or against P (figure_size floats) when the sweep has one maxDelay.
Figure sweep_figure(const std::vector<Cell>& cells, const PapSweepOptions& sweep, const PapOptions& base,
                    const BackendOptions& backend) {
  const bool against_delay = sweep.delays.size() > 1;
  Figure f;
  f.y_label = "average elapsed time [ms]";
  f.y_from_zero = true;
  if (against_delay) {
    f.title = "Average elapsed time against maxDelay (P = " + std::to_string(sweep.figure_procs) + ", " +
              size_label(sweep.figure_size) + " floats, " + sweep.modes.front() + ", " + platform_label(backend) + ")";
    f.x_label = "maxDelay [ms]";
    for (std::size_t d = 0; d < sweep.delays.size(); ++d)
      f.x_tics.emplace_back(static_cast<double>(d), delay_label(sweep.delays[d]));
  } else {
    f.title = "Average elapsed time against P (" + size_label(sweep.figure_size) + " floats, maxDelay " +
              delay_label(sweep.delays.front()) + " ms, " + sweep.modes.front() + ", " + platform_label(backend) + ")";
    f.x_label = "processes P";
  }
  for (std::size_t a = 0; a < base.algorithms.size(); ++a) {
    Series line{upper(base.algorithms[a]), {}};
    for (const Cell& c : cells) {
      if (c.mode != cells.front().mode || c.size != sweep.figure_size || a >= c.rows.size()) continue;
      if (against_delay && c.procs != sweep.figure_procs) continue;
      const auto d =
          static_cast<std::size_t>(std::find(sweep.delays.begin(), sweep.delays.end(), c.delay) - sweep.delays.begin());
      const double x = against_delay ? static_cast<double>(d) : c.procs;
      line.points.push_back({x, c.rows[a].avg_elapsed * 1e3});
    }
    f.series.push_back(std::move(line));
  }
  return f;
}

}  // namespace

bool allreduce_sweep(const std::string& name) { return name == "allreduce-table3" || name == "allreduce-table4"; }

std::vector<std::string> allreduce_sweep_algorithms(const std::string& name, const std::string& backend) {
  std::vector<std::string> out = name == "allreduce-table4"
                                     ? std::vector<std::string>{"ring", "prr", "prd"}
                                     : std::vector<std::string>{"ring", "rabenseifner", "slt", "prr", "prd"};
  if (backend == "mpi") out.emplace_back("native");
  return out;
}

void complete_sweep(PapSweepOptions& sweep) {
  std::vector<double> paper_delays{0, 1e-3, 5e-3, 10e-3, 50e-3, 100e-3, 500e-3};
  if (allreduce_sweep(sweep.name)) {
    // Proficz 2018, §5.2: P = 48, maxDelay 0..1000 ms; table 3 1M floats onelate, table 4 128K..8M
    // floats, onelate and randlate.
    paper_delays.push_back(1.0);
    if (sweep.procs.empty()) sweep.procs = {48};
    if (sweep.sizes.empty()) {
      if (sweep.name == "allreduce-table3") {
        sweep.sizes = {1024 * 1024};
      } else {
        for (std::uint64_t k : {128u, 512u, 1024u, 2048u, 4096u, 8192u}) sweep.sizes.push_back(k * 1024);
      }
    }
    if (sweep.modes.empty()) {
      sweep.modes = sweep.name == "allreduce-table3" ? std::vector<std::string>{"onelate"}
                                                     : std::vector<std::string>{"onelate", "randlate"};
    }
  } else if (sweep.name == "table3") {
    if (sweep.procs.empty()) {
      for (int p = 4; p <= 48; p += 4) sweep.procs.push_back(p);
    }
    if (sweep.sizes.empty()) {
      for (std::uint64_t k : {128u, 256u, 512u, 1024u, 2048u}) sweep.sizes.push_back(k * 1024);
    }
  } else if (sweep.name == "figure8") {
    if (sweep.procs.empty()) sweep.procs = {32};
    if (sweep.sizes.empty()) sweep.sizes = {256 * 1024};
  } else {
    throw InvalidArgument("--sweep", "unknown sweep '" + sweep.name +
                                         "' (expected table3, figure8, allreduce-table3 or allreduce-table4)");
  }
  if (sweep.delays.empty()) sweep.delays = paper_delays;
  std::sort(sweep.delays.begin(), sweep.delays.end());  // maxDelay 0 first: it gives r' to the others
  if (std::find(sweep.procs.begin(), sweep.procs.end(), sweep.figure_procs) == sweep.procs.end() ||
      std::find(sweep.sizes.begin(), sweep.sizes.end(), sweep.figure_size) == sweep.sizes.end()) {
    sweep.figure_procs = sweep.procs.front();
    sweep.figure_size = sweep.sizes.front();
  }
}

Report run_pap_sweep(const PapOptions& base, PapSweepOptions sweep, const BackendOptions& backend) {
  if (sweep.modes.empty() && !allreduce_sweep(sweep.name)) sweep.modes = {base.mode};
  complete_sweep(sweep);
  if (allreduce_sweep(sweep.name) && base.collective != "allreduce") {
    throw InvalidArgument("--collective", "the sweep " + sweep.name + " measures allreduce");
  }
  for (int p : sweep.procs) {
    if (p <= 0) throw InvalidArgument("--procs-list", "process counts must be positive");
  }
  const std::size_t total = sweep.modes.size() * sweep.procs.size() * sweep.sizes.size() * sweep.delays.size();
  ProgressBar bar(total, sweep.progress, "cells");
  std::vector<Cell> cells;
  Report raw;
  raw.experiment = "pap";
  std::vector<std::string> violations;  // --check-bounds
  std::size_t done = 0;
  // Under mpirun every process runs the sweep; only the printing one (it gets results) draws
  // the bar, from its first cell on.
  bool printing = backend.backend != "mpi";
  for (const std::string& mode : sweep.modes) {
    for (int p : sweep.procs) {
      for (std::uint64_t size : sweep.sizes) {
        std::map<std::string, double> flat_run;
        for (double delay : sweep.delays) {
          const std::string what =
              mode + " P=" + std::to_string(p) + " " + size_label(size) + " " + delay_label(delay) + "ms";
          if (printing) bar.show(done, what);
          PapOptions o = base;
          o.mode = mode;
          o.size = size;
          o.max_delay_s = delay;
          // The maxDelay-0 cell's run times stand in for each later cell's flat run. Under mpirun
          // only the printing process gets results, so the others could not skip the flat run
          // alike and the processes' collective calls would diverge: measure it in every cell.
          if (backend.backend != "mpi") o.flat_run_time = flat_run;
          BackendOptions b = backend;
          b.procs = p;
          if (backend.backend == "mpi") b.procs = 0;  // the job's size
          const PapResult result = measure_pap(o, b);
          ++done;
          printing = result.procs != 0;
          if (!printing) continue;
          Cell cell;
          cell.mode = mode;
          cell.procs = p;
          cell.size = size;
          cell.delay = delay;
          cell.rows = result.rows;
          if (base.check_bounds) {
            for (std::string& v : bound_violations(result))
              violations.push_back(mode + ", maxDelay " + delay_label(delay) + " ms: " + v);
          }
          cell.best_elapsed = INFINITY;
          cell.best_regular_elapsed = INFINITY;
          for (const PapMeasurement& m : result.rows) {
            // A regular algorithm's maxDelay-0 run is its flat run r'; an arrival-aware one ran
            // its regular fallback there, so its cells measure its own flat run (pap.cpp).
            if (delay == 0 && !m.arrival_aware) flat_run[m.algorithm] = m.run_time;
            if (m.avg_elapsed < cell.best_elapsed) {
              cell.best_elapsed = m.avg_elapsed;
              cell.best = m.algorithm;
              cell.best_is_arrival_aware = m.arrival_aware;
            }
            if (!m.arrival_aware && m.avg_elapsed < cell.best_regular_elapsed) {
              cell.best_regular_elapsed = m.avg_elapsed;
              cell.best_regular = m.algorithm;
            }
          }
          if (!cell.rows.empty()) {
            const double delta = result.link.tau(static_cast<std::size_t>(cell.rows.front().bytes));
            cell.paper_bound = mode == "onelate" && base.collective == "allreduce" ? delay + delta : cell.bound();
          }
          for (Row& row : pap_report(o, b, result).rows) raw.rows.push_back(std::move(row));
          cells.push_back(std::move(cell));
        }
      }
    }
  }
  if (!printing) return Report{};
  bar.show(done, "done");

  Report report;
  report.experiment = "pap-sweep";
  report.failures = std::move(violations);
  report.metadata = {{"sweep", sweep.name},
                     {"collective", base.collective},
                     {"mode", join(sweep.modes)},
                     {"iterations", std::to_string(base.iterations)},
                     {"seed", std::to_string(base.seed)},
                     {"backend", backend.backend},
                     {"platform", platform_label(backend)}};
  for (const Cell& c : cells) {
    Row row;
    row.set("mode", c.mode)
        .set("procs", std::int64_t{c.procs})
        .set("size_floats", static_cast<std::int64_t>(c.size))
        .set("max_delay_s", c.delay)
        .set("best", c.best)
        .set("cell", c.label())
        .set("best_regular", c.best_regular)
        .set("speedup_vs_best_regular",
             std::isfinite(c.best_regular_elapsed) ? c.best_regular_elapsed / c.best_elapsed : 1.0);
    for (const PapMeasurement& m : c.rows) row.set("avg_elapsed_s." + m.algorithm, m.avg_elapsed);
    if (const PapMeasurement* ring = row_of(c, "ring")) {
      for (const PapMeasurement& m : c.rows)
        row.set("speedup_vs_ring." + m.algorithm, ring->avg_elapsed / m.avg_elapsed);
    }
    if (!c.rows.empty()) row.set("lower_bound_s", c.bound());
    if (base.collective == "allreduce") row.set("e_lo_s", c.paper_bound);
    report.rows.push_back(std::move(row));
  }

  const std::string grid = allreduce_sweep(sweep.name) ? allreduce_tables_markdown(cells, sweep, base, backend)
                                                       : grid_markdown(cells, sweep, base, backend);
  if (!sweep.grid_file.empty()) write_file(sweep.grid_file, grid, "--grid");
  if (sweep.progress) std::cerr << grid;
  if (!sweep.raw_file.empty()) {
    std::ostringstream csv;
    write_report(csv, raw, "csv");
    write_file(sweep.raw_file, csv.str(), "--raw");
  }
  if (!sweep.figure_file.empty()) draw(sweep_figure(cells, sweep, base, backend), sweep.figure_file, "--plot");
  return report;
}

}  // namespace ragged::bench
