#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ragged/error.hpp"

namespace ragged::bench {

Row& Row::set(const std::string& column, Value value) {
  for (auto& cell : cells) {
    if (cell.first == column) {
      cell.second = std::move(value);
      return *this;
    }
  }
  cells.emplace_back(column, std::move(value));
  return *this;
}

const Value* Row::get(const std::string& column) const {
  for (const auto& cell : cells) {
    if (cell.first == column) return &cell.second;
  }
  return nullptr;
}

double Row::number(const std::string& column) const {
  const Value* v = get(column);
  if (v == nullptr) return 0;
  if (const auto* i = std::get_if<std::int64_t>(v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(v)) return *d;
  return 0;
}

std::string Row::text(const std::string& column) const {
  const Value* v = get(column);
  if (v == nullptr) return "";
  if (const auto* s = std::get_if<std::string>(v)) return *s;
  return std::to_string(static_cast<long long>(number(column)));
}

namespace {

// Shortest round-trip text of a double: identical runs print identical bytes.
std::string exact(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// A column of seconds: its name ends in "_s".
bool in_seconds(const std::string& column) {
  return column.size() > 2 && column.compare(column.size() - 2, 2, "_s") == 0;
}

/// Seconds are printed to the nanosecond: below that a difference of simulated times is
/// rounding (an absorption of 6e-11 s is 0), and no clock of ours resolves it.
std::string to_text(const Value& v, bool for_people, const std::string& column) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  double d = std::get<double>(v);
  if (in_seconds(column) && std::isfinite(d)) d = std::round(d * 1e9) / 1e9 + 0.0;  // + 0.0: no "-0"
  if (!for_people) return exact(d);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", d);
  return buf;
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::vector<std::string> columns_of(const Report& report) {
  std::vector<std::string> cols;
  for (const Row& row : report.rows) {
    for (const auto& cell : row.cells) {
      if (std::find(cols.begin(), cols.end(), cell.first) == cols.end()) cols.push_back(cell.first);
    }
  }
  return cols;
}

}  // namespace

std::string significant(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return buf;
}

std::string human_seconds(double s) {
  char buf[64];
  if (s < 1e-3) {
    std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  } else if (s < 1.0) {
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  }
  return buf;
}

void write_report(std::ostream& out, const Report& report, const std::string& format) {
  const std::vector<std::string> cols = columns_of(report);
  if (format == "csv") {
    for (std::size_t c = 0; c < cols.size(); ++c) out << (c ? "," : "") << cols[c];
    out << "\n";
    for (const Row& row : report.rows) {
      for (std::size_t c = 0; c < cols.size(); ++c) {
        const Value* v = row.get(cols[c]);
        out << (c ? "," : "") << (v ? csv_escape(to_text(*v, false, cols[c])) : "");
      }
      out << "\n";
    }
  } else if (format == "json") {
    nlohmann::ordered_json j;
    j["experiment"] = report.experiment;
    for (const auto& [k, v] : report.metadata) j["metadata"][k] = v;
    j["rows"] = nlohmann::ordered_json::array();
    for (const Row& row : report.rows) {
      nlohmann::ordered_json r;
      for (const auto& [k, v] : row.cells) {
        if (const auto* d = std::get_if<double>(&v); d != nullptr && in_seconds(k) && std::isfinite(*d)) {
          r[k] = std::round(*d * 1e9) / 1e9 + 0.0;
        } else {
          std::visit([&](const auto& x) { r[k] = x; }, v);
        }
      }
      j["rows"].push_back(r);
    }
    out << j.dump(2) << "\n";
  } else if (format == "table") {
    out << "# " << report.experiment;
    for (const auto& [k, v] : report.metadata) out << "  " << k << "=" << v;
    out << "\n";
    std::vector<std::size_t> width(cols.size());
    std::vector<std::vector<std::string>> cells;
    for (std::size_t c = 0; c < cols.size(); ++c) width[c] = cols[c].size();
    for (const Row& row : report.rows) {
      std::vector<std::string> line;
      for (std::size_t c = 0; c < cols.size(); ++c) {
        const Value* v = row.get(cols[c]);
        line.push_back(v ? to_text(*v, true, cols[c]) : "");
        width[c] = std::max(width[c], line.back().size());
      }
      cells.push_back(std::move(line));
    }
    for (std::size_t c = 0; c < cols.size(); ++c)
      out << (c ? "  " : "") << std::setw(static_cast<int>(width[c])) << cols[c];
    out << "\n";
    for (const auto& line : cells) {
      for (std::size_t c = 0; c < cols.size(); ++c)
        out << (c ? "  " : "") << std::setw(static_cast<int>(width[c])) << line[c];
      out << "\n";
    }
  } else {
    throw InvalidArgument("--format", "unknown format '" + format + "' (expected table, csv or json)");
  }
}

}  // namespace ragged::bench
