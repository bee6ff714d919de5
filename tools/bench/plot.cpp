#include "plot.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ragged/error.hpp"

extern char** environ;

namespace ragged::bench {

namespace {

constexpr const char* program = "gnuplot";

std::string extension_of(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

bool on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return true;
  }
  return false;
}

/// A gnuplot string literal: double quotes, with backslashes and quotes escaped.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string terminal(const std::string& ext) {
  if (ext == ".svg") return "set terminal svg size 960,500 enhanced font \"sans,12\" background rgb \"white\"\n";
  // pngcairo draws smoother lines; gnuplot-nox may have only libgd's png.
  return "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
         "  set terminal pngcairo size 960,500 enhanced font \"sans,10\" background rgb \"white\"\n"
         "} else {\n"
         "  set terminal png size 960,500 enhanced background rgb \"white\"\n"
         "}\n";
}

std::string script_of(const Figure& f, const std::string& ext, const std::string& output, const std::string& data) {
  std::ostringstream gp;
  gp << "# Drawn by ragged-bench: in this folder, `gnuplot " << std::filesystem::path(data).stem().string()
     << ".gp` draws " << output << " again from " << data << ".\n";
  gp << terminal(ext);
  gp << "set output " << quoted(output) << "\n";
  if (!f.title.empty()) gp << "set title " << quoted(f.title) << " noenhanced\n";
  gp << "set xlabel " << quoted(f.x_label) << " noenhanced\n";
  gp << "set ylabel " << quoted(f.y_label) << " noenhanced\n";
  gp << "set key outside right top vertical noenhanced\n";
  gp << "set grid ytics lc rgb \"#dddddd\"\n";
  if (f.log_x > 0) gp << "set logscale x " << number(f.log_x) << "\n";
  if (f.log_y > 0) gp << "set logscale y " << number(f.log_y) << "\n";
  if (!f.y_format.empty()) gp << "set format y " << quoted(f.y_format) << "\n";
  if (f.y_from_zero) gp << "set yrange [0:*]\n";
  if (!f.x_tics.empty()) {
    gp << "set xtics noenhanced (";
    for (std::size_t i = 0; i < f.x_tics.size(); ++i) {
      gp << (i ? ", " : "") << quoted(f.x_tics[i].second) << " " << number(f.x_tics[i].first);
    }
    gp << ")\n";
  }
  if (f.style == Figure::Style::bars) {
    gp << "set style fill solid 0.6 border\nset boxwidth 0.6\nset xrange [-0.6:"
       << number(static_cast<double>(f.x_tics.size()) - 0.4) << "]\n";
  } else {
    // The x range is the data's, with a margin for the markers.
    gp << "set autoscale xfix\nset offsets graph 0.02, graph 0.02, 0, 0\n";
  }
  gp << "plot";
  for (std::size_t i = 0; i < f.series.size(); ++i) {
    const auto& points = f.series[i].points;
    const bool errors =
        !points.empty() && std::all_of(points.begin(), points.end(), [](const PlotPoint& p) { return p.error >= 0; });
    std::string with;
    if (f.style == Figure::Style::bars) {
      with = errors ? "using 1:2:3 with boxerrorbars" : "using 1:2 with boxes";
    } else {
      with = errors ? "using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.7" : "using 1:2 with linespoints lw 2 pt 7 ps 0.7";
    }
    gp << (i ? ", \\\n    " : " ") << quoted(data) << " index " << i << " " << with << " title "
       << quoted(f.series[i].title);
  }
  gp << "\n";
  return gp.str();
}

void run_gnuplot(const std::filesystem::path& dir, const std::string& script, const std::string& option) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  std::string arg0 = program;
  std::string arg1 = script;
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, program, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    throw InvalidArgument(option, std::string("cannot start ") + program + " (Debian: gnuplot-nox)");
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error(option + ": waiting for " + program + " failed");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw Error(option + ": " + program + " failed on " + (dir / script).string());
  }
}

}  // namespace

void check_plot_target(const std::string& path, const std::string& option) {
  const std::string ext = extension_of(path);
  if (ext != ".svg" && ext != ".png") {
    throw InvalidArgument(option, "'" + path + "': the figure's name must end in .svg or .png");
  }
  if (!on_path(program)) {
    throw InvalidArgument(option, std::string("drawing '") + path + "' needs " + program +
                                      ", which is not on PATH (Debian: apt-get install gnuplot-nox)");
  }
}

void draw(const Figure& figure, const std::string& path, const std::string& option) {
  check_plot_target(path, option);
  Figure shown = figure;  // without the series that have no point
  std::erase_if(shown.series, [](const Series& s) { return s.points.empty(); });
  if (shown.series.empty()) throw InvalidArgument(option, "no result to draw");
  const std::filesystem::path target = std::filesystem::absolute(path);
  const std::filesystem::path dir = target.parent_path();
  const std::string stem = target.stem().string();
  const std::string data = stem + ".dat";
  const std::string script = stem + ".gp";

  std::ostringstream dat;
  dat << "# " << shown.title << "\n# x y error (negative: none); one block per series\n";
  for (const Series& s : shown.series) {
    dat << "# " << s.title << "\n";
    for (const PlotPoint& p : s.points) dat << number(p.x) << " " << number(p.y) << " " << number(p.error) << "\n";
    dat << "\n\n";  // gnuplot's `index` counts blocks separated by two blank lines
  }
  for (const auto& [name, text] :
       {std::pair{data, dat.str()},
        std::pair{script, script_of(shown, extension_of(path), target.filename().string(), data)}}) {
    std::ofstream out(dir / name);
    if (!out) throw InvalidArgument(option, "cannot write '" + (dir / name).string() + "'");
    out << text;
  }
  run_gnuplot(dir, script, option);
}

}  // namespace ragged::bench
