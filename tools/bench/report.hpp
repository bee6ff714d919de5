// ragged-bench: result rows and their three output formats (table, csv, json).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ragged::bench {

using Value = std::variant<std::string, double, std::int64_t>;

/// One result row: named values in column order.
struct Row {
  std::vector<std::pair<std::string, Value>> cells;
  Row& set(const std::string& column, Value value);
  [[nodiscard]] const Value* get(const std::string& column) const;
  /// The value of `column` as a number (0 when absent or text), and as text (integers in
  /// full, "" when absent).
  [[nodiscard]] double number(const std::string& column) const;
  [[nodiscard]] std::string text(const std::string& column) const;
};

struct Report {
  std::string experiment;
  /// Parameters of the run, echoed in json output and above the table.
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<Row> rows;
  /// Checks the run made that failed (e.g. pap --check-bounds): ragged-bench writes the report,
  /// then each of these on stderr, and exits with status 1.
  std::vector<std::string> failures;
};

/// Writes `report` as "table", "csv" or "json"; throws InvalidArgument("--format") otherwise.
void write_report(std::ostream& out, const Report& report, const std::string& format);

/// `value` with six significant digits ("8.3682e-09", "0.0005"), for metadata.
std::string significant(double value);

/// Formats seconds for people: "12.3 ms", "4.56 s".
std::string human_seconds(double seconds);

}  // namespace ragged::bench
