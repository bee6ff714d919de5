// libragged_pmpi.so: RAGGED_REPORT's output on rank 0 (report_internal.hpp): each site's
// imbalance, stragglers and algorithms, as the JSON report and the table on stderr.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <ostream>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include "pmpi.hpp"
#include "report_internal.hpp"

namespace ragged::pmpi::report {

namespace {

/// An output stream buffer over a file descriptor (std::ofstream can neither refuse a link nor
/// choose the mode of the file it creates).
class FdBuffer : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  FdBuffer(const FdBuffer&) = delete;
  FdBuffer& operator=(const FdBuffer&) = delete;
  ~FdBuffer() override { drain(); }
  [[nodiscard]] bool ok() const { return ok_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    for (const char* at = pbase(); at < pptr();) {
      const ssize_t n = ::write(fd_, at, static_cast<std::size_t>(pptr() - at));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ok_ = false;
        break;
      }
      at += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return ok_;
  }
  int fd_;
  bool ok_ = true;
  char buffer_[1 << 16];
};

/// The report goes to a new file beside `path` (mode 0600, created exclusively, never through a
/// link), renamed onto `path` once complete: a reader never sees half a report, and a link at
/// `path` is replaced, not followed (the file it points to stays as it was).
class ReportFile {
 public:
  explicit ReportFile(std::string path)
      : path_(std::move(path)), temporary_(path_ + ".ragged-" + std::to_string(::getpid()) + ".tmp") {
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd_ < 0) error_ = std::strerror(errno);
  }
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;
  ~ReportFile() {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(temporary_.c_str());
    }
  }
  [[nodiscard]] int fd() const { return fd_; }
  /// Closes and renames; false (and error()) if anything failed on the way.
  bool commit(bool written) {
    if (fd_ < 0) return false;
    const int fd = fd_;
    fd_ = -1;
    const bool closed = ::close(fd) == 0;
    if (!written || !closed) {
      error_ = written ? std::strerror(errno) : "write failed";
      ::unlink(temporary_.c_str());
      return false;
    }
    if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
      error_ = std::strerror(errno);
      ::unlink(temporary_.c_str());
      return false;
    }
    return true;
  }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  std::string path_;
  std::string temporary_;
  int fd_ = -1;
  std::string error_;
};

std::string variable_of(Kind kind) {
  std::string v = std::string("RAGGED_") + kind_names[static_cast<std::size_t>(blocking_of(kind))];
  for (char& ch : v) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return v;
}

/// An outcome as the report says it: the algorithm, why it ran, the setting, the fallback.
struct Why {
  std::string algorithm;
  std::string why;  ///< forced, auto, rules, unset, fallback
  std::string setting;
  std::string fallback;
};

Why explain(Kind kind, const Outcome& o) {
  Why w;
  switch (o.mode) {
    case Mode::unset:
      break;
    case Mode::rules:
      w.setting = "RAGGED_TUNING_FILE=" + o.requested;
      break;
    default:
      w.setting = variable_of(kind) + "=" + o.requested;
  }
  const char* mode = "unset";
  if (o.mode == Mode::native || o.mode == Mode::named) mode = "forced";
  if (o.mode == Mode::automatic) mode = "auto";
  if (o.mode == Mode::rules) mode = "rules";
  if (o.ran.rfind("native (", 0) == 0 && o.ran.size() > 9 && o.ran.back() == ')') {
    w.algorithm = "native";
    w.why = "fallback";
    w.fallback = o.ran.substr(8, o.ran.size() - 9);
  } else if (o.mode == Mode::named && o.ran != o.requested) {
    w.algorithm = o.ran;
    w.why = "fallback";
    w.fallback = "requested " + o.requested;
  } else {
    w.algorithm = o.ran;
    w.why = mode;
  }
  return w;
}

std::string show(const Why& w) {
  if (w.why == "fallback") return w.algorithm + " (fallback: " + w.fallback + ")";
  return w.algorithm + " (" + w.why + ")";
}

struct Stats {
  std::size_t measured = 0;  ///< kept calls with every participant
  double omega_mean = 0;
  double omega_median = 0;
  double omega_max = 0;
  double omega_min = 0;
  double tau = 0;
  bool has_tau = false;
  double wait_mean = 0;  ///< over ranks and calls
  double wait_max = 0;
  double wait_total = 0;                ///< summed over ranks: the time the site cost
  std::vector<std::size_t> stragglers;  ///< indices into ranks, most often last first
};

double block_of(const GlobalSite& g) {
  if (g.bytes >= 0) return static_cast<double>(g.bytes);
  const double shares = static_cast<double>(g.calls) * static_cast<double>(std::max<std::size_t>(1, g.ranks.size()));
  return shares > 0 ? static_cast<double>(g.contributed) / shares : 0.0;
}

Stats analyse(GlobalSite& g, const LinkModel& link, double base) {
  Stats st;
  std::uint64_t calls = 0;
  for (const RankStat& r : g.ranks) {
    st.wait_total += r.wait_sum;
    st.wait_max = std::max(st.wait_max, r.wait_max);
    calls += r.calls;
  }
  st.wait_mean = calls > 0 ? st.wait_total / static_cast<double>(calls) : 0.0;
  std::sort(g.ranks.begin(), g.ranks.end(), [](const RankStat& a, const RankStat& b) { return a.world < b.world; });
  if (link.known()) {
    st.tau = link.tau(static_cast<std::size_t>(block_of(g)));
    st.has_tau = st.tau > 0;
  }
  if (!g.consistent || g.ranks.size() < 2 || g.earliest.empty()) return st;
  std::vector<double> omega(g.earliest.size());
  double sum_earliest = 0;
  for (std::size_t i = 0; i < omega.size(); ++i) {
    omega[i] = g.latest[i] - g.earliest[i];
    sum_earliest += g.earliest[i] - base;
  }
  st.measured = omega.size();
  st.omega_mean = std::accumulate(omega.begin(), omega.end(), 0.0) / static_cast<double>(omega.size());
  st.omega_max = *std::max_element(omega.begin(), omega.end());
  st.omega_min = *std::min_element(omega.begin(), omega.end());
  std::vector<double> sorted = omega;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
  st.omega_median = sorted[sorted.size() / 2];
  std::map<int, std::uint64_t> last;
  for (int w : g.last_rank) ++last[w];
  for (RankStat& r : g.ranks) {
    r.last = last[r.world];
    r.entry_sum -= sum_earliest;  // now the sum of (entry - earliest) over the kept calls
  }
  for (std::size_t i = 0; i < g.ranks.size(); ++i) {
    if (g.ranks[i].last > 0) st.stragglers.push_back(i);
  }
  std::sort(st.stragglers.begin(), st.stragglers.end(), [&](std::size_t a, std::size_t b) {
    if (g.ranks[a].last != g.ranks[b].last) return g.ranks[a].last > g.ranks[b].last;
    return g.ranks[a].entry_sum > g.ranks[b].entry_sum;
  });
  if (st.stragglers.size() > 5) st.stragglers.resize(5);
  return st;
}

/// `value` as JSON, indented by 2 spaces per level, its lines after the first shifted by
/// `levels` more levels (to sit inside the document).
std::string indented(const Json& value, int levels = 1) {
  std::string text = value.dump(2);
  const std::string shift(static_cast<std::size_t>(2 * levels), ' ');
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char ch : text) {
    out += ch;
    if (ch == '\n') out += shift;
  }
  return out;
}

Json number_or_null(bool known, double value) { return known && std::isfinite(value) ? Json(value) : Json(nullptr); }

/// `value` with `digits` decimals.
std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}
std::string fixed3(double value) { return fixed(value, 3); }
std::string fixed1(double value) { return fixed(value, 1); }

std::string program_name() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string first;
  std::getline(in, first, '\0');
  return first;
}

/// Prints `rows` as columns (the first row is the header).
void print_table(std::FILE* out, const std::vector<std::vector<std::string>>& rows,
                 const std::vector<std::string>& notes) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (std::size_t k = 0; k < rows.size(); ++k) {
    std::string line;
    for (std::size_t i = 0; i < rows[k].size(); ++i) {
      const std::string& cell = rows[k][i];
      const std::string pad(widths[i] - cell.size(), ' ');
      const bool right = i == 0 || i == 3 || i == 4 || i == 5;  // site, bytes, root, calls
      line += right ? pad + cell : cell + (i + 1 < rows[k].size() ? pad : "");
      if (i + 1 < rows[k].size()) line += "  ";
    }
    std::fprintf(out, "%s\n", line.c_str());
    if (k > 0 && k - 1 < notes.size() && !notes[k - 1].empty()) std::fprintf(out, "%s\n", notes[k - 1].c_str());
  }
}

}  // namespace

void write_report(Merge& m, const LinkModel& link, const State& s, int world_size) {
  std::sort(m.clocks.begin(), m.clocks.end(), [](const RankClock& a, const RankClock& b) { return a.world < b.world; });
  double max_offset = 0;
  double uncertainty = 0;
  bool at_init = true;
  Json clocks = Json::array();
  for (const RankClock& c : m.clocks) {
    max_offset = std::max(max_offset, std::abs(c.last.offset));
    uncertainty = std::max(uncertainty, c.last.round_trip / 2);
    if (c.first.measured) uncertainty = std::max(uncertainty, c.first.round_trip / 2);
    at_init = at_init && c.first.measured;
    Json one{{"rank", c.world},
             {"offset_init_s", number_or_null(c.first.measured, c.first.offset)},
             {"offset_finalize_s", c.last.offset},
             {"round_trip_s", std::max(c.first.measured ? c.first.round_trip : 0.0, c.last.round_trip)}};
    if (c.broken) one["recording_failed"] = true;
    clocks.push_back(one);
  }

  // The JSON is written as it is made, one site at a time: a program with many communicators
  // has many sites, and the whole document at once would take far more memory than the records.
  ReportFile file(s.path);
  FdBuffer buffer(file.fd() >= 0 ? file.fd() : -1);
  std::ostream json(&buffer);
  const std::string link_how = "measure_link at MPI_Finalize: ping-pongs of 0 and " + std::to_string(link_probe) +
                               " bytes between neighbouring ranks of MPI_COMM_WORLD, the slowest pair";
  Json communicators = Json::array();
  std::unordered_map<std::string, std::size_t> comm_ids;
  for (const GlobalSite& g : m.sites) {
    if (!comm_ids.try_emplace(g.comm_key, comm_ids.size()).second) continue;
    communicators.push_back({{"id", communicators.size()},
                             {"name", g.comm_name},
                             {"size", g.comm_size},
                             {"inter", g.inter},
                             {"world_ranks", g.world_ranks},
                             {"key", g.comm_key}});
  }
  const Json head{
      {"ragged_pmpi_report", 1},
      {"program", program_name()},
      {"ranks", world_size},
      {"calls_kept_per_site", s.cap},
      {"clock",
       {{"method", std::string("measure_clock_offset (") + std::to_string(clock_rounds) +
                       " zero-byte ping-pongs with world rank 0, shortest round trip) " +
                       (at_init ? "at MPI_Init and at MPI_Finalize, linear in between" : "at MPI_Finalize")},
        {"reference", "world rank 0's steady clock"},
        {"uncertainty_s", uncertainty},
        {"ranks", clocks}}},
      {"link",
       {{"method", link_how}, {"alpha_s", link.alpha}, {"beta_s_per_byte", link.beta}, {"known", link.known()}}},
      {"communicators", communicators}};
  json << "{\n";
  for (const auto& [key, value] : head.items()) json << "  " << Json(key).dump() << ": " << indented(value) << ",\n";
  json << "  \"sites\": [";
  std::vector<Stats> stats;
  std::map<int, std::pair<std::uint64_t, std::uint64_t>> overall;  // world rank -> (last, calls measured)
  std::uint64_t total_calls = 0;
  for (std::size_t k = 0; k < m.sites.size(); ++k) {
    GlobalSite& g = m.sites[k];
    const Stats st = analyse(g, link, m.base);
    stats.push_back(st);
    total_calls += g.calls;
    Json algorithms = Json::array();
    for (const Outcome& o : g.outcomes) {
      const Why w = explain(g.kind, o);
      algorithms.push_back({{"algorithm", w.algorithm},
                            {"why", w.why},
                            {"setting", w.setting.empty() ? Json(nullptr) : Json(w.setting)},
                            {"fallback", w.fallback.empty() ? Json(nullptr) : Json(w.fallback)},
                            {"calls", o.calls}});
    }
    Json ranks = Json::array();
    for (const RankStat& r : g.ranks) {
      Json one{{"rank", r.world},
               {"comm_rank", r.comm_rank},
               {"calls", r.calls},
               {"wait_mean_s", r.calls > 0 ? r.wait_sum / static_cast<double>(r.calls) : 0.0},
               {"wait_max_s", r.wait_max}};
      if (st.measured > 0) {
        one["last"] = r.last;
        one["late_mean_s"] = r.entry_sum / static_cast<double>(st.measured);
        overall[r.world].first += r.last;
      }
      if (st.measured > 0) overall[r.world].second += st.measured;
      ranks.push_back(one);
    }
    Json stragglers = Json::array();
    for (std::size_t i : st.stragglers) {
      const RankStat& r = g.ranks[i];
      stragglers.push_back({{"rank", r.world},
                            {"last", r.last},
                            {"share", static_cast<double>(r.last) / static_cast<double>(st.measured)},
                            {"late_mean_s", r.entry_sum / static_cast<double>(st.measured)}});
    }
    const bool measured = st.measured > 0;
    Json imbalance{{"calls_measured", st.measured},
                   {"omega_mean_s", number_or_null(measured, st.omega_mean)},
                   {"omega_median_s", number_or_null(measured, st.omega_median)},
                   {"omega_min_s", number_or_null(measured, st.omega_min)},
                   {"omega_max_s", number_or_null(measured, st.omega_max)},
                   {"tau_s", number_or_null(st.has_tau, st.tau)},
                   {"omega_over_tau_mean", number_or_null(measured && st.has_tau, st.omega_mean / st.tau)},
                   {"omega_over_tau_max", number_or_null(measured && st.has_tau, st.omega_max / st.tau)}};
    const Json site{{"id", k},
                    {"communicator", {{"id", comm_ids[g.comm_key]}, {"name", g.comm_name}, {"size", g.comm_size}}},
                    {"collective", kind_names[static_cast<std::size_t>(g.kind)]},
                    {"bytes", g.bytes >= 0 ? Json(g.bytes) : Json(nullptr)},
                    {"root", g.root >= 0 ? Json(g.root) : Json(nullptr)},
                    {"calls", g.calls},
                    {"bytes_total", g.contributed},
                    {"participants", g.ranks.size()},
                    {"consistent", g.consistent},
                    {"algorithms", algorithms},
                    {"algorithms_differ_between_ranks", g.outcomes_differ},
                    {"wait", {{"mean_s", st.wait_mean}, {"max_s", st.wait_max}, {"total_s", st.wait_total}}},
                    {"imbalance", imbalance},
                    {"stragglers", stragglers},
                    {"ranks", ranks}};
    json << (k == 0 ? "\n    " : ",\n    ") << indented(site, 2);
  }
  json << (m.sites.empty() ? "],\n" : "\n  ],\n");
  std::vector<std::pair<int, std::pair<std::uint64_t, std::uint64_t>>> everyone(overall.begin(), overall.end());
  std::stable_sort(everyone.begin(), everyone.end(),
                   [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  Json overall_stragglers = Json::array();
  for (const auto& [rank, counts] : everyone) {
    if (counts.first == 0 || overall_stragglers.size() >= 5) continue;
    overall_stragglers.push_back({{"rank", rank},
                                  {"last", counts.first},
                                  {"of", counts.second},
                                  {"share", static_cast<double>(counts.first) / static_cast<double>(counts.second)}});
  }

  json << "  \"stragglers\": " << indented(overall_stragglers) << "\n}\n";
  json.flush();
  const bool written = file.commit(static_cast<bool>(json) && buffer.ok());
  if (!written) {
    std::fprintf(stderr, "ragged pmpi: RAGGED_REPORT: cannot write %s: %s\n", s.path.c_str(), file.error().c_str());
  }

  // The table: the sites that cost the most waiting first.
  std::vector<std::size_t> order(m.sites.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return stats[a].wait_total > stats[b].wait_total; });
  constexpr std::size_t max_rows = 20;
  std::vector<std::vector<std::string>> rows{{"site", "communicator", "collective", "bytes", "root", "calls",
                                              "algorithm (why)", "wait ms mean/max", "omega ms mean/max", "omega/tau",
                                              "stragglers: rank last/calls"}};
  std::vector<std::string> notes;
  for (std::size_t n = 0; n < order.size() && n < max_rows; ++n) {
    const std::size_t k = order[n];
    GlobalSite& g = m.sites[k];
    const Stats& st = stats[k];
    std::vector<const Outcome*> outcomes;
    for (const Outcome& o : g.outcomes) outcomes.push_back(&o);
    std::stable_sort(outcomes.begin(), outcomes.end(),
                     [](const Outcome* a, const Outcome* b) { return a->calls > b->calls; });
    std::string algorithms;
    for (std::size_t i = 0; i < outcomes.size() && i < 3; ++i) {
      if (!algorithms.empty()) algorithms += ", ";
      algorithms += show(explain(g.kind, *outcomes[i]));
      if (outcomes.size() > 1) algorithms += " x" + std::to_string(outcomes[i]->calls);
    }
    if (outcomes.size() > 3) algorithms += ", +" + std::to_string(outcomes.size() - 3) + " more";
    std::string comm = g.comm_name.empty() ? "comm" : g.comm_name;
    if (g.comm_name != "MPI_COMM_WORLD") comm += " (" + std::to_string(g.comm_size) + (g.inter ? " inter)" : ")");
    std::string stragglers;
    for (std::size_t i : st.stragglers) {
      if (stragglers.size() > 40) break;
      if (!stragglers.empty()) stragglers += ", ";
      stragglers +=
          std::to_string(g.ranks[i].world) + " " + std::to_string(g.ranks[i].last) + "/" + std::to_string(st.measured);
    }
    const bool measured = st.measured > 0;
    rows.push_back({std::to_string(k), comm, kind_names[static_cast<std::size_t>(g.kind)],
                    g.bytes >= 0 ? std::to_string(g.bytes) : "v", g.root >= 0 ? std::to_string(g.root) : "-",
                    std::to_string(g.calls), algorithms, fixed3(st.wait_mean * 1e3) + "/" + fixed3(st.wait_max * 1e3),
                    measured ? fixed3(st.omega_mean * 1e3) + "/" + fixed3(st.omega_max * 1e3) : "-",
                    measured && st.has_tau ? fixed1(st.omega_mean / st.tau) : "-",
                    stragglers.empty() ? "-" : stragglers});
    std::string note = "      waits ms mean/max by rank:";
    for (std::size_t i = 0; i < g.ranks.size() && i < 16; ++i) {
      const RankStat& r = g.ranks[i];
      // Piece by piece: GCC 12 at -O3 warns (-Wrestrict, a false positive) on " " + std::string&&.
      note += ' ';
      note += std::to_string(r.world);
      note += ": ";
      note += fixed3(r.calls > 0 ? r.wait_sum / static_cast<double>(r.calls) * 1e3 : 0.0);
      note += '/';
      note += fixed3(r.wait_max * 1e3);
    }
    if (g.ranks.size() > 16) note += " ...";
    if (!g.consistent) note += "\n      (the ranks saw different numbers of calls: no imbalance)";
    notes.push_back(note);
  }
  std::FILE* out = stderr;
  std::fprintf(out, "ragged pmpi report: %d ranks, %zu call sites, %llu calls; JSON %s %s\n", world_size,
               m.sites.size(), static_cast<unsigned long long>(total_calls), written ? "in" : "NOT written to",
               s.path.c_str());
  std::fprintf(out, "  clock: world rank 0's; offsets up to %.1f us, known within +-%.1f us (%s)\n", max_offset * 1e6,
               uncertainty * 1e6, at_init ? "measured at MPI_Init and MPI_Finalize" : "measured at MPI_Finalize");
  if (link.known()) {
    std::fprintf(out, "  tau(bytes) = %.2f us + %.4f ns/B (measure_link at MPI_Finalize)\n", link.alpha * 1e6,
                 link.beta * 1e9);
  } else {
    std::fprintf(out, "  tau unknown (one rank)\n");
  }
  print_table(out, rows, notes);
  if (order.size() > max_rows) std::fprintf(out, "  ... %zu more sites in the JSON\n", order.size() - max_rows);
  if (!overall_stragglers.empty()) {
    std::string line = "  most often last over all sites:";
    for (const Json& j : overall_stragglers) {
      line += " rank " + std::to_string(j["rank"].get<int>()) + " (" + std::to_string(j["last"].get<std::uint64_t>()) +
              " of " + std::to_string(j["of"].get<std::uint64_t>()) + ")";
    }
    std::fprintf(out, "%s\n", line.c_str());
  }
  std::fflush(out);
}

}  // namespace ragged::pmpi::report
