// libragged_pmpi.so: RAGGED_REPORT=path (report.hpp, docs/pmpi.md "Report").
//
// While the program runs, each rank records per call site: calls, bytes, the sum and maximum of
// its waits (entry to exit of the MPI call), the algorithms that ran and how the environment
// chose them, and the entry times of the site's last `cap` calls (a ring). At MPI_Finalize, over
// a private copy of MPI_COMM_WORLD and with PMPI and the mpi backend's point-to-point only:
//   1. every rank measures its clock's offset to rank 0 (measure_clock_offset; also done at
//      MPI_Init, and the offset is interpolated between the two);
//   2. the ranks measure the link model (measure_link, 0 and 64 KiB ping-pongs);
//   3. each rank sends its records, entry times on rank 0's clock, to rank 0, one rank after the
//      other; rank 0 merges them as they come (per call: earliest and latest entry, who was
//      last), so it never holds more than one rank's records besides its own and the merge;
//   4. rank 0 writes the JSON report and prints the table on stderr.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../mpi/internal.hpp"
#include "pmpi.hpp"
#include "ragged/arrival.hpp"
#include "ragged/clock.hpp"

namespace ragged::pmpi::report {

std::atomic<bool> recording{false};

namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t default_cap = 100000;          ///< entry times kept per site (RAGGED_REPORT_CALLS)
constexpr int clock_rounds = 20;                     ///< ping-pongs per rank and clock measurement
constexpr std::size_t link_probe = 64 * 1024;        ///< measure_link's probe
constexpr int link_rounds = 5;                       ///< measure_link's rounds of the probe
constexpr std::size_t chunk = std::size_t{1} << 30;  ///< largest message of the gathering
// Tags on the private communicator (nothing else uses it).
constexpr int tag_clock = 1;
constexpr int tag_link = 2;  // and 3
constexpr int tag_size = 4;
constexpr int tag_data = 5;

constexpr std::array<const char*, 12> kind_names = {"allgather", "allgatherv", "allreduce", "alltoall",
                                                    "alltoallv", "bcast",      "reduce",    "gather",
                                                    "gatherv",   "scatter",    "scatterv",  "barrier"};

// ---------------------------------------------------------------------------- per rank

/// What ran, as the environment asked for it: one entry per distinct outcome of a site.
struct Outcome {
  Mode mode = Mode::unset;
  std::string requested;  ///< the variable's value (the rules file for Mode::rules)
  std::string ran;        ///< ragged_pmpi_last_algorithm() after the call
  std::uint64_t calls = 0;
};

struct SiteKey {
  Kind kind;
  long long bytes;
  int root;
  bool operator==(const SiteKey&) const = default;
};

struct Site {
  Kind kind = Kind::barrier;
  long long bytes = -1;
  int root = -1;
  std::uint64_t calls = 0;
  std::uint64_t contributed = 0;
  double wait_sum = 0;
  double wait_max = 0;
  std::vector<Outcome> outcomes;
  std::vector<double> entries;  ///< entry times of the last `cap` calls; call c at c % cap
  [[nodiscard]] SiteKey key() const { return SiteKey{kind, bytes, root}; }
};
struct SiteKeyHash {
  std::size_t operator()(const SiteKey& k) const noexcept {
    return std::hash<long long>()(k.bytes) * 31U + static_cast<std::size_t>(k.kind) * 7U +
           static_cast<std::size_t>(k.root + 1);
  }
};

/// One communicator, as first seen by a recorded call. Kept (with its sites) after the program
/// frees it; a new communicator that gets the freed handle gets a new record.
struct CommRecord {
  std::string key;   ///< the same on every rank: group (world ranks) and ordinal among same-group comms
  std::string name;  ///< MPI_COMM_WORLD, MPI_COMM_SELF, or MPI_Comm_get_name's
  int rank = 0;
  int size = 1;
  int remote = 1;  ///< the remote group's size (intercommunicators), else size
  bool inter = false;
  std::vector<int> world_ranks;  ///< comm rank -> world rank (intercommunicators: both groups, sorted)
  std::unordered_map<SiteKey, std::size_t, SiteKeyHash> index;
  std::vector<Site> sites;    ///< in order of first call
  std::size_t last_site = 0;  ///< the site of the last call (most calls repeat it)
};

struct Offset {
  bool measured = false;
  double at = 0;  ///< local time of the measurement
  double offset = 0;
  double round_trip = 0;
};

struct State {
  std::mutex mutex;  // guards everything below
  std::string path;
  std::size_t cap = default_cap;
  bool broken = false;    ///< recording failed here: the rank still takes part in the gathering
  bool finished = false;  ///< MPI_Finalize gathered the records
  std::deque<CommRecord> comms;
  std::unordered_map<MPI_Comm, std::size_t> live;  ///< handle -> comms index, until freed
  std::map<std::string, int> ordinals;             ///< group key -> communicators seen with it
  MPI_Comm cached = MPI_COMM_NULL;
  std::size_t cached_index = 0;
  int keyval = MPI_KEYVAL_INVALID;
  std::unique_ptr<mpi::detail::MpiComm> comm;  ///< private copy of MPI_COMM_WORLD
  Offset first;                                ///< at MPI_Init
  Offset last;                                 ///< at MPI_Finalize
};

State& state() {
  static auto* s = new State();  // never destroyed: MPI may call `forget` during exit
  return *s;
}

thread_local Mode current_mode = Mode::unset;
thread_local const char* current_requested = nullptr;

void read_environment() {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  const char* path = std::getenv("RAGGED_REPORT");
  s.path = path != nullptr ? path : "";
  if (const char* cap = std::getenv("RAGGED_REPORT_CALLS"); cap != nullptr && *cap != '\0') {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(cap, &end, 10);
    if (end != nullptr && *end == '\0' && value > 0) s.cap = static_cast<std::size_t>(value);
  }
  recording.store(!s.path.empty() && !s.broken && !s.finished);
}

/// RAGGED_REPORT is read when the library is loaded (a Fortran program's MPI_INIT does not come
/// through the library) and again at MPI_Init.
__attribute__((constructor)) void load() { read_environment(); }

/// The report keyval's delete callback: the program frees a communicator.
int forget(MPI_Comm comm, int /*keyval*/, void* /*value*/, void* /*extra*/) {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.live.erase(comm);
  if (s.cached == comm) s.cached = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

void check(int code, const char* call) { mpi::detail::check(code, call); }

std::vector<int> world_ranks_of(MPI_Group group, int n) {
  MPI_Group world = MPI_GROUP_NULL;
  check(PMPI_Comm_group(MPI_COMM_WORLD, &world), "MPI_Comm_group");
  std::vector<int> in(static_cast<std::size_t>(n));
  std::vector<int> out(static_cast<std::size_t>(n));
  std::iota(in.begin(), in.end(), 0);
  const int rc = PMPI_Group_translate_ranks(group, n, in.data(), world, out.data());
  PMPI_Group_free(&world);
  check(rc, "MPI_Group_translate_ranks");
  for (int& r : out) {
    if (r == MPI_UNDEFINED) r = -1;  // a process outside MPI_COMM_WORLD (spawned, connected)
  }
  return out;
}

/// Makes the record of a communicator seen for the first time (mutex held).
std::size_t make_record(State& s, MPI_Comm comm) {
  if (s.keyval == MPI_KEYVAL_INVALID) {
    check(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &forget, &s.keyval, nullptr), "MPI_Comm_create_keyval");
  }
  CommRecord r;
  int inter = 0;
  check(PMPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  r.inter = inter != 0;
  check(PMPI_Comm_rank(comm, &r.rank), "MPI_Comm_rank");
  check(PMPI_Comm_size(comm, &r.size), "MPI_Comm_size");
  r.remote = r.size;
  MPI_Group group = MPI_GROUP_NULL;
  check(PMPI_Comm_group(comm, &group), "MPI_Comm_group");
  r.world_ranks = world_ranks_of(group, r.size);
  PMPI_Group_free(&group);
  if (r.inter) {
    check(PMPI_Comm_remote_size(comm, &r.remote), "MPI_Comm_remote_size");
    check(PMPI_Comm_remote_group(comm, &group), "MPI_Comm_remote_group");
    const std::vector<int> remote = world_ranks_of(group, r.remote);
    PMPI_Group_free(&group);
    r.world_ranks.insert(r.world_ranks.end(), remote.begin(), remote.end());
    std::sort(r.world_ranks.begin(), r.world_ranks.end());  // the same on both sides
  }
  if (comm == MPI_COMM_WORLD) {
    r.name = "MPI_COMM_WORLD";
  } else if (comm == MPI_COMM_SELF) {
    r.name = "MPI_COMM_SELF";
  } else {
    char name[MPI_MAX_OBJECT_NAME] = {};
    int length = 0;
    if (PMPI_Comm_get_name(comm, name, &length) == MPI_SUCCESS && length > 0)
      r.name.assign(name, static_cast<std::size_t>(length));
  }
  std::string group_key = r.inter ? "inter:" : "intra:";
  for (std::size_t i = 0; i < r.world_ranks.size(); ++i) {
    if (i > 0) group_key += ',';
    group_key += std::to_string(r.world_ranks[i]);
  }
  r.key = group_key + "#" + std::to_string(s.ordinals[group_key]++);
  check(PMPI_Comm_set_attr(comm, s.keyval, nullptr), "MPI_Comm_set_attr");
  s.comms.push_back(std::move(r));
  const std::size_t index = s.comms.size() - 1;
  s.live[comm] = index;
  return index;
}

/// This rank's clock minus rank 0's at local time t: interpolated between the measurements at
/// MPI_Init and at MPI_Finalize (drift), or the one at MPI_Finalize.
double offset_at(const State& s, double t) {
  if (!s.first.measured || s.last.at <= s.first.at) return s.last.offset;
  return s.first.offset + (s.last.offset - s.first.offset) * (t - s.first.at) / (s.last.at - s.first.at);
}

Offset measure_offset(Comm& comm) {
  const double before = now();
  const ClockOffset c = measure_clock_offset(comm, tag_clock, clock_rounds);
  return Offset{true, (before + now()) / 2, c.offset, c.round_trip};
}

// ------------------------------------------------------------------ byte stream

class Writer {
 public:
  template <class T>
  void put(const T& value) {
    const auto* p = reinterpret_cast<const std::byte*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  void put(const std::string& text) {
    put(static_cast<std::uint64_t>(text.size()));
    const auto* p = reinterpret_cast<const std::byte*>(text.data());
    bytes_.insert(bytes_.end(), p, p + text.size());
  }
  template <class T>
  void put_all(const std::vector<T>& values) {
    put(static_cast<std::uint64_t>(values.size()));
    const auto* p = reinterpret_cast<const std::byte*>(values.data());
    bytes_.insert(bytes_.end(), p, p + values.size() * sizeof(T));
  }
  std::vector<std::byte>& bytes() { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

class Reader {
 public:
  explicit Reader(const std::vector<std::byte>& bytes) : bytes_(bytes) {}
  template <class T>
  T get() {
    T value{};
    take(&value, sizeof(T));
    return value;
  }
  std::string text() {
    std::string out(get<std::uint64_t>(), '\0');
    take(out.data(), out.size());
    return out;
  }
  template <class T>
  std::vector<T> all() {
    std::vector<T> out(get<std::uint64_t>());
    take(out.data(), out.size() * sizeof(T));
    return out;
  }

 private:
  void take(void* out, std::size_t n) {
    if (n > bytes_.size() - at_) throw Error("ragged pmpi report: truncated records");
    if (n != 0) std::memcpy(out, bytes_.data() + at_, n);
    at_ += n;
  }
  const std::vector<std::byte>& bytes_;
  std::size_t at_ = 0;
};

/// This rank's records, entry times on rank 0's clock, oldest kept call first.
std::vector<std::byte> serialize(const State& s, int world_rank) {
  Writer w;
  w.put(world_rank);
  w.put(static_cast<std::uint8_t>(s.broken ? 1 : 0));
  for (const Offset* o : {&s.first, &s.last}) {
    w.put(static_cast<std::uint8_t>(o->measured ? 1 : 0));
    w.put(o->offset);
    w.put(o->round_trip);
  }
  w.put(static_cast<std::uint64_t>(s.comms.size()));
  for (const CommRecord& c : s.comms) {
    w.put(c.key);
    w.put(c.name);
    w.put(c.rank);
    w.put(c.size);
    w.put(static_cast<std::uint8_t>(c.inter ? 1 : 0));
    w.put_all(c.world_ranks);
    w.put(static_cast<std::uint64_t>(c.sites.size()));
    for (const Site& site : c.sites) {
      w.put(static_cast<std::uint8_t>(site.kind));
      w.put(site.bytes);
      w.put(site.root);
      w.put(site.calls);
      w.put(site.contributed);
      w.put(site.wait_sum);
      w.put(site.wait_max);
      w.put(static_cast<std::uint64_t>(site.outcomes.size()));
      for (const Outcome& o : site.outcomes) {
        w.put(static_cast<std::uint8_t>(o.mode));
        w.put(o.requested);
        w.put(o.ran);
        w.put(o.calls);
      }
      const std::size_t kept = site.entries.size();
      const std::size_t start = site.calls > kept ? static_cast<std::size_t>(site.calls % kept) : 0;
      std::vector<double> entries(kept);
      for (std::size_t i = 0; i < kept; ++i) {
        const double t = site.entries[(start + i) % kept];
        entries[i] = t - offset_at(s, t);
      }
      w.put_all(entries);
    }
  }
  return std::move(w.bytes());
}

// ------------------------------------------------------------------ rank 0: merge

struct RankStat {
  int world = -1;
  int comm_rank = -1;
  std::uint64_t calls = 0;
  double wait_sum = 0;
  double wait_max = 0;
  std::uint64_t last = 0;  ///< calls this rank entered last
  double entry_sum = 0;    ///< sum of its kept entry times minus the base
};

struct GlobalSite {
  std::string comm_key;
  std::string comm_name;
  int comm_size = 0;
  bool inter = false;
  std::vector<int> world_ranks;
  Kind kind = Kind::barrier;
  long long bytes = -1;
  int root = -1;
  std::uint64_t calls = 0;
  std::uint64_t contributed = 0;
  bool consistent = true;  ///< every rank saw the same number of calls and kept as many
  bool outcomes_differ = false;
  std::vector<Outcome> outcomes;  ///< the first reporting rank's (the lowest world rank)
  std::vector<RankStat> ranks;
  std::vector<double> earliest;  ///< per kept call
  std::vector<double> latest;
  std::vector<int> last_rank;  ///< world rank that entered last
};

struct RankClock {
  int world = -1;
  bool broken = false;
  Offset first;
  Offset last;
};

struct Merge {
  std::vector<GlobalSite> sites;
  std::unordered_map<std::string, std::size_t> index;
  std::vector<RankClock> clocks;
  double base = 0;  ///< rank 0's clock at MPI_Finalize: entry sums are relative to it
};

bool same_outcomes(const std::vector<Outcome>& a, const std::vector<Outcome>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].mode != b[i].mode || a[i].requested != b[i].requested || a[i].ran != b[i].ran ||
        a[i].calls != b[i].calls) {
      return false;
    }
  }
  return true;
}

void merge(Merge& m, const std::vector<std::byte>& bytes) {
  Reader r(bytes);
  RankClock clock;
  clock.world = r.get<int>();
  clock.broken = r.get<std::uint8_t>() != 0;
  for (Offset* o : {&clock.first, &clock.last}) {
    o->measured = r.get<std::uint8_t>() != 0;
    o->offset = r.get<double>();
    o->round_trip = r.get<double>();
  }
  m.clocks.push_back(clock);
  const auto comms = r.get<std::uint64_t>();
  for (std::uint64_t c = 0; c < comms; ++c) {
    const std::string key = r.text();
    const std::string name = r.text();
    const int comm_rank = r.get<int>();
    const int size = r.get<int>();
    const bool inter = r.get<std::uint8_t>() != 0;
    const std::vector<int> world_ranks = r.all<int>();
    const auto sites = r.get<std::uint64_t>();
    for (std::uint64_t k = 0; k < sites; ++k) {
      const auto kind = static_cast<Kind>(r.get<std::uint8_t>());
      const auto bytes_key = r.get<long long>();
      const int root = r.get<int>();
      RankStat stat;
      stat.world = clock.world;
      stat.comm_rank = comm_rank;
      stat.calls = r.get<std::uint64_t>();
      const auto contributed = r.get<std::uint64_t>();
      stat.wait_sum = r.get<double>();
      stat.wait_max = r.get<double>();
      std::vector<Outcome> outcomes(r.get<std::uint64_t>());
      for (Outcome& o : outcomes) {
        o.mode = static_cast<Mode>(r.get<std::uint8_t>());
        o.requested = r.text();
        o.ran = r.text();
        o.calls = r.get<std::uint64_t>();
      }
      const std::vector<double> entries = r.all<double>();

      const std::string site_key = key + "|" + kind_names[static_cast<std::size_t>(kind)] + "|" +
                                   std::to_string(bytes_key) + "|" + std::to_string(root);
      auto [it, inserted] = m.index.try_emplace(site_key, m.sites.size());
      if (inserted) {
        GlobalSite g;
        g.comm_key = key;
        g.comm_name = name;
        g.comm_size = inter ? static_cast<int>(world_ranks.size()) : size;  // both groups
        g.inter = inter;
        g.world_ranks = world_ranks;
        g.kind = kind;
        g.bytes = bytes_key;
        g.root = root;
        g.calls = stat.calls;
        g.outcomes = outcomes;
        g.earliest.assign(entries.size(), std::numeric_limits<double>::infinity());
        g.latest.assign(entries.size(), -std::numeric_limits<double>::infinity());
        g.last_rank.assign(entries.size(), -1);
        m.sites.push_back(std::move(g));
      }
      GlobalSite& g = m.sites[it->second];
      g.contributed += contributed;
      if (!inserted && !same_outcomes(g.outcomes, outcomes)) g.outcomes_differ = true;
      if (stat.calls != g.calls || entries.size() != g.earliest.size()) {
        g.consistent = false;
      } else {
        for (std::size_t i = 0; i < entries.size(); ++i) {
          const double t = entries[i];
          stat.entry_sum += t - m.base;
          g.earliest[i] = std::min(g.earliest[i], t);
          if (t > g.latest[i]) {
            g.latest[i] = t;
            g.last_rank[i] = clock.world;
          }
        }
      }
      g.ranks.push_back(stat);
    }
  }
}

// ------------------------------------------------------------------ rank 0: results

std::string variable_of(Kind kind) {
  std::string v = std::string("RAGGED_") + kind_names[static_cast<std::size_t>(kind)];
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
  std::ofstream json(s.path, std::ios::trunc);
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
  const bool written = static_cast<bool>(json);
  if (!written) std::fprintf(stderr, "ragged pmpi: RAGGED_REPORT: cannot write %s\n", s.path.c_str());

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
      note += " " + std::to_string(r.world) + ": " +
              fixed3(r.calls > 0 ? r.wait_sum / static_cast<double>(r.calls) * 1e3 : 0.0) + "/" +
              fixed3(r.wait_max * 1e3);
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

void send_bytes(const std::vector<std::byte>& bytes, MPI_Comm comm) {
  const std::uint64_t size = bytes.size();
  check(PMPI_Send(&size, 1, MPI_UINT64_T, 0, tag_size, comm), "MPI_Send");
  for (std::size_t at = 0; at < bytes.size(); at += chunk) {
    const int n = static_cast<int>(std::min(chunk, bytes.size() - at));
    check(PMPI_Send(bytes.data() + at, n, MPI_BYTE, 0, tag_data, comm), "MPI_Send");
  }
}

std::vector<std::byte> receive_bytes(int source, MPI_Comm comm) {
  std::uint64_t size = 0;
  check(PMPI_Recv(&size, 1, MPI_UINT64_T, source, tag_size, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  std::vector<std::byte> bytes(static_cast<std::size_t>(size));
  for (std::size_t at = 0; at < bytes.size(); at += chunk) {
    const int n = static_cast<int>(std::min(chunk, bytes.size() - at));
    check(PMPI_Recv(bytes.data() + at, n, MPI_BYTE, source, tag_data, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  }
  return bytes;
}

}  // namespace

const char* name_of(Kind kind) { return kind_names[static_cast<std::size_t>(kind)]; }

void note_route(Mode mode, const char* requested) {
  current_mode = mode;
  current_requested = requested;
}

long long bytes_of(long long count, MPI_Datatype type) {
  if (count <= 0) return 0;
  MPI_Count size = 0;
  if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0) return 0;
  return count * static_cast<long long>(size);
}

namespace detail {

std::mutex& mutex() { return state().mutex; }

bool begin(MPI_Comm comm, CallInfo& info, std::size_t& record) {
  State& s = state();
  if (s.finished || s.broken) return false;
  if (comm == s.cached) {
    record = s.cached_index;
  } else {
    const auto it = s.live.find(comm);
    record = it != s.live.end() ? it->second : make_record(s, comm);
    s.cached = comm;
    s.cached_index = record;
  }
  const CommRecord& r = s.comms[record];
  info.rank = r.rank;
  info.size = r.inter ? r.remote : r.size;
  info.inter = r.inter;
  return true;
}

void commit(std::size_t record, Kind kind, CallInfo& info, double entry, double exit) {
  if (info.inter) {
    info.bytes = -1;  // the two groups' blocks may differ, roots are MPI_ROOT / MPI_PROC_NULL
    info.root = -1;
  }
  const Mode mode = current_mode;
  const char* requested = current_requested != nullptr ? current_requested : "";
  const char* ran = last();
  State& s = state();
  CommRecord& r = s.comms[record];
  const SiteKey key{kind, info.bytes, info.root};
  if (r.sites.empty() || !(r.sites[r.last_site].key() == key)) {
    const auto [it, inserted] = r.index.try_emplace(key, r.sites.size());
    if (inserted) {
      Site site;
      site.kind = kind;
      site.bytes = info.bytes;
      site.root = info.root;
      r.sites.push_back(std::move(site));
    }
    r.last_site = it->second;
  }
  Site& site = r.sites[r.last_site];
  if (site.entries.size() < s.cap) {
    site.entries.push_back(entry);
  } else {
    site.entries[static_cast<std::size_t>(site.calls % s.cap)] = entry;
  }
  ++site.calls;
  site.contributed += info.contributed;
  const double wait = exit - entry;
  site.wait_sum += wait;
  site.wait_max = std::max(site.wait_max, wait);
  for (Outcome& o : site.outcomes) {
    if (o.mode == mode && o.ran == ran && o.requested == requested) {
      ++o.calls;
      return;
    }
  }
  site.outcomes.push_back(Outcome{mode, requested, ran, 1});
}

void failed(const char* what) {
  State& s = state();
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (s.broken) return;
    s.broken = true;
    recording.store(false);
  }
  std::fprintf(stderr, "ragged pmpi: RAGGED_REPORT: recording stopped on world rank %d: %s\n", world_rank(), what);
  std::fflush(stderr);
}

}  // namespace detail

void at_init() {
  read_environment();
  State& s = state();
  if (s.path.empty()) return;
  try {
    if (!s.comm) {
      s.comm = std::make_unique<mpi::detail::MpiComm>(
          MPI_COMM_WORLD, mpi::detail::MpiCommOptions{.require_thread_multiple = false, .copy_attributes = false});
    }
    s.first = measure_offset(*s.comm);
  } catch (const std::exception& e) {
    detail::failed(e.what());
  }
}

void at_finalize() {
  State& s = state();
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (s.path.empty() || s.finished) return;
  }
  recording.store(false);
  if (!s.comm) {
    s.comm = std::make_unique<mpi::detail::MpiComm>(
        MPI_COMM_WORLD, mpi::detail::MpiCommOptions{.require_thread_multiple = false, .copy_attributes = false});
  }
  mpi::detail::MpiComm& comm = *s.comm;
  s.last = measure_offset(comm);
  const LinkModel link = measure_link(comm, tag_link, link_probe, link_rounds);
  const MPI_Comm handle = comm.handle();
  std::vector<std::byte> mine;
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.finished = true;
    int world = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world);
    mine = serialize(s, world);
    s.comms.clear();
    s.live.clear();
    s.cached = MPI_COMM_NULL;
  }
  if (comm.rank() != 0) {
    send_bytes(mine, handle);
  } else {
    Merge m;
    m.base = s.last.at;  // rank 0's offset is 0: its clock is the reference
    merge(m, mine);
    mine = {};
    for (int r = 1; r < comm.size(); ++r) merge(m, receive_bytes(r, handle));
    write_report(m, link, s, comm.size());
  }
  s.comm.reset();
}

}  // namespace ragged::pmpi::report
