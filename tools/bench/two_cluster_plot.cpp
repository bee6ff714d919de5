#include "two_cluster_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include "ragged/error.hpp"

namespace ragged::bench {

namespace {

double number(const Row& row, const std::string& column) {
  const Value* v = row.get(column);
  if (v == nullptr) return 0;
  if (const auto* i = std::get_if<std::int64_t>(v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(v)) return *d;
  return 0;
}

std::string text(const Row& row, const std::string& column) {
  const Value* v = row.get(column);
  if (v == nullptr) return "";
  if (const auto* s = std::get_if<std::string>(v)) return *s;
  return std::to_string(static_cast<long long>(number(row, column)));
}

std::string size_label(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (bytes >= 1024 && u < 3) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g %s", bytes, units[u]);
  return buf;
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

void write_plot(const std::string& path, const Report& report, const std::string& x) {
  // Series: name -> points (x, time).
  std::map<std::string, std::vector<std::pair<double, double>>> series;
  for (const Row& row : report.rows) {
    const double t = number(row, "time_s");
    if (t <= 0) continue;
    std::string name = text(row, "algorithm");
    double xv = 0;
    if (x == "bytes") {
      name += " (" + text(row, "n1") + "+" + text(row, "n2") + ")";
      xv = std::log2(std::max(1.0, number(row, "bytes")));
    } else {
      name += " " + size_label(number(row, "bytes"));
      xv = number(row, "n1") + number(row, "n2");
    }
    series[name].emplace_back(xv, std::log10(t));
  }
  if (series.empty()) throw InvalidArgument("--plot", "no result to draw");
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (auto& [name, pts] : series) {
    std::sort(pts.begin(), pts.end());
    for (const auto& [px, py] : pts) {
      x0 = std::min(x0, px);
      x1 = std::max(x1, px);
      y0 = std::min(y0, py);
      y1 = std::max(y1, py);
    }
  }
  y0 = std::floor(y0);
  y1 = std::ceil(y1);
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 <= y0) y1 = y0 + 1;
  const double left = 80, right = 250, top = 30, bottom = 60, width = 640, height = 400;
  const auto sx = [&](double v) { return left + (v - x0) / (x1 - x0) * width; };
  const auto sy = [&](double v) { return top + (y1 - v) / (y1 - y0) * height; };

  std::ofstream out(path);
  if (!out) throw InvalidArgument("--plot", "cannot write '" + path + "'");
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << fmt(left + width + right) << "\" height=\""
      << fmt(top + height + bottom) << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out << "<rect x=\"" << fmt(left) << "\" y=\"" << fmt(top) << "\" width=\"" << fmt(width) << "\" height=\""
      << fmt(height) << "\" fill=\"none\" stroke=\"black\"/>\n";
  for (double d = y0; d <= y1 + 1e-9; d += 1) {
    out << "<line x1=\"" << fmt(left) << "\" x2=\"" << fmt(left + width) << "\" y1=\"" << fmt(sy(d)) << "\" y2=\""
        << fmt(sy(d)) << "\" stroke=\"#ddd\"/>\n";
    out << "<text x=\"" << fmt(left - 6) << "\" y=\"" << fmt(sy(d) + 4) << "\" text-anchor=\"end\">1e" << d
        << " s</text>\n";
  }
  const double step = x == "bytes" ? std::max(1.0, std::ceil((x1 - x0) / 8)) : std::max(1.0, std::ceil((x1 - x0) / 10));
  for (double v = x0; v <= x1 + 1e-9; v += step) {
    const std::string label = x == "bytes" ? size_label(std::exp2(v)) : fmt(v).substr(0, fmt(v).size() - 2);
    out << "<text x=\"" << fmt(sx(v)) << "\" y=\"" << fmt(top + height + 18) << "\" text-anchor=\"middle\">" << label
        << "</text>\n";
  }
  out << "<text x=\"" << fmt(left + width / 2) << "\" y=\"" << fmt(top + height + 45) << "\" text-anchor=\"middle\">"
      << (x == "bytes" ? "message size M(i,j)" : "processes n1 + n2") << "</text>\n";
  const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
  std::size_t k = 0;
  for (const auto& [name, pts] : series) {
    const char* color = colors[k % 8];
    out << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\" points=\"";
    for (const auto& [px, py] : pts) out << fmt(sx(px)) << "," << fmt(sy(py)) << " ";
    out << "\"/>\n";
    const double ly = top + 14 + 18 * static_cast<double>(k);
    out << "<line x1=\"" << fmt(left + width + 12) << "\" x2=\"" << fmt(left + width + 36) << "\" y1=\"" << fmt(ly - 4)
        << "\" y2=\"" << fmt(ly - 4) << "\" stroke=\"" << color << "\" stroke-width=\"2\"/>\n";
    out << "<text x=\"" << fmt(left + width + 42) << "\" y=\"" << fmt(ly) << "\">" << name << "</text>\n";
    ++k;
  }
  out << "</svg>\n";
}

}  // namespace ragged::bench
