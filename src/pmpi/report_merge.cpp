// libragged_pmpi.so: RAGGED_REPORT's clock synchronisation and gathering (report_internal.hpp):
// each rank's clock offset to rank 0, its records as bytes on rank 0's clock, and rank 0's merge
// of them call by call.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "pmpi.hpp"
#include "ragged/clock.hpp"
#include "ragged/error.hpp"
#include "report_internal.hpp"

namespace ragged::pmpi::report {

double offset_at(const State& s, double t) {
  if (!s.first.measured || s.last.at <= s.first.at) return s.last.offset;
  return s.first.offset + (s.last.offset - s.first.offset) * (t - s.first.at) / (s.last.at - s.first.at);
}

Offset measure_offset(Comm& comm) {
  const double before = now();
  const ClockOffset c = measure_clock_offset(comm, tag_clock, clock_rounds, call_timeout());
  return Offset{true, (before + now()) / 2, c.offset, c.round_trip};
}

namespace {

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
    std::string out(count(1), '\0');
    take(out.data(), out.size());
    return out;
  }
  template <class T>
  std::vector<T> all() {
    std::vector<T> out(count(sizeof(T)));
    take(out.data(), out.size() * sizeof(T));
    return out;
  }
  /// A count of things of at least `each` bytes, checked against the bytes left before anything
  /// is allocated for them (the bytes come from another rank).
  std::size_t count(std::size_t each) {
    const auto n = get<std::uint64_t>();
    if (n > (bytes_.size() - at_) / each) throw Error("ragged pmpi report: truncated records");
    return static_cast<std::size_t>(n);
  }
  /// Throws unless every byte was read (bytes past the records mean the stream is not one).
  void end() const {
    if (at_ != bytes_.size()) throw Error("ragged pmpi report: bytes past the records");
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

}  // namespace

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
      const auto kind_code = r.get<std::uint8_t>();
      if (kind_code >= kind_names.size()) {
        throw Error("ragged pmpi report: unknown collective " + std::to_string(kind_code) + " in the records");
      }
      const auto kind = static_cast<Kind>(kind_code);
      const auto bytes_key = r.get<long long>();
      const int root = r.get<int>();
      RankStat stat;
      stat.world = clock.world;
      stat.comm_rank = comm_rank;
      stat.calls = r.get<std::uint64_t>();
      const auto contributed = r.get<std::uint64_t>();
      stat.wait_sum = r.get<double>();
      stat.wait_max = r.get<double>();
      std::vector<Outcome> outcomes(r.count(1 + 3 * sizeof(std::uint64_t)));  // mode, 2 lengths, calls
      for (Outcome& o : outcomes) {
        const auto mode = r.get<std::uint8_t>();
        if (mode > static_cast<std::uint8_t>(Mode::rules)) {
          throw Error("ragged pmpi report: unknown routing mode " + std::to_string(mode) + " in the records");
        }
        o.mode = static_cast<Mode>(mode);
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
  r.end();
}

namespace {

/// Completes `request` (a send to or a receive from rank `peer`): within RAGGED_TIMEOUT when it
/// is set (TimeoutError naming the peer past it; MPI_Finalize then ends the job), else waiting.
void complete(MPI_Request& request, int peer, const char* what) {
  const Timeout timeout = call_timeout();
  if (!timeout) {
    check(PMPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
    return;
  }
  const double deadline = now() + *timeout;
  double pause = 1e-6;
  for (;;) {
    int done = 0;
    check(PMPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done != 0) return;
    if (now() >= deadline) {
      throw TimeoutError("the report's gathering: no " + std::string(what) + " rank " + std::to_string(peer) +
                         " within " + std::to_string(*timeout) + " s");
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(pause));
    pause = std::min(2 * pause, 1e-3);
  }
}

}  // namespace

void send_bytes(const std::vector<std::byte>& bytes, MPI_Comm comm) {
  const std::uint64_t size = bytes.size();
  MPI_Request request = MPI_REQUEST_NULL;
  check(PMPI_Isend(&size, 1, MPI_UINT64_T, 0, tag_size, comm, &request), "MPI_Isend");
  complete(request, 0, "send of the report's size completed to");
  for (std::size_t at = 0; at < bytes.size(); at += chunk) {
    const int n = static_cast<int>(std::min(chunk, bytes.size() - at));
    check(PMPI_Isend(bytes.data() + at, n, MPI_BYTE, 0, tag_data, comm, &request), "MPI_Isend");
    complete(request, 0, "send of the report's records completed to");
  }
}

std::vector<std::byte> receive_bytes(int source, MPI_Comm comm) {
  std::uint64_t size = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  check(PMPI_Irecv(&size, 1, MPI_UINT64_T, source, tag_size, comm, &request), "MPI_Irecv");
  complete(request, source, "report records from");
  std::vector<std::byte> bytes(static_cast<std::size_t>(size));
  for (std::size_t at = 0; at < bytes.size(); at += chunk) {
    const int n = static_cast<int>(std::min(chunk, bytes.size() - at));
    check(PMPI_Irecv(bytes.data() + at, n, MPI_BYTE, source, tag_data, comm, &request), "MPI_Irecv");
    complete(request, source, "report records from");
  }
  return bytes;
}

}  // namespace ragged::pmpi::report
